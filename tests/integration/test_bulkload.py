"""The duckdb engine's fast file path (hybridkg.semantic.bulkload): the same store as the object path, for files
DuckDB reads itself and for files it must take from the store's own copy; failures leave nothing behind."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from pyoxigraph import BlankNode, NamedNode, Quad, Triple

from hybridkg.errors import ParseError
from hybridkg.semantic import bulkload
from hybridkg.semantic.base import INFERRED_GRAPH, ChangeSet
from hybridkg.semantic.formats import LimitedReader
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.reasoning.duckdb_engine import DuckDBSession
from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.settings import ReasoningConfig, StoreConfig, ValidationConfig
from hybridkg.semantic.store.factory import make_store
from hybridkg.semantic.validation.factory import make_validator

ONTOLOGY = """@prefix : <http://example.org/u#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
:Student rdfs:subClassOf :Person . :advisor rdfs:domain :Student ; rdfs:range :Professor .
:Professor rdfs:subClassOf :Person . :partOf a owl:TransitiveProperty .
:knows a owl:SymmetricProperty .
"""


def _kb(path: Path, engine: str) -> KnowledgeBase:
    kb = KnowledgeBase(make_store(StoreConfig(backend="embedded", path=path)),
                       reasoner=make_reasoner(ReasoningConfig(engine=engine)),
                       validator=make_validator(ValidationConfig()))
    kb.load(ONTOLOGY.encode(), fmt="turtle", graph="urn:onto")
    return kb


def _data(n: int, *, odd: bool) -> str:
    """``n`` students with advisors and a partOf chain; ``odd`` adds lines DuckDB must not read itself
    (a blank node, an escape, an xsd:string datatype, an upper-case language tag)."""
    u = "http://example.org/u#"
    lines = []
    for i in range(n):
        lines.append(f"<{u}s{i}> <{u}advisor> <{u}p{i % 7}> .")
        lines.append(f'<{u}s{i}> <{u}name> "student {i}  two spaces" .')
        lines.append(f"<{u}d{i}> <{u}partOf> <{u}d{i + 1}> .")
        lines.append(f"<{u}s{i}> <{u}knows> <{u}s{(i * 3) % n}> .")
    if odd:
        lines += [f"_:b1 <{u}advisor> <{u}p1> .", f'<{u}x> <{u}name> "\\u0041" .',
                  f'<{u}y> <{u}name> "y"^^<http://www.w3.org/2001/XMLSchema#string> .', f'<{u}z> <{u}name> "z"@EN .']
    return "\n".join(lines) + "\n"


def _ground(triples: set[Triple]) -> set[Triple]:
    return {t for t in triples if not isinstance(t.subject, BlankNode)}


@pytest.mark.parametrize(("odd", "gz"), [(False, False), (False, True), (True, False)])
def test_fast_path_stores_what_the_object_path_stores(tmp_path: Path, odd: bool, gz: bool) -> None:
    text = _data(300, odd=odd)
    name = "data.nt.gz" if gz else "data.nt"
    f = tmp_path / name
    f.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    fast, slow = _kb(tmp_path / "fast", "duckdb"), _kb(tmp_path / "slow", "reasonable")
    try:
        seen: list[ChangeSet] = []
        fast.subscribe(seen.append)
        result = fast.load(f, graph="urn:data", bulk=True)
        assert "store asserted" in " ".join(bulkload.LAST_PHASES)  # the fast path ran
        assert ("dump" in bulkload.LAST_PHASES) == odd  # the store's own copy only when DuckDB cannot read the file
        expected = slow.load(f, graph="urn:data", bulk=True)
        assert (result.asserted_added, result.inferred_added) == (expected.asserted_added, expected.inferred_added)
        assert _ground(fast.asserted_triples()) == _ground(slow.asserted_triples())
        assert _ground(fast.inferred_triples()) == _ground(slow.inferred_triples())
        assert len(fast.inferred_triples()) == len(slow.inferred_triples())
        # listeners hear of the bulk load by its graph (its triples are not listed), and re-read the store
        assert [c.bulk_graphs for c in seen] == [(NamedNode("urn:data"),)]
        assert not seen[0].empty
        # the session goes on incrementally after the fast load
        u = "http://example.org/u#"
        more = f"<{u}s9999> <{u}advisor> <{u}p9999> .\n".encode()
        a, b = fast.load(more, fmt="nt", graph="urn:more"), slow.load(more, fmt="nt", graph="urn:more")
        assert a.inferred_added == b.inferred_added
        assert _ground(fast.inferred_triples()) == _ground(slow.inferred_triples())
    finally:
        fast.close()
        slow.close()


@pytest.mark.parametrize("bad", [
    "<http://example.org/u#a> <http://example.org/u#b> .",  # DuckDB refuses it: Oxigraph's load alone fails
    # DuckDB takes it and reasons, Oxigraph refuses it: its inferred triples may be stored before the failure shows
    "<http://example.org/u#a> <http://example.org/u#b> <relative> .",
])
@pytest.mark.parametrize("existing", [False, True])
def test_a_syntax_error_leaves_nothing_behind(tmp_path: Path, existing: bool, bad: str) -> None:
    f = tmp_path / "bad.nt"
    f.write_text(_data(200, odd=False) + bad + "\n")
    kb = _kb(tmp_path / "store", "duckdb")
    graph = "urn:onto" if existing else "urn:data"  # an existing graph is put back as it was
    try:
        before = (kb.asserted_triples(), kb.inferred_triples())
        with pytest.raises(ParseError):
            kb.load(f, graph=graph, bulk=True)
        assert (kb.asserted_triples(), kb.inferred_triples()) == before
        assert ("urn:data" in {g.value for g in kb.store.graphs()}) is False
        good = tmp_path / "good.nt"
        good.write_text(_data(50, odd=False))
        assert kb.load(good, graph=graph, bulk=True).asserted_added == 200
    finally:
        kb.close()


def test_loading_into_an_existing_graph_as_a_new_user_does(tmp_path: Path) -> None:
    """`hybridkg load onto.ttl data.nt`: both files into one graph, the second one large."""
    f = tmp_path / "data.nt"
    f.write_text(_data(300, odd=False) + _data(10, odd=False))  # 40 lines twice: counted once
    onto = tmp_path / "onto.ttl"
    onto.write_text(ONTOLOGY)
    fast, slow = _kb(tmp_path / "fast", "duckdb"), _kb(tmp_path / "slow", "reasonable")
    try:
        for kb in (fast, slow):
            kb.load(onto, graph="urn:data")
        result = fast.load(f, graph="urn:data", bulk=True)
        expected = slow.load(f, graph="urn:data", bulk=True)
        assert "store asserted" in bulkload.LAST_PHASES
        assert "dump" not in bulkload.LAST_PHASES  # DuckDB read the file itself
        assert (result.asserted_added, result.inferred_added) == (expected.asserted_added, expected.inferred_added)
        assert fast.asserted_triples() == slow.asserted_triples()
        assert fast.inferred_triples() == slow.inferred_triples()
    finally:
        fast.close()
        slow.close()


def test_a_new_session_reads_the_store_and_reconciles_its_inferred_graph(tmp_path: Path) -> None:
    f = tmp_path / "data.nt"
    f.write_text(_data(100, odd=True))
    kb = _kb(tmp_path / "store", "duckdb")
    kb.load(f, graph="urn:data", bulk=True)
    want = kb.inferred_triples()
    u = "http://example.org/u#"
    bogus = Triple(NamedNode(u + "nobody"), NamedNode(u + "knows"), NamedNode(u + "nobody2"))
    lost = next(t for t in want if not isinstance(t.subject, BlankNode))
    kb.store.add([Quad(bogus.subject, bogus.predicate, bogus.object, INFERRED_GRAPH)])
    kb.store.remove([Quad(lost.subject, lost.predicate, lost.object, INFERRED_GRAPH)])
    kb.close()
    # a new knowledge base over the same store, as a new process has
    again = KnowledgeBase(make_store(StoreConfig(path=tmp_path / "store")),
                          reasoner=make_reasoner(ReasoningConfig(engine="duckdb")),
                          validator=make_validator(ValidationConfig()))
    try:
        more = f"<{u}s5000> <{u}advisor> <{u}p5000> .\n".encode()
        added = again.load(more, fmt="nt", graph="urn:more")
        assert isinstance(again._session, DuckDBSession)  # built from the store's dumps
        assert bogus not in again.inferred_triples()
        assert lost in again.inferred_triples()
        assert added.inferred_added == 6  # s5000 a Student, Person, Thing; p5000 a Professor, Person, Thing
    finally:
        again.close()


RESTRICTION = """@prefix : <http://example.org/u#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
:a a [ a owl:Restriction ; owl:someValuesFrom :C ; owl:onProperty :q ] . :b :q :c . :c a :C .
"""
JOIN = "SELECT ?r WHERE { <http://example.org/u#b> a ?r . ?r <http://www.w3.org/2002/07/owl#onProperty> ?p }"


@pytest.mark.parametrize("store_types", [True, False])
def test_inferred_triples_keep_the_stores_blank_nodes(tmp_path: Path, store_types: bool) -> None:
    f = tmp_path / "restriction.ttl"
    f.write_text(RESTRICTION)
    kb = KnowledgeBase(
        make_store(StoreConfig(backend="embedded", path=tmp_path / "store")),
        reasoner=make_reasoner(ReasoningConfig(engine="duckdb", store_blank_node_types=store_types)),
        validator=make_validator(ValidationConfig()),
    )
    try:
        kb.load(f, graph="urn:data", bulk=True)  # the fast path, through the store's dump (a Turtle file)
        assert "dump" in bulkload.LAST_PHASES
        # :b a _:r, with _:r the very restriction node of the asserted graph (the join finds it), or not stored
        assert len(kb.query(JOIN)) == (1 if store_types else 0)
    finally:
        kb.close()


def test_the_fast_path_is_for_large_triples_files_without_a_domain(tmp_path: Path) -> None:
    f = tmp_path / "data.nt"
    f.write_text(_data(20, odd=False))
    kb = _kb(tmp_path / "store", "duckdb")
    other = _kb(tmp_path / "other", "reasonable")
    try:
        nt, nq, g = bulkload.RdfFormat.N_TRIPLES, bulkload.RdfFormat.N_QUADS, bulkload.NamedNode("urn:new")
        assert bulkload.applies(kb, f, nt, g, None, True)
        assert bulkload.applies(kb, f, nt, bulkload.NamedNode("urn:onto"), None, True)  # an existing graph too
        assert not bulkload.applies(kb, f, nq, g, None, True)  # datasets name their own graphs
        assert not bulkload.applies(kb, f, nt, g, None, False)  # small, not asked for
        assert not bulkload.applies(other, f, nt, g, None, True)  # another engine
    finally:
        kb.close()
        other.close()


def test_reason_with_duckdb_reads_the_store_and_puts_the_inferred_graph_in_line(tmp_path: Path) -> None:
    """`hybridkg reason --engine duckdb` on a store another engine wrote (one of its inferred triples lost, a stray
    one added): the closure from the store's dumps, the inferred graph corrected, the same counts as reasonable's."""
    f = tmp_path / "data.nt"
    f.write_text(_data(100, odd=True))
    kb = _kb(tmp_path / "store", "reasonable")
    try:
        kb.load(f, graph="urn:data")
        u = "http://example.org/u#"
        bogus = Triple(NamedNode(u + "nobody"), NamedNode(u + "knows"), NamedNode(u + "nobody2"))
        lost = next(t for t in sorted(kb.inferred_triples(), key=str) if not isinstance(t.subject, BlankNode))
        kb.store.add([Quad(bogus.subject, bogus.predicate, bogus.object, INFERRED_GRAPH)])
        kb.store.remove([Quad(lost.subject, lost.predicate, lost.object, INFERRED_GRAPH)])
        result = kb.reason(make_reasoner(ReasoningConfig(engine="duckdb")))
        assert (result.engine, result.inferred_added, result.inferred_removed) == ("duckdb", 1, 1)
        assert lost in kb.inferred_triples()
        assert bogus not in kb.inferred_triples()
        again = kb.reason()  # reasonable's own: nothing left to correct, the same counts
        assert (again.inferred_added, again.inferred_removed) == (0, 0)
        assert (again.asserted, again.inferred) == (result.asserted, result.inferred)
    finally:
        kb.close()


@pytest.mark.parametrize("line", ["<http://e/a> <http://e/b> .", "<http://e/a> <http://e/b> <http://e/c>",
                                  "<http://e/a> <http://e/b> <http://e/c> ;"])
def test_a_line_that_is_not_one_triple_is_refused_with_its_count(tmp_path: Path, line: str) -> None:
    """The reader of the store's own dumps (not strict) still checks each line's shape: three terms, ' .' at the end;
    a strict read (a user's file) refuses the same file by returning None (the caller takes the object path)."""
    from hybridkg.errors import InvalidInput
    from hybridkg.semantic.reasoning.duckdb_engine import DuckDBClosure

    path = tmp_path / "odd.nt"
    path.write_text(f'<http://e/x> <http://e/y> "a b c" .\n{line}\n')
    closure = DuckDBClosure()
    try:
        assert closure.dict.load_ntriples(path, strict=True) is None
        with pytest.raises(InvalidInput, match="1 line"):
            closure.dict.load_ntriples(path)
        path.write_text('<http://e/x> <http://e/y> "a b c" .\n<http://e/x> <http://e/y> <http://e/z> .\n')
        table = closure.dict.load_ntriples(path)
        assert table is not None
        assert closure.con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0] == 2
    finally:
        closure.close()


