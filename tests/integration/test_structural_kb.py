"""The structural knowledge base end to end: documents -> graph + vectors, incremental update, restart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from hybridkg.errors import HybridKGError, InputTooLarge, InvalidInput, NotFound
from hybridkg.structural.base import CHUNK, ENTITY, RELATED, KnownEntity
from hybridkg.structural.factory import open_structural_kb
from hybridkg.structural.knowledge import EntitySpec, RelationSpec, StructuralKB
from hybridkg.structural.settings import (
    EmbedderConfig,
    EmbedderKind,
    GraphBackend,
    GraphConfig,
    StructuralConfig,
    VectorBackend,
    VectorConfig,
)

DOC_A = """Acme Robotics builds warehouse robots in Lyon. Maria Keller leads the Lyon plant.
Acme Robotics sells the Falcon Arm to Bramble Logistics.
"""
DOC_B = """Bramble Logistics runs warehouses in Leeds. Joost Vries manages the Leeds warehouse.
Bramble Logistics buys the Falcon Arm from Acme Robotics. Acme Robotics sells the Falcon Arm to Bramble Logistics.
"""
DOC_A2 = """Acme Robotics builds warehouse robots in Lyon. Maria Keller leads the Lyon plant.
Acme Robotics also designs the Heron Gripper with Nova Labs.
"""

KNOWN = [KnownEntity("https://example.org/acme", ("Acme Robotics", "Acme"), "Company")]


def _config(backend: GraphBackend) -> StructuralConfig:
    return StructuralConfig(
        graph=GraphConfig(backend=backend),
        embedder=EmbedderConfig(kind=EmbedderKind.HASH),
        vectors=VectorConfig(backend=VectorBackend.EXACT),
    )


@pytest.fixture(params=[GraphBackend.MEMORY, GraphBackend.FALKORDB])
def skb(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StructuralKB]:
    kb = open_structural_kb(_config(request.param), tmp_path / "s", known=KNOWN)
    try:
        yield kb
    finally:
        kb.close()


def _graph_ids(kb: StructuralKB) -> tuple[set[str], set[str], set[str]]:
    """Ids of every entity, relation and chunk, read back through the stores."""
    probe = kb.embedder.embed(["probe"])[0]
    ent_ids = {h.id for h in kb.vectors.entities.search(probe, 10_000)}
    rel_ids = {h.id for h in kb.vectors.relations.search(probe, 10_000)}
    chunk_ids = {h.id for h in kb.vectors.chunks.search(probe, 10_000)}
    return ent_ids, rel_ids, chunk_ids


def _entity_names(kb: StructuralKB) -> set[str]:
    return {n.props["name"] for n in kb.graph.neighbourhood(ENTITY, sorted(_graph_ids(kb)[0]), depth=0).nodes.values()}


def _assert_consistent(kb: StructuralKB) -> None:
    """No orphan, no stale vector: every vector has its graph element and vice versa."""
    ent_ids, rel_ids, chunk_ids = _graph_ids(kb)
    ents = kb.graph.neighbourhood(ENTITY, sorted(ent_ids), depth=0).nodes
    assert set(ents) == ent_ids, "stale entity vectors"
    assert {e.id for e in kb.graph.edges(RELATED, sorted(rel_ids))} == rel_ids, "stale relation vectors"
    chunks = kb.graph.neighbourhood(CHUNK, sorted(chunk_ids), depth=0).nodes
    assert set(chunks) == chunk_ids, "stale chunk vectors"
    sub = kb.graph.neighbourhood(ENTITY, sorted(ent_ids), depth=1, rel_types=[RELATED])
    assert set(sub.nodes) == ent_ids, "a relation points at an entity with no vector"
    assert {e.id for e in sub.edges if e.props.get("type") != "co_occurs"} == rel_ids, "a relation has no vector"
    assert not any(e.props.get("vhash") for e in sub.edges if e.props.get("type") == "co_occurs")
    for node in ents.values():
        assert node.props.get("source_chunks") or node.props.get("pinned"), f"orphan entity {node.id}"
        for c in node.props.get("source_chunks") or []:
            assert c in chunk_ids, f"{node.id} cites deleted chunk {c}"
    for e in sub.edges:
        for c in e.props.get("source_chunks") or []:
            assert c in chunk_ids, f"{e.id} cites deleted chunk {c}"
    assert len(kb.vectors.entities) == len(ent_ids)
    assert len(kb.vectors.chunks) == len(chunk_ids)


def test_add_links_known_entities_and_keeps_provenance(skb: StructuralKB) -> None:
    change = skb.add_document("a.txt", DOC_A, domain="crm")
    assert change.action == "added"
    assert change.chunks_added >= 1
    assert change.entities_added >= 3
    ent_ids, rel_ids, chunk_ids = _graph_ids(skb)
    nodes = skb.graph.neighbourhood(ENTITY, sorted(ent_ids), depth=0).nodes
    acme = [n for n in nodes.values() if n.props.get("iri") == "https://example.org/acme"]
    assert len(acme) == 1
    assert acme[0].props["type"] == "Company"
    assert set(acme[0].props["source_chunks"]) <= chunk_ids
    mentions = skb.graph.neighbourhood(CHUNK, sorted(chunk_ids), depth=1, rel_types=["MENTIONS"])
    assert acme[0].id in mentions.nodes
    _assert_consistent(skb)


def test_reinserting_the_same_document_is_a_no_op(skb: StructuralKB) -> None:
    skb.add_document("a.txt", DOC_A, domain="crm")
    before = _graph_ids(skb)
    again = skb.add_document("a.txt", DOC_A.encode(), domain="crm")
    assert again.action == "unchanged"
    assert again.embedded == 0
    assert _graph_ids(skb) == before


def test_shared_relation_survives_delete_with_decayed_w_struct(skb: StructuralKB) -> None:
    skb.add_document("a.txt", DOC_A, domain="crm")
    skb.add_document("b.txt", DOC_B, domain="crm")
    every = skb.graph.neighbourhood(ENTITY, sorted(_graph_ids(skb)[0]), depth=1, rel_types=[RELATED]).edges
    shared = {e.id: e for e in every if len(e.props.get("source_chunks") or []) >= 2}
    assert shared, "the two documents share at least one relation (Acme Robotics / Bramble Logistics / Falcon Arm)"
    change = skb.delete_document("a.txt")
    assert change.action == "deleted"
    assert change.chunks_removed >= 1
    assert change.entities_removed >= 1
    after = {e.id: e for e in skb.graph.edges(RELATED, sorted(shared))}
    for rid, before in shared.items():
        assert rid in after
        assert after[rid].props["w_struct"] < before.props["w_struct"]
    names = _entity_names(skb)
    assert "Maria Keller" not in names
    assert "Lyon" not in names
    assert "Leeds" in names
    _assert_consistent(skb)


def test_update_replaces_only_changed_chunks(skb: StructuralKB) -> None:
    skb.add_document("a.txt", DOC_A, domain="crm")
    skb.add_document("b.txt", DOC_B, domain="crm")
    change = skb.update_document("a.txt", DOC_A2, domain="crm")
    assert change.action == "updated"
    names = _entity_names(skb)
    assert "Heron Gripper" in names
    assert "Nova Labs" in names
    _assert_consistent(skb)
    skb.delete_document("a.txt")
    skb.delete_document("b.txt")
    assert _graph_ids(skb) == (set(), set(), set())
    assert len(skb.vectors.entities) == len(skb.vectors.relations) == len(skb.vectors.chunks) == 0


@pytest.mark.parametrize(
    ("data", "error", "words"),
    [
        (b"", InvalidInput, "empty"),
        (b"   \n\t ", InvalidInput, "empty"),
        (b"\x00\x01\x02binary\x00\xff" * 20, InvalidInput, "binary"),
        ("caf\u00e9 au lait".encode("latin-1"), InvalidInput, "UTF-8"),
    ],
)
def test_bad_documents_change_nothing(skb: StructuralKB, data: bytes, error: type[Exception], words: str) -> None:
    skb.add_document("a.txt", DOC_A, domain="crm")
    before = _graph_ids(skb)
    with pytest.raises(error, match=words):
        skb.add_document("bad.txt", data, domain="crm")
    with pytest.raises(error, match=words):
        skb.update_document("a.txt", data, domain="crm")
    assert _graph_ids(skb) == before


def test_oversized_document_is_refused(tmp_path: Path) -> None:
    config = _config(GraphBackend.MEMORY)
    config.chunking.max_document_bytes = 1_000
    with open_structural_kb(config, tmp_path / "s") as kb, pytest.raises(InputTooLarge, match="1000|1,000"):
        kb.add_document("big.txt", "word " * 1_000, domain="crm")


def test_document_lifecycle_errors(skb: StructuralKB) -> None:
    skb.add_document("a.txt", DOC_A, domain="crm")
    with pytest.raises(InvalidInput, match="docs update"):
        skb.add_document("a.txt", DOC_B, domain="crm")
    with pytest.raises(NotFound, match="docs add"):
        skb.update_document("nope.txt", DOC_B, domain="crm")
    with pytest.raises(NotFound, match="nope.txt"):
        skb.delete_document("nope.txt")
    with pytest.raises(InvalidInput, match="domain"):
        skb.add_document("c.txt", DOC_B, domain="no such domain!")


def test_insert_graph_and_retrieve(skb: StructuralKB) -> None:
    entities = [EntitySpec("Aspirin", "Drug", "pain reliever"), EntitySpec("Headache", "Condition", "head pain"),
                EntitySpec("Ibuprofen", "Drug", "anti-inflammatory")]
    relations = [RelationSpec("Aspirin", "Headache", "treats", ("treats",), "aspirin treats headache"),
                 RelationSpec("Ibuprofen", "Headache", "treats", ("treats",), "ibuprofen treats headache")]
    done = skb.insert_graph(entities, relations, domain="clinical")
    assert (done.entities, done.relations) == (3, 2)
    result = skb.retrieve("aspirin", mode="local", top_k=3)
    assert result.items[0].name == "Aspirin"
    assert {r.type for r in result.relations} == {"treats"}
    with pytest.raises(InvalidInput, match="mode"):
        skb.retrieve("aspirin", mode="sideways")
    with pytest.raises(InvalidInput, match="top_k"):
        skb.retrieve("aspirin", top_k=-1)
    with pytest.raises(InvalidInput, match="not in this insert"):
        skb.insert_graph([], [RelationSpec("Aspirin", "Nowhere")], domain="clinical")
    vec = skb.embedder.embed(["aspirin"])[0]
    assert np.isclose(np.linalg.norm(vec), 1.0)


def test_restart_of_the_managed_falkordb_keeps_everything(tmp_path: Path) -> None:
    path = tmp_path / "s"
    config = _config(GraphBackend.FALKORDB)
    with open_structural_kb(config, path, known=KNOWN) as kb:
        kb.add_document("a.txt", DOC_A, domain="crm")
        before = _graph_ids(kb)
        ranked = [i.id for i in kb.retrieve("Acme Robotics", mode="local").items]
    with open_structural_kb(config, path, known=KNOWN) as kb:
        assert _graph_ids(kb) == before
        assert [i.id for i in kb.retrieve("Acme Robotics", mode="local").items] == ranked
        assert kb.add_document("a.txt", DOC_A, domain="crm").action == "unchanged"


def test_changing_the_embedder_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s"
    open_structural_kb(_config(GraphBackend.MEMORY), path).close()
    config = _config(GraphBackend.MEMORY)
    config.embedder.kind = EmbedderKind.SENTENCE
    with pytest.raises(HybridKGError, match="embedder"):
        open_structural_kb(config, path)


def test_the_in_process_mirror_matches_the_database_after_every_kind_of_write(tmp_path: Path) -> None:
    from hybridkg.structural.graphstore.mirror import MirroredGraphStore

    with open_structural_kb(_config(GraphBackend.FALKORDB), tmp_path / "s", known=KNOWN) as kb:
        assert isinstance(kb.graph, MirroredGraphStore)
        kb.add_document("a.txt", DOC_A, domain="crm")
        kb.retrieve("Acme Robotics", mode="local")  # loads the mirror
        kb.add_document("b.txt", DOC_B, domain="crm")
        kb.update_document("a.txt", DOC_A2, domain="crm")
        ent_ids, rel_ids, _ = _graph_ids(kb)
        kb.feedback({sorted(ent_ids)[0]: 0.5})
        kb.delete_document("b.txt")
        ent_ids, rel_ids, _ = _graph_ids(kb)
        primary = kb.graph.primary
        for ids in (ent_ids, {"meta:feedback"}):
            label = "Meta" if ids == {"meta:feedback"} else ENTITY
            assert kb.graph.neighbourhood(label, sorted(ids), depth=0).nodes == \
                primary.neighbourhood(label, sorted(ids), depth=0).nodes
        # co_occurs edges have no vector: take every relation from the database
        rel_ids = {e.id for e in primary.neighbourhood(ENTITY, sorted(ent_ids), depth=1, rel_types=[RELATED]).edges}
        mirrored = {e.id: e for e in kb.graph.edges(RELATED, sorted(rel_ids))}
        stored = {e.id: e for e in primary.edges(RELATED, sorted(rel_ids))}
        assert mirrored == stored
        everything = kb.graph.neighbourhood(ENTITY, sorted(ent_ids), depth=1, rel_types=[RELATED])
        assert {e.id for e in everything.edges} == set(stored)
