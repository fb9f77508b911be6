"""``collect()``: a Cypher list in one SPARQL string, and back (:func:`decode_list`).

No SPARQL term holds a list, so ``collect(x)`` is ``GROUP_CONCAT`` of one string per non-null ``x``: :data:`ITEM`
then the term's encoding (``<`` + IRI; ``_:`` for a blank node; for a literal, the typed encoding of
``bridge.mapping.values`` that ``to_literal`` reads: U+E000 ``@lang lexical`` or U+E000 ``^datatype lexical``).
A U+E001 inside a term is written U+E001 U+E002, so :data:`ITEM` never occurs inside one. Cypher leaves the order of
``collect`` unspecified; so does this.
"""

from __future__ import annotations

from pyoxigraph import BlankNode, Literal, NamedNode

from hybridkg.bridge.cypher_to_sparql import emit
from hybridkg.bridge.mapping.values import MARK, to_literal

ESCAPE = "\ue001"
ITEM = ESCAPE + "\ue003"
_QUOTED = ESCAPE + "\ue002"


def encode(x: str) -> str:
    """The SPARQL expression of the encoding of the term in variable ``x`` (an error when ``x`` is unbound)."""
    m = emit.string(MARK)

    def esc(s: str) -> str:
        return f"REPLACE({s}, {emit.string(ESCAPE)}, {emit.string(_QUOTED)})"

    literal = (
        f'IF(LANG({x}) != "", CONCAT({m}, "@", LANG({x}), " ", {esc(f"STR({x})")}), '
        f'CONCAT({m}, "^", STR(DATATYPE({x})), " ", {esc(f"STR({x})")}))'
    )
    body = f'IF(isIRI({x}), CONCAT("<", {esc(f"STR({x})")}), IF(isBlank({x}), "_:", {literal}))'
    return f"CONCAT({emit.string(ITEM)}, {body})"


def aggregate(var: str) -> str:
    """``GROUP_CONCAT`` of the encodings bound (or left unbound, for null) in ``var``."""
    return f'GROUP_CONCAT(COALESCE({var}, ""); SEPARATOR="")'


def decode_list(value: Literal | str) -> list[NamedNode | BlankNode | Literal]:
    """The terms of a ``collect()`` column's value (a blank node is a fresh one: its identity is not kept)."""
    text = value.value if isinstance(value, Literal) else value
    out: list[NamedNode | BlankNode | Literal] = []
    for item in text.split(ITEM)[1:]:
        item = item.replace(_QUOTED, ESCAPE)
        if item.startswith("<"):
            out.append(NamedNode(item[1:]))
        elif item == "_:":
            out.append(BlankNode())
        else:
            out.append(to_literal(item))
    return out
