"""The knowledge base end to end on a real embedded store: SHACL-gated writes, incremental
closure maintenance, the change feed, inference on/off, atomic loads."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyoxigraph import NamedNode, Quad, Triple

from hybridkg.errors import InvalidInput, ParseError, ShapeViolation
from hybridkg.semantic.base import INFERRED_GRAPH, ChangeSet, Reasoner, ShapeValidator
from hybridkg.semantic.domains import DomainPolicy
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.settings import ReasonerEngine, ReasoningConfig, StoreConfig, ValidationConfig, ValidatorEngine
from hybridkg.semantic.store.factory import make_store
from hybridkg.semantic.validation.factory import make_validator


def _reasoner(engine: str = "reasonable") -> Reasoner:
    return make_reasoner(ReasoningConfig(engine=ReasonerEngine(engine)))


def _validator(engine: str = "pyshacl") -> ShapeValidator:
    return make_validator(ValidationConfig(engine=ValidatorEngine(engine)))

EX = "http://example.org/"
RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
CLIN = "https://hybridkg.dev/ns/clinical#"
PAT = "https://hybridkg.dev/data/clinical/patient/"

ONTOLOGY = f"""
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix ex: <{EX}> .
ex:Dog rdfs:subClassOf ex:Animal .
ex:Cat rdfs:subClassOf ex:Animal .
ex:partOf a owl:TransitiveProperty .
ex:hasPart owl:inverseOf ex:partOf .
"""


def ex(local: str) -> NamedNode:
    return NamedNode(EX + local)


@pytest.fixture
def kb(tmp_path: Path) -> KnowledgeBase:
    return KnowledgeBase(
        make_store(StoreConfig(backend="embedded", path=tmp_path / "store")),
        reasoner=_reasoner(),
        validator=_validator("auto"),
        policy=DomainPolicy.load(),
    )


def test_add_updates_closure_and_delete_retracts_only_unsupported(kb: KnowledgeBase) -> None:
    kb.load(ONTOLOGY.encode(), fmt="turtle", graph=EX + "onto")
    kb.load(f"<{EX}rex> a <{EX}Dog> . <{EX}a> <{EX}partOf> <{EX}b> . <{EX}b> <{EX}partOf> <{EX}c> .".encode(),
            fmt="turtle", graph=EX + "g1")
    # a second, independent support for rex being an Animal
    kb.load(f"<{EX}rex> a <{EX}Cat> .".encode(), fmt="turtle", graph=EX + "g2")
    inferred = kb.inferred_triples()
    animal = Triple(ex("rex"), RDF_TYPE, ex("Animal"))
    a_c = Triple(ex("a"), ex("partOf"), ex("c"))
    assert animal in inferred
    assert a_c in inferred
    assert Triple(ex("c"), ex("hasPart"), ex("a")) in inferred

    kb.write(removed=[Quad(ex("rex"), RDF_TYPE, ex("Dog"), ex("g1"))])
    assert animal in kb.inferred_triples(), "still supported by rex a Cat"
    kb.write(removed=[Quad(ex("b"), ex("partOf"), ex("c"), ex("g1"))])
    after = kb.inferred_triples()
    assert a_c not in after
    assert Triple(ex("c"), ex("hasPart"), ex("a")) not in after
    # what is left equals a full re-materialisation from scratch
    assert after == _reasoner().materialize(kb.asserted_triples())


def test_listener_receives_asserted_and_inferred_deltas(kb: KnowledgeBase) -> None:
    seen: list[ChangeSet] = []
    unsubscribe = kb.subscribe(seen.append)
    kb.load(ONTOLOGY.encode(), fmt="turtle", graph=EX + "onto")
    kb.load(f"<{EX}rex> a <{EX}Dog> .".encode(), fmt="turtle", graph=EX + "g1")
    last = seen[-1]
    assert [q.triple for q in last.asserted_added] == [Triple(ex("rex"), RDF_TYPE, ex("Dog"))]
    assert Triple(ex("rex"), RDF_TYPE, ex("Animal")) in last.inferred_added
    kb.write(removed=list(last.asserted_added))
    assert Triple(ex("rex"), RDF_TYPE, ex("Animal")) in seen[-1].inferred_removed
    unsubscribe()
    kb.load(f"<{EX}tom> a <{EX}Cat> .".encode(), fmt="turtle", graph=EX + "g1")
    assert len(seen) == 3


def test_query_with_and_without_inference(kb: KnowledgeBase) -> None:
    kb.load(ONTOLOGY.encode(), fmt="turtle", graph=EX + "onto")
    kb.load(f"<{EX}rex> a <{EX}Dog> .".encode(), fmt="turtle", graph=EX + "g1")
    q = f"ASK {{ <{EX}rex> a <{EX}Animal> }}"
    assert kb.query(q).boolean is True
    assert kb.query(q, inference=False).boolean is False


def test_parse_error_stores_nothing(kb: KnowledgeBase) -> None:
    good = "".join(f"<{EX}s{i}> <{EX}p> <{EX}o> .\n" for i in range(5000))
    with pytest.raises(ParseError, match="line 5001"):
        kb.load((good + f"<{EX}x> <{EX}p> .\n").encode(), fmt="nt", graph=EX + "g")
    assert list(kb.store.quads()) == []


def test_writing_into_the_inferred_graph_is_refused(kb: KnowledgeBase) -> None:
    with pytest.raises(InvalidInput, match="inferred"):
        kb.load(f"<{EX}a> <{EX}p> <{EX}b> .".encode(), fmt="nt", graph=INFERRED_GRAPH.value)


@pytest.fixture
def clinical_kb(kb: KnowledgeBase) -> KnowledgeBase:
    kb.ensure_domain("clinical", with_demo_data=True)
    return kb


def test_strict_domain_rejects_whole_write_with_typed_report(clinical_kb: KnowledgeBase) -> None:
    dom = clinical_kb.policy.get("clinical")
    before = set(clinical_kb.store.quads())
    with pytest.raises(ShapeViolation) as info:
        clinical_kb.load(dom.path_of(dom.examples["invalid"]) or Path(), domain="clinical")
    assert set(clinical_kb.store.quads()) == before, "nothing may be stored"
    report = info.value.report
    assert not report.conforms
    components = {r.constraint.rsplit("#", 1)[-1] for r in report.violations}
    assert {"MinCountConstraintComponent", "MinExclusiveConstraintComponent"} <= components
    dose = [r for r in report.violations if r.constraint.endswith("MinExclusiveConstraintComponent")][0]
    assert dose.focus.endswith("prescription/bad-0002>")
    assert dose.path == f"<{CLIN}dose>"
    assert dose.value is not None
    assert "-25" in dose.value
    assert dose.message
    assert str(dose.severity) == "Violation"


def test_strict_domain_accepts_valid_write_and_reasons(clinical_kb: KnowledgeBase) -> None:
    dom = clinical_kb.policy.get("clinical")
    result = clinical_kb.load(dom.path_of(dom.examples["valid"]) or Path(), domain="clinical")
    assert result.asserted_added > 0
    assert result.graph == dom.data_graph
    ask = f"ASK {{ <{PAT}p007> a <{CLIN}PatientOnAnticoagulant> }}"
    assert clinical_kb.query(ask).boolean is True
    assert clinical_kb.query(ask, inference=False).boolean is False


def test_fuzzy_domain_accepts_and_returns_warnings(kb: KnowledgeBase) -> None:
    kb.ensure_domain("crm", with_demo_data=True)
    crm = "https://hybridkg.dev/ns/crm#"
    bad = f"<https://hybridkg.dev/data/crm/deal/x> a <{crm}Deal> .".encode()
    result = kb.load(bad, fmt="turtle", domain="crm")
    assert result.asserted_added == 1
    assert result.warnings, "an incomplete deal should produce shape warnings"
    assert all(str(w.severity) != "Violation" for w in result.warnings)


def test_replace_and_drop_graph(kb: KnowledgeBase) -> None:
    kb.load(ONTOLOGY.encode(), fmt="turtle", graph=EX + "onto")
    kb.load(f"<{EX}rex> a <{EX}Dog> .".encode(), fmt="turtle", graph=EX + "g1")
    kb.replace_graph(EX + "g1", f"<{EX}tom> a <{EX}Cat> .".encode(), fmt="turtle")
    assert {q.triple for q in kb.store.quads(graph=ex("g1"))} == {Triple(ex("tom"), RDF_TYPE, ex("Cat"))}
    assert Triple(ex("rex"), RDF_TYPE, ex("Animal")) not in kb.inferred_triples()
    assert Triple(ex("tom"), RDF_TYPE, ex("Animal")) in kb.inferred_triples()
    kb.drop_graph(EX + "g1")
    assert list(kb.store.quads(graph=ex("g1"))) == []
    assert Triple(ex("tom"), RDF_TYPE, ex("Animal")) not in kb.inferred_triples()


def test_reopened_store_keeps_closure(tmp_path: Path) -> None:
    def open_kb() -> KnowledgeBase:
        return KnowledgeBase(make_store(StoreConfig(backend="embedded", path=tmp_path / "s")), reasoner=_reasoner(),
                             validator=_validator("pyshacl"))

    kb = open_kb()
    kb.load(ONTOLOGY.encode(), fmt="turtle", graph=EX + "onto")
    kb.load(f"<{EX}rex> a <{EX}Dog> .".encode(), fmt="turtle", graph=EX + "g1")
    kb.flush()
    del kb
    kb2 = open_kb()
    assert kb2.query(f"ASK {{ <{EX}rex> a <{EX}Animal> }}").boolean is True
    kb2.write(removed=[Quad(ex("rex"), RDF_TYPE, ex("Dog"), ex("g1"))])
    assert kb2.query(f"ASK {{ <{EX}rex> a <{EX}Animal> }}").boolean is False


def test_explain_through_the_store(kb: KnowledgeBase) -> None:
    kb.load(ONTOLOGY.encode(), fmt="turtle", graph=EX + "onto")
    kb.load(f"<{EX}a> <{EX}partOf> <{EX}b> . <{EX}b> <{EX}partOf> <{EX}c> .".encode(), fmt="turtle",
            graph=EX + "g1")
    e = kb.explain(Triple(ex("c"), ex("hasPart"), ex("a")))
    assert e.status == "inferred"
    assert e.rule in {"prp-inv1", "prp-inv2"}
    by_triple = {p.triple: p for p in e.premises}
    inverse_axiom = Triple(ex("hasPart"), NamedNode("http://www.w3.org/2002/07/owl#inverseOf"), ex("partOf"))
    assert by_triple[inverse_axiom].status == "asserted"
    premise = by_triple[Triple(ex("a"), ex("partOf"), ex("c"))]
    assert premise.rule == "prp-trp"
    assert {p.status for p in premise.premises} == {"asserted"}
    assert kb.explain(Triple(ex("a"), ex("partOf"), ex("b"))).status == "asserted"
    assert kb.explain(Triple(ex("c"), ex("partOf"), ex("a"))).status == "not_entailed"


def test_export_roundtrip_and_size_limit(tmp_path: Path) -> None:
    kb = KnowledgeBase(make_store(StoreConfig(backend="memory")), reasoner=_reasoner(),
                       validator=_validator("pyshacl"), max_input_bytes=10_000)
    kb.load(ONTOLOGY.encode(), fmt="turtle", graph=EX + "onto")
    for fmt in ("turtle", "ntriples", "rdfxml", "jsonld"):
        data = kb.export(EX + "onto", fmt)
        other = KnowledgeBase(make_store(StoreConfig(backend="memory")), reasoner=_reasoner(),
                              validator=_validator("pyshacl"))
        other.load(data, fmt=fmt, graph=EX + "copy")
        assert len(list(other.store.quads(graph=ex("copy")))) == len(list(kb.store.quads(graph=ex("onto"))))
    big = tmp_path / "big.nt"
    big.write_text("".join(f"<{EX}s{i}> <{EX}p> <{EX}o> .\n" for i in range(1000)))
    from hybridkg.errors import InputTooLarge

    with pytest.raises(InputTooLarge, match="10,000 bytes"):
        kb.load(big, graph=EX + "big")
    assert list(kb.store.quads(graph=ex("big"))) == []


class _FailingBulkStore:
    """A TripleStore whose bulk path writes half of what it is given, then fails (disk full)."""

    def __init__(self) -> None:
        self.inner = make_store(StoreConfig(backend="memory"))

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def add(self, quads, *, bulk: bool = False) -> int:  # type: ignore[no-untyped-def]
        items = list(quads)
        if bulk:
            self.inner.add(items[: len(items) // 2], bulk=True)
            raise OSError("No space left on device")
        return self.inner.add(items)


def test_failed_bulk_write_leaves_nothing_behind() -> None:
    store = _FailingBulkStore()
    kb = KnowledgeBase(store, reasoner=_reasoner(), validator=_validator("pyshacl"))  # type: ignore[arg-type]
    kb.load(ONTOLOGY.encode(), fmt="turtle", graph=EX + "onto")
    before = set(store.inner.quads())
    big = "".join(f"<{EX}dog{i}> a <{EX}Dog> .\n" for i in range(6000)).encode()
    with pytest.raises(OSError, match="No space"):
        kb.load(big, fmt="turtle", graph=EX + "big")
    assert set(store.inner.quads()) == before
    # the knowledge base still works afterwards
    kb.load(f"<{EX}rex> a <{EX}Dog> .".encode(), fmt="turtle", graph=EX + "g")
    assert kb.query(f"ASK {{ <{EX}rex> a <{EX}Animal> }}").boolean is True
    assert kb.query(f"ASK {{ <{EX}dog1> a <{EX}Animal> }}").boolean is False


def test_knowledge_base_over_a_remote_sparql_endpoint(oxigraph_server: str) -> None:
    store = make_store(StoreConfig(backend="remote", query_url=f"{oxigraph_server}/query",
                                   update_url=f"{oxigraph_server}/update"))
    kb = KnowledgeBase(store, reasoner=_reasoner(), validator=_validator("auto"),
                       policy=DomainPolicy.load())
    kb.load(ONTOLOGY.encode(), fmt="turtle", graph=EX + "onto")
    kb.load(f"<{EX}rex> a <{EX}Dog> . <{EX}a> <{EX}partOf> <{EX}b> . <{EX}b> <{EX}partOf> <{EX}c> .".encode(),
            fmt="turtle", graph=EX + "g1")
    assert kb.query(f"ASK {{ <{EX}rex> a <{EX}Animal> }}").boolean is True
    assert kb.query(f"ASK {{ <{EX}rex> a <{EX}Animal> }}", inference=False).boolean is False
    e = kb.explain(Triple(ex("a"), ex("partOf"), ex("c")))
    assert e.rule == "prp-trp"
    kb.write(removed=[Quad(ex("b"), ex("partOf"), ex("c"), ex("g1"))])
    assert kb.query(f"ASK {{ <{EX}a> <{EX}partOf> <{EX}c> }}").boolean is False
    # a strict-domain violation over the remote store stores nothing either
    dom = kb.policy.get("clinical")
    with pytest.raises(ShapeViolation):
        kb.load(dom.path_of(dom.examples["invalid"]) or Path(), domain="clinical")
    graphs = {g.value for g in store.graphs()}
    assert dom.ontology_graph in graphs
    assert dom.data_graph not in graphs


def test_replaced_and_closed_sessions_free_their_engine_on_the_writer_thread(kb: KnowledgeBase) -> None:
    """``reasonable``'s engine is thread-bound: a session the kb replaces (``reason``) or drops (``close``) frees
    it at once on the writer thread instead of leaving it to a garbage collection on some other thread."""
    import threading

    kb.load(ONTOLOGY, fmt="turtle", graph=f"{EX}onto")

    def session() -> Any:  # the session lives in the writer thread's thread-local storage
        return kb._writer.submit(lambda: kb._session).result()

    first = session()
    assert first is not None
    assert first._closure._reasoner is not None
    freed_on: list[int] = []
    closure = first._closure  # type: ignore[attr-defined]
    original = closure.close

    def spy() -> None:
        freed_on.append(threading.get_ident())
        original()

    closure.close = spy
    kb.reason()
    assert closure._reasoner is None
    assert freed_on == [kb._writer.ident]
    second = session()
    assert second is not None
    assert second is not first
    kb.close()
    assert second._closure._reasoner is None  # type: ignore[attr-defined]


def test_materialize_frees_its_engine_before_returning() -> None:
    from hybridkg.semantic.reasoning import reasonable_engine

    made: list[reasonable_engine.ReasonableClosure] = []
    real = reasonable_engine.ReasonableClosure

    class Recording(real):  # type: ignore[misc, valid-type]
        def __init__(self, *args: object) -> None:
            super().__init__(*args)
            made.append(self)

    reasonable_engine.ReasonableClosure = Recording  # type: ignore[misc]
    try:
        inferred = _reasoner().materialize([Triple(NamedNode(f"{EX}rex"), RDF_TYPE, NamedNode(f"{EX}Dog")),
                                            Triple(NamedNode(f"{EX}Dog"), NamedNode(
                                                "http://www.w3.org/2000/01/rdf-schema#subClassOf"),
                                                   NamedNode(f"{EX}Animal"))])
    finally:
        reasonable_engine.ReasonableClosure = real  # type: ignore[misc]
    assert Triple(NamedNode(f"{EX}rex"), RDF_TYPE, NamedNode(f"{EX}Animal")) in inferred
    assert len(made) == 1
    assert made[0]._reasoner is None


def test_a_child_forked_with_a_preexec_fn_leaves_the_reasoning_session_alone(tmp_path: Path) -> None:
    """Forking with a Python ``preexec_fn`` (the managed FalkorDB server does) clears the other threads' state
    in the child; a session kept there would be dropped off its thread and the child would print an error."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent(f"""
        import subprocess
        from hybridkg.semantic.domains import DomainPolicy
        from hybridkg.semantic.kb import KnowledgeBase
        from hybridkg.semantic.reasoning.factory import make_reasoner
        from hybridkg.semantic.settings import ReasoningConfig, StoreConfig, ValidationConfig
        from hybridkg.semantic.store.factory import make_store
        from hybridkg.semantic.validation.factory import make_validator
        kb = KnowledgeBase(make_store(StoreConfig(backend="memory")), reasoner=make_reasoner(ReasoningConfig()),
                           validator=make_validator(ValidationConfig()), policy=DomainPolicy.load())
        kb.load({ONTOLOGY!r}, fmt="turtle", graph="{EX}onto")
        subprocess.run(["true"], preexec_fn=lambda: None, check=True)
        kb.close()
        print("done")
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "done"
    assert "unsendable" not in out.stderr, out.stderr


