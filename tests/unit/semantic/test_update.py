"""KnowledgeBase.update (SPARQL 1.1 Update through the SHACL gate) and KnowledgeBase.validate_write (dry run)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pyoxigraph import BlankNode, NamedNode, Quad, Triple

from hybridkg.errors import InvalidInput, InvalidQuery, ShapeViolation, Unsupported
from hybridkg.semantic.base import INFERRED_GRAPH, ChangeSet, Severity
from hybridkg.semantic.domains import DomainPolicy
from hybridkg.semantic.kb import DEFAULT_DATA_GRAPH, KnowledgeBase
from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.settings import ReasoningConfig, StoreConfig, ValidationConfig
from hybridkg.semantic.store.factory import make_store
from hybridkg.semantic.update import apply as update_apply
from hybridkg.semantic.validation.factory import make_validator

EX = "http://example.org/"
PREFIXES = f"PREFIX : <{EX}>\nPREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n"
RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
CLIN = "https://hybridkg.dev/ns/clinical#"
CLINICAL_DATA = "https://hybridkg.dev/graph/clinical/data"
CRM_DATA = "https://hybridkg.dev/graph/crm/data"
CLINICAL_PREFIXES = f"""PREFIX clin: <{CLIN}>
PREFIX pat: <https://hybridkg.dev/data/clinical/patient/>
PREFIX drug: <https://hybridkg.dev/data/clinical/drug/>
PREFIX staff: <https://hybridkg.dev/data/clinical/staff/>
PREFIX rx: <https://hybridkg.dev/data/clinical/prescription/>
"""
# rx:bad-0002 of ontology/clinical/examples/bad-prescription.ttl: a negative dose
BAD_PRESCRIPTION = """GRAPH <https://hybridkg.dev/graph/clinical/data> {
  rx:bad-0002 a clin:Prescription ; clin:prescribedTo pat:p004 ; clin:prescribedDrug drug:metoprolol-50mg ;
    clin:prescribedBy staff:dr-amara-okafor ; clin:dose -25.0 ; clin:doseUnit "mg" } """


def ex(local: str) -> NamedNode:
    return NamedNode(EX + local)


def _kb(policy: DomainPolicy | None = None) -> KnowledgeBase:
    return KnowledgeBase(
        make_store(StoreConfig(backend="memory")), reasoner=make_reasoner(ReasoningConfig()),
        validator=make_validator(ValidationConfig()), policy=policy,
    )


@pytest.fixture
def kb() -> KnowledgeBase:
    return _kb()


@pytest.fixture
def domains_kb() -> KnowledgeBase:
    kb = _kb(DomainPolicy.load())
    kb.ensure_domain("clinical", with_demo_data=True)
    kb.ensure_domain("crm", with_demo_data=True)
    return kb


def triples(kb: KnowledgeBase, graph: NamedNode) -> set[Triple]:
    return {q.triple for q in kb.store.quads(graph=graph)}


def graphs(kb: KnowledgeBase) -> set[NamedNode]:
    """Asserted graphs holding triples (an embedded store remembers emptied graphs)."""
    return {g for g in kb.asserted_graphs() if triples(kb, g)}


def snapshot(kb: KnowledgeBase) -> list[str]:
    return sorted(str(q) for q in kb.store.quads())


def t(s: str, p: str, o: str) -> Triple:
    return Triple(ex(s), ex(p), ex(o))


# ------------------------------------------------------------------------------------------ operations


def test_insert_and_delete_data_default_graph_is_the_data_graph(kb: KnowledgeBase) -> None:
    change = kb.update(PREFIXES + "INSERT DATA { :a :p :b . GRAPH :g { :a :p :c } }")
    assert triples(kb, DEFAULT_DATA_GRAPH) == {t("a", "p", "b")}
    assert triples(kb, ex("g")) == {t("a", "p", "c")}
    assert {q.graph_name for q in change.asserted_added} == {DEFAULT_DATA_GRAPH, ex("g")}
    change = kb.update(PREFIXES + "DELETE DATA { GRAPH :g { :a :p :c } :a :p :nothing }")
    assert triples(kb, ex("g")) == set()
    assert [q.triple for q in change.asserted_removed] == [t("a", "p", "c")], "only what was there is removed"


def test_delete_insert_where_with_using_and_using_named(kb: KnowledgeBase) -> None:
    kb.update(PREFIXES + "INSERT DATA { GRAPH :g1 { :a :p 1 . :b :p 2 } GRAPH :g2 { :a :q :x } }")
    kb.update(PREFIXES + "WITH :g1 DELETE { ?s :p ?o } INSERT { ?s :p2 ?o } WHERE { ?s :p ?o FILTER(?o > 1) }")
    assert {(str(q.subject), str(q.predicate)) for q in kb.store.quads(graph=ex("g1"))} == {
        (f"<{EX}a>", f"<{EX}p>"), (f"<{EX}b>", f"<{EX}p2>")
    }
    # USING replaces WITH's graph for the WHERE; the template's default graph stays WITH's
    kb.update(PREFIXES + "WITH :g3 INSERT { ?s :seen true } USING :g2 WHERE { ?s :q ?o }")
    assert [q.subject for q in kb.store.quads(graph=ex("g3"))] == [ex("a")]
    # USING NAMED only: an empty default graph, GRAPH sees just the named one
    kb.update(PREFIXES + "INSERT { GRAPH :g4 { ?s :in ?g } } USING NAMED :g2 WHERE { GRAPH ?g { ?s ?p ?o } }")
    assert triples(kb, ex("g4")) == {t("a", "in", "g2")}
    kb.update(PREFIXES + "INSERT { GRAPH :g5 { ?s :x ?o } } USING NAMED :g2 WHERE { ?s ?p ?o }")
    assert triples(kb, ex("g5")) == set()


def test_delete_where(kb: KnowledgeBase) -> None:
    kb.update(PREFIXES + "INSERT DATA { GRAPH :g { :a :p :b , :c . :d :p :e } }")
    kb.update(PREFIXES + "DELETE WHERE { GRAPH :g { :a :p ?o } }")
    assert triples(kb, ex("g")) == {t("d", "p", "e")}


def test_where_default_graph_is_the_union_with_inferences(kb: KnowledgeBase) -> None:
    kb.update(PREFIXES + "INSERT DATA { GRAPH :onto { :Dog rdfs:subClassOf :Animal } GRAPH :g { :rex a :Dog } }")
    kb.update(PREFIXES + "INSERT { GRAPH :seen { ?x :is :animal } } WHERE { ?x a :Animal }")
    assert triples(kb, ex("seen")) == {t("rex", "is", "animal")}
    # the protocol's using-graph-uri narrows it
    kb.update(PREFIXES + "INSERT { GRAPH :seen2 { ?x :is :animal } } WHERE { ?x a :Animal }",
              using_graphs=[EX + "g"])
    assert triples(kb, ex("seen2")) == set()


def test_inference_false_hides_the_inferred_graph_and_base_iri_resolves(kb: KnowledgeBase) -> None:
    kb.update(PREFIXES + "INSERT DATA { GRAPH :onto { :Dog rdfs:subClassOf :Animal } GRAPH :g { :rex a :Dog } }")
    kb.update(PREFIXES + "INSERT { GRAPH :seen { ?x :is :animal } } WHERE { ?x a :Animal }", inference=False)
    assert triples(kb, ex("seen")) == set()
    kb.update(PREFIXES + "INSERT { GRAPH <seen> { ?g :has ?x } } WHERE { GRAPH ?g { ?x a :Animal } }",
              inference=False, base_iri=EX)
    assert triples(kb, ex("seen")) == set(), "GRAPH ?g does not see the inferred graph either"
    kb.update(PREFIXES + "INSERT DATA { GRAPH <seen> { :rex :is :dog } }", base_iri=EX)
    assert triples(kb, ex("seen")) == {t("rex", "is", "dog")}


def test_load_and_service_are_refused_by_name(kb: KnowledgeBase) -> None:
    with pytest.raises(Unsupported, match="LOAD"):
        kb.update("LOAD <http://example.org/data.ttl>")
    with pytest.raises(Unsupported, match="SERVICE"):
        kb.update(PREFIXES + "INSERT { :a :b ?o } WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }")
    assert snapshot(kb) == []


def test_clear_and_drop_every_target(kb: KnowledgeBase) -> None:
    fill = PREFIXES + "INSERT DATA { :d :p :o . GRAPH :g1 { :a :p :o } GRAPH :g2 { :b :p :o } }"
    for request, left in [
        ("CLEAR GRAPH :g1", {DEFAULT_DATA_GRAPH, ex("g2")}),
        ("DROP DEFAULT", {ex("g1"), ex("g2")}),
        ("CLEAR NAMED", {DEFAULT_DATA_GRAPH}),
        ("DROP ALL", set()),
        ("DROP SILENT GRAPH :absent", {DEFAULT_DATA_GRAPH, ex("g1"), ex("g2")}),
    ]:
        kb.update(fill)
        kb.update(PREFIXES + request)
        assert graphs(kb) == left, request
        kb.update("DROP ALL")


def test_create_graph(kb: KnowledgeBase) -> None:
    kb.update(PREFIXES + "CREATE GRAPH :new")
    assert graphs(kb) == set(), "empty graphs are not kept"
    kb.update(PREFIXES + "INSERT DATA { GRAPH :new { :a :p :o } }")
    with pytest.raises(InvalidInput, match="already exists"):
        kb.update(PREFIXES + "CREATE GRAPH :new")
    kb.update(PREFIXES + "CREATE SILENT GRAPH :new")


def test_add_move_copy(kb: KnowledgeBase) -> None:
    kb.update(PREFIXES + "INSERT DATA { :d :p :o . GRAPH :g1 { :a :p :o } GRAPH :g2 { :b :p :o } }")
    kb.update(PREFIXES + "ADD :g1 TO :g2")
    assert triples(kb, ex("g2")) == {t("a", "p", "o"), t("b", "p", "o")}
    kb.update(PREFIXES + "COPY DEFAULT TO :g2")
    assert triples(kb, ex("g2")) == {t("d", "p", "o")}
    kb.update(PREFIXES + "MOVE :g1 TO DEFAULT")
    assert triples(kb, DEFAULT_DATA_GRAPH) == {t("a", "p", "o")}
    assert triples(kb, ex("g1")) == set()
    kb.update(PREFIXES + "MOVE :g2 TO :g2")
    assert triples(kb, ex("g2")) == {t("d", "p", "o")}


def test_operations_see_earlier_ones_and_commit_as_one_change(kb: KnowledgeBase) -> None:
    seen: list[ChangeSet] = []
    kb.subscribe(seen.append)
    change = kb.update(PREFIXES + """
        INSERT DATA { GRAPH :g { :a :p 1 } } ;
        INSERT { GRAPH :g { ?s :q ?o } } WHERE { GRAPH :g { ?s :p ?o } } ;
        DELETE DATA { GRAPH :g { :a :p 1 } } ;
        INSERT { GRAPH :h { ?s ?p ?o } } WHERE { ?s ?p ?o }""")
    assert len(seen) == 1
    assert seen[0].asserted_added == change.asserted_added
    assert triples(kb, ex("g")) == {Triple(ex("a"), ex("q"), seen[0].asserted_added[0].object)}
    assert {q.triple.predicate for q in kb.store.quads(graph=ex("h"))} == {ex("q")}
    # a triple inserted and deleted within the request is no change at all
    kb.update(PREFIXES + "INSERT DATA { :x :y :z } ; DELETE DATA { :x :y :z }")
    assert len(seen) == 1 or seen[-1].empty


def test_template_blank_nodes_are_fresh_per_solution(kb: KnowledgeBase) -> None:
    kb.update(PREFIXES + "INSERT DATA { GRAPH :g { :a :p 1 . :b :p 2 } }")
    kb.update(PREFIXES + "INSERT { GRAPH :h { ?s :has _:n . _:n :value ?o } } WHERE { GRAPH :g { ?s :p ?o } }")
    nodes = {q.object for q in kb.store.quads(predicate=ex("has"), graph=ex("h"))}
    assert len(nodes) == 2
    assert all(isinstance(n, BlankNode) for n in nodes)
    for n in nodes:
        assert len(list(kb.store.quads(subject=n, graph=ex("h")))) == 1  # type: ignore[arg-type]


def test_syntax_errors_name_the_position_and_store_nothing(kb: KnowledgeBase) -> None:
    kb.update(PREFIXES + "INSERT DATA { :a :p :b }")
    before = snapshot(kb)
    with pytest.raises(InvalidQuery, match=r"2:\d+"):
        kb.update(PREFIXES.replace("\n", " ") + "INSERT DATA { :c :p :d } ;\n DELETE DATA { :a :p }")
    assert snapshot(kb) == before


def test_the_inferred_graph_cannot_be_written(kb: KnowledgeBase) -> None:
    for request in (
        f"INSERT DATA {{ GRAPH <{INFERRED_GRAPH.value}> {{ <{EX}a> <{EX}p> <{EX}b> }} }}",
        f"DROP GRAPH <{INFERRED_GRAPH.value}>",
        f"COPY DEFAULT TO <{INFERRED_GRAPH.value}>",
        f"INSERT {{ GRAPH <{INFERRED_GRAPH.value}> {{ ?s ?p ?o }} }} WHERE {{ ?s ?p ?o }}",
    ):
        kb.update(PREFIXES + "INSERT DATA { :a :p :b }")
        with pytest.raises(InvalidInput, match="inferred"):
            kb.update(request)


def test_inference_follows_updates(kb: KnowledgeBase) -> None:
    kb.update(PREFIXES + "INSERT DATA { GRAPH :onto { :Dog rdfs:subClassOf :Animal } }")
    change = kb.update(PREFIXES + "INSERT DATA { GRAPH :g { :rex a :Dog } }")
    animal = Triple(ex("rex"), RDF_TYPE, ex("Animal"))
    assert animal in change.inferred_added
    assert animal in kb.inferred_triples()
    change = kb.update(PREFIXES + "DELETE WHERE { GRAPH :g { :rex a ?c } }")
    assert animal in change.inferred_removed
    assert animal not in kb.inferred_triples()


def test_cost_follows_the_change_not_the_store(kb: KnowledgeBase) -> None:
    kb.update(PREFIXES + "INSERT DATA { GRAPH :big { " + " ".join(f":s{i} :p {i} ." for i in range(2000)) + " } }")
    scans: list[tuple[object, ...]] = []
    inner = kb.store

    class Spy:
        def __getattr__(self, name: str) -> object:
            return getattr(inner, name)

        def quads(self, *args: object, **kwargs: object) -> Iterator[Quad]:
            found = list(inner.quads(*args, **kwargs))  # type: ignore[arg-type]
            scans.append((args, kwargs, len(found)))
            return iter(found)

    kb.store = Spy()  # type: ignore[assignment]
    kb.update(PREFIXES + "INSERT DATA { GRAPH :g { :a :p :b } } ; DELETE { GRAPH :big { :s1 :p ?o } } "
              "INSERT { GRAPH :big { :s1 :p 0 } } WHERE { GRAPH :big { :s1 :p ?o } }")
    assert sum(n for *_, n in scans) < 20, scans
    kb.store = inner


def test_overlay_copy_has_a_limit(kb: KnowledgeBase, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(update_apply, "MAX_OVERLAY_QUADS", 10)
    kb.update(PREFIXES + "INSERT DATA { GRAPH :big { " + " ".join(f":s{i} :p {i} ." for i in range(20)) + " } }")
    before = snapshot(kb)
    with pytest.raises(Unsupported, match="separate requests"):
        kb.update(PREFIXES + "INSERT DATA { :a :p :b } ; INSERT { GRAPH :h { ?s ?p ?o } } WHERE { ?s ?p ?o }")
    assert snapshot(kb) == before
    # naming the graphs keeps the overlay small
    kb.update(PREFIXES + "INSERT DATA { GRAPH :g { :a :p :b } } ; INSERT { GRAPH :h { ?s ?p ?o } } "
              "WHERE { GRAPH :g { ?s ?p ?o } }")
    assert triples(kb, ex("h")) == {t("a", "p", "b")}


# ------------------------------------------------------------------------------------------ the SHACL gate


def test_strict_domain_rejects_the_whole_request(domains_kb: KnowledgeBase) -> None:
    before = snapshot(domains_kb)
    seen: list[ChangeSet] = []
    domains_kb.subscribe(seen.append)
    with pytest.raises(ShapeViolation) as info:
        domains_kb.update(CLINICAL_PREFIXES + f"INSERT DATA {{ GRAPH <{EX}g> {{ <{EX}a> <{EX}p> 1 }} }} ;\n"
                          f"INSERT DATA {{ {BAD_PRESCRIPTION} }}")
    assert snapshot(domains_kb) == before
    assert seen == []
    dose = [r for r in info.value.report.violations if r.constraint.endswith("MinExclusiveConstraintComponent")]
    assert dose
    assert dose[0].focus.endswith("prescription/bad-0002>")
    # a violation reached through DELETE/INSERT WHERE: every dose made negative
    with pytest.raises(ShapeViolation):
        domains_kb.update(CLINICAL_PREFIXES + f"WITH <{CLINICAL_DATA}> DELETE {{ ?rx clin:dose ?d }} "
                          "INSERT { ?rx clin:dose -1.0 } WHERE { ?rx clin:dose ?d }")
    assert snapshot(domains_kb) == before


def test_strict_domain_accepts_a_valid_update(domains_kb: KnowledgeBase) -> None:
    change = domains_kb.update(CLINICAL_PREFIXES + f"WITH <{CLINICAL_DATA}> DELETE {{ rx:rx-0001 clin:dose ?d }} "
                               "INSERT { rx:rx-0001 clin:dose 7.5 } WHERE { rx:rx-0001 clin:dose ?d }")
    assert change.domain == "clinical"
    assert len(change.asserted_added) == 1
    assert len(change.asserted_removed) == 1
    assert domains_kb.query(CLINICAL_PREFIXES + "ASK { rx:rx-0001 clin:dose 7.5 }").boolean is True


def test_fuzzy_domain_accepts_with_warnings_and_domains_are_checked_separately(domains_kb: KnowledgeBase) -> None:
    deal = f"GRAPH <{CRM_DATA}> {{ <https://hybridkg.dev/data/crm/deal/x> a <https://hybridkg.dev/ns/crm#Deal> }}"
    change = domains_kb.update(f"INSERT DATA {{ {deal} }}")
    assert change.domain == "crm"
    assert change.warnings
    assert all(w.severity != Severity.VIOLATION for w in change.warnings)
    # one request across two domains and an unowned graph: the crm warnings, the clinical change checked alone
    change = domains_kb.update(CLINICAL_PREFIXES + f"INSERT DATA {{ {deal.replace('/x>', '/y>')} "
                               f"GRAPH <{CLINICAL_DATA}> {{ rx:rx-0001 clin:frequency \"twice daily\" }} "
                               f"GRAPH <{EX}g> {{ <{EX}a> <{EX}p> 1 }} }}")
    assert change.domain is None
    assert len(change.asserted_added) == 3
    assert change.warnings
    with pytest.raises(ShapeViolation, match="clinical"):
        domains_kb.update(CLINICAL_PREFIXES + f"INSERT DATA {{ {deal.replace('/x>', '/z>')} {BAD_PRESCRIPTION} }}")


def test_validate_write_is_a_dry_run(domains_kb: KnowledgeBase) -> None:
    dom = domains_kb.policy.get("clinical")
    bad = dom.path_of(dom.examples["invalid"])
    good = dom.path_of(dom.examples["valid"])
    assert bad is not None
    assert good is not None
    before = snapshot(domains_kb)
    seen: list[ChangeSet] = []
    domains_kb.subscribe(seen.append)
    report = domains_kb.validate_write(bad, domain="clinical")
    assert not report.conforms
    assert {r.constraint.rsplit("#", 1)[-1] for r in report.violations} >= {"MinExclusiveConstraintComponent"}
    assert domains_kb.validate_write(good, domain="clinical").conforms
    crm = domains_kb.validate_write(
        b"<https://hybridkg.dev/data/crm/deal/x> a <https://hybridkg.dev/ns/crm#Deal> .", domain="crm", fmt="turtle"
    )
    assert crm.conforms
    assert crm.results
    assert all(r.severity != Severity.VIOLATION for r in crm.results)
    assert snapshot(domains_kb) == before
    assert seen == []


def test_validate_write_of_data_already_loaded_agrees_with_load(domains_kb: KnowledgeBase) -> None:
    dom = domains_kb.policy.get("clinical")
    good = dom.path_of(dom.examples["valid"])
    assert good is not None
    domains_kb.load(good, domain="clinical")
    report = domains_kb.validate_write(good, domain="clinical")
    assert report.conforms, [r.message for r in report.results]
    domains_kb.load(good, domain="clinical")  # and loading it again is accepted, as the dry run said


def test_validate_write_without_the_ontology_loaded(tmp_path: Path) -> None:
    kb = _kb(DomainPolicy.load())
    dom = kb.policy.get("clinical")
    good = dom.path_of(dom.examples["valid"])
    data = dom.path_of(dom.demo_data)
    assert good is not None
    assert data is not None
    combined = tmp_path / "both.ttl"
    combined.write_bytes(data.read_bytes() + b"\n" + good.read_bytes())
    assert kb.validate_write(combined, domain="clinical").conforms
    assert snapshot(kb) == []
