"""The service core that the gRPC and HTTP front ends share: one knowledge base, one structural layer,
one worker pool, the API keys and the metrics. No globals: a process may run several.

Store work never runs on the event loop: front ends call :meth:`Runtime.call`, which runs a function on
the worker pool under a :class:`CancelToken`. When the deadline passes or the caller goes away the token
trips, the front end answers at once, and the worker stops at its next check (between result rows, between
documents); nothing it was writing is committed half.
"""

from __future__ import annotations

import asyncio
import collections
import contextvars
import functools
import hashlib
import logging
import threading
import time
import traceback
from collections.abc import AsyncGenerator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any, TypeVar

from pyoxigraph import Triple

from hybridkg.errors import (
    BackendUnavailable,
    Cancelled,
    DeadlineExceeded,
    InvalidInput,
    NotFound,
    ResultTooLarge,
)
from hybridkg.semantic.base import INFERRED_GRAPH, QueryStream, Term, ValidationReport
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.ntriples import parse_triple
from hybridkg.server.auth import Authenticator
from hybridkg.server.config import Settings
from hybridkg.server.metrics import Metrics

if TYPE_CHECKING:
    from hybridkg.bridge.sync import BridgeSync
    from hybridkg.server.ask.answer import AskAnswer
    from hybridkg.structural.knowledge import StructuralKB

log = logging.getLogger(__name__)
T = TypeVar("T")

#: How long closing waits for a running bridge start-up sync to stop (it stops at its next batch of subjects).
BRIDGE_STOP_S = 60.0

#: Formats that go to the structural layer as text documents rather than to the RDF store.
DOCUMENT_FORMATS = {"text": "text", "txt": "text", "markdown": "markdown", "md": "markdown", "html": "html",
                    "htm": "html"}


class CancelToken:
    """A request's deadline and cancellation, checked by the worker doing its store work."""

    def __init__(self, timeout_s: float | None = None) -> None:
        self.deadline = None if timeout_s is None else time.monotonic() + timeout_s
        self._reason: str | None = None

    def cancel(self, reason: str = "cancelled") -> None:
        self._reason = self._reason or reason

    @property
    def remaining(self) -> float | None:
        return None if self.deadline is None else max(0.0, self.deadline - time.monotonic())

    def check(self) -> None:
        if self._reason is None and self.deadline is not None and time.monotonic() >= self.deadline:
            self._reason = "deadline"
        if self._reason == "deadline":
            raise DeadlineExceeded("the request ran past its deadline and was stopped; nothing was changed")
        if self._reason is not None:
            raise Cancelled("the request was cancelled by the caller and stopped; nothing was changed")


def too_many_rows(max_rows: int) -> ResultTooLarge:
    return ResultTooLarge(f"the result has more than {max_rows} rows (server.max_result_rows); "
                          "add a LIMIT or narrow the query")


def row_too_large(size: int, limit: int) -> ResultTooLarge:
    return ResultTooLarge(f"a result row takes {size} bytes or more, more than a message may carry "
                          f"({limit} bytes, from server.max_message_bytes); select fewer or shorter values")


