"""Turn pyoxigraph query results into the backend-independent QueryResult."""

from __future__ import annotations

from pyoxigraph import QueryBoolean, QuerySolutions, QueryTriples

from hybridkg.semantic.base import QueryResult


def to_query_result(raw: object) -> QueryResult:
    if isinstance(raw, QuerySolutions):
        variables = tuple(v.value for v in raw.variables)
        rows = tuple(tuple(sol[i] for i in range(len(variables))) for sol in raw)
        return QueryResult(kind="select", variables=variables, rows=rows)
    if isinstance(raw, QueryBoolean):
        return QueryResult(kind="ask", boolean=bool(raw))
    if isinstance(raw, QueryTriples):
        return QueryResult(kind="graph", triples=tuple(raw))
    if isinstance(raw, bool):
        return QueryResult(kind="ask", boolean=raw)
    raise TypeError(f"unexpected query result type {type(raw).__name__}")
