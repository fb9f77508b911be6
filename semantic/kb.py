"""The semantic layer's façade: a knowledge base of named graphs, kept closed under OWL 2 RL and
guarded by SHACL.

Every committed write goes through :meth:`KnowledgeBase.write`: parse first (nothing is stored on
error), validate strict domains against their shapes (a violation rejects the whole write), then
store the asserted quads, update the closure incrementally, store the inferred delta in
:data:`~hybridkg.semantic.base.INFERRED_GRAPH`, and report a :class:`ChangeSet` to every listener.
No global state: a process may hold several knowledge bases.
"""

from __future__ import annotations

import functools
import logging
import queue
import threading
import time
import traceback
import weakref
from collections.abc import Callable, Collection, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from pyoxigraph import BlankNode, DefaultGraph, NamedNode, Quad, RdfFormat, Triple

from hybridkg.errors import InvalidInput, ShapeViolation
from hybridkg.semantic import bulkload
from hybridkg.semantic.base import (
    INFERRED_GRAPH,
    ChangeListener,
    ChangeSet,
    Explanation,
    InferenceDelta,
    QueryResult,
    QueryStream,
    Reasoner,
    ReasoningSession,
    ShapeValidator,
    TripleStore,
    ValidationReport,
    ValidationResult,
)
from hybridkg.semantic.concurrency import ReadWriteLock
from hybridkg.semantic.domains import Domain, DomainPolicy
from hybridkg.semantic.formats import parse_document, resolve_format, serialize_triples
from hybridkg.semantic.gate import DomainShapes, as_warnings, check_write
from hybridkg.semantic.perf import gc_paused
from hybridkg.semantic.settings import DEFAULT_MAX_BYTES
from hybridkg.semantic.storeview import SessionGraphView, StoreGraphView
from hybridkg.semantic.update import UpdateDataset, evaluate, parse_update

log = logging.getLogger(__name__)

#: Graph receiving data loaded with neither a graph nor a domain.
DEFAULT_DATA_GRAPH = NamedNode("urn:hybridkg:graph:default")

#: Writes of at least this many quads take the store's bulk path (4-5x faster on disk).
BULK_MIN_QUADS = 10_000

#: Loads of files larger than this show a progress bar (when asked to).
PROGRESS_MIN_BYTES = 4 << 20


@dataclass(frozen=True)
class LoadResult:
    """What a load did."""

    graph: str
    domain: str | None
    format: str
    parsed: int
    asserted_added: int
    inferred_added: int
    inferred_removed: int
    warnings: tuple[ValidationResult, ...]
    seconds: float

    def to_json(self) -> dict[str, object]:
        return {
            "graph": self.graph,
            "domain": self.domain,
            "format": self.format,
            "parsed": self.parsed,
            "asserted": self.asserted_added,
            "inferred": self.inferred_added,
            "inferred_removed": self.inferred_removed,
            "warnings": [w.to_json() for w in self.warnings],
            "seconds": round(self.seconds, 4),
        }


@dataclass(frozen=True)
class ReasonResult:
    engine: str
    asserted: int
    inferred: int
    inferred_added: int
    inferred_removed: int
    seconds: float

    def to_json(self) -> dict[str, object]:
        return {
            "engine": self.engine,
            "asserted": self.asserted,
            "inferred": self.inferred,
            "inferred_added": self.inferred_added,
            "inferred_removed": self.inferred_removed,
            "seconds": round(self.seconds, 4),
        }


class _SessionSlot:
    """Where the reasoning session lives. Only the writer thread reads or writes it (every method that does
    runs there). Not a ``threading.local``: a child process forked to run a server (FalkorDB) with a Python
    ``preexec_fn`` clears the other threads' locals and would drop the thread-bound engine there."""

    session: ReasoningSession | None = None