@pytest.mark.parametrize("engine", ["reasonable", "duckdb"])
def test_a_closed_knowledge_base_frees_its_store_for_another_in_this_process(tmp_path: Path, engine: str) -> None:
    """Before, close() flushed but kept the store open while the object lived: opening the same path again in the
    same process failed on RocksDB's lock."""
    from hybridkg.errors import BackendUnavailable

    def open_kb() -> KnowledgeBase:
        return KnowledgeBase(make_store(StoreConfig(path=tmp_path / "store")),
                             reasoner=make_reasoner(ReasoningConfig(engine=engine)),  # type: ignore[arg-type]
                             validator=make_validator(ValidationConfig()))

    first = open_kb()
    first.load(ONTOLOGY.encode(), fmt="turtle", graph=EX + "onto")
    first.load(f"<{EX}rex> a <{EX}Dog> .".encode(), fmt="turtle", graph=EX + "g1")
    stored = set(first.store.quads())
    assert Quad(ex("rex"), RDF_TYPE, ex("Animal"), INFERRED_GRAPH) in stored
    first.close()
    first.close()  # idempotent
    with pytest.raises(BackendUnavailable, match="was closed"):
        list(first.store.quads())
    second = open_kb()
    try:
        assert set(second.store.quads()) == stored
    finally:
        second.close()


_COLLECTED_INSIDE_SUBMIT = """
import concurrent.futures.thread as executor_module, gc
from pyoxigraph import NamedNode, Quad
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.settings import ReasoningConfig, StoreConfig, ValidationConfig
from hybridkg.semantic.store.factory import make_store
from hybridkg.semantic.validation.factory import make_validator

kb = KnowledgeBase(make_store(StoreConfig(backend="memory")), reasoner=make_reasoner(ReasoningConfig()),
                   validator=make_validator(ValidationConfig()))
x = NamedNode("urn:x")
kb.write(added=[Quad(x, x, x, NamedNode("urn:g"))])  # the session lives on the writer thread
# what ThreadPoolExecutor.submit holds while it allocates, i.e. when a collection may run inside it
with executor_module._global_shutdown_lock:
    del kb
    gc.collect()
print("collected")
"""


def test_an_unclosed_kb_collected_inside_an_executor_submit_does_not_hang() -> None:
    """A knowledge base dropped without close() is stopped by its finalizer, wherever the garbage collector runs:
    inside another executor's submit too (a test hung so, when a model loaded its weights on a thread pool)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _COLLECTED_INSIDE_SUBMIT], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "collected"
