"""Running one SPARQL query for the HTTP endpoint and streaming its serialised result.

pyoxigraph's query results may only be read on the thread that opened them (reading them on another thread
aborts the process), so one worker (through :meth:`Runtime.call`) opens the query, serialises it batch by
batch and hands the pieces to the event loop through a small queue; the worker waits while the queue is full,
so a slow client holds back the query instead of filling memory. The first piece (the head and the first
batch) is read before the response starts, so an error found by then still gets its status. A deadline
or a client that goes away trips the request's token and the worker stops at its next row.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from hybridkg.errors import DeadlineExceeded
from hybridkg.server.runtime import CancelToken, QueryCursor, Runtime
from hybridkg.server.sparql_results import ResultFormat, ResultWriter, writer_for

#: Serialised pieces waiting for the client, per query.
QUEUE_DEPTH = 4

#: How often a worker waiting on a full queue checks its token (seconds).
POLL_S = 0.25


@dataclass(frozen=True)
class QuerySpec:
    query: str
    inference: bool
    default_graphs: list[str] | None
    named_graphs: list[str] | None


@dataclass(frozen=True)
class Started:
    """The query runs and its first piece is ready; ``format`` is None when no acceptable format fits."""

    kind: str
    format: ResultFormat | None
    pieces: AsyncIterator[bytes] | None


def _first(cursor: QueryCursor, writer: ResultWriter, rows: int) -> tuple[bytes, bool]:
    head = writer.head()
    body, done = _next(cursor, writer, rows)
    return head + body, done


def _next(cursor: QueryCursor, writer: ResultWriter, rows: int) -> tuple[bytes, bool]:
    batch = cursor.next_batch(rows)
    body = writer.batch(batch) if batch else b""
    if cursor.done:
        return body + writer.tail(), True
    return body, False


def _produce(runtime: Runtime, spec: QuerySpec, formats: dict[str, ResultFormat | None], rows: int,
             token: CancelToken, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[tuple[Any, ...]]) -> None:
    """On a worker: open the query, then put ("start", kind, format, piece, done), ("piece", bytes, done)...
    or ("error", exc) on the queue."""

    def put(message: tuple[Any, ...]) -> None:
        future = asyncio.run_coroutine_threadsafe(queue.put(message), loop)
        while True:
            try:
                future.result(timeout=POLL_S)
                return
            except concurrent.futures.TimeoutError:
                try:
                    token.check()
                except BaseException:
                    future.cancel()
                    raise

    try:
        cursor = runtime.open_query(spec.query, token=token, inference=spec.inference,
                                    default_graphs=spec.default_graphs, named_graphs=spec.named_graphs)
        fmt = formats[cursor.kind]
        if fmt is None:
            put(("start", cursor.kind, None, b"", True))
            return
        writer = writer_for(fmt, cursor.kind, cursor.variables, cursor.boolean)
        try:
            piece, done = _first(cursor, writer, rows)
            put(("start", cursor.kind, fmt, piece, done))
            while not done:
                piece, done = _next(cursor, writer, rows)
                put(("piece", piece, done))
        finally:
            cursor.close()  # on its own thread, not wherever the cursor is collected
    except Exception as exc:
        try:
            put(("error", exc))
        except Exception:  # nobody is listening any more (deadline or client gone)
            return


async def _receive(queue: asyncio.Queue[tuple[Any, ...]], token: CancelToken) -> tuple[Any, ...]:
    try:
        message = await asyncio.wait_for(queue.get(), token.remaining)
    except TimeoutError:
        token.cancel("deadline")
        raise DeadlineExceeded("the request ran past its deadline and was stopped; nothing was changed") from None
    if message[0] == "error":
        raise message[1]
    return message


def _drain(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


async def start_query(runtime: Runtime, spec: QuerySpec, formats: dict[str, ResultFormat | None],
                      token: CancelToken) -> Started:
    """Open the query on a worker and wait for its first piece; errors until then are raised here."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue(QUEUE_DEPTH)
    rows = max(runtime.settings.server.batch_rows, 1)
    worker = asyncio.ensure_future(runtime.call(_produce, runtime, spec, formats, rows, token, loop, queue,
                                                token=token))
    worker.add_done_callback(_drain)
    try:
        _, kind, fmt, first, done = await _receive(queue, token)
    except BaseException:
        token.cancel("cancelled")
        raise
    if fmt is None:
        return Started(kind, None, None)

    async def pieces() -> AsyncIterator[bytes]:
        finished = done
        try:
            yield first
            while not finished:
                _, piece, finished = await _receive(queue, token)
                if piece:
                    yield piece
        finally:
            if not finished:
                token.cancel("cancelled")  # the worker stops at its next row or queue wait

    return Started(kind, fmt, pieces())


__all__ = ["QuerySpec", "Started", "start_query"]