class _WriterThread:
    """The one thread a knowledge base writes and reasons on: it runs the calls put on its queue, in order. It holds
    no reference to the knowledge base, so an unclosed one is still collected (and its store's lock released).

    Not a ``ThreadPoolExecutor``: the knowledge base's finalizer stops this thread, and a finalizer runs wherever the
    garbage collector happens to run, e.g. inside another executor's ``submit``, which holds the module-wide lock
    that a ``submit`` here would then wait for forever (seen: a test hung while a model loaded its weights). Putting
    on a ``SimpleQueue`` is safe there (reentrant), and the finalizer does not wait. As an executor's, the thread is
    not a daemon (the interpreter's exit lets the calls queued finish, rather than cut a write or an engine's close
    short in native code) and is told to end when the interpreter exits (:func:`_end_writers`)."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._stopped = False
        thread = threading.Thread(target=self._serve, args=(self._queue,), name="hybridkg-kb-writer")
        _WRITERS[thread] = self._queue
        thread.start()
        self._thread = thread
        self.ident: int = thread.ident  # type: ignore[assignment]  # (set once started)

    @staticmethod
    def _serve(calls: queue.SimpleQueue[_Call | None]) -> None:
        while (call := calls.get()) is not None:
            future, fn, args, kwargs = call
            del call
            if future is None:
                try:
                    fn(*args, **kwargs)
                except Exception:  # nobody waits for it (the garbage collector's stop): logged, not raised
                    log.exception("the knowledge base's writer thread: %r failed", fn)
            elif future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args, **kwargs))
                except BaseException as e:  # handed to the caller's thread, as an executor does
                    future.set_exception(e)
            del future, fn, args, kwargs  # nothing of the last call outlives it here

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Future[Any]:
        """Run ``fn(*args, **kwargs)`` on the writer thread; its future."""
        if self._stopped:
            raise RuntimeError("the knowledge base is closed: open a new one")
        future: Future[Any] = Future()
        self._queue.put((future, fn, args, kwargs))
        return future

    def stop(self, tls: _SessionSlot, *, wait: bool = True) -> None:
        """Drop the session held in ``tls`` on the writer thread, then stop the thread; ``wait``: until it has (not
        from the garbage collector, nor on the writer thread itself). Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        if threading.get_ident() == self.ident:
            _set_session(tls, None)
            self._queue.put(None)
            return
        self._queue.put((None, _set_session, (tls, None), {}))
        self._queue.put(None)
        if wait:
            self._thread.join()


#: The live writer threads and their queues, told to end when the interpreter exits (before it joins its threads, as
#: ``concurrent.futures`` does for its workers): an unclosed knowledge base must not keep the process alive.
_WRITERS: weakref.WeakKeyDictionary[threading.Thread, queue.SimpleQueue[Any]] = weakref.WeakKeyDictionary()


def _end_writers() -> None:
    for calls in list(_WRITERS.values()):
        calls.put(None)


threading._register_atexit(_end_writers)  # type: ignore[attr-defined]  # (no public hook runs before the joins)

#: A call for the writer thread: its future (``None``: nobody waits for it), the function and its arguments.
_Call = tuple["Future[Any] | None", Callable[..., Any], tuple[Any, ...], dict[str, Any]]


def _set_session(tls: _SessionSlot, session: ReasoningSession | None) -> None:
    """Replace the session in ``tls``, closing the old one here: its engine may be thread-bound (``reasonable``),
    and one left to the cyclic garbage collector could be dropped on another thread."""
    old = tls.session
    tls.session = session
    if old is not None and old is not session:
        close = getattr(old, "close", None)
        if close is not None:
            close()


_F = TypeVar("_F", bound=Callable[..., Any])


