"""Turn pyoxigraph query results into the backend-independent QueryResult."""

from __future__ import annotations

import functools
from typing import Any

from pyoxigraph import QueryBoolean, QueryResultsFormat, QuerySolutions, QueryTriples, RdfFormat

from hybridkg.semantic.base import QueryResult, QueryStream


def to_query_result(raw: object) -> QueryResult:
    if isinstance(raw, QuerySolutions):
        variables = tuple(v.value for v in raw.variables)
        rows = tuple(map(tuple, raw))
        return QueryResult(kind="select", variables=variables, rows=rows)
    if isinstance(raw, QueryBoolean):
        return QueryResult(kind="ask", boolean=bool(raw))
    if isinstance(raw, QueryTriples):
        return QueryResult(kind="graph", triples=tuple(raw))
    if isinstance(raw, bool):
        return QueryResult(kind="ask", boolean=raw)
    raise TypeError(f"unexpected query result type {type(raw).__name__}")


def to_query_stream(raw: object) -> QueryStream:
    """A lazy view of a pyoxigraph result (the store's snapshot was taken when the query started)."""
    if isinstance(raw, QuerySolutions):
        variables = tuple(v.value for v in raw.variables)
        # a solution iterates over its values in the order of the variables (None where unbound)
        return QueryStream(kind="select", variables=variables, items=map(tuple, raw),
                           write_native=functools.partial(_write, raw))
    if isinstance(raw, QueryBoolean | bool):
        return QueryStream(kind="ask", boolean=bool(raw))
    if isinstance(raw, QueryTriples):
        return QueryStream(kind="graph", items=iter(raw),
                           write_native=functools.partial(_write, raw))
    raise TypeError(f"unexpected query result type {type(raw).__name__}")


def stream_of(result: QueryResult) -> QueryStream:
    """A stream over a result that is already in memory (backends that cannot stream)."""
    items = iter(result.rows) if result.kind == "select" else iter(result.triples)
    return QueryStream(kind=result.kind, variables=result.variables, boolean=result.boolean, items=items)


_NATIVE_FORMATS = {"tsv": QueryResultsFormat.TSV, "json": QueryResultsFormat.JSON, "xml": QueryResultsFormat.XML,
                   "ntriples": RdfFormat.N_TRIPLES}


def _write(raw: Any, output: Any, fmt: str) -> None:
    raw.serialize(output, format=_NATIVE_FORMATS[fmt])