@pytest.mark.parametrize(("shares", "batch"), [(1, bulkload.OXIGRAPH_BATCH), (3, bulkload.OXIGRAPH_BATCH), (3, 0)])
def test_inferred_triples_in_shares_are_stored_once_each(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         shares: int, batch: int) -> None:
    """The inferred triples are written in one share per loader and loaded side by side (batch: a small asserted
    file) or one after another (batch 0: as beside an asserted load of several of Oxigraph's batches): either way
    the store ends with the reference engine's inferred graph (a share left out would be missed here)."""
    monkeypatch.setattr(bulkload, "_loaders", lambda: shares)
    monkeypatch.setattr(bulkload, "OXIGRAPH_BATCH", batch)
    f = tmp_path / "data.nt"
    f.write_text(_data(400, odd=False))
    fast, slow = _kb(tmp_path / "fast", "duckdb"), _kb(tmp_path / "slow", "reasonable")
    try:
        got = fast.load(f, graph="urn:data", bulk=True)
        want = slow.load(f, graph="urn:data", bulk=True)
        assert got.inferred_added == want.inferred_added > 1000
        stored = list(fast.store.quads(graph=INFERRED_GRAPH))
        assert len(stored) == len(slow.inferred_triples())
        assert _ground(fast.inferred_triples()) == _ground(slow.inferred_triples())
    finally:
        fast.close()
        slow.close()


