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


__all__ = ["QuerySpec", "Started", "start_query"]
