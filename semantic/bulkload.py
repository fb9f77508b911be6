"""Loading a large file without Python objects: the ``duckdb`` engine's fast path (issue 12 §1).

The object path (:meth:`KnowledgeBase.load`) parses a document into Python quads, hands them to the reasoner, and
hands the inferred triples back to the store: at millions of triples the objects are the cost (time and memory).
Here, for a triples file with no domain to validate:

1. Oxigraph's bulk loader reads the (decompressed, size-limited) document straight into the graph;
2. the graph is written out as canonical N-Triples (Oxigraph's own writer: one triple a line, blank nodes as the
   store named them), which DuckDB reads by splitting lines (:meth:`DuckDBSession.add_ntriples`);
3. the closure is updated in DuckDB, and the triples that joined the inferred set are written as N-Triples by
   DuckDB and bulk-loaded into the inferred graph; the few that left it (now asserted) are removed.

Change listeners get the same :class:`ChangeSet` as on the object path, built only when there are listeners.
On failure nothing is half-written. Oxigraph's bulk load stores all or nothing, so a load that failed or was
stopped leaves the graph as it was: when DuckDB fails first (the size limit on a gzip file, a line it refuses, want of
memory), a load still reading is stopped at its next read, and a plain file's size is checked before any work. (On
four cores or more a plain file goes to Oxigraph by path, parsed in parallel, and cannot be stopped.) Only a graph
whose load finished is put back as it was, which takes minutes at millions of triples (Oxigraph deletes in one
transaction). The reasoning session is dropped and rebuilt on its next use, at once if inferred triples may have
been stored (the rebuild reconciles the inferred graph).
"""

from __future__ import annotations

import io
import logging
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, wait
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from pyoxigraph import NamedNode, Quad, RdfFormat, Triple, parse

from hybridkg.errors import InvalidInput, ParseError
from hybridkg.semantic.base import INFERRED_GRAPH, ChangeSet, Reasoner, ReasoningSession
from hybridkg.semantic.formats import LimitedReader, open_document, too_large
from hybridkg.semantic.perf import cores

if TYPE_CHECKING:
    from hybridkg.semantic.domains import Domain
    from hybridkg.semantic.kb import KnowledgeBase, LoadResult, ReasonResult
    from hybridkg.semantic.reasoning.duckdb_engine import DuckDBSession

_log = logging.getLogger(__name__)

#: Below this many bytes (compressed) a file takes the object path unless the caller asks for ``bulk``.
FAST_MIN_BYTES = 4 << 20

#: Quads a batch of Oxigraph's bulk loader (``DEFAULT_BULK_LOAD_BATCH_SIZE`` in oxigraph's storage): each batch is
#: sorted and written on a thread of its own, so a smaller file loads on one thread.
OXIGRAPH_BATCH = 1_000_000

#: Seconds per phase of the last fast load in this process (what ``bench/reasoning.py`` reports).
LAST_PHASES: dict[str, float] = {}

_TRIPLE_FORMATS = (RdfFormat.N_TRIPLES, RdfFormat.TURTLE, RdfFormat.RDF_XML, RdfFormat.N3)


def applies(kb: KnowledgeBase, source: object, fmt: RdfFormat, target: NamedNode, dom: Domain | None,
            bulk: bool) -> bool:
    """Whether ``kb.load`` can take the fast path for this document."""
    if not isinstance(source, Path) or dom is not None or fmt not in _TRIPLE_FORMATS:
        return False
    if kb.reasoner.name != "duckdb" or not hasattr(kb.store, "load_stream") or not hasattr(kb.store, "dump_graph"):
        return False
    return bulk or (source.is_file() and source.stat().st_size >= FAST_MIN_BYTES)