def test_a_corrupt_gzip_file_is_named_and_leaves_nothing_behind(tmp_path: Path) -> None:
    from hybridkg.errors import InvalidInput

    f = tmp_path / "data.nt.gz"
    whole = gzip.compress(_data(200, odd=False).encode())
    f.write_bytes(whole[: len(whole) // 2])  # cut in the middle: gzip fails after some output
    kb = _kb(tmp_path / "store", "duckdb")
    try:
        with pytest.raises((InvalidInput, ParseError), match="data.nt.gz"):
            kb.load(f, bulk=True)
        assert not list(kb.store.quads(graph=NamedNode("urn:hybridkg:graph:default")))
    finally:
        kb.close()


def test_a_fifo_is_read_whole(tmp_path: Path) -> None:
    """The store reads a FIFO as a stream: given its path, Oxigraph would split it by its size (0) for parallel
    parsing on a machine of four cores or more, and read nothing."""
    import os
    import threading

    from pyoxigraph import RdfFormat

    store = make_store(StoreConfig(backend="embedded", path=tmp_path / "store"))
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    text = _data(300, odd=False).encode()
    writer = threading.Thread(target=fifo.write_bytes, args=(text,))
    writer.start()
    try:
        store.load_path(fifo, RdfFormat.N_TRIPLES, NamedNode("urn:g"))  # type: ignore[attr-defined]
    finally:
        writer.join()
    assert len(list(store.quads(graph=NamedNode("urn:g")))) == text.count(b"\n")


def _watched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, gz: bool
             ) -> tuple[bytes, Path, KnowledgeBase, list[NamedNode]]:
    """A file of 1,200 triples (plain or gzip), a duckdb knowledge base, and the list of graphs it clears (undoes)."""
    text = _data(300, odd=False).encode()
    f = tmp_path / ("data.nt.gz" if gz else "data.nt")
    f.write_bytes(gzip.compress(text) if gz else text)
    kb = _kb(tmp_path / "store", "duckdb")
    undone: list[NamedNode] = []
    clear = kb.store.clear_graph  # type: ignore[attr-defined]
    monkeypatch.setattr(kb.store, "clear_graph", lambda g: (undone.append(g), clear(g)))
    return text, f, kb, undone


@pytest.mark.parametrize("gz", [False, True])
def test_a_file_over_the_size_limit_is_refused_with_nothing_to_undo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                      gz: bool) -> None:
    """Oxigraph's load is all or nothing, and undoing a stored graph takes minutes at millions of triples (one delete
    transaction): a plain file's size is checked before any work, a gzip file's pipe stops at the limit."""
    from hybridkg.errors import InputTooLarge

    text, f, kb, undone = _watched(tmp_path, monkeypatch, gz=gz)
    try:
        before = (kb.asserted_triples(), kb.inferred_triples())
        kb.max_input_bytes = len(text) // 2
        with pytest.raises(InputTooLarge, match="data.nt"):
            kb.load(f, graph="urn:data", bulk=True)
        assert undone == []
        assert (kb.asserted_triples(), kb.inferred_triples()) == before
        assert "urn:data" not in {g.value for g in kb.store.graphs()}
        kb.max_input_bytes = len(text) + 1
        assert kb.load(f, graph="urn:data", bulk=True).asserted_added == 1200
    finally:
        kb.close()


