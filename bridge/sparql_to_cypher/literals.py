"""Encoded literals the translator can still compare exactly: what the mapping's encoding (``Mapping.to_value``)
tells about a String value that is not a plain string's (docs/bridge.md §1.4).

The encoding is read off the mapping itself (:func:`encoding`): values of ``xsd:decimal`` literals are a fixed
prefix and the lexical form, language-tagged ones a fixed head, the tag, a separator and the lexical form, other
typed ones a fixed head, the datatype IRI, a separator and the lexical form. A mapping whose values do not look so
gets ``None``, and every encoded value stops the statement as before. With it, a value's class
(:meth:`Encoding.klass`, a one-letter Cypher string) is:

* ``'n'`` a native number, ``'s'`` a plain string, ``'b'`` a boolean;
* ``'d'`` an ``xsd:decimal`` whose lexical form is valid, has at most 15 significant digits and an integer part of
  at most 15 digits: its value is ``toFloat`` of the lexical form (:meth:`Encoding.number`), and the comparisons
  SPARQL makes with it come out exactly (two decimals of at most 15 significant digits are two distinct doubles in
  the same order; an integer past 10^15 is past every such decimal either way; against an xsd:double SPARQL
  itself promotes the decimal to double);
* ``'l'`` a language-tagged string: equal (``=``) to another exactly when the value is the same (tags are stored
  lower-cased), unequal to every other literal;
* ``'o'`` a literal of a datatype outside the XSD and RDF namespaces, which SPARQL engines cannot see into: equal to
  the same term, an error against any other literal but a language-tagged one (unequal), as Oxigraph answers;
* ``'x'`` anything else (a date, an xsd:float, a decimal past 15 digits, a non-canonical number...): the statement
  stops where one is compared (``emit.refuse_if``).

Only ``STARTS WITH``, ``substring`` after a fixed prefix (with an explicit length: :meth:`Encoding.lexical`),
``toFloat`` and a regex on the lexical form are used.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pyoxigraph as ox

from hybridkg.bridge.base import Mapping

if TYPE_CHECKING:
    from hybridkg.bridge.sparql_to_cypher.emit import Params

XSD_NS = "http://www.w3.org/2001/XMLSchema#"
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
XSD_DECIMAL = XSD_NS + "decimal"

#: A valid xsd:decimal lexical form.
DECIMAL_LEXICAL = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)\z"
#: ... with at most 15 digits after leading zeros, ignoring trailing zeros after the point (so at most 15
#: significant digits, and an integer part below 10^15).
DECIMAL_EXACT = r"^[+-]?0*(" + "|".join(rf"[0-9]{{{a}}}(\.[0-9]{{0,{15 - a}}}0*)?" for a in range(16)) + r")\z"


@dataclass(frozen=True)
class Encoding:
    decimal: str  # the prefix of an xsd:decimal value, before its lexical form
    lang: str  # the head of a language-tagged value, before its tag
    typed: str  # the head of a typed value, before its datatype IRI
    lang_sep: str  # what ends the tag
    typed_sep: str  # what ends the datatype IRI

    def lang_regex(self) -> str:
        """A regex (RE2) matching a language-tagged value: groups 1 and 2 are its tag and lexical form."""
        return _parts_regex(self.lang, self.lang_sep)

    def typed_regex(self) -> str:
        """A regex matching a typed value (and, where the heads overlap, a language-tagged one: test that first):
        groups 1 and 2 are its datatype IRI and lexical form."""
        return _parts_regex(self.typed, self.typed_sep)

    def tagged(self, tag: str, lexical: str, params: Params) -> str:
        """The value of the language-tagged literal with the tag and lexical form of the Cypher strings given."""
        return f"({params.add(self.lang)} + {tag} + {params.add(self.lang_sep)} + {lexical})"

    def typed_prefix(self, datatype: str) -> str:
        return self.typed + datatype + self.typed_sep

    def lexical(self, s: str, params: Params) -> str:
        """What follows the decimal prefix in the string ``s`` (never null: ``coalesce(toString(x), '')``); its
        length is explicit (FalkorDB's two-argument ``substring`` of a non-ASCII string sometimes cut the end off:
        ``70.5`` read ``70`` after a few dozen other statements on the server; the three-argument form did not) and
        never negative (an error, and CASE evaluates every branch on every value), and the read never leaves the
        string."""
        dec = params.add(self.decimal)
        # padded with the prefix twice: for a string shorter than the prefix (evaluated all the same: CASE) the
        # read stays inside the string; a read past the end of a non-ASCII string once brought FalkorDB down
        return f"substring({s} + {dec} + {dec}, size({dec}), abs(size({s}) - size({dec})))"

    def klass(self, x: str, s: str, lexical: str, plain: str, params: Params) -> str:
        """The class of the value ``x`` (a Cypher expression; see the module doc), null when ``x`` is; ``s`` is
        ``coalesce(toString(x), '')``, ``lexical`` :meth:`lexical` of it, ``plain`` the mapping's plain-string test
        of ``s``."""
        dec, lang = params.add(self.decimal), params.add(self.lang)
        typed, xsd, rdf = params.add(self.typed), params.add(self.typed + XSD_NS), params.add(self.typed + RDF_NS)
        valid, exact = params.add(DECIMAL_LEXICAL), params.add(DECIMAL_EXACT)
        return (
            f"(CASE WHEN {x} IS NULL THEN null WHEN typeOf({x}) IN ['Integer', 'Float'] THEN 'n' "
            f"WHEN typeOf({x}) = 'Boolean' THEN 'b' WHEN typeOf({x}) <> 'String' THEN 'x' WHEN {plain} THEN 's' "
            f"WHEN {s} STARTS WITH {lang} THEN 'l' "
            f"WHEN {s} STARTS WITH {dec} AND size(string.matchRegEx({lexical}, {valid})) > 0 "
            f"AND size(string.matchRegEx({lexical}, {exact})) > 0 THEN 'd' "
            f"WHEN {s} STARTS WITH {typed} AND NOT {s} STARTS WITH {xsd} AND NOT {s} STARTS WITH {rdf} THEN 'o' "
            f"ELSE 'x' END)"
        )

    @staticmethod
    def number(x: str, klass: str, lexical: str) -> str:
        """The numeric value of ``x`` of class ``klass`` (``'n'`` or ``'d'``, with its :meth:`lexical`), else null."""
        return f"(CASE {klass} WHEN 'n' THEN {x} WHEN 'd' THEN toFloat({lexical}) END)"


def encoding(mapping: Mapping) -> Encoding | None:
    """The mapping's encoding of decimals, language-tagged and typed literals, read from ``to_value`` on a few
    literals; ``None`` when it is not a prefix followed by the lexical form."""
    decimal = _prefix(mapping, lambda lex: ox.Literal(lex, datatype=ox.NamedNode(XSD_DECIMAL)))
    lang = _head(mapping, [(t, ox.Literal("0", language=t)) for t in ("en", "fr")])
    typed = _head(mapping, [(d, ox.Literal("0", datatype=ox.NamedNode(d))) for d in ("http://a.example/A", "urn:b:B")])
    if decimal is None or lang is None or typed is None or not lang[0] or not typed[0]:
        return None
    lang_head, lang_sep = lang
    typed_head, typed_sep = typed
    if decimal != typed_head + XSD_DECIMAL + typed_sep or lang_head.startswith(typed_head + "http"):
        return None
    return Encoding(decimal, lang_head, typed_head, lang_sep, typed_sep)


def _parts_regex(head: str, sep: str) -> str:
    return "(?s)^" + re.escape(head) + "([^" + re.escape(sep) + "]*)" + re.escape(sep) + r"(.*)\z"


def _prefix(mapping: Mapping, make: Callable[[str], ox.Literal]) -> str | None:
    try:
        a, b = mapping.to_value(make("0")), mapping.to_value(make("10"))
    except Exception:  # noqa: BLE001 - a mapping refusing these literals has no usable encoding
        return None
    if not isinstance(a, str) or not isinstance(b, str) or not a.endswith("0") or b != a[:-1] + "10":
        return None
    return a[:-1]


def _head(mapping: Mapping, cases: list[tuple[str, ox.Literal]]) -> tuple[str, str] | None:
    """The common head and separator of the values of ``cases`` (each: the name it holds, the literal), when each
    value is the head, the name, one separator (the same for all, one character) and the lexical form ``0``."""
    try:
        values = [mapping.to_value(lit) for _, lit in cases]
    except Exception:  # noqa: BLE001
        return None
    if not all(isinstance(v, str) and v.endswith("0") for v in values):
        return None
    strs = [str(v)[:-1] for v in values]
    head = os.path.commonprefix(strs)
    seps = {s[len(head) + len(name) :] for s, (name, _) in zip(strs, cases, strict=True)}
    if any(not s[len(head) :].startswith(name) for s, (name, _) in zip(strs, cases, strict=True)):
        return None
    sep = seps.pop() if len(seps) == 1 else ""
    return (head, sep) if len(sep) == 1 else None
