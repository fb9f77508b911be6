"""One SPARQL query for the HTTP endpoint: run through :meth:`Runtime.stream_query`, serialised on its worker
into the negotiated format, streamed to the client.

The first piece (the head and the first batch) is read before the response starts, so an error found by
then (a bad query, an unknown graph, no acceptable format) still gets its status; a later one (the row cap,
the deadline) can only cut the body short. A client that goes away trips the request's token and the
worker stops at its next row.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

from hybridkg.server.runtime import CancelToken, QueryCursor, QuerySpec, Runtime
from hybridkg.server.sparql_results import ResultFormat, writer_for


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


def _serialise(cursor: QueryCursor, formats: dict[str, ResultFormat | None], rows: int) -> Iterator[_Head | bytes]:
    """On the query's worker: the result's kind and format with the first piece, then the other pieces."""
    fmt = formats[cursor.kind]
    if fmt is None:
        yield _Head(cursor.kind, None, b"")
        return
    writer = writer_for(fmt, cursor.kind, cursor.variables, cursor.boolean)
    batch = cursor.next_batch(rows)
    piece = writer.head() + (writer.batch(batch) if batch else b"")
    if cursor.done:
        yield _Head(cursor.kind, fmt, piece + writer.tail())
        return
    yield _Head(cursor.kind, fmt, piece)
    while batch := cursor.next_batch(rows):
        yield writer.batch(batch)
    yield writer.tail()


async def start_query(runtime: Runtime, spec: QuerySpec, formats: dict[str, ResultFormat | None],
                      token: CancelToken) -> Started:
    """Start the query and wait for its first piece; errors until then are raised here."""
    rows = max(runtime.settings.server.batch_rows, 1)
    stream = runtime.stream_query(spec, lambda cursor: _serialise(cursor, formats, rows), token=token)
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