@pytest.mark.parametrize("gz", [False, True])
def test_a_reasoning_failure_stops_the_load_and_is_the_error_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                       gz: bool) -> None:
    """On a machine of fewer than four cores (where Oxigraph parses a path on one thread too) a plain file is read as
    a stream that can stop, as a gzip file's pipe always is."""
    monkeypatch.setattr(bulkload, "cores", lambda: 2)
    _, f, kb, undone = _watched(tmp_path, monkeypatch, gz=gz)
    read = LimitedReader.readinto

    def late(self: LimitedReader, buffer: memoryview) -> int:
        if self._stop is not None:  # the load's reader: its first read comes after the failure (deterministic)
            self._stop.wait(10)
        return read(self, buffer)

    def fail(*args: object, **kwargs: object) -> None:
        raise RuntimeError("DuckDB ran out of memory")

    monkeypatch.setattr(LimitedReader, "readinto", late)
    monkeypatch.setattr(DuckDBSession, "add_ntriples", fail)
    try:
        before = (kb.asserted_triples(), kb.inferred_triples())
        with pytest.raises(RuntimeError, match="out of memory"):
            kb.load(f, graph="urn:data", bulk=True)
        assert undone == []
        monkeypatch.undo()
        assert (kb.asserted_triples(), kb.inferred_triples()) == before
        assert "urn:data" not in {g.value for g in kb.store.graphs()}
        assert kb.load(f, graph="urn:data", bulk=True).asserted_added == 1200
    finally:
        kb.close()


