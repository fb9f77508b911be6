"""The service wiring: the structural layer links entities the semantic layer knows, by label and altLabel."""

from __future__ import annotations

from pathlib import Path

from hybridkg.bridge.vocabulary import domain_vocabulary
from hybridkg.semantic.settings import StoreBackend
from hybridkg.server.app import open_knowledge_base, open_structural
from hybridkg.server.config import Settings
from hybridkg.structural.base import ENTITY
from hybridkg.structural.settings import EmbedderKind, GraphBackend, VectorBackend


def _settings(tmp_path: Path) -> Settings:
    s = Settings()
    s.store.backend = StoreBackend.MEMORY
    s.structural.path = tmp_path / "structural"
    s.structural.graph.backend = GraphBackend.MEMORY
    s.structural.embedder.kind = EmbedderKind.HASH
    s.structural.vectors.backend = VectorBackend.EXACT
    return s


def test_domain_vocabulary_reads_labels_alt_labels_and_classes(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    kb = open_knowledge_base(settings)
    kb.ensure_domain("crm", with_demo_data=True)
    vocabulary = domain_vocabulary(kb, "crm", settings.bridge)
    known, types = vocabulary.entities, vocabulary.types
    by_iri = {k.iri: k for k in known}
    hsi = next(k for k in known if "HSI" in k.labels)
    assert "Helios Solar Iberia" in hsi.labels
    assert hsi.type != "concept"
    assert by_iri[hsi.iri] is hsi
    assert types
    # classes and properties are types and predicates, not entity names
    labels = {label.casefold() for k in known for label in k.labels}
    class_labels = {t.casefold() for t in types}
    assert not labels & class_labels, labels & class_labels
    rows = kb.query(
        "PREFIX owl: <http://www.w3.org/2002/07/owl#> SELECT ?p WHERE { GRAPH ?g { ?p a ?t } "
        "FILTER(?t IN (owl:ObjectProperty, owl:DatatypeProperty)) }"
    ).rows
    properties = {str(r[0].value) for r in rows}
    assert properties, "the crm ontology declares properties"
    assert not properties & {k.iri for k in known}


def test_documents_link_known_entities_through_the_semantic_layer(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    kb = open_knowledge_base(settings)
    kb.ensure_domain("crm", with_demo_data=True)
    with open_structural(settings, kb, ["crm"]) as skb:
        skb.add_document("note.txt", "HSI extended the pilot. Helios Solar Iberia will buy more.", domain="crm")
        hits = skb.vectors.entities.search(skb.embedder.embed(["Helios Solar Iberia"])[0], 50)
        nodes = skb.graph.neighbourhood(ENTITY, [h.id for h in hits], depth=0).nodes
        linked = [n for n in nodes.values() if n.props.get("iri", "").endswith("helios-solar-iberia")]
        assert len(linked) == 1, "the acronym and the full name resolve to one entity"
        assert linked[0].props["name"] == "Helios Solar Iberia"
        assert len(linked[0].props["source_chunks"]) == 1