@dataclass
class QueryCursor:
    """A running query, read in batches by a front end; stops at the row cap, the deadline or cancel."""

    stream: QueryStream
    token: CancelToken
    max_rows: int
    rows_read: int = 0
    done: bool = False

    @property
    def kind(self) -> str:
        return self.stream.kind

    @property
    def variables(self) -> tuple[str, ...]:
        return self.stream.variables

    @property
    def boolean(self) -> bool | None:
        return self.stream.boolean

    def next_batch(self, size: int) -> list[Any]:
        """Up to ``size`` rows (tuples of terms) or triples; an empty list means the end."""
        out: list[Any] = []
        if self.done or self.stream.kind == "ask":
            self.done = True
            return out
        check, append = self.token.check, out.append
        room = self.max_rows - self.rows_read
        for item in self.stream.items:
            check()
            if len(out) >= room:
                self.done = True
                raise too_many_rows(self.max_rows)
            append(item)
            if len(out) >= size:
                self.rows_read += len(out)
                return out
        check()
        self.rows_read += len(out)
        self.done = True
        return out

    def write_native(self, emit: Callable[[bytes], None], fmt: str, *, chunk_bytes: int,
                     max_line_bytes: int = 1 << 62) -> bool:
        """Have the store write the whole result itself (in Rust for pyoxigraph) in ``fmt`` ("tsv", "json",
        "xml" for SELECT; "ntriples" for CONSTRUCT/DESCRIBE) and ``emit`` it in pieces of about ``chunk_bytes``
        (TSV and N-Triples in whole lines of at most ``max_line_bytes``); the row cap, the deadline and
        cancellation are checked as the store writes. False (nothing read) when the store cannot, or the
        cursor has been read already."""
        write = self.stream.write_native
        if write is None or self.done or self.rows_read or self.stream.kind == "ask":
            return False
        counter = _ROW_COUNTERS[fmt](self.stream.kind)
        sink = _Sink(self, emit, counter, chunk_bytes, max_line_bytes if fmt in ("tsv", "ntriples") else None)
        write(sink, fmt)
        sink.finish()
        self.done = True
        return True

    def close(self) -> None:
        """Release pyoxigraph's result iterator; call it on the thread that read the cursor (dropping the
        iterator on another thread is an error too)."""
        self.done = True
        stream = self.stream
        close = getattr(stream.items, "close", None)
        if close is not None:
            close()
        # drop every reference to the store's result here (``write_native`` holds it too), keeping the header
        self.stream = QueryStream(stream.kind, stream.variables, stream.boolean)


class _Lines:
    """Rows of TSV (after its header line) or N-Triples: one per line (newlines in values are escaped)."""

    def __init__(self, kind: str) -> None:
        self.header = kind == "select"

    def __call__(self, data: bytes) -> int:
        n = data.count(b"\n")
        if self.header and n:
            self.header = False
            n -= 1
        return n


class _Marks:
    """Rows counted by marks that only structure, never a value, can contain, even split across pieces."""

    def __init__(self, marks: tuple[bytes, ...]) -> None:
        self.marks = marks
        self.keep = max(len(m) for m in marks) - 1
        self.tail = b""

    def __call__(self, text: bytes) -> int:
        tail, text = self.tail, self.tail + text
        self.tail = text[-self.keep:]
        # marks that lie wholly in the kept tail were counted with the piece before
        return sum(text.count(m) - tail.count(m) for m in self.marks)


class _JsonRows:
    """Rows of SPARQL JSON results as pyoxigraph writes them: outside strings, ``[{`` opens the first solution
    and ``},{`` separates two (terms inside a solution are separated by ``},"``)."""

    def __init__(self, kind: str) -> None:
        self.inside = False  # within a string at the end of the last piece
        self.pending = b""  # a backslash whose escape goes on in the next piece
        self.marks = _Marks((b"[{", b"},{"))

    def __call__(self, data: bytes) -> int:
        data = self.pending + data
        backslashes = len(data) - len(data.rstrip(b"\\"))
        self.pending = b"\\" if backslashes % 2 else b""
        if self.pending:
            data = data[:-1]
        parts = data.replace(b"\\\\", b"").replace(b'\\"', b"").split(b'"')
        outside = parts[1::2] if self.inside else parts[0::2]
        if len(parts) % 2 == 0:
            self.inside = not self.inside
        return self.marks(b"".join(outside))


_ROW_COUNTERS: dict[str, Callable[[str], Callable[[bytes], int]]] = {
    "tsv": _Lines, "ntriples": _Lines, "json": _JsonRows,
    "xml": lambda _kind: _Marks((b"<result>",)),  # "<" in values is written &lt;
}