def test_a_plain_file_goes_by_path_where_oxigraph_parses_it_in_parallel(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "data.nt"
    f.write_text(_data(300, odd=False))
    kb = _kb(tmp_path / "store", "duckdb")
    paths: list[Path] = []
    by_path = kb.store.load_path  # type: ignore[attr-defined]
    monkeypatch.setattr(kb.store, "load_path", lambda p, *a, **k: (paths.append(p), by_path(p, *a, **k))[1])
    try:
        for n, want in ((2, []), (4, [f])):
            monkeypatch.setattr(bulkload, "cores", lambda n=n: n)
            paths.clear()
            assert kb.load(f, graph=f"urn:data{n}", bulk=True).asserted_added == 1200
            assert [p for p in paths if p == f] == want
    finally:
        kb.close()


def test_a_fifo_named_like_n_triples_is_read_once(tmp_path: Path) -> None:
    """DuckDB and Oxigraph both read a regular file; a FIFO is read once, by the store, and reasoned from its dump
    (read twice, each reader got part of the lines, or one waited forever)."""
    import os
    import threading

    fifo = tmp_path / "data.nt"
    os.mkfifo(fifo)
    text = _data(300, odd=False).encode()

    def write() -> None:
        with open(fifo, "wb") as f:
            f.write(text)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    kb = _kb(tmp_path / "store", "duckdb")
    try:
        assert kb.load(fifo, graph="urn:data", bulk=True).asserted_added == 1200
        writer.join(10)
        assert len(list(kb.store.quads(graph=NamedNode("urn:data")))) == 1200
        assert kb.inferred_triples()
    finally:
        kb.close()
