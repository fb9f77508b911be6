"""Entity linking's vocabulary read from the bridge graph by Cypher equals the one read from the RDF store by SPARQL
(``hybridkg.bridge.vocabulary``), on the demo domains, with either exposure; a real FalkorDB."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.falkor import falkordb_server, falkordb_store, fresh_graph, short_tmp

from hybridkg.bridge.policy import Exposure, scope_of
from hybridkg.bridge.settings import BridgeConfig
from hybridkg.bridge.sync import BridgeSync
from hybridkg.bridge.vocabulary import domain_vocabulary, graph_vocabulary, store_vocabulary
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.settings import StoreBackend
from hybridkg.server.app import open_knowledge_base
from hybridkg.server.config import Settings
from hybridkg.structural.graphstore.falkordb_store import FalkorDBGraphStore
from hybridkg.structural.graphstore.server import ManagedFalkorDB


@pytest.fixture(scope="module")
def kb() -> Iterator[KnowledgeBase]:
    settings = Settings()
    settings.store.backend = StoreBackend.MEMORY
    kb = open_knowledge_base(settings)
    for name in kb.policy.domains:
        kb.ensure_domain(name, with_demo_data=True)
    yield kb
    kb.close()


@pytest.fixture(scope="module")
def server() -> Iterator[ManagedFalkorDB]:
    with short_tmp() as path, falkordb_server(path) as server:
        yield server


@pytest.mark.parametrize("exposure", list(Exposure))
@pytest.mark.parametrize("domain", ["clinical", "crm"])
def test_the_bridge_graph_and_the_store_give_the_same_vocabulary(
    kb: KnowledgeBase, server: ManagedFalkorDB, domain: str, exposure: Exposure
) -> None:
    scope = scope_of(kb.policy, BridgeConfig(exposure=exposure), domain)
    sync = BridgeSync(kb.store, fresh_graph(server), scope)
    try:
        sync.sync()
        from_graph = graph_vocabulary(sync.graph, sync.registry)
    finally:
        sync.close()
    from_store = store_vocabulary(kb, scope)
    assert from_graph == from_store
    assert len(from_graph.entities) > 30
    assert len(from_graph.types) > 10
    iris = {str(e.iri) for e in from_graph.entities}
    assert all(f"/data/{domain}/" in i or f"/ns/{domain}#" in i for i in iris)  # nothing of another domain


def test_types_are_most_specific_and_labels_preferred_first(kb: KnowledgeBase) -> None:
    vocabulary = store_vocabulary(kb, scope_of(kb.policy, None, "clinical"))
    by_iri = {e.iri: e for e in vocabulary.entities}
    warfarin = by_iri["https://hybridkg.dev/data/clinical/drug/warfarin-5mg"]
    assert warfarin.labels == ("Warfarin 5 mg tablet", "Coumadin")  # prefLabel/label before altLabel
    assert warfarin.type == "Anticoagulant"  # not Drug, OralDrug or owl:Thing, which it also is (inferred)
    assert "https://hybridkg.dev/ns/clinical#Drug" not in by_iri  # a class: its label is a type
    assert "Drug" in vocabulary.types


def test_without_a_managed_falkordb_or_with_the_bridge_off_the_store_answers(kb: KnowledgeBase) -> None:
    want = store_vocabulary(kb, scope_of(kb.policy, None, "crm"))
    assert domain_vocabulary(kb, "crm", BridgeConfig(), None) == want
    assert domain_vocabulary(kb, "crm", BridgeConfig(enabled=False), None) == want


def test_beside_a_managed_falkordb_the_domains_bridge_graph_is_brought_in_line_and_read(kb: KnowledgeBase) -> None:
    want = store_vocabulary(kb, scope_of(kb.policy, None, "crm"))
    with short_tmp() as path, falkordb_store(path) as structural:
        assert domain_vocabulary(kb, "crm", BridgeConfig(graph_name="b"), structural) == want
        rows = structural.query("MATCH (n) RETURN count(n) AS c")  # the structural layer's own graph: untouched
        assert rows[0]["c"] == 0
        with FalkorDBGraphStore(graph_name="b_crm", server=structural.server) as bridge:
            rows = bridge.query("MATCH (n:Resource) RETURN count(n) AS c")
            assert rows[0]["c"] > 30  # the graph it read, left in line for the service
