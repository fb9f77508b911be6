"""Solution modifiers (SPARQL 1.1 §15): projection, ORDER BY, DISTINCT, OFFSET/LIMIT, as the final ``RETURN`` of
a query or sub-SELECT.

ORDER BY follows SPARQL's order of terms (§15.1; between literal classes as Oxigraph orders them): unbound, blank
nodes, IRIs, then numbers, plain strings, booleans; each key is a rank and a value, so Cypher never compares
values of different types. An encoded literal in a key stops the statement (see ``functions``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rdflib import Variable

from hybridkg.bridge.sparql_to_cypher import emit, encoded
from hybridkg.bridge.sparql_to_cypher.functions import VALUES, Compiler, EKind, Expr
from hybridkg.bridge.sparql_to_cypher.query import BNODE_TAG, IRI_TAG, LITERAL_TAG, Sort
from hybridkg.bridge.sparql_to_cypher.scope import Scope, carried, cypher, expr_vars, merge
from hybridkg.errors import Unsupported

if TYPE_CHECKING:
    from hybridkg.bridge.sparql_to_cypher.plan import Planner


@dataclass
class Solution:
    columns: list[str]
    scope: Scope
    distinct: bool = False
    keys: list[tuple[str, bool]] = field(default_factory=list)  # (Cypher key variable, descending)
    start: int = 0
    length: int | None = None
    tag: str = "_t"  # prefix of the extra type columns (fresh per sub-SELECT: they join the outer row)

    def returns(self, items: list[str]) -> str:
        """The ``RETURN`` clause projecting ``items`` (plus the ordering keys, and with DISTINCT each value's type:
        Cypher's DISTINCT takes ``1`` and ``1.0`` for one value, SPARQL's two terms)."""
        types = [
            f"typeOf({cypher(c)}) AS {self.tag}_{i}"
            for i, c in enumerate(self.columns)
            if self.distinct and c in self.scope and self.scope[c].sort is Sort.VALUE
        ]
        text = "RETURN " + ("DISTINCT " if self.distinct else "")
        text += ", ".join([*items, *types, *(k for k, _ in self.keys)] or ["true AS _u"])
        if self.keys:
            text += " ORDER BY " + ", ".join(k + (" DESC" if desc else "") for k, desc in self.keys)
        if self.start:
            text += f" SKIP {int(self.start)}"
        if self.length is not None:
            text += f" LIMIT {int(self.length)}"
        return text


def solution(planner: Planner, node: Any, row: Scope, out: list[str], *, correlated: bool = False) -> Solution:
    """Append the clauses of a query's pattern and ORDER BY; the :class:`Solution` says how to return it."""
    start, length = 0, None
    if node.name == "Slice":
        start, length = node.start or 0, node.length
        node = node.p
        if correlated:
            raise Unsupported("LIMIT/OFFSET in a sub-SELECT sharing variables with its outer pattern")
    distinct = node.name in ("Distinct", "Reduced")
    if distinct:
        node = node.p
    if node.name != "Project":
        raise Unsupported(f"a query shaped {node.name}")
    columns = [str(v) for v in node.PV]
    node = node.p
    conditions: list[Any] = []
    if node.name == "OrderBy":
        conditions = list(node.expr)
        node = node.p
    own = planner.pattern(node, row, out)
    sol = Solution(columns, merge(row, own), distinct, [], start, length, planner.fresh("t"))
    if conditions:
        temps: list[str] = []
        comp = planner.compiler(own, out, temps)
        items: list[str] = []
        for c in conditions:
            expr, desc = (c.expr, c.order == "DESC") if getattr(c, "name", "") == "OrderCondition" else (c, False)
            if distinct and not expr_vars(expr) <= set(columns):
                raise Unsupported("ORDER BY an expression of unprojected variables with DISTINCT")
            term = isinstance(expr, Variable) and str(expr) in own and own[str(expr)].sort is Sort.TERM
            for key in term_order_keys(comp, str(expr)) if term else order_keys(comp, comp.compile(expr)):
                k = planner.fresh("k")
                items.append(f"{key} AS {k}")
                sol.keys.append((k, desc))
        comp.flush(out, *items)
        out.append(emit.with_clause(carried(sol.scope), [*temps, *items]))
    return sol


def term_order_keys(comp: Compiler, var: str) -> list[str]:
    """A term of unknown kind (a tagged list): unbound, blank nodes, IRIs, then literals as values are ordered."""
    x = cypher(var)
    value_rank, value = order_keys(comp, comp.compile(Variable(var)))  # its literal's value, x[2]
    rank = (
        f"CASE WHEN {x} IS NULL THEN 0 WHEN {x}[0] = '{BNODE_TAG}' THEN 1 WHEN {x}[0] = '{IRI_TAG}' THEN 2 "
        f"ELSE {value_rank} END"
    )
    return [rank, f"CASE WHEN {x}[0] <> '{LITERAL_TAG}' THEN {x}[1] END", value]


def order_keys(comp: Compiler, x: Expr) -> list[str]:
    if x.kind is EKind.NULL:
        return []
    if x.kind is EKind.NODE:
        rank = f"CASE WHEN {x.text} IS NULL THEN 0 WHEN {emit.is_bnode(x.text)} THEN 1 ELSE 2 END"
        return [rank, emit.uri_of(x.text), emit.bnode_of(x.text)]
    if x.kind is EKind.IRI:
        return [f"CASE WHEN {x.text} IS NULL THEN 0 ELSE 2 END", x.text]
    if x.kind is EKind.VALUE and comp.encoding is not None:
        # numbers and exact decimals by value, then plain strings, then booleans; other encoded literals stop
        k, number, _ = encoded.value_parts(comp, x)
        rank = f"CASE WHEN {x.text} IS NULL THEN 0 WHEN {k} IN ['n', 'd'] THEN 3 WHEN {k} = 's' THEN 4 ELSE 5 END"
        stop = comp.refusal(f"{k} IN ['x', 'l', 'o']")
        return [comp.guarded(stop, rank), f"coalesce({number}, {x.text})"]
    if x.kind in VALUES:
        t = f"typeOf({x.text})"
        rank = (
            f"CASE WHEN {x.text} IS NULL THEN 0 WHEN {t} IN ['Integer', 'Float'] THEN 3 "
            f"WHEN {t} = 'String' THEN 4 ELSE 5 END"
        )
        return [comp.guarded(comp.guard(x), rank), x.text]
    return []