class _Sink:
    """The output a store writes a result into (``write(bytes)``): counts rows against the row cap, checks the
    token, and emits pieces (whole lines when ``max_line`` is set)."""

    def __init__(self, cursor: QueryCursor, emit: Callable[[bytes], None], count: Callable[[bytes], int],
                 chunk_bytes: int, max_line: int | None) -> None:
        self._cursor = cursor
        self._emit = emit
        self._count = count
        self._chunk = chunk_bytes
        self._max_line = max_line
        self._parts: list[bytes] = []
        self._size = 0
        self._rows = 0

    def write(self, data: bytes) -> int:
        cursor = self._cursor
        cursor.token.check()
        data = bytes(data)
        self._rows += self._count(data)
        if self._rows > cursor.max_rows:
            raise too_many_rows(cursor.max_rows)
        self._parts.append(data)
        self._size += len(data)
        if self._size >= self._chunk:
            self._drain(final=False)
        return len(data)

    def flush(self) -> None:
        """Lines go out in whole chunks as they fill; the last ones at :meth:`finish`."""

    def _drain(self, *, final: bool) -> None:
        data = b"".join(self._parts)
        if self._max_line is None:  # any cut will do
            self._parts, self._size = [], 0
            if data:
                self._emit(data)
            return
        start = 0
        while len(data) - start >= self._chunk or (final and start < len(data)):
            cut = data.rfind(b"\n", start, start + self._chunk) + 1
            if cut == 0:  # one line longer than a chunk: it goes alone, if a message can carry it
                cut = data.find(b"\n", start) + 1 or len(data)
                if cut - start > self._max_line:
                    raise row_too_large(cut - start, self._max_line)
                if cut == len(data) and not final:
                    break  # the rest of that line is still to come
            self._emit(data[start:cut])
            start = cut
        rest = data[start:]
        self._parts, self._size = ([rest] if rest else []), len(rest)

    def finish(self) -> None:
        self._drain(final=True)
        self._cursor.rows_read = self._rows


@dataclass(frozen=True)
class QuerySpec:
    """A SPARQL query as a protocol request states it: the text, inference on or off, and the dataset
    (``None``: every graph)."""

    query: str
    inference: bool = True
    default_graphs: list[str] | None = None
    named_graphs: list[str] | None = None


class _End:
    pass


_END = _End()


class _Pipe:
    """Pieces from one worker thread to the event loop, at most ``depth`` unread: the worker waits (checking
    its token) while the reader is slow, so a slow client holds the query back instead of filling memory."""

    def __init__(self, loop: asyncio.AbstractEventLoop, token: CancelToken, depth: int) -> None:
        self._loop = loop
        self._token = token
        self._items: collections.deque[Any] = collections.deque()
        self._slots = threading.Semaphore(depth)
        self._waiter: asyncio.Future[None] | None = None
        self._producer: asyncio.Future[Any] | None = None

    # on the worker
    def send(self, item: Any) -> None:
        while not self._slots.acquire(timeout=0.05):
            self._token.check()
        self._token.check()
        self._loop.call_soon_threadsafe(self._push, item)

    # on the event loop
    def _push(self, item: Any) -> None:
        self._items.append(item)
        self._wake()

    def finished(self, producer: asyncio.Future[Any]) -> None:
        """The worker returned or failed (its pieces were all pushed before: the loop runs callbacks in order)."""
        self._producer = producer
        self._wake()

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> Any:
        """The next piece; ``_END`` after the last; the worker's error if it failed; DeadlineExceeded when the
        token's deadline passes first."""
        while not self._items:
            if self._producer is not None:
                error = self._producer.exception()
                if error is not None:
                    raise error
                return _END
            self._waiter = self._loop.create_future()
            try:
                await asyncio.wait_for(self._waiter, self._token.remaining)
            except TimeoutError:
                self._token.cancel("deadline")
                raise DeadlineExceeded("the request ran past its deadline and was stopped; nothing was changed"
                                       ) from None
            finally:
                self._waiter = None
        item = self._items.popleft()
        self._slots.release()
        return item