def _on_writer_thread(method: _F) -> _F:
    """Run the method on the knowledge base's one writer thread (directly when already on it).

    The reasoning session must live on one thread: `reasonable`'s reasoner is a thread-bound Rust object
    (using it from another thread panics), and a service calls in from many worker threads.
    """

    @functools.wraps(method)
    def run(self: KnowledgeBase, *args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() == self._writer.ident:
            return method(self, *args, **kwargs)
        return self._writer.submit(method, self, *args, **kwargs).result()

    return run  # type: ignore[return-value]


def _rank_oracle(session: ReasoningSession | None) -> Callable[[Collection[Triple]], dict[Triple, int]] | None:
    """The derivation ranks of a session that knows them (the ``duckdb`` engine's), for explanations; ``None``
    for other engines. The lookup is safe from reader threads (:meth:`DuckDBSession.ranks`)."""
    ranks = getattr(session, "ranks", None)
    return ranks if callable(ranks) else None


def _inferred_quads(triples: Iterable[Triple]) -> list[Quad]:
    return [Quad(t.subject, t.predicate, t.object, INFERRED_GRAPH) for t in triples]


class KnowledgeBase:
    """Named graphs + OWL 2 RL closure + SHACL gate + change feed."""

    def __init__(
        self,
        store: TripleStore,
        *,
        reasoner: Reasoner,
        validator: ShapeValidator,
        policy: DomainPolicy | None = None,
        max_input_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        self.store = store
        self.reasoner = reasoner
        self.validator = validator
        self.policy = policy if policy is not None else DomainPolicy()
        self.max_input_bytes = max_input_bytes
        self._tls = _SessionSlot()  # the reasoning session, used on the writer thread only
        self._listeners: list[ChangeListener] = []
        self._shapes: dict[str, DomainShapes] = {}
        # one write at a time; queries start under the shared side, store changes under the exclusive
        self._write_mutex = threading.RLock()
        self._rw = ReadWriteLock()
        self._writer = _WriterThread()
        # when the knowledge base goes without close(), the session is still dropped on its own thread
        self._finalizer = weakref.finalize(self, self._writer.stop, self._tls, wait=False)

    @property
    def _session(self) -> ReasoningSession | None:
        return self._tls.session

    @_session.setter
    def _session(self, session: ReasoningSession | None) -> None:
        _set_session(self._tls, session)

    def close(self) -> None:
        """Drop the reasoning session on its own thread and stop that thread, then flush and close the store, which
        frees its directory for another knowledge base, in this process too (idempotent)."""
        self._finalizer.detach()
        self._writer.stop(self._tls)
        self.flush()
        closer = getattr(self.store, "close", None)
        if callable(closer):
            closer()

    # ------------------------------------------------------------------ change feed
    def subscribe(self, listener: ChangeListener) -> Callable[[], None]:
        """Call ``listener`` after every committed change; returns a function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _publish(self, change: ChangeSet) -> None:
        for listener in list(self._listeners):
            try:
                listener(change)
            except Exception:  # a listener must never undo a committed write
                log.exception("change listener %r failed", listener)

    # ------------------------------------------------------------------ graphs
    def asserted_graphs(self) -> list[NamedNode]:
        return [g for g in self.store.graphs() if isinstance(g, NamedNode) and g != INFERRED_GRAPH]

    def asserted_triples(self) -> set[Triple]:
        out: set[Triple] = set()
        for q in self.store.quads():
            if q.graph_name != INFERRED_GRAPH:
                out.add(q.triple)
        return out

    def inferred_triples(self) -> set[Triple]:
        return {q.triple for q in self.store.quads(graph=INFERRED_GRAPH)}

    def _resolve_target(self, graph: str | None, domain: str | None) -> tuple[NamedNode, Domain | None]:
        dom = self.policy.get(domain) if domain else None
        if graph:
            if graph == INFERRED_GRAPH.value:
                raise InvalidInput(f"{graph} holds inferred triples and cannot be written directly")
            try:
                target = NamedNode(graph)
            except ValueError as e:
                raise InvalidInput(f"graph name {graph!r} is not a valid IRI: {e}") from e
            owner = self.policy.domain_of_graph(graph)
            if dom is None:
                dom = owner
            elif owner is not None and owner.name != dom.name:
                raise InvalidInput(f"graph {graph} belongs to domain {owner.name!r}, not {dom.name!r}")
            return target, dom
        if dom is not None:
            return NamedNode(dom.data_graph), dom
        return DEFAULT_DATA_GRAPH, None

    def _domain_shapes(self, domain: Domain) -> DomainShapes:
        if domain.name not in self._shapes:
            self._shapes[domain.name] = DomainShapes(domain)
        return self._shapes[domain.name]

    # ------------------------------------------------------------------ reasoning state
    def _reasoning_session(self) -> ReasoningSession:
        if self._session is None:
            fast = bulkload.session_from_store(self)  # the duckdb engine over a store it can dump: no objects
            if fast is not None:
                self._session = fast
                return fast
            self._session = self.reasoner.session(self.asserted_triples())
            # reconcile a store written by another engine or version
            self._replace_inferred(set(self._session.inferred))
        return self._session

    def _replace_inferred(self, wanted: set[Triple]) -> tuple[set[Triple], set[Triple]]:
        """Make the inferred graph hold exactly ``wanted``; returns (added, removed)."""
        stored = self.inferred_triples()
        to_add, to_remove = wanted - stored, stored - wanted
        if to_remove:
            self.store.remove(_inferred_quads(to_remove))
        if to_add:
            self.store.add(_inferred_quads(to_add))
        return to_add, to_remove

    # ------------------------------------------------------------------ writes
    @_on_writer_thread
    def write(
        self,
        added: Iterable[Quad] = (),
        removed: Iterable[Quad] = (),
        *,
        domain: Domain | None = None,
        bulk: bool = False,
    ) -> ChangeSet:
        """Commit one change: validate (strict domains), store, update the closure, notify."""
        with self._write_mutex:
            return self._write(added, removed, domain=domain, bulk=bulk)

    def _write(
        self, added: Iterable[Quad], removed: Iterable[Quad], *, domain: Domain | None, bulk: bool
    ) -> ChangeSet:
        add_q = [q for q in dict.fromkeys(added) if q.graph_name != INFERRED_GRAPH]
        rem_q = [q for q in dict.fromkeys(removed) if q.graph_name != INFERRED_GRAPH]
        existing = set(self.store.graphs())
        fresh = {q.graph_name for q in add_q if isinstance(q.graph_name, NamedNode)} - existing
        add_q = [q for q in add_q if q.graph_name in fresh or not self._contains(q)]
        rem_q = [q for q in rem_q if self._contains(q)]
        warnings: tuple[ValidationResult, ...] = ()
        if domain is not None and (add_q or rem_q):
            report = check_write(
                store=self.store, domain=domain, shapes=self._domain_shapes(domain),
                reasoner=self.reasoner, validator=self.validator, added=add_q, removed=rem_q,
            )
            if domain.strict and not report.conforms:
                raise ShapeViolation(
                    f"write rejected: {len(report.violations)} SHACL violation(s) in strict domain "
                    f"{domain.name!r}; nothing was stored. Fix the listed focus nodes and load again", report,
                )
            warnings = as_warnings(report) if not domain.strict else report.results
        if not add_q and not rem_q:
            return ChangeSet(domain=domain.name if domain else None, warnings=warnings)

        session = self._reasoning_session()
        # a triple leaves the asserted set only when no other graph still asserts it
        removed_quads = set(rem_q)
        gone = [
            q.triple for q in rem_q
            if not any(
                o.graph_name != INFERRED_GRAPH and o not in removed_quads
                for o in self.store.quads(q.subject, q.predicate, q.object)
            )
        ]
        try:
            with gc_paused():
                delta = self._store_and_reason(session, add_q, rem_q, gone, bulk)
        except Exception as e:
            # rebuilt from the store on next use; the traceback travels to the caller's thread, so it must not
            # keep the (thread-bound) session alive there
            self._session = None
            session = None  # type: ignore[assignment]  # noqa: F841
            traceback.clear_frames(e.__traceback__)
            raise
        change = ChangeSet(
            asserted_added=tuple(add_q),
            asserted_removed=tuple(rem_q),
            inferred_added=tuple(delta.added),
            inferred_removed=tuple(delta.removed),
            domain=domain.name if domain else None,
            warnings=warnings,
        )
        self._publish(change)
        return change

    def _store_and_reason(
        self, session: ReasoningSession, add_q: list[Quad], rem_q: list[Quad], gone: list[Triple], bulk: bool
    ) -> InferenceDelta:
        """Update the closure, then change the store (asserted and inferred) while readers wait.

        (Storing the asserted quads on a second thread while the reasoner runs was measured and
        gained nothing: both hold the GIL while they convert Python objects.)
        """
        delta = session.apply(added=[q.triple for q in add_q], removed=gone)
        with self._rw.exclusive():
            self._apply_to_store(add_q, rem_q, delta, bulk)
        return delta

    def _apply_to_store(self, add_q: list[Quad], rem_q: list[Quad], delta: InferenceDelta, bulk: bool) -> None:
        if rem_q:
            self.store.remove(rem_q)
        quads = add_q + _inferred_quads(delta.added)
        if bulk or len(quads) >= BULK_MIN_QUADS:
            # the bulk path is not transactional: on failure take out what it may have written
            try:
                self.store.add(quads, bulk=True)
            except BaseException:
                self.store.remove(quads)
                raise
        else:
            self.store.add(quads)
        if delta.removed:
            self.store.remove(_inferred_quads(delta.removed))

    def _contains(self, q: Quad) -> bool:
        return next(iter(self.store.quads(q.subject, q.predicate, q.object, q.graph_name)), None) is not None

    def load(
        self,
        source: bytes | str | Path | BinaryIO,
        *,
        fmt: str | None = None,
        graph: str | None = None,
        domain: str | None = None,
        base_iri: str | None = None,
        bulk: bool = False,
        progress: bool = False,
    ) -> LoadResult:
        """Parse a whole document (atomically) into a named graph and commit it."""
        start = time.perf_counter()
        filename = source if isinstance(source, Path) else None
        rdf_format = resolve_format(fmt, filename)
        target, dom = self._resolve_target(graph, domain)
        if dom is not None and target.value != dom.ontology_graph:
            self.ensure_domain(dom.name)  # data is validated and reasoned with its ontology
        if isinstance(source, Path) and bulkload.applies(self, source, rdf_format, target, dom, bulk):
            fast = self._load_fast(source, rdf_format, target, base_iri, progress)
            if fast is not None:
                return fast
        with gc_paused():
            doc = self._parse(source, rdf_format, target, base_iri, progress)
            change = self.write(doc, domain=dom, bulk=bulk)
        return LoadResult(
            graph=target.value, domain=dom.name if dom else None, format=rdf_format.name, parsed=len(doc),
            asserted_added=len(change.asserted_added), inferred_added=len(change.inferred_added),
            inferred_removed=len(change.inferred_removed), warnings=change.warnings,
            seconds=time.perf_counter() - start,
        )

    @_on_writer_thread
    def _load_fast(
        self, source: Path, fmt: RdfFormat, target: NamedNode, base_iri: str | None, progress: bool
    ) -> LoadResult | None:
        """A large triples file into a new graph without Python objects (:mod:`hybridkg.semantic.bulkload`)."""
        with self._write_mutex:
            return bulkload.load(self, source, fmt, target, base_iri, progress)

    def _parse(
        self, source: bytes | str | Path | BinaryIO, fmt: RdfFormat, target: NamedNode,
        base_iri: str | None, progress: bool,
    ) -> list[Quad]:
        bar = None
        if progress and isinstance(source, Path) and source.is_file() and source.stat().st_size > PROGRESS_MIN_BYTES:
            from tqdm import tqdm

            bar = tqdm(total=source.stat().st_size, unit="B", unit_scale=True, desc=f"parse {source.name}")
        try:
            doc = parse_document(
                source, fmt, target, max_bytes=self.max_input_bytes, base_iri=base_iri,
                on_read=bar.update if bar is not None else None,
            )
        finally:
            if bar is not None:
                bar.close()
        for q in doc.quads:
            if q.graph_name == INFERRED_GRAPH:
                raise InvalidInput(f"the document writes into {INFERRED_GRAPH.value}, which holds inferred triples")
        return doc.quads

    def replace_graph(
        self, graph: str, source: bytes | str | Path | BinaryIO, *, fmt: str | None = None,
        domain: str | None = None,
    ) -> ChangeSet:
        """Replace a named graph's content in one validated change."""
        filename = source if isinstance(source, Path) else None
        target, dom = self._resolve_target(graph, domain)
        new = self._parse(source, resolve_format(fmt, filename), target, None, False)
        old = list(self.store.quads(graph=target))
        new_set = set(new)
        old_set = set(old)
        return self.write([q for q in new if q not in old_set], [q for q in old if q not in new_set], domain=dom)

    def drop_graph(self, graph: str) -> ChangeSet:
        target, dom = self._resolve_target(graph, None)
        return self.write((), list(self.store.quads(graph=target)), domain=dom)

    def export(self, graph: str, fmt: str = "turtle") -> bytes:
        target = NamedNode(graph) if graph != "default" else DefaultGraph()
        return serialize_triples(list(self.store.quads(graph=target)), resolve_format(fmt))

    # ------------------------------------------------------------------ SPARQL Update, dry runs
    @_on_writer_thread
    def update(
        self,
        sparql: str,
        *,
        using_graphs: Sequence[str] | None = None,
        using_named_graphs: Sequence[str] | None = None,
        inference: bool = True,
        base_iri: str | None = None,
    ) -> ChangeSet:
        """Apply a SPARQL 1.1 Update request as one atomic change through the SHACL gate.

        Every strict domain whose graphs the request touches must conform afterwards, or nothing is
        stored (:class:`ShapeViolation`); fuzzy domains return their results as warnings. The
        request's default graph is :data:`DEFAULT_DATA_GRAPH` (see :mod:`hybridkg.semantic.update`).
        ``using_graphs``/``using_named_graphs`` are the protocol's ``using-graph-uri`` and
        ``using-named-graph-uri``: the dataset of WHERE clauses without WITH/USING, each ``None`` for
        every graph as in :meth:`stream`; ``inference=False`` hides the inferred graph from them.
        ``base_iri`` resolves relative IRIs of a request without BASE.
        Raises InvalidQuery (syntax, with the parser's line:column), Unsupported (LOAD, SERVICE) and
        InvalidInput (writes to the inferred graph).
        """
        ops = parse_update(sparql, base_iri=base_iri)
        dataset = UpdateDataset.of(using_graphs, using_named_graphs, inference=inference)
        with self._write_mutex:
            change = evaluate(self.store, ops, default_graph=DEFAULT_DATA_GRAPH, dataset=dataset)
            return self._gated_write(list(change.added), list(change.removed))

    def validate_write(
        self, source: bytes | str | Path, *, domain: str, fmt: str | None = None, graph: str | None = None
    ) -> ValidationReport:
        """Dry run of :meth:`load`: would this document be accepted into ``domain``? Nothing is stored.

        For a fuzzy domain every result is a warning and ``conforms`` is True (the load would be
        accepted), as :meth:`load` reports it.
        """
        filename = source if isinstance(source, Path) else None
        rdf_format = resolve_format(fmt, filename)
        target, dom = self._resolve_target(graph, domain)
        assert dom is not None  # a domain name was given
        quads = self._parse(source, rdf_format, target, None, False)
        # as a load would: what the graph already holds is not added again
        fresh = NamedNode(target.value) not in set(self.store.graphs())
        quads = [q for q in dict.fromkeys(quads) if fresh or not self._contains(q)]
        report = self._check_domain(dom, quads, [])
        if dom.strict:
            return report
        return ValidationReport(conforms=True, results=as_warnings(report), engine=report.engine)

    def _gated_write(self, added: list[Quad], removed: list[Quad]) -> ChangeSet:
        """Commit a change that may span domains: each touched domain is validated on its own quads."""
        touched: dict[str, tuple[Domain, list[Quad], list[Quad]]] = {}
        outside = False
        for quads, is_added in ((added, True), (removed, False)):
            for q in quads:
                dom = self.policy.domain_of_graph(q.graph_name.value) if isinstance(q.graph_name, NamedNode) else None
                if dom is None:
                    outside = True
                    continue
                _, dom_added, dom_removed = touched.setdefault(dom.name, (dom, [], []))
                (dom_added if is_added else dom_removed).append(q)
        if len(touched) == 1 and not outside:
            dom = next(iter(touched.values()))[0]
            if not self._absent_ontology(dom, added + removed):
                return self._write(added, removed, domain=dom, bulk=False)  # exactly load's path
        warnings: list[ValidationResult] = []
        rejected: list[ValidationResult] = []
        names: list[str] = []
        for dom, add_q, rem_q in touched.values():
            report = self._check_domain(dom, add_q, rem_q)
            if dom.strict and not report.conforms:
                rejected.extend(report.results)
                names.append(dom.name)
            else:
                warnings.extend(report.results if dom.strict else as_warnings(report))
        if rejected:
            raise ShapeViolation(
                f"update rejected: {sum(r.severity == 'Violation' for r in rejected)} SHACL violation(s) in "
                f"strict domain(s) {', '.join(map(repr, names))}; nothing was stored",
                ValidationReport(conforms=False, results=tuple(rejected), engine=self.validator.name),
            )
        for dom, _, _ in touched.values():
            if self._absent_ontology(dom, added + removed):
                self.ensure_domain(dom.name)  # as load does: data is reasoned with its ontology
        change = self._write(added, removed, domain=None, bulk=False)
        single = next(iter(touched)) if len(touched) == 1 and not outside else None
        return replace(change, domain=single, warnings=tuple(warnings))

    def _check_domain(self, dom: Domain, added: list[Quad], removed: list[Quad]) -> ValidationReport:
        """The SHACL report for the domain after the change (its ontology included even if not loaded yet)."""
        extra = self._absent_ontology(dom, added + removed)
        return check_write(
            store=self.store, domain=dom, shapes=self._domain_shapes(dom), reasoner=self.reasoner,
            validator=self.validator, added=added + extra, removed=removed,
        )

    def _absent_ontology(self, dom: Domain, change: list[Quad]) -> list[Quad]:
        """The domain's ontology file as quads, if its graph is neither stored nor written by ``change``."""
        graph = NamedNode(dom.ontology_graph)
        path = dom.path_of(dom.ontology)
        if path is None or graph in self.store.graphs() or any(q.graph_name == graph for q in change):
            return []
        return parse_document(path, resolve_format(None, path), graph, max_bytes=self.max_input_bytes).quads

    # ------------------------------------------------------------------ domains
    def ensure_domain(self, name: str, *, with_demo_data: bool = False) -> list[LoadResult]:
        """Load a domain's ontology (and optionally its demo data) if its graphs are empty."""
        dom = self.policy.get(name)
        results = []
        present = set(self.store.graphs())
        wanted = [(dom.ontology, dom.ontology_graph)]
        if with_demo_data:
            wanted.append((dom.demo_data, dom.data_graph))
        for rel, graph in wanted:
            path = dom.path_of(rel)
            if path is not None and NamedNode(graph) not in present:
                results.append(self.load(path, graph=graph, domain=name))
        return results

    # ------------------------------------------------------------------ reads
    def query(self, sparql: str, *, inference: bool = True) -> QueryResult:
        with self._rw.shared():
            if inference:
                return self.store.query(sparql)
            return self.store.query(sparql, default_graphs=self.asserted_graphs())

    def stream(
        self,
        sparql: str,
        *,
        inference: bool = True,
        default_graphs: Sequence[str] | None = None,
        named_graphs: Sequence[str] | None = None,
    ) -> QueryStream:
        """Start a query and read its results lazily; it sees the state before or after any write.

        ``default_graphs`` / ``named_graphs`` are the SPARQL protocol's dataset (``None``: the union of
        every graph / every named graph). ``inference=False`` hides the inferred graph from both; with
        inference, an explicit default graph also takes the inferred triples.
        """
        with self._rw.shared():
            asserted = self.asserted_graphs()
            if default_graphs is None:
                default = None if inference else asserted
            else:
                default = [NamedNode(g) for g in default_graphs if g != INFERRED_GRAPH.value]
                if inference:
                    default.append(INFERRED_GRAPH)
            if named_graphs is None:
                named = None if inference else asserted
            else:
                named = [NamedNode(g) for g in named_graphs if inference or g != INFERRED_GRAPH.value]
            return self.store.stream(sparql, default_graphs=default, named_graphs=named)

    def explain(self, triple: Triple) -> Explanation:
        """Why ``triple`` holds, from the store; guided by the engine's derivation ranks when it keeps them. An
        engine that keeps part of the closure out of the store (the duckdb engine's restriction types) adds that
        part from its session, started first if this process has none yet (a CLI run), so proofs through a
        restriction still reach asserted triples."""
        from hybridkg.semantic.reasoning.explain import explain

        def run() -> Explanation:
            with self._rw.shared():
                session = self._tls.session
                unstored = getattr(session, "unstored", None)
                view = StoreGraphView(self.store) if unstored is None else SessionGraphView(self.store, unstored)
                return explain(triple, view, ranks=_rank_oracle(session))

        found = run()
        if self._tls.session is None and getattr(self.reasoner, "store_blank_node_types", True) is False and (
                (found.status == "inferred" and found.rule is None)
                or (found.status == "not_entailed" and isinstance(triple.object, BlankNode))):
            # no proof from the store alone, and the engine keeps part of the closure out of it: start the session
            # (reasoning over the whole store, so only when needed) and search again with that part
            self._start_session()
            found = run()
        return found

    @_on_writer_thread
    def _start_session(self) -> None:
        with self._write_mutex:
            self._reasoning_session()

    @_on_writer_thread
    def reason(self, reasoner: Reasoner | None = None) -> ReasonResult:
        """Recompute the whole closure (optionally with another engine) and store the difference."""
        start = time.perf_counter()
        engine = reasoner or self.reasoner
        fast = bulkload.reason(self, engine)  # the duckdb engine over a store it can dump: no objects
        if fast is not None:
            return fast
        asserted = self.asserted_triples()
        session = engine.session(asserted)
        wanted = set(session.inferred)
        to_add, to_remove = self._replace_inferred(wanted)
        if engine is self.reasoner:
            self._session = session
        else:
            self._session = None
        if to_add or to_remove:
            self._publish(ChangeSet(inferred_added=tuple(to_add), inferred_removed=tuple(to_remove)))
        return ReasonResult(
            engine=engine.name, asserted=len(asserted), inferred=len(wanted),
            inferred_added=len(to_add), inferred_removed=len(to_remove),
            seconds=time.perf_counter() - start,
        )

    def flush(self) -> None:
        flush = getattr(self.store, "flush", None)
        if flush is not None:
            flush()
