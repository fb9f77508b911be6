"""One SPARQL query for the HTTP endpoint: run through :meth:`Runtime.stream_query`, serialised on its worker
into the negotiated format, streamed to the client.

The first piece (the head and the first batch) is read before the response starts, so an error found by
then (a bad query, an unknown graph, no acceptable format) still gets its status; a later one (the row cap,
the deadline) can only cut the body short. A client that goes away trips the request's token and the
worker stops at its next row.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from hybridkg.server.runtime import CancelToken, QueryCursor, QuerySpec, Runtime
from hybridkg.server.sparql_results import JSON, NTRIPLES, TSV, XML, ResultFormat, writer_for


@dataclass(frozen=True)
class Started:
    """The query runs and its first piece is ready; ``format`` is None when no acceptable format fits."""

    kind: str
    format: ResultFormat | None
    pieces: AsyncIterator[bytes] | None


@dataclass(frozen=True)
class _Head:
    kind: str
    format: ResultFormat | None
    piece: bytes


#: Formats the store may write itself (QueryStream.write_native), by query kind and format name.
_NATIVE = {"select": {TSV.name: "tsv", JSON.name: "json", XML.name: "xml"}, "graph": {NTRIPLES.name: "ntriples"}}

#: Bytes per piece when the store writes the result itself.
CHUNK_BYTES = 64 << 10


def _serialise(cursor: QueryCursor, emit: Callable[[_Head | bytes], None],
               formats: dict[str, ResultFormat | None], rows: int) -> None:
    """On the query's worker: emit the result's kind and format with the first piece, then the other pieces."""
    fmt = formats[cursor.kind]
    if fmt is None:
        emit(_Head(cursor.kind, None, b""))
        return
    pieces: list[bytes] = []  # the first piece, until it goes out with the head

    def first(piece: bytes) -> None:
        if pieces:
            emit(piece)
        else:
            pieces.append(piece)
            emit(_Head(cursor.kind, fmt, piece))

    native = _NATIVE.get(cursor.kind, {}).get(fmt.name)
    if native is not None and cursor.write_native(first, native, chunk_bytes=CHUNK_BYTES):
        if not pieces:
            emit(_Head(cursor.kind, fmt, b""))
        return
    writer = writer_for(fmt, cursor.kind, cursor.variables, cursor.boolean)
    batch = cursor.next_batch(rows)
    piece = writer.head() + (writer.batch(batch) if batch else b"")
    if cursor.done:
        emit(_Head(cursor.kind, fmt, piece + writer.tail()))
        return
    emit(_Head(cursor.kind, fmt, piece))
    while batch := cursor.next_batch(rows):
        emit(writer.batch(batch))
    emit(writer.tail())


async def start_query(runtime: Runtime, spec: QuerySpec, formats: dict[str, ResultFormat | None],
                      token: CancelToken) -> Started:
    """Start the query and wait for its first piece; errors until then are raised here."""
    rows = max(runtime.settings.server.batch_rows, 1)
    stream = runtime.stream_query(spec, functools.partial(_serialise, formats=formats, rows=rows), token=token)
    try:
        head = await anext(stream)
    except BaseException:
        await stream.aclose()
        raise
    if not isinstance(head, _Head) or head.format is None:
        await stream.aclose()
        return Started(head.kind if isinstance(head, _Head) else "select", None, None)

    async def pieces() -> AsyncIterator[bytes]:
        async with contextlib.aclosing(stream):
            yield head.piece
            async for piece in stream:
                if isinstance(piece, bytes) and piece:
                    yield piece

    return Started(head.kind, head.format, pieces())


# --------------------------------------------------------------------------- engine=cypher


def _cypher_result(runtime: Runtime, query: str, formats: dict[str, ResultFormat | None], rows: int,
                   token: CancelToken) -> tuple[_Head, list[bytes]]:
    """On a worker: translate the SPARQL query into Cypher over the whole store's bridge graph, run it, map the rows
    back to terms (``CypherQuery.terms``) and serialise them as the SPARQL path would (same writers, row cap)."""
    from hybridkg.bridge.queries import Language, names_of_sync, read_only, translate
    from hybridkg.bridge.sparql_to_cypher import RUNTIME_REFUSAL, Kind
    from hybridkg.errors import InvalidInput, InvalidQuery, Unsupported
    from hybridkg.semantic.base import QueryStream

    if not query.strip():
        raise InvalidInput("the query is empty")
    token.check()
    sync = runtime.bridge(None)
    names = names_of_sync(sync)
    try:
        translation = translate(query, Language.CYPHER, names)
    except Unsupported as e:
        raise InvalidInput(f"engine=cypher: the query has no exact Cypher translation: {e}") from e
    cq = translation.cypher
    assert cq is not None
    try:
        result = read_only(sync.graph, cq.text, cq.params, timeout_s=token.remaining)
    except InvalidQuery as e:
        if RUNTIME_REFUSAL not in str(e):
            raise
        raise InvalidInput(
            "engine=cypher: the data holds a literal the translation cannot evaluate exactly (a typed or "
            "language-tagged literal in an expression, an ordering key or an aggregate); use the default engine"
        ) from e
    mapping = names.mapping
    records = [dict(zip(result.columns, row, strict=True)) for row in result.rows]
    stream: QueryStream
    if cq.kind is Kind.ASK:
        stream = QueryStream("ask", (), bool(records))
    elif cq.kind is Kind.CONSTRUCT:
        stream = QueryStream("graph", (), None, iter(dict.fromkeys(cq.triples(records, mapping))))
    else:
        stream = QueryStream("select", cq.columns, None, iter([cq.terms(r, mapping) for r in records]))
    cursor = QueryCursor(stream, token, runtime.settings.server.max_result_rows)
    pieces: list[_Head | bytes] = []
    _serialise(cursor, pieces.append, formats, rows)
    head = pieces[0]
    assert isinstance(head, _Head)
    return head, [p for p in pieces[1:] if isinstance(p, bytes) and p]


async def start_cypher_query(runtime: Runtime, query: str, formats: dict[str, ResultFormat | None],
                             token: CancelToken) -> Started:
    """A SPARQL query answered by its Cypher translation on the bridge's graph (``engine=cypher``). FalkorDB
    answers whole, so the result is read and serialised on a worker before the response starts; every error
    (a refused translation: InvalidInput naming the construct) gets its status."""
    rows = max(runtime.settings.server.batch_rows, 1)
    head, rest = await runtime.call(functools.partial(_cypher_result, runtime, query, formats, rows, token),
                                    token=token)
    if head.format is None:
        return Started(head.kind, None, None)

    async def pieces() -> AsyncIterator[bytes]:
        yield head.piece
        for piece in rest:
            yield piece

    return Started(head.kind, head.format, pieces())


__all__ = ["QuerySpec", "Started", "start_cypher_query", "start_query"]