@dataclass
class IngestReport:
    kind: str  # "rdf" or "document"
    graph: str = ""
    domain: str | None = None
    format: str = ""
    triples_asserted: int = 0
    triples_inferred: int = 0
    shacl: ValidationReport | None = None
    documents_added: int = 0
    chunks_added: int = 0
    entities_added: int = 0
    relations_added: int = 0
    took_ms: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "graph": self.graph, "domain": self.domain, "format": self.format,
            "triples_asserted": self.triples_asserted, "triples_inferred": self.triples_inferred,
            "shacl": self.shacl.to_json() if self.shacl is not None else None,
            "documents_added": self.documents_added, "chunks_added": self.chunks_added,
            "entities_added": self.entities_added, "relations_added": self.relations_added,
            "took_ms": round(self.took_ms, 3),
        }


def document_format(fmt: str | None, name: str | None) -> str | None:
    """The text-document format (text, markdown, html) named by ``fmt`` or ``name``'s extension, else None."""
    if fmt:
        return DOCUMENT_FORMATS.get(fmt.lower().removeprefix("text/"))
    if name:
        return DOCUMENT_FORMATS.get(PurePosixPath(name).suffix.lower().lstrip("."))
    return None


class Runtime:
    def __init__(
        self, settings: Settings, *, kb: KnowledgeBase | None = None, structural: StructuralKB | None = None
    ) -> None:
        from hybridkg.server.app import open_knowledge_base

        self.settings = settings
        self.kb = kb if kb is not None else open_knowledge_base(settings)
        self.auth = Authenticator(settings.server.auth)
        self.metrics = Metrics(self.sizes)
        self.executor = ThreadPoolExecutor(settings.server.workers, thread_name_prefix="hybridkg-worker")
        self._structural = structural
        self._owns_structural = structural is None
        self._lazy = threading.Lock()
        # opening the structural layer takes seconds (and the bridge's syncs with it): not under _lazy, which
        # /health's sizes() takes
        self._opening = threading.Lock()
        self._ask: Any = None
        self._sizes: tuple[float, dict[str, int]] | None = None
        self._bridge_lock = threading.Lock()
        self._bridges: dict[str | None, BridgeSync] = {}
        self._unsubscribe: list[Callable[[], None]] = []
        self._bridge_thread: threading.Thread | None = None
        self._closed = False

    # ------------------------------------------------------------------ lifecycle
    def structural(self) -> StructuralKB:
        """The structural layer, opened on first use (it starts FalkorDB, loads the embedding model and brings the
        domains' bridge graphs in line for entity linking)."""
        with self._opening:
            if self._structural is None:
                from hybridkg.server.app import open_structural

                fuzzy = [name for name, d in self.kb.policy.domains.items()]
                self._structural = open_structural(
                    self.settings, self.kb, fuzzy, bridge=self._vocabulary_bridge if self.bridge_usable else None
                )
            return self._structural

    def _vocabulary_bridge(self, structural: StructuralKB, domain: str) -> BridgeSync:
        sync = self._bridge_on(structural, domain)
        sync.catch_up(self._stop_check)
        return sync

    @property
    def structural_open(self) -> bool:
        return self._structural is not None

    def bridge(self, domain: str | None = None) -> BridgeSync:
        """The bridge's sync of the whole store (``domain`` None) or of one domain of the policy file.

        One :class:`~hybridkg.bridge.sync.BridgeSync` per scope, made on first use and kept until :meth:`close`;
        it is safe to share between threads (its writes run one at a time, its registry is replaced, never
        changed in place). It follows every committed write and retraction of the knowledge base, and it has been
        brought in line with the store once (the first call waits for that, or for the start-up sync of
        :meth:`start_bridge` under way). Its ``.graph`` is the scope's property graph, ``<bridge.graph_name>`` or
        ``<bridge.graph_name>_<domain>`` (``hybridkg_bridge``, ``hybridkg_bridge_crm``), on the structural layer's
        FalkorDB server (the structural layer is opened if it is not yet); ``.registry`` its stored names
        (``RdfMapping(sync.registry)`` is the mapping the translators take; read it again after writes, as new
        names replace the registry); ``.scope.shapes`` the shapes that declare its lists and scalars.

        Raises NotFound for a domain the policy file lacks (naming it), Unsupported when ``bridge.enabled`` is
        false or the structural layer's graph store is not FalkorDB (``structural.graph.backend``)."""
        with self._bridge_lock:
            sync = self._bridges.get(domain)
        if sync is None:
            self._check_bridge()
            if domain is not None:
                self.kb.policy.get(domain)  # NotFound naming it, before the structural layer is opened
            sync = self._bridge_on(self.structural(), domain)
        sync.catch_up(self._stop_check)
        return sync

    def _check_bridge(self) -> None:
        from hybridkg.errors import Unsupported
        from hybridkg.structural.settings import GraphBackend

        if not self.settings.bridge.enabled:
            raise Unsupported("the bridge is off (bridge.enabled is false in the settings); turn it on to use the "
                              "bridge's property graph")
        backend = self.settings.structural.graph.backend
        if backend is not GraphBackend.FALKORDB:
            raise Unsupported(f"the bridge's property graph needs the structural layer's FalkorDB, but "
                              f"structural.graph.backend is {backend.value}: set it to falkordb (the default)")

    @property
    def bridge_usable(self) -> bool:
        """Whether the settings ask for the bridge and its graph store can hold it."""
        from hybridkg.errors import Unsupported

        try:
            self._check_bridge()
        except Unsupported:
            return False
        return True

    def _bridge_on(self, structural: StructuralKB, domain: str | None) -> BridgeSync:
        """The scope's sync on ``structural``'s graph server, made and attached to the knowledge base once (the
        caller brings it in line). Called by :meth:`structural` while it opens the layer, so it must not call it."""
        from hybridkg.bridge.graphs import graph_beside
        from hybridkg.bridge.policy import scope_of
        from hybridkg.bridge.sync import BridgeSync

        with self._bridge_lock:
            sync = self._bridges.get(domain)
            if sync is None:
                if self._closed:
                    raise BackendUnavailable("the service is shutting down")
                scope = scope_of(self.kb.policy, self.settings.bridge, domain)  # NotFound for an unknown domain
                sync = BridgeSync(self.kb.store, graph_beside(structural.graph, scope.graph_name), scope)
                self._unsubscribe.append(sync.attach(self.kb))
                self._bridges[domain] = sync
            return sync

    def _stop_check(self, _done: int) -> None:
        """Progress callback of the bridge's full syncs: stops one when the runtime closes."""
        if self._closed:
            raise Cancelled("the service is shutting down; the bridge sync stopped (the next start repeats it)")

    def start_bridge(self) -> threading.Thread | None:
        """Bring every bridge scope (each domain's graph, then the whole store's) in line with the store on a
        thread of its own, following the knowledge base's changes from then on; returns the thread, or None (logged)
        when the bridge is off. The service calls it at start-up: writes made meanwhile, and by CLI commands while
        no service ran, are caught up by these syncs; a scope's first :meth:`bridge` call waits for its sync."""
        if not self.settings.bridge.enabled:
            log.info("bridge: off (bridge.enabled is false); its property graphs are not kept")
            return None
        if not self.bridge_usable:
            log.info("bridge: off, structural.graph.backend %s cannot hold its property graphs",
                     self.settings.structural.graph.backend.value)
            return None
        thread = threading.Thread(target=self._sync_bridges, name="hybridkg-bridge-sync", daemon=True)
        self._bridge_thread = thread
        thread.start()
        return thread

    def _sync_bridges(self) -> None:
        for domain in [*self.kb.policy.domains, None]:
            if self._closed:
                return
            name = domain or "whole store"
            try:
                start = time.perf_counter()
                sync = self._bridge_on(self.structural(), domain)
                report = sync.catch_up(self._stop_check)
                if report is not None:
                    log.info("bridge: %s in line in graph %s: %d triples, %d subjects changed (%.1f s)", name,
                             sync.scope.graph_name, report.triples, report.changed, time.perf_counter() - start)
            except Cancelled:
                return
            except Exception:
                log.exception("bridge: the start-up sync of %s failed; its property graph may be behind the store "
                              "until the next start (or `hybridkg bridge sync` with the service stopped)", name)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.executor.shutdown(wait=True, cancel_futures=True)
        if self._ask is not None:
            self._ask.close()
        if self._bridge_thread is not None:
            self._bridge_thread.join(BRIDGE_STOP_S)  # it stops at its next batch
        with self._bridge_lock:
            bridges, self._bridges = list(self._bridges.values()), {}
            unsubscribe, self._unsubscribe = self._unsubscribe, []
        for stop in unsubscribe:
            stop()
        for sync in bridges:
            sync.close()
        try:
            if self._structural is not None and self._owns_structural:
                self._structural.close()
        finally:
            self.kb.close()

    async def call(self, fn: Callable[..., T], *args: Any, token: CancelToken) -> T:
        """Run ``fn(*args)`` on the worker pool; DeadlineExceeded when ``token``'s deadline passes first."""
        loop = asyncio.get_running_loop()
        context = contextvars.copy_context()  # the request id follows the work onto the worker
        future = loop.run_in_executor(self.executor, functools.partial(context.run, fn, *args))
        try:
            return await asyncio.wait_for(asyncio.shield(future), token.remaining)
        except TimeoutError:
            token.cancel("deadline")
            future.add_done_callback(_drain)
            raise DeadlineExceeded(
                "the request ran past its deadline: a read is stopped; a write already under way commits or "
                "rolls back whole, never half (query the data before retrying it)"
            ) from None
        except asyncio.CancelledError:
            token.cancel("cancelled")
            future.add_done_callback(_drain)
            raise

    def token(self, timeout_s: float | None) -> CancelToken:
        """A token for a request: the caller's deadline, else ``server.query_timeout_s``."""
        return CancelToken(timeout_s if timeout_s is not None else self.settings.server.query_timeout_s)

    # ------------------------------------------------------------------ operations (run on workers)
    def open_query(
        self,
        query: str,
        *,
        token: CancelToken,
        inference: bool = True,
        default_graphs: list[str] | None = None,
        named_graphs: list[str] | None = None,
    ) -> QueryCursor:
        """Start a query. The cursor must be read on the thread that opened it (pyoxigraph's results are
        thread-bound: reading them elsewhere aborts the process), so a front end opens and reads it in one
        worker call, handing batches to the event loop."""
        if not query.strip():
            raise InvalidInput("the query is empty")
        token.check()
        wanted = [*(default_graphs or ()), *(named_graphs or ())]
        if wanted:
            present = {g.value for g in self.kb.store.graphs()} | {INFERRED_GRAPH.value}
            unknown = sorted({g for g in wanted if g not in present})
            if unknown:
                raise NotFound(f"no graph named {', '.join(unknown)} in the store; leave the dataset "
                               "(default/named graph URIs) empty to query every graph")
        stream = self.kb.stream(query, inference=inference, default_graphs=default_graphs, named_graphs=named_graphs)
        return QueryCursor(stream, token, self.settings.server.max_result_rows)

    async def stream_query(self, spec: QuerySpec, encode: Callable[[QueryCursor, Callable[[T], None]], None], *,
                           token: CancelToken, depth: int = 4) -> AsyncGenerator[T, None]:
        """Run a query on one worker and yield the pieces ``encode(cursor, emit)`` emits, in order.

        pyoxigraph's results may only be read, and dropped, on the thread that opened them (doing either
        elsewhere aborts the process), so one worker opens the query, runs ``encode`` over the cursor (it
        reads the result and turns it into the front end's wire format, off the event loop, calling ``emit``
        with each piece) and hands each piece over with back-pressure (``emit`` waits while the reader is
        slow). Errors are raised here, in the caller's task: before the first piece (a bad query, an unknown
        graph) or later (the row cap, the deadline). Leaving early (``aclose``, a
        client gone) trips the token, and the worker stops at its next row or wait. Use it with
        ``contextlib.aclosing`` so that happens at once.
        """
        loop = asyncio.get_running_loop()
        pipe = _Pipe(loop, token, depth)

        def produce() -> None:
            cursor = self.open_query(spec.query, token=token, inference=spec.inference,
                                     default_graphs=spec.default_graphs, named_graphs=spec.named_graphs)
            try:
                encode(cursor, pipe.send)
            except BaseException as e:
                # the error goes to the event loop's thread; its frames must not take the result there
                traceback.clear_frames(e.__traceback__)
                raise
            finally:
                cursor.close()  # here, on the thread that read it

        context = contextvars.copy_context()  # the request id follows the work onto the worker
        producer = loop.run_in_executor(self.executor, context.run, produce)
        producer.add_done_callback(pipe.finished)
        try:
            while (item := await pipe.get()) is not _END:
                yield item
        finally:
            if not producer.done():
                token.cancel("cancelled")  # the worker stops at its next row or pipe wait
            producer.add_done_callback(_drain)  # its error, if nobody read it, is not worth a warning

    def update(self, sparql: str, *, token: CancelToken) -> Any:
        """A SPARQL 1.1 Update through the SHACL gate (strict domains reject a violating change whole)."""
        if not sparql.strip():
            raise InvalidInput("the update is empty")
        token.check()
        return self.kb.update(sparql)

    def ingest(
        self,
        data: bytes,
        *,
        token: CancelToken,
        domain: str | None = None,
        graph: str | None = None,
        fmt: str | None = None,
        name: str | None = None,
    ) -> IngestReport:
        """One uploaded file: RDF into the store (validated for strict domains), or a text document into the
        structural layer (``fmt`` text/markdown/html, or such a file name)."""
        start = time.perf_counter()
        if len(data) > self.kb.max_input_bytes:
            from hybridkg.errors import InputTooLarge

            raise InputTooLarge(
                f"the upload has {len(data)} bytes, more than store.max_input_bytes={self.kb.max_input_bytes}; "
                "split it or raise the limit"
            )
        token.check()
        doc_fmt = document_format(fmt, name)
        if doc_fmt is not None:
            if not domain:
                raise InvalidInput("a text document needs a domain; set `domain`")
            self.kb.policy.get(domain)
            if graph:
                raise InvalidInput("`graph` applies to RDF uploads; a text document goes to the property graph")
            doc_id = name or f"upload-{hashlib.sha256(data).hexdigest()[:16]}"
            change = self.structural().put_document(doc_id, data, domain=domain, fmt=doc_fmt, name=name)
            return IngestReport(
                kind="document", domain=domain, format=doc_fmt,
                documents_added=1 if change.action.value in ("added", "updated") else 0,
                chunks_added=change.chunks_added, entities_added=change.entities_added,
                relations_added=change.relations_added, took_ms=(time.perf_counter() - start) * 1000,
                details=change.to_json(),
            )
        from hybridkg.semantic.formats import resolve_format

        rdf_fmt = resolve_format(fmt, name)
        token.check()
        result = self.kb.load(data, fmt=fmt or rdf_fmt.file_extension, graph=graph, domain=domain)
        return IngestReport(
            kind="rdf", graph=result.graph, domain=result.domain, format=result.format,
            triples_asserted=result.asserted_added, triples_inferred=result.inferred_added,
            shacl=ValidationReport(conforms=not any(w.severity.value == "violation" for w in result.warnings),
                                   results=result.warnings),
            took_ms=(time.perf_counter() - start) * 1000,
        )

    def validate(self, data: bytes, *, domain: str, fmt: str | None = None, graph: str | None = None,
                 token: CancelToken) -> ValidationReport:
        """Dry run: would this RDF be accepted into ``domain``? Nothing is written."""
        token.check()
        return self.kb.validate_write(data, domain=domain, fmt=fmt, graph=graph)

    def explain(self, triple: str | Triple, *, token: CancelToken) -> dict[str, Any]:
        token.check()
        if isinstance(triple, str):
            triple = parse_triple(triple)
        return self.kb.explain(triple).to_json()

    def retrieve(self, query: str, *, mode: str | None, top_k: int | None, domain: str | None,
                 token: CancelToken) -> dict[str, Any]:
        token.check()
        if not query.strip():
            raise InvalidInput("the query is empty")
        if top_k is not None and top_k <= 0:
            raise InvalidInput(f"top_k must be a positive number, not {top_k}")
        skb = self.structural()
        return skb.retrieve(query, mode=mode or "hybrid", top_k=top_k, domain=domain).to_json()

    def feedback(self, scores: dict[str, float], *, token: CancelToken) -> dict[str, Any]:
        import dataclasses
        import math

        token.check()
        if not scores:
            raise InvalidInput("no feedback given: send node_id -> score pairs")
        for k, v in scores.items():
            if not math.isfinite(v):
                raise InvalidInput(f"score of {k!r} is not finite")
        return dataclasses.asdict(self.structural().feedback(scores))

    def ask(self, question: str, *, domain: str | None = None, mode: str | None = None, top_k: int | None = None,
            token: CancelToken) -> AskAnswer:
        token.check()
        return self.ask_engine().ask(question, domain=domain, mode=mode, top_k=top_k)

    def ask_engine(self) -> Any:
        with self._lazy:
            if self._ask is None:
                from hybridkg.server.ask.engine import AskEngine

                self._ask = AskEngine(self.kb, self.structural, self.settings.ask,
                                      structural_open=lambda: self.structural_open)
            return self._ask

    def sizes(self, *, max_age_s: float = 15.0) -> dict[str, int]:
        """Store sizes for /health, /metrics and Stats, recounted at most every ``max_age_s`` seconds."""
        with self._lazy:
            cached = self._sizes
        if cached is not None and time.monotonic() - cached[0] < max_age_s:
            return dict(cached[1])
        sizes = self._count_sizes()
        with self._lazy:
            self._sizes = (time.monotonic(), sizes)
        return dict(sizes)

    def _count_sizes(self) -> dict[str, int]:
        asserted = sum(1 for g in self.kb.asserted_graphs() for _ in self.kb.store.quads(graph=g))
        inferred = sum(1 for _ in self.kb.store.quads(graph=INFERRED_GRAPH))
        out = {"asserted_triples": asserted, "inferred_triples": inferred, "graphs": len(self.kb.store.graphs())}
        if self._structural is not None:
            out.update(self._structural.stats())
        return out

    def stats(self, *, token: CancelToken) -> dict[str, Any]:
        token.check()
        domains = {n: d.mode.value for n, d in self.kb.policy.domains.items()}
        return {"sizes": self.sizes(max_age_s=0), "domains": domains,
                "reasoner": self.kb.reasoner.name, "validator": self.kb.validator.name}


def _drain(future: Any) -> None:
    """Retrieve an abandoned worker's outcome so asyncio does not warn about it."""
    if not future.cancelled():
        future.exception()


__all__ = ["CancelToken", "IngestReport", "QueryCursor", "QuerySpec", "Runtime", "Term", "document_format"]