def load(kb: KnowledgeBase, source: Path, fmt: RdfFormat, target: NamedNode, base_iri: str | None,
         progress: bool) -> LoadResult | None:
    """The fast path; ``None`` when the reasoning session cannot take a file (the caller falls back)."""
    from hybridkg.semantic.kb import LoadResult
    from hybridkg.semantic.reasoning.duckdb_engine import DuckDBSession

    start = time.perf_counter()
    session = kb._reasoning_session()
    if not isinstance(session, DuckDBSession):
        return None
    store = kb.store
    bar: Any = None
    if progress and source.stat().st_size > FAST_MIN_BYTES:
        from tqdm import tqdm

        bar = tqdm(total=source.stat().st_size, unit="B", unit_scale=True, desc=f"load {source.name}")
    phases: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="hkg-load-") as tmp:
        before: Path | None = None
        if target in set(store.graphs()):  # kept to restore the graph should the load fail, and to count
            before = Path(tmp) / "before.nt"
            store.dump_graph(target, before)  # type: ignore[attr-defined]
        stored = _Stored()
        try:
            counts = _load(kb, session, source, fmt, target, base_iri, Path(tmp), before, bar, phases, start, stored)
        except BaseException as failure:
            if bar is not None:
                bar.close()
            _log.warning("fast load of %s failed: graph %s put back as it was, and the inferred graph with it",
                         source, target.value)
            kb._session = None  # closes the session; the next use rebuilds it from the store
            if stored.asserted:  # Oxigraph's load is all or nothing: only one that finished is undone
                with kb._rw.exclusive():
                    store.clear_graph(target)  # type: ignore[attr-defined]
                    if before is not None:  # as objects: the store keeps their blank nodes' names
                        store.add(Quad(q.subject, q.predicate, q.object, target)
                                  for q in parse(path=str(before), format=RdfFormat.N_TRIPLES))
            if stored.inferred and isinstance(failure, Exception):
                # inferred triples of the failed file may be stored already (Oxigraph refused a line DuckDB took,
                # after the inferred load): the closure rebuilt from the store now takes them out of the inferred
                # graph, so no query sees them
                try:
                    kb._reasoning_session()
                except Exception:  # (no session is kept) the next use tries again
                    _log.exception("the closure could not be rebuilt after the failed load; the next use tries again")
            raise
    read, new, plus, minus = counts
    return LoadResult(
        graph=target.value, domain=None, format=fmt.name, parsed=read, asserted_added=new, inferred_added=plus,
        inferred_removed=minus, warnings=(), seconds=time.perf_counter() - start,
    )


def _load(kb: KnowledgeBase, session: DuckDBSession, source: Path, fmt: RdfFormat, target: NamedNode,
          base_iri: str | None, tmp: Path, before: Path | None, bar: Any, phases: dict[str, float],
          start: float, stored: _Stored) -> tuple[int, int, int, int]:
    store = kb.store

    def lap(name: str) -> None:
        """Record the time since the last phase (or the start) as phase ``name``."""
        phases[name] = time.perf_counter() - start - sum(phases.values())

    def store_asserted() -> None:
        with open_document(source, max_bytes=kb.max_input_bytes,
                           on_read=bar.update if bar is not None else None) as stream:
            try:
                store.load_stream(stream, fmt, target, base_iri=base_iri)  # type: ignore[attr-defined]
            except SyntaxError as e:
                raise ParseError(fmt.name, e.lineno, e.offset, f"{e.msg} (in {source})") from e
        stored.asserted = True

    counts = None
    inferred: list[Path] = []
    inferred_blank = tmp / "inferred-blank.nq"
    blank = 0
    removed: list[Triple] = []

    def write_inferred(counts: tuple[int, int, int, int], side_by_side: bool) -> None:
        nonlocal blank, removed
        # one share a loader if they will load side by side, else one file (each share joins the dictionary anew)
        inferred.extend(tmp / f"inferred-{i}.nt" for i in range(_loaders() if side_by_side else 1))
        session.write_added(inferred)
        blank = session.write_added_with_blank_nodes(inferred_blank, INFERRED_GRAPH)
        removed = session.removed_triples() if counts[3] else []
        lap("write inferred")

    def store_inferred() -> None:
        # Oxigraph's loader sorts a file of less than one batch on one thread: with cores to spare, the shares load
        # side by side (LUBM(1): 0.33 s -> 0.17 s alone on two cores; the whole CLI load 1.39-1.46 -> 1.31-1.33 s,
        # medians of 8). Beside an asserted load of several batches, which keeps the cores busy, one after
        # another (LUBM(50): side by side 85.0 s, one after another 82.9 s, 2 runs each). lenient: these lines are
        # DuckDB's own writing of terms the store has already checked
        workers = len(inferred) + 1 if len(inferred) > 1 else 1
        stored.inferred = True
        with ThreadPoolExecutor(workers, thread_name_prefix="hkg-inferred") as pool:
            loads = [pool.submit(store.load_path, share, RdfFormat.N_TRIPLES, INFERRED_GRAPH,  # type: ignore[attr-defined]
                                 lenient=True) for share in inferred]
            if blank:  # parsed to objects: the store keeps their blank nodes' names (its bulk loader would not)
                loads.append(pool.submit(store.add, parse(path=str(inferred_blank), format=RdfFormat.N_QUADS),
                                         bulk=True))
            for done in loads:
                done.result()
        if removed:
            store.remove([Quad(t.subject, t.predicate, t.object, INFERRED_GRAPH) for t in removed])

    with kb._rw.exclusive():
        if _direct(source, fmt):
            if not _gzip(source) and source.stat().st_size > kb.max_input_bytes:  # before any work
                raise too_large(str(source), source.stat().st_size, kb.max_input_bytes)
            # Oxigraph's loader reads the file on one thread; on this one DuckDB reads it too and reasons, then
            # Oxigraph loads the inferred triples beside the first load (neither holds the GIL)
            stop = threading.Event()
            with ThreadPoolExecutor(1, thread_name_prefix="hkg-bulk") as pool:
                loading = pool.submit(_store_file, store, source, fmt, target, base_iri, kb.max_input_bytes, stop,
                                      stored)
                try:
                    counts = session.add_ntriples(source, strict=True, max_bytes=kb.max_input_bytes, besides=before)
                    lap("reason")
                    if counts is not None:
                        # the asserted load, if not done, keeps one thread busy below one batch of Oxigraph's
                        # loader and one a batch above it
                        write_inferred(counts, loading.done() or counts[0] < OXIGRAPH_BATCH)
                        store_inferred()
                        lap("store inferred")
                except BaseException:
                    # a load that reads a pipe stops at its next read, before anything is stored (undoing a stored
                    # graph of millions of triples takes minutes); the first failure is the one reported
                    stop.set()
                    wait([loading])
                    raise
                loading.result()
            lap("store asserted")
            if counts is not None:
                if bar is not None:  # Oxigraph and DuckDB read the file themselves: the bar jumps to its end
                    bar.update(bar.total - bar.n)
                    bar.close()
                _done(kb, source, target, phases, removed)
                return counts
        else:
            store_asserted()
            lap("store asserted")
    if bar is not None:
        bar.close()
    # not in the store's spelling (or not N-Triples): read the store's own copy of the graph
    asserted = tmp / "asserted.nt"
    store.dump_graph(target, asserted)  # type: ignore[attr-defined]
    lap("dump")
    counts = session.add_ntriples(asserted, besides=before)
    assert counts is not None
    lap("reason")
    write_inferred(counts, True)
    with kb._rw.exclusive():
        store_inferred()
    lap("store inferred")
    _done(kb, source, target, phases, removed)
    return counts


