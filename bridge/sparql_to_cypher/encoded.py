"""String functions on encoded literals (``literals``' encoding, read off the mapping): a language-tagged or typed
value taken apart by one regex (``string.matchRegEx``, bound in a step) into its tag or datatype IRI and its
lexical form, and built back by concatenation (STRLANG, STRDT, and the tag a string function keeps: SPARQL 1.1
§17.4.3). Every result is the term Oxigraph gives: a language tag with a base direction (``en--ltr``), an
``xsd:string`` kept encoded and a STRDT the store would normalise stop the statement or are refused."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyoxigraph as ox
from rdflib import Literal, URIRef
from rdflib.namespace import XSD

from hybridkg.bridge.sparql_to_cypher.expr import NULL, XSD_BOOLEAN, XSD_DOUBLE, XSD_INTEGER, XSD_STRING, EKind, Expr
from hybridkg.bridge.sparql_to_cypher.literals import RDF_NS, XSD_NS
from hybridkg.errors import Unsupported

if TYPE_CHECKING:
    from hybridkg.bridge.sparql_to_cypher.functions import Compiler

RDF_LANG_STRING = RDF_NS + "langString"
_SIMPLE_TAG = re.compile(r"[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*\Z")


@dataclass(frozen=True)
class Parts:
    s: str  # the value's string (``''`` for null)
    plain: str  # whether it is a plain string
    lang: str  # whether it is a language-tagged string (then ``lm[0][1]`` is its tag, ``lm[0][2]`` its lexical form)
    lm: str
    tm: str  # its match as a typed value (``tm[0][1]`` the datatype IRI; test ``lang`` first)


def parts(c: Compiler, x: Expr) -> Parts:
    """The parts of the value ``x``, the string and matches each bound in a step."""
    from hybridkg.bridge.sparql_to_cypher.functions import PlainStrings

    enc = c.encoding
    assert enc is not None
    assert isinstance(c.mapping, PlainStrings)
    s = c.bind(f"coalesce(toString({x.text}), '')")
    lm = c.bind(f"string.matchRegEx({s}, {c.params.add(enc.lang_regex())})")
    tm = c.bind(f"string.matchRegEx({s}, {c.params.add(enc.typed_regex())})")
    is_str = f"typeOf({x.text}) = 'String'"
    plain = f"({is_str} AND {c.mapping.plain_string(s)})"
    return Parts(s, plain, f"({is_str} AND NOT {plain} AND size({lm}) > 0)", lm, tm)


def value_parts(c: Compiler, x: Expr) -> tuple[str, str, str]:
    """The class of a value operand (``literals``' one-letter classes: natives, exact decimals, language-tagged,
    opaque, other), its number (an exact decimal's ``toFloat``; null unless of class ``'n'`` or ``'d'``) and an
    exact decimal's lexical form, each bound in a step (the string and lexical form first, so that no step nests
    deeply); for an operand of static class, the class and the operand itself."""
    from hybridkg.bridge.sparql_to_cypher.functions import PlainStrings

    static = {EKind.NUM: "'n'", EKind.STR: "'s'", EKind.BOOL: "'b'"}
    if x.kind in static:
        return static[x.kind], x.text, "''"
    enc = c.encoding
    assert enc is not None
    s = c.bind(f"coalesce(toString({x.text}), '')")
    lexical = c.bind(enc.lexical(s, c.params))
    plain = c.mapping.plain_string(s) if isinstance(c.mapping, PlainStrings) else "false"
    klass = c.bind(enc.klass(x.text, s, lexical, plain, c.params))
    return klass, c.bind(enc.number(x.text, klass, lexical)), lexical


def equal(c: Compiler, a: Expr, b: Expr) -> Expr:
    """``=`` of values with encoded literals in reach: numbers and exact decimals by value, plain strings, booleans
    and language-tagged strings by value (a tag is part of it), opaque literals equal when the same term and an
    error against other literals but language-tagged ones; the statement stops on any other encoded literal.
    Different classes are unequal."""
    (ka, na, _), (kb, nb, _) = value_parts(c, a), value_parts(c, b)
    text = (
        f"(CASE WHEN {c.nulls(a, b)} THEN null WHEN {ka} IN ['n', 'd'] AND {kb} IN ['n', 'd'] THEN {na} = {nb} "
        f"WHEN {ka} = {kb} AND {ka} IN ['s', 'b', 'l'] THEN {a.text} = {b.text} "
        f"WHEN {ka} = 'o' AND {kb} = 'o' AND {a.text} = {b.text} THEN true "
        f"WHEN {ka} = 'o' AND {kb} <> 'l' OR {kb} = 'o' AND {ka} <> 'l' THEN null ELSE false END)"
    )
    return Expr(c.guarded(c.refusal(f"{ka} = 'x' OR {kb} = 'x'"), text), EKind.BOOL)


def order(c: Compiler, op: str, a: Expr, b: Expr) -> Expr:
    """``<`` and friends of values with encoded literals in reach: numbers and exact decimals by value, plain
    strings by code point; opaque literals an error; booleans, language-tagged strings and other encoded literals
    stop the statement."""
    (ka, na, _), (kb, nb, _) = value_parts(c, a), value_parts(c, b)
    text = (
        f"(CASE WHEN {ka} IN ['n', 'd'] AND {kb} IN ['n', 'd'] THEN {na} {op} {nb} "
        f"WHEN {ka} = 's' AND {kb} = 's' THEN {a.text} {op} {b.text} END)"
    )
    stop = f"{ka} IN ['x', 'l'] OR {kb} IN ['x', 'l'] OR {ka} = 'b' AND {kb} = 'b'"
    return Expr(c.guarded(c.refusal(stop), text), EKind.BOOL)


def string_parts(c: Compiler, x: Expr) -> tuple[str, str]:
    """The lexical form and tag (``''`` for none) of a plain or language-tagged string, null for any other value
    (an error for the string functions); an xsd:string kept encoded or a tag with a base direction stops the
    statement."""
    enc = c.encoding
    assert enc is not None
    p = parts(c, x)
    s, plain, lang, lm = p.s, p.plain, p.lang, p.lm
    lexical = f"(CASE WHEN {plain} THEN {s} WHEN {lang} THEN {lm}[0][2] END)"
    tag = c.bind(f"(CASE WHEN {plain} THEN '' WHEN {lang} THEN {lm}[0][1] END)")
    typed, string = c.params.add(enc.typed), c.params.add(enc.typed_prefix(XSD_STRING))
    stop = c.refusal(
        f"typeOf({x.text}) = 'String' AND NOT {plain} AND ({lang} AND {tag} CONTAINS '--' OR NOT {lang} AND "
        f"(NOT {s} STARTS WITH {typed} OR {s} STARTS WITH {string}))"
    )
    return c.bind(c.guarded(stop, lexical)), tag


def lang(c: Compiler, x: Expr) -> Expr:
    p = parts(c, x)
    text = f"(CASE WHEN {x.text} IS NULL THEN null WHEN {p.lang} THEN {p.lm}[0][1] ELSE '' END)"
    stop = c.refusal(f"{p.lang} AND {p.lm}[0][1] CONTAINS '--'")
    return Expr(c.guarded(stop, text), EKind.STR)


def str_(c: Compiler, x: Expr) -> Expr:
    """STR of a value: a plain string itself, an encoded literal's lexical form, an integer's or boolean's
    ``toString``, an integral double's below 10^15 as an integer (Oxigraph writes 1.0E0 as ``1``); another double
    (its shortest digits are not Cypher's ``toString``) and an xsd:string kept encoded stop the statement."""
    p = parts(c, x)
    s, plain, lang_, lm, tm = p.s, p.plain, p.lang, p.lm, p.tm
    t = f"typeOf({x.text})"
    typed = f"({t} = 'String' AND size({tm}) > 0)"
    fl = c.bind(f"(CASE WHEN {t} = 'Float' THEN {x.text} END)")
    text = (
        f"(CASE WHEN {x.text} IS NULL THEN null WHEN {plain} THEN {s} WHEN {lang_} THEN {lm}[0][2] "
        f"WHEN {typed} THEN {tm}[0][2] WHEN {t} IN ['Integer', 'Boolean'] THEN {s} "
        f"WHEN {fl} IS NOT NULL THEN toString(toInteger({fl})) END)"
    )
    # a double's lexical form in the store is its shortest digits (values.double_lexical); Cypher's toString
    # writes six decimals, so only integral doubles below 10^15 (written without a point) are translated
    stop = c.refusal(
        f"{fl} IS NOT NULL AND ({fl} <> floor({fl}) OR abs({fl}) >= 1.0e15) "
        f"OR {t} = 'String' AND NOT {plain} AND NOT {lang_} AND NOT {typed}"
    )
    return Expr(c.guarded(stop, text), EKind.STR)


def datatype(c: Compiler, x: Expr) -> Expr:
    parts_ = parts(c, x)
    plain, lang_, lm, tm = parts_.plain, parts_.lang, parts_.lm, parts_.tm
    t = f"typeOf({x.text})"
    p = c.params.add
    typed = f"({t} = 'String' AND size({tm}) > 0)"
    text = (
        f"(CASE WHEN {t} = 'Integer' THEN {p(XSD_INTEGER)} WHEN {t} = 'Float' THEN {p(XSD_DOUBLE)} "
        f"WHEN {t} = 'Boolean' THEN {p(XSD_BOOLEAN)} WHEN {plain} THEN {p(XSD_STRING)} "
        f"WHEN {lang_} THEN {p(RDF_LANG_STRING)} WHEN {typed} THEN {tm}[0][1] END)"
    )
    stop = c.refusal(
        f"{t} = 'String' AND NOT {plain} AND ({lang_} AND {lm}[0][1] CONTAINS '--' OR NOT {lang_} AND NOT {typed})"
    )
    return Expr(c.guarded(stop, text), EKind.IRI)


def retag(c: Compiler, tag: str, text: str) -> Expr:
    """The string ``text`` with the language tag ``tag`` (a plain string where the tag is ``''``)."""
    enc = c.encoding
    if tag == "''" or enc is None:  # without the encoding, strings are plain ones (the others stop the statement)
        return Expr(text, EKind.STR)
    return Expr(f"(CASE WHEN {tag} = '' THEN {text} ELSE {enc.tagged(tag, text, c.params)} END)", EKind.VALUE)


def strlang(c: Compiler, e: Any) -> Expr:
    """STRLANG of a plain string and a constant simple language tag (lower-cased, as Oxigraph keeps it)."""
    enc = c.encoding
    tag = e.arg2
    if not isinstance(tag, Literal) or tag.language or str(tag.datatype or XSD.string) != XSD_STRING:
        raise Unsupported("STRLANG with a tag other than a constant string")
    if not _SIMPLE_TAG.match(str(tag)):
        raise Unsupported(f"STRLANG with the tag {str(tag)!r} (only simple language tags are translated)")
    low = str(tag).lower()
    if enc is None or c.mapping.to_value(ox.Literal("x", language=low)) != enc.lang + low + enc.lang_sep + "x":
        raise Unsupported("STRLANG where the mapping's encoding of language-tagged strings is not known")
    got = c.string_parts(e.arg1)
    if got is None:
        return NULL
    lexical, t = got
    return Expr(f"(CASE WHEN {t} = '' THEN {enc.tagged(c.params.add(low), lexical, c.params)} END)", EKind.VALUE)


def strdt(c: Compiler, e: Any) -> Expr:
    """STRDT of a plain string and a constant datatype: xsd:string (the string itself) or a datatype outside the
    XSD and RDF namespaces (kept as written); others are refused (the store normalises ``"1.50"^^xsd:decimal`` to
    ``1.5``)."""
    enc = c.encoding
    iri = e.arg2
    if not isinstance(iri, URIRef):
        raise Unsupported("STRDT with a datatype other than a constant IRI")
    dt = str(iri)
    got = c.string_parts(e.arg1)
    if dt == XSD_STRING:
        return NULL if got is None else Expr(f"(CASE WHEN {got[1]} = '' THEN {got[0]} END)", EKind.STR)
    opaque = not dt.startswith((XSD_NS, RDF_NS)) and " " not in dt
    if (
        enc is None
        or not opaque
        or c.mapping.to_value(ox.Literal("x", datatype=ox.NamedNode(dt))) != (enc.typed_prefix(dt) + "x")
    ):
        raise Unsupported(f"STRDT to <{dt}> (only xsd:string and datatypes outside the XSD and RDF namespaces)")
    if got is None:
        return NULL
    lexical, t = got
    return Expr(f"(CASE WHEN {t} = '' THEN {c.params.add(enc.typed_prefix(dt))} + {lexical} END)", EKind.VALUE)


#: Oxigraph's canonical xsd:decimal lexical form (what the store gives back): no exponent, no leading zeros, no
#: trailing fraction zeros, no "-0"; an integral value without a point.
CANONICAL_DECIMAL = r"^(0|-?[1-9][0-9]*|-?0\.[0-9]*[1-9]|-?[1-9][0-9]*\.[0-9]*[1-9])\z"


def rounding(c: Compiler, x: Expr, fn: str) -> Expr:
    """ABS, CEIL, FLOOR, ROUND of a value, exact decimals included (``literals``): ABS of a decimal in canonical form
    is its lexical form without the sign; CEIL, FLOOR, ROUND (XPath: halves toward positive infinity) of one are the
    integer its double gives (exact below 10^15 with at most 15 significant digits), written as a decimal. Integers
    as before; a double stops CEIL, FLOOR and ROUND; other encoded literals stop the statement, other values are an
    error."""
    enc = c.encoding
    assert enc is not None
    k, number, lexical = value_parts(c, x)
    t = f"typeOf({x.text})"
    dec = c.params.add(enc.decimal)
    if fn == "abs":
        # two spare characters: evaluated on every row (CASE), '' included, the read stays inside the string
        tail = f"substring({lexical} + '  ', 1, abs(size({lexical}) - 1))"
        unsigned = f"(CASE WHEN {lexical} STARTS WITH '-' THEN {tail} ELSE {lexical} END)"
        canonical = c.params.add(CANONICAL_DECIMAL)
        native = f"WHEN {t} IN ['Integer', 'Float'] THEN abs({number})"
        decimal = f"{dec} + {c.bind(unsigned)}"
        stop = f"{k} = 'x' OR {k} = 'd' AND size(string.matchRegEx({lexical}, {canonical})) = 0"
    else:
        whole = {"ceil": f"ceil({number})", "floor": f"floor({number})", "round": f"floor({number} + 0.5)"}[fn]
        native = f"WHEN {t} = 'Integer' THEN {x.text}"
        integral = c.bind(f"(CASE {k} WHEN 'd' THEN {whole} END)")
        decimal = f"{dec} + toString(toInteger({integral}))"
        stop = f"{k} = 'x' OR {t} = 'Float'"
    text = f"(CASE {native} WHEN {k} = 'd' THEN {decimal} END)"
    return Expr(c.guarded(c.refusal(stop), text), EKind.VALUE)


def before_after(c: Compiler, e: Any, after: bool) -> Expr:
    """STRBEFORE, STRAFTER (SPARQL 1.1 §17.4.3.7-8): an error unless the arguments are compatible; where the second
    occurs in the first, the part before (after) its first occurrence with the first's tag, else ``""``. Through
    ``split`` (FalkorDB has no ``indexOf``) and a three-argument ``substring``."""
    a, b = c.string_parts(e.arg1), c.string_parts(e.arg2)
    if a is None or b is None:
        return NULL
    (la, ta), (lb, tb) = a, b
    la0, lb0 = c.bind(f"coalesce({la}, '')"), c.bind(f"coalesce({lb}, '')")
    before = c.bind(f"(CASE WHEN {lb0} = '' THEN '' ELSE split({la0}, {lb0})[0] END)")
    piece = substring(c, la0, c.bind(f"size({before}) + size({lb0})")) if after else before
    found = retag(c, ta, piece)
    text = (
        f"(CASE WHEN {la} IS NULL OR {lb} IS NULL OR NOT ({tb} = '' OR {ta} = {tb}) THEN null "
        f"WHEN {lb0} = '' OR {la0} CONTAINS {lb0} THEN {found.text} ELSE '' END)"
    )
    return Expr(text, found.kind)


def substring(c: Compiler, x: str, offset: str, length: str | None = None) -> str:
    """Cypher's ``substring(x, offset, length)`` (0-based, in code points), ``''`` past the end, null for null,
    never asking FalkorDB for characters past the end of the string: there, its ``substring`` of a non-ASCII
    string answered with other characters of it, or cut the end off (the two-argument form), on some runs."""
    n = c.bind(f"size(coalesce({x}, ''))")
    # CASE evaluates every branch on every row, so the substring below runs where the guard says '' too: its
    # offset and length are kept inside the string there as well (a read past the end once brought FalkorDB
    # down), and the string gets one more character so that the empty string is not read at 0
    o = c.bind(f"(CASE WHEN {offset} < {n} THEN {offset} ELSE 0 END)")
    rest = f"{n} - {o}"
    count = rest if length is None else f"(CASE WHEN {length} < {rest} THEN {length} ELSE {rest} END)"
    cut = f"substring({x} + ' ', {o}, (CASE WHEN {count} > 0 THEN {count} ELSE 0 END))"
    return f"(CASE WHEN {x} IS NULL THEN null WHEN {offset} >= {n} THEN '' ELSE {cut} END)"
