"""Literals as property values and back (``docs/bridge.md`` §1.4): :func:`to_value` and its inverse :func:`to_literal`.

Natives: a plain ``xsd:string`` is a ``str``; an ``xsd:integer`` in canonical form within int64 an ``int``; an
``xsd:double`` in the form the RDF store gives it (:func:`double_lexical`: Oxigraph keeps a double as its value and
writes it with the shortest digits that read back the same, without exponent: ``1.5``, ``-0.001``, ``0``,
``100000000000000000000``; finite, not ``-0``, and at most 15 significant digits: FalkorDB's replies carry no
more, so ``0.30000000000000004`` would read back as ``0.3``) a ``float``; an ``xsd:boolean`` in canonical form
(``true``/``false``) a ``bool``. So what the sync maps from the store (every ``"1.5E0"^^xsd:double`` written comes
back ``"1.5"``) is numbers, which Cypher compares and sums; a double written otherwise (``1.5E0``, ``1.50``,
``NaN``) or with more digits is kept as written, encoded, so that mapping it and back gives the same literal.

Every other literal is a string in an encoding that starts with :data:`MARK` (U+E000, a private-use character)
followed by one tag character:

* ``MARK + "@" + language + " " + lexical`` for a language-tagged string (``language`` is ``en--rtl`` when the
  literal has an RDF 1.2 base direction; a language tag holds no space);
* ``MARK + "^" + datatype IRI + " " + lexical`` for any other datatype or a non-canonical lexical form (an IRI
  holds no space);
* ``MARK + '"' + lexical`` for a plain string that itself starts with :data:`MARK`.

So an encoded value never equals the value of a plain string (those start with :data:`MARK` only when encoded
themselves), Cypher equality with a plain string cannot match a tagged or typed literal, and
``to_literal(to_value(l)) == l`` for every literal.
"""

from __future__ import annotations

import math
import re

from pyoxigraph import BaseDirection, Literal, NamedNode

from hybridkg.bridge.base import Value
from hybridkg.errors import InvalidInput

MARK = "\ue000"
XSD = "http://www.w3.org/2001/XMLSchema#"
XSD_STRING = NamedNode(XSD + "string")
XSD_INTEGER = NamedNode(XSD + "integer")
XSD_DOUBLE = NamedNode(XSD + "double")
XSD_BOOLEAN = NamedNode(XSD + "boolean")
INT64 = (-(2**63), 2**63 - 1)
_CANONICAL_INTEGER = re.compile(r"^(0|-?[1-9][0-9]*)\Z", re.ASCII)
_DIRECTIONS = {"ltr": BaseDirection.LTR, "rtl": BaseDirection.RTL}


def double_lexical(value: float) -> str:
    """The lexical form the RDF store (Oxigraph) gives the double ``value``: ``"1.5"``, ``"100000000000000000000"``,
    ``"0.0000001"``, ``"-0"``, ``"NaN"``, ``"INF"`` (not XSD 1.1's canonical ``1.5E0``)."""
    return Literal(value).value


def _native(lexical: str, datatype: NamedNode) -> Value | None:
    if datatype == XSD_INTEGER:
        if _CANONICAL_INTEGER.match(lexical):
            n = int(lexical)
            if INT64[0] <= n <= INT64[1]:
                return n
        return None
    if datatype == XSD_DOUBLE:
        try:
            f = float(lexical)
        except ValueError:
            return None
        if not math.isfinite(f) or math.copysign(1.0, f) < 0 and f == 0:
            return None  # -0.0 = 0.0 in Cypher: the two literals would compare equal as natives
        if double_lexical(f) != lexical or float(f"{f:.15g}") != f:
            return None  # the second: FalkorDB replies with 15 significant digits (0.30000000000000004 reads 0.3)
        return f
    if datatype == XSD_BOOLEAN:
        return {"true": True, "false": False}.get(lexical)
    return None


def to_value(literal: Literal) -> Value:
    """The property value that stands for ``literal``."""
    lexical, datatype = literal.value, literal.datatype
    if literal.language is not None:
        tag = literal.language
        if literal.direction is not None:
            tag += "--" + ("rtl" if literal.direction == BaseDirection.RTL else "ltr")
        return f"{MARK}@{tag} {lexical}"
    if datatype == XSD_STRING:
        return MARK + '"' + lexical if lexical.startswith(MARK) else lexical
    native = _native(lexical, datatype)
    return native if native is not None else f"{MARK}^{datatype.value} {lexical}"


def to_literal(value: Value) -> Literal:
    """The literal ``value`` stands for (inverse of :func:`to_value`); :class:`InvalidInput` for a value that
    :func:`to_value` cannot produce (a malformed encoding, a non-finite float)."""
    if isinstance(value, bool):
        return Literal("true" if value else "false", datatype=XSD_BOOLEAN)
    if isinstance(value, int):
        if not INT64[0] <= value <= INT64[1]:
            raise InvalidInput(f"integer property value {value} is outside int64")
        return Literal(str(value), datatype=XSD_INTEGER)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInput(f"float property value {value} is not finite")
        return Literal(double_lexical(value), datatype=XSD_DOUBLE)
    if not isinstance(value, str):
        raise InvalidInput(f"a property value of type {type(value).__name__} stands for no literal")
    if not value.startswith(MARK):
        return Literal(value)
    tag, body = value[1:2], value[2:]
    if tag == '"':
        return Literal(value[2:])
    head, sep, lexical = body.partition(" ")
    if tag == "@" and sep and head:
        lang, _, direction = head.partition("--")
        if direction:
            if direction not in _DIRECTIONS:
                raise InvalidInput(f"encoded literal {value!r} has an unknown base direction {direction!r}")
            return Literal(lexical, language=lang, direction=_DIRECTIONS[direction])
        return Literal(lexical, language=lang)
    if tag == "^" and sep and head:
        return Literal(lexical, datatype=NamedNode(head))
    raise InvalidInput(f"property value {value!r} starts with U+E000 but is not an encoded literal")