def _done(kb: KnowledgeBase, source: Path, target: NamedNode, phases: dict[str, float], removed: list[Triple]) -> None:
    LAST_PHASES.clear()
    LAST_PHASES.update(phases)
    _log.info("fast load of %s: %s", source, ", ".join(f"{k} {v:.1f} s" for k, v in phases.items()))
    if kb._listeners:  # the triples are not listed (millions of Python objects): listeners re-read
        kb._publish(ChangeSet(inferred_removed=tuple(removed), bulk_graphs=(target,)))


def session_from_store(kb: KnowledgeBase) -> ReasoningSession | None:
    """A duckdb reasoning session over the store's asserted graphs, read from the store's own N-Triples dumps,
    with the stored inferred graph reconciled in SQL (a store written by another engine or version); ``None`` when
    the engine or the store cannot do this (the caller takes the object path)."""
    built = _from_store(kb, kb.reasoner)
    return None if built is None else built[0]


def reason(kb: KnowledgeBase, engine: Reasoner) -> ReasonResult | None:
    """:meth:`KnowledgeBase.reason` with the duckdb engine over a store it can dump: the closure recomputed from the
    dumps of the asserted graphs and the inferred graph put in line, without Python objects but for the difference;
    ``None`` when this does not apply (the caller takes the object path)."""
    from hybridkg.semantic.kb import ReasonResult

    start = time.perf_counter()
    built = _from_store(kb, engine)
    if built is None:
        return None
    session, missing, extra = built
    con = session._closure.con
    asserted = int(con.execute("SELECT count(*) FROM t WHERE r = 0").fetchall()[0][0])
    inferred = int(con.execute("SELECT count(*) FROM inf").fetchall()[0][0])
    if engine is kb.reasoner:
        kb._session = session
    else:
        session.close()
        kb._session = None  # the knowledge base's own engine starts again from the store
    if missing or extra:
        kb._publish(ChangeSet(inferred_added=tuple(missing), inferred_removed=tuple(extra)))
    return ReasonResult(engine=engine.name, asserted=asserted, inferred=inferred, inferred_added=len(missing),
                        inferred_removed=len(extra), seconds=time.perf_counter() - start)


