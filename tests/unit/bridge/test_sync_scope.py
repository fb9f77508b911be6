"""What a sync scope exposes (bridge/policy.py) and which subjects a change touches (bridge/sync.py), on the
in-memory triple store."""

from __future__ import annotations

import pytest
from pyoxigraph import BlankNode, Literal, NamedNode, Quad, Triple

from hybridkg.bridge.policy import BRIDGE_GRAPH, BridgeConfig, Exposure, Scope, scope_of
from hybridkg.bridge.sync import SyncReport, _touched
from hybridkg.errors import NotFound
from hybridkg.semantic.base import INFERRED_GRAPH, ChangeSet, TripleStore
from hybridkg.semantic.domains import DomainPolicy
from hybridkg.semantic.settings import StoreConfig
from hybridkg.semantic.store.factory import make_store

EX = "http://example.org/"
CRM_DATA = "https://hybridkg.dev/graph/crm/data"


def ex(local: str) -> NamedNode:
    return NamedNode(EX + local)


A, B, OUT = ex("a"), ex("b"), ex("outsider")
P = ex("p")


@pytest.fixture
def store() -> TripleStore:
    s = make_store(StoreConfig(backend="memory"))
    s.add([
        Quad(A, P, Literal("in crm"), NamedNode(CRM_DATA)),
        Quad(A, P, Literal("elsewhere"), ex("g")),
        Quad(A, P, B, INFERRED_GRAPH),
        Quad(OUT, P, Literal("x"), ex("g")),
        Quad(OUT, P, A, INFERRED_GRAPH),
        Quad(A, P, Literal("in crm"), ex("g")),  # asserted twice
    ])
    return s


def test_whole_store_exposes_every_graph_and_the_closure_once(store: TripleStore) -> None:
    scope = scope_of(DomainPolicy.load())
    assert (scope.graph_name, scope.graphs, scope.inferred, scope.domain) == (BRIDGE_GRAPH, None, True, None)
    assert scope.namespaces["crm"] == "https://hybridkg.dev/ns/crm#"
    assert scope.shapes is not None  # both domains' shapes
    assert len(scope.triples(store)) == 5
    assert scope.triples_of(store, A) == {Triple(A, P, Literal("in crm")), Triple(A, P, Literal("elsewhere")),
                                          Triple(A, P, B)}


def test_asserted_exposure_leaves_the_closure_out(store: TripleStore) -> None:
    scope = scope_of(DomainPolicy.load(), exposure=Exposure.ASSERTED)
    assert not scope.inferred
    assert all(t.predicate == P and isinstance(t.object, Literal) for t in scope.triples(store))
    assert scope.triples_of(store, OUT) == {Triple(OUT, P, Literal("x"))}


def test_a_domain_exposes_its_graphs_and_the_closure_about_its_own_resources(store: TripleStore) -> None:
    scope = scope_of(DomainPolicy.load(), domain="crm")
    assert scope.graph_name == f"{BRIDGE_GRAPH}_crm"
    assert scope.graphs is not None
    assert CRM_DATA in scope.graphs
    want = {Triple(A, P, Literal("in crm")), Triple(A, P, B)}  # not OUT's inferred triple: OUT is not crm's
    assert scope.triples(store) == want
    assert scope.triples_of(store, A) == want
    assert scope.triples_of(store, OUT) == set()


def test_the_policy_file_chooses_a_domains_exposure_the_settings_the_rest_and_the_flag_overrides_both() -> None:
    config = BridgeConfig(graph_name="g", exposure=Exposure.INFERRED)
    domains = DomainPolicy.load()
    domains.domains["crm"].bridge_exposure = "asserted"
    assert not scope_of(domains, config, "crm").inferred
    assert scope_of(domains, config, "clinical").inferred
    assert scope_of(domains, config, "crm", Exposure.INFERRED).inferred
    assert scope_of(domains, config).graph_name == "g"
    assert scope_of(domains, config, "crm").graph_name == "g_crm"
    assert not scope_of(domains, BridgeConfig(exposure=Exposure.ASSERTED), "clinical").inferred
    with pytest.raises(NotFound, match="known domains: clinical, crm"):
        scope_of(domains, config, "nope")


def test_a_change_touches_the_subjects_its_scope_sees() -> None:
    bnode = BlankNode()
    change = ChangeSet(
        asserted_added=(Quad(A, P, Literal("1"), NamedNode(CRM_DATA)), Quad(OUT, P, A, ex("g"))),
        asserted_removed=(Quad(bnode, P, Literal("2"), NamedNode(CRM_DATA)),),
        inferred_added=(Triple(B, P, A),),
    )
    crm = Scope("g", frozenset({CRM_DATA}), inferred=False)
    assert _touched(change, crm) == [A, bnode]
    assert _touched(change, Scope("g", None, inferred=True)) == [A, OUT, bnode, B]


def test_reports_add_up() -> None:
    total = SyncReport(triples=1, changed=1, statements=2, seconds=5.0)
    total.add(SyncReport(triples=2, relationships_added=3, nodes_deleted=1, statements=1))
    assert total.to_json() == {
        "triples": 3, "subjects": 0, "changed": 1, "relationships_added": 3, "relationships_removed": 0,
        "nodes_deleted": 1, "statements": 3, "seconds": 5.0,
    }
