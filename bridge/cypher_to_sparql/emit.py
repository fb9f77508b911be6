"""SPARQL text for the Cypher -> SPARQL translator: a small algebra (groups, OPTIONAL, UNION, sub-selects), its
rendering, the one escaping function for terms, and the SPARQL expressions that give Cypher's value semantics.

Cypher sees a literal as the property value ``bridge.mapping.values.to_value`` makes of it: a native integer, float
or boolean when the literal is canonical, else a string (the literal's lexical form for a plain string, an encoding
starting with U+E000 for every other literal). :func:`num`, :func:`boolean`, :func:`strish` and :func:`enc` compute
that view inside SPARQL, so comparisons, string predicates and ORDER BY follow Cypher, not SPARQL
(SPARQL 1.1 §17.3 operator mapping, §15.1 ordering; openCypher 9 "Comparability and equality", "Ordering").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pyoxigraph import BlankNode, Literal, NamedNode

from hybridkg.bridge.mapping.values import INT64, MARK

RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
XSD = "http://www.w3.org/2001/XMLSchema#"

#: An expression whose evaluation is an error: SPARQL's stand-in for Cypher's null.
NULL = f'<{XSD}integer>("")'
TRUE = "true"
FALSE = "false"


def term(t: NamedNode | BlankNode | Literal) -> str:
    """The one escaping function: a pyoxigraph term in SPARQL (N-Triples) syntax."""
    if isinstance(t, BlankNode):
        raise ValueError("blank nodes are not query constants")
    return str(t)


def string(s: str) -> str:
    return term(Literal(s))


# -- the algebra ---------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Triple:
    s: str
    p: str
    o: str


@dataclass(slots=True)
class Filter:
    expr: str


@dataclass(slots=True)
class Bind:
    expr: str
    var: str


@dataclass(slots=True)
class Values:
    var: str
    terms: list[str | None]  # None: UNDEF


@dataclass(slots=True)
class Group:
    items: list[Element] = field(default_factory=list)


@dataclass(slots=True)
class Optional:
    group: Group


@dataclass(slots=True)
class Union:
    groups: list[Group]


@dataclass(slots=True)
class Select:
    projection: list[tuple[str, str]]  # (expression, variable); expression == variable: the variable itself
    where: Group
    distinct: bool = False
    group_by: list[str] = field(default_factory=list)
    order: list[str] = field(default_factory=list)
    offset: int | None = None
    limit: int | None = None


Element = Triple | Filter | Bind | Values | Group | Optional | Union | Select


def render(select: Select) -> str:
    return "\n".join(_select(select, 0))


def _select(q: Select, depth: int) -> list[str]:
    pad = "  " * depth
    cols = " ".join(v if e == v else f"({e} AS {v})" for e, v in q.projection) or "*"
    lines = [f"{pad}SELECT {'DISTINCT ' if q.distinct else ''}{cols} WHERE {{"]
    lines += _items(q.where.items, depth + 1)
    tail = f"{pad}}}"
    if q.group_by:
        tail += " GROUP BY " + " ".join(q.group_by)
    if q.order:
        tail += " ORDER BY " + " ".join(q.order)
    if q.offset:
        tail += f" OFFSET {q.offset}"
    if q.limit is not None:
        tail += f" LIMIT {q.limit}"
    return [*lines, tail]


def _items(items: Sequence[Element], depth: int) -> list[str]:
    pad = "  " * depth
    out: list[str] = []
    for it in items:
        match it:
            case Triple(s, p, o):
                out.append(f"{pad}{s} {p} {o} .")
            case Filter(e):
                out.append(f"{pad}FILTER({e})")
            case Bind(e, v):
                out.append(f"{pad}BIND({e} AS {v})")
            case Values(v, ts):
                out.append(f"{pad}VALUES {v} {{ {' '.join('UNDEF' if t is None else t for t in ts)} }}")
            case Group(inner):
                out += [f"{pad}{{", *_items(inner, depth + 1), f"{pad}}}"]
            case Optional(g):
                out += [f"{pad}OPTIONAL {{", *_items(g.items, depth + 1), f"{pad}}}"]
            case Union(gs):
                for i, g in enumerate(gs):
                    out += [f"{pad}{'UNION ' if i else ''}{{", *_items(g.items, depth + 1), f"{pad}}}"]
            case Select():
                out += [f"{pad}{{", *_select(it, depth + 1), f"{pad}}}"]
    return out


# -- Cypher's view of literals ---------------------------------------------------------------------------------------


def num(x: str) -> str:
    """``x`` is a native Cypher number: an ``xsd:integer`` within int64 or a finite ``xsd:double`` other than -0
    (values.py's natives; the store keeps numbers as values, so their lexical forms are the store's canonical ones)."""
    d = f"<{XSD}double>"
    return (
        f"((DATATYPE({x}) = <{XSD}integer> && {x} >= {INT64[0] + 1} - 1 && {x} <= {INT64[1]})"
        f' || (DATATYPE({x}) = {d} && {x} = {x} && ABS({x}) < "INF"^^{d} && !({x} = 0 && STRSTARTS(STR({x}), "-"))))'
    )


def boolean(x: str) -> str:
    return f"(DATATYPE({x}) = <{XSD}boolean>)"


def strish(x: str) -> str:
    """``x`` is a string in Cypher: any literal that is not a native number or boolean."""
    return f"(isLiteral({x}) && !{num(x)} && !{boolean(x)})"


def enc(x: str) -> str:
    """The Cypher string that stands for literal ``x`` (``to_value``'s encoding; meaningful when :func:`strish`)."""
    m = string(MARK)
    return (
        f'IF(LANG({x}) != "", CONCAT({m}, "@", LANG({x}), " ", STR({x})), '
        f"IF(DATATYPE({x}) = <{XSD}string>, IF(STRSTARTS(STR({x}), {m}), CONCAT({m}, {string(chr(34))}, STR({x})), "
        f'STR({x})), CONCAT({m}, "^", STR(DATATYPE({x})), " ", STR({x}))))'
    )


def same_value(x: str) -> str:
    """A key equal for values Cypher takes for one: an integral double is its integer (``1.0`` is ``1``)."""
    d = f"DATATYPE({x}) = <{XSD}double> && {x} = FLOOR({x}) && ABS({x}) < 9.2E18"
    return f"IF({num(x)} && {d}, <{XSD}integer>({x}), {x})"


def rank(x: str) -> str:
    """Cypher's ascending order of kinds: strings, booleans, numbers, null (openCypher 9, "Ordering")."""
    return f"IF(!BOUND({x}), 3, IF({num(x)}, 2, IF({boolean(x)}, 1, 0)))"


def sort_value(x: str) -> str:
    return f"IF({strish(x)}, {enc(x)}, {x})"