def _from_store(kb: KnowledgeBase, engine: Reasoner) -> tuple[DuckDBSession, list[Triple], list[Triple]] | None:
    """A duckdb session of ``engine`` built from the store's dumps, and the inferred triples it added to and took
    out of the store's inferred graph to put it in line."""
    from hybridkg.semantic.reasoning.duckdb_engine import DuckDBSession

    store = kb.store
    if engine.name != "duckdb" or not hasattr(store, "dump_graph"):
        return None
    graphs = kb.asserted_graphs()
    session = engine.session(())
    if not isinstance(session, DuckDBSession):
        session.close()  # type: ignore[attr-defined]
        return None
    try:
        with tempfile.TemporaryDirectory(prefix="hkg-session-") as tmp:
            dumps = []
            for i, g in enumerate(graphs):
                dumps.append(Path(tmp) / f"g{i}.nt")
                store.dump_graph(g, dumps[-1])  # type: ignore[attr-defined]
            if dumps:
                session.add_ntriples(dumps)
            missing: list[Triple] = []
            extra: list[Triple] = []
            if dumps or INFERRED_GRAPH in set(store.graphs()):  # else nothing to put in line (a new store)
                stored = Path(tmp) / "inferred.nt"
                store.dump_graph(INFERRED_GRAPH, stored)  # type: ignore[attr-defined]
                missing, extra = session.reconcile(stored)
        if missing or extra:
            _log.info("the stored inferred graph was out of step: %d missing, %d extra triples", len(missing),
                      len(extra))
            with kb._rw.exclusive():
                if extra:
                    store.remove([Quad(t.subject, t.predicate, t.object, INFERRED_GRAPH) for t in extra])
                if missing:
                    store.add([Quad(t.subject, t.predicate, t.object, INFERRED_GRAPH) for t in missing])
    except BaseException:
        session.close()
        raise
    return session, missing, extra


class _Stored:
    """What a fast load has stored so far: the asserted graph, and (possibly) inferred triples."""

    def __init__(self) -> None:
        self.asserted = False
        self.inferred = False


def _store_file(store: object, source: Path, fmt: RdfFormat, target: NamedNode, base_iri: str | None,
                limit: int, stop: threading.Event, stored: _Stored) -> None:
    """Oxigraph's bulk loader on the file itself, read as a stream that fails at its next read once ``stop`` is set,
    before anything is stored: a gzip file through ``gzip -dc`` and a pipe read with the size limit, a plain file
    through the same reader. (A plain file's size is checked before, and DuckDB's read of the same file checks it
    too.) On four cores or more a plain file goes by path: Oxigraph then parses it in parallel, and cannot stop.
    Sets ``stored.asserted`` once the graph is stored."""
    try:
        if not _gzip(source) and cores() >= 4:  # a path is parsed in parallel
            store.load_path(source, fmt, target, base_iri=base_iri)  # type: ignore[attr-defined]
            stored.asserted = True
            return
        # else parsed on one thread either way, so read as a stream that can stop (a plain file: LUBM(1) CLI 1.22 s
        # against 1.21 s by path). The loader reads 2 KiB at a time: from a buffer, so the file is read (and checked)
        # ~64 KiB at a time (a gzip pipe, LUBM(10): 3.4-3.5 s against 3.5-4.2 s bare, 3 runs each, in memory)
        with _raw_stream(source) as (raw, codec):
            reader = LimitedReader(raw, str(source), limit=limit, codec=codec, stop=stop)
            store.load_stream(io.BufferedReader(reader, 1 << 20), fmt, target,  # type: ignore[attr-defined]
                              base_iri=base_iri)
            stored.asserted = True
    except SyntaxError as e:
        raise ParseError(fmt.name, e.lineno, e.offset, f"{e.msg} (in {source})") from e


@contextmanager
def _raw_stream(source: Path) -> Iterator[tuple[IO[bytes], str | None]]:
    """The file's bytes, unbuffered, and their codec: a plain file opened (``None``), a gzip file through
    ``gzip -dc`` (``"gzip"``), whose own failure is raised as :class:`InvalidInput` when the reading ends, before a
    parse error of its cut output, which says less."""
    if not _gzip(source):
        with open(source, "rb", buffering=0) as raw:
            yield raw, None
        return
    proc = subprocess.Popen(["gzip", "-dc", "--", str(source)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            bufsize=0)
    assert proc.stdout is not None
    try:
        yield proc.stdout, "gzip"
    finally:
        if proc.poll() is None:  # the loader stopped early
            proc.kill()
        _, err = proc.communicate()
        if proc.returncode > 0:
            raise InvalidInput(f"{source} could not be decompressed ({err.decode(errors='replace').strip()}); "
                               "the file is corrupt or not gzip, nothing was stored")


def _gzip(source: Path) -> bool:
    return source.name.lower().endswith(".gz")


def _loaders() -> int:
    """How many bulk loads of the inferred triples run side by side: one a core, at most four."""
    return min(4, cores())


def _direct(source: Path, fmt: RdfFormat) -> bool:
    """Whether DuckDB can read the file itself: N-Triples, plain or gzip (then checked line by line), in a regular
    file (DuckDB and Oxigraph both read it: from a FIFO each would get part of the lines, or one would wait forever)."""
    if not source.is_file():
        return False
    name = source.name.lower()
    if name.endswith(".nt.gz") and shutil.which("gzip") is None:
        return False
    return fmt == RdfFormat.N_TRIPLES and (name.endswith(".nt") or name.endswith(".nt.gz"))
