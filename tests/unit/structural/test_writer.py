"""The one write path: typed records, what gets embedded (once, shortest first), noise, names told after writes.

Real stores (the in-memory graph, exact vector indexes) and the hashing embedder; the extractor is a fake
behind the :class:`Extractor` protocol so that each case says exactly what was extracted.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

import pytest
from support.structural_fakes import RecordingEmbedder, ScriptedExtractor

from hybridkg.structural.base import (
    ENTITY,
    RELATED,
    ExtractedEntity,
    ExtractedRelation,
    Extraction,
)
from hybridkg.structural.factory import open_structural_kb
from hybridkg.structural.knowledge import EntitySpec, RelationSpec, StructuralKB
from hybridkg.structural.records import EntityRecord, RelationRecord, from_props, to_props
from hybridkg.structural.settings import StructuralConfig


def E(name: str, *, named: bool = True, aliases: tuple[str, ...] = ()) -> ExtractedEntity:  # noqa: N802
    return ExtractedEntity(name, "concept", f"{name} is mentioned.", named=named, aliases=aliases)


def R(src: str, dst: str, rel_type: str, weight: float = 1.0) -> ExtractedRelation:  # noqa: N802
    return ExtractedRelation(src, dst, rel_type, ("kw",), f"{src} {rel_type} {dst}, said a long sentence.", weight)


T1 = "Dana Reyes joined Corvid Labs to run the billing platform."
T2 = "Corvid Labs sells the billing platform to Halden Foods."
T3 = "Halden Foods met Dana Reyes in Porto."
TABLE = {
    T1: Extraction([E("Dana Reyes"), E("Corvid Labs"), E("billing platform", named=False)],
                   [R("Dana Reyes", "Corvid Labs", "joined"), R("Dana Reyes", "billing platform", "runs"),
                    R("Dana Reyes", "Corvid Labs", "co_occurs", 0.25)]),
    T2: Extraction([E("Corvid Labs", aliases=("Corvid",)), E("billing platform", named=False), E("Halden Foods")],
                   [R("Corvid Labs", "Halden Foods", "sells_to")]),
    T3: Extraction([E("Halden Foods"), E("Dana Reyes"), E("meeting room", named=False)],
                   [R("Halden Foods", "meeting room", "uses"), R("Halden Foods", "Dana Reyes", "met")]),
}


class Names:
    def __init__(self) -> None:
        self.calls: list[tuple[dict[str, tuple[str, ...]], list[str]]] = []

    def __call__(self, added: Mapping[str, Sequence[str]], removed: Sequence[str]) -> None:
        self.calls.append(({k: tuple(v) for k, v in added.items()}, list(removed)))


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[StructuralKB]:
    config = StructuralConfig.model_validate({"graph": {"backend": "memory"}, "vectors": {"backend": "exact"},
                                              "extractor": {"kind": "rules"}})
    emb = RecordingEmbedder()
    skb = open_structural_kb(config, tmp_path / "s", embedder=emb)
    skb.extractor = ScriptedExtractor(TABLE)
    skb.retriever.names_changed = Names()  # type: ignore[method-assign,attr-defined]
    try:
        yield skb
    finally:
        skb.close()


def _entities(kb: StructuralKB) -> dict[str, EntityRecord]:
    ids = kb.vectors.entities.ids()
    nodes = kb.graph.neighbourhood(ENTITY, ids, depth=0).nodes
    return {n.props["name"]: from_props(EntityRecord, {**n.props, "id": i}) for i, n in nodes.items()}


def _relations(kb: StructuralKB) -> list[RelationRecord]:
    sub = kb.graph.neighbourhood(ENTITY, kb.vectors.entities.ids(), depth=1, rel_types=[RELATED])
    return [from_props(RelationRecord, {**e.props, "id": e.id}, src=e.src, dst=e.dst) for e in sub.edges]


# --------------------------------------------------------------------------------------------- records


def test_records_round_trip_and_keep_unknown_properties() -> None:
    rec = EntityRecord("ent:d:x", "X Corp", "x corp", "Company", "X.", "d", aliases=["X"], source_chunks=["c1"],
                       chunk_descriptions=["X."], extra={"added_later": 3})
    props = to_props(rec)
    assert props["aliases"] == ["X"]
    assert props["added_later"] == 3
    assert "extra" not in props
    assert from_props(EntityRecord, props) == rec
    rel = RelationRecord("r1", "a", "b", "works_at", ["kw"], w_struct=1.5, chunk_weights=[1.5])
    props = to_props(rel)
    assert "src" not in props
    assert "dst" not in props
    assert from_props(RelationRecord, props, src="a", dst="b") == rel


def test_records_read_stores_written_before_they_existed() -> None:
    old = {"id": "ent:d:y", "name": "Y", "norm": "y", "type": "concept", "source_chunks": ["c"], "iri": None}
    rec = from_props(EntityRecord, old)
    assert rec.named is True
    assert rec.aliases == []
    assert rec.pinned is False
    assert rec.names() == ("Y",)


# --------------------------------------------------------------------------------------------- embedding


def test_one_call_embeds_each_distinct_text_once_shortest_first(kb: StructuralKB) -> None:
    emb = kb.embedder
    assert isinstance(emb, RecordingEmbedder)
    emb.calls.clear()
    changes = kb.add_documents([("a", T1), ("b", T2), ("c", T1)], domain="d")
    assert [c.action for c in changes] == ["added", "added", "added"]
    assert len(emb.calls) == 1, "one embedding call for the whole batch (an embedder without spans)"
    texts = emb.texts()
    assert len(texts) == len(set(texts)), "a text shared by two documents is embedded once"
    assert [len(t) for t in texts] == sorted(len(t) for t in texts)
    assert sum(c.embedded for c in changes) == len(kb.vectors.chunks) + len(kb.vectors.entities) + len(
        kb.vectors.relations)
    assert isinstance(kb.extractor, ScriptedExtractor)
    assert kb.extractor.batches == 1


def test_co_occurrence_edges_get_no_vector_and_relation_texts_leave_the_sentence_out(kb: StructuralKB) -> None:
    kb.add_document("a", T1, domain="d")
    rels = _relations(kb)
    co = [r for r in rels if r.type == "co_occurs"]
    assert co, "the weak edge is in the graph"
    assert co[0].w_struct == pytest.approx(0.25)
    assert not set(kb.vectors.relations.ids()) & {r.id for r in co}
    assert set(kb.vectors.relations.ids()) == {r.id for r in rels if r.type != "co_occurs"}
    emb = kb.embedder
    assert isinstance(emb, RecordingEmbedder)
    assert not any("said a long sentence" in t for t in emb.texts() if t != T1)
    assert any(r.description.endswith("said a long sentence.") for r in rels)


# --------------------------------------------------------------------------------------------- noise


def test_a_common_noun_phrase_is_kept_only_when_it_recurs(kb: StructuralKB) -> None:
    kb.add_documents([("a", T1), ("c", T3)], domain="d")
    names = _entities(kb)
    assert "billing platform" not in names, "seen in one chunk only"
    assert "meeting room" not in names
    assert {"Dana Reyes", "Corvid Labs", "Halden Foods"} <= set(names)
    assert not any(r.type in ("runs", "uses") for r in _relations(kb)), "relations of dropped phrases go too"
    assert any(r.type == "met" for r in _relations(kb))
    kb.add_document("b", T2, domain="d")  # second chunk mentioning it, but the first chunk's mention was dropped
    assert "billing platform" not in _entities(kb)


def test_a_common_noun_phrase_in_two_chunks_of_a_call_is_kept(kb: StructuralKB) -> None:
    kb.add_documents([("a", T1), ("b", T2)], domain="d")
    ent = _entities(kb)["billing platform"]
    assert ent.named is False
    assert len(ent.source_chunks) == 2
    assert any(r.type == "runs" for r in _relations(kb))


# --------------------------------------------------------------------------------------------- names


def test_names_are_told_to_the_linker_and_the_extractor(kb: StructuralKB) -> None:
    names = kb.retriever.names_changed  # type: ignore[attr-defined]
    extractor = kb.extractor
    assert isinstance(names, Names)
    assert isinstance(extractor, ScriptedExtractor)
    kb.add_documents([("a", T1), ("b", T2)], domain="d")
    added, removed = names.calls[-1]
    by_name = {v[0]: v for v in added.values()}
    assert by_name["Corvid Labs"] == ("Corvid Labs", "Corvid")
    assert "billing platform" not in by_name, "unnamed phrases are no link targets"
    assert removed == []
    assert {"Dana Reyes", "Corvid Labs", "Halden Foods"} <= {k.labels[0] for k in extractor.learned}
    assert all(k.iri is None for k in extractor.learned)
    kb.delete_document("a")
    added, removed = names.calls[-1]
    assert any(r.endswith("dana reyes") for r in removed)


def test_insert_graph_goes_through_the_same_path_and_keeps_document_provenance(kb: StructuralKB) -> None:
    kb.add_document("a", T1, domain="d")
    result = kb.insert_graph([EntitySpec("Corvid Labs", "Company", "A lab.", aliases=("Corvid",)),
                              EntitySpec("Halden Foods", "Company", "A food company.")],
                             [RelationSpec("Corvid Labs", "Halden Foods", "supplies", ("food",), "Corvid supplies.")],
                             domain="d")
    assert result.entities == 2
    assert result.relations == 1
    ents = _entities(kb)
    corvid = ents["Corvid Labs"]
    assert corvid.pinned
    assert corvid.aliases == ["Corvid"]
    assert corvid.source_chunks, "the document's provenance stays"
    assert corvid.description.startswith("A lab.")
    kb.delete_document("a")
    ents = _entities(kb)
    assert "Corvid Labs" in ents
    assert "Dana Reyes" not in ents
    supplies = [r for r in _relations(kb) if r.type == "supplies"]
    assert len(supplies) == 1
    assert supplies[0].id in kb.vectors.relations.ids()


def test_a_bad_document_fails_the_whole_batch_before_anything_is_written(kb: StructuralKB) -> None:
    from hybridkg.errors import InvalidInput

    with pytest.raises(InvalidInput):
        kb.add_documents([("a", T1), ("b", b"\xff\xfe\x00 not text \x00\x00"), ("c", T3)], domain="d")
    assert kb.vectors.chunks.ids() == []
    assert kb.vectors.entities.ids() == []
    with pytest.raises(InvalidInput, match="twice"):
        kb.add_documents([("a", T1), ("a", T2)], domain="d")
    assert kb.vectors.chunks.ids() == []


def test_put_documents_adds_updates_and_skips_in_one_batch(kb: StructuralKB) -> None:
    kb.add_documents([("a", T1), ("b", T2)], domain="d")
    changes = kb.put_documents([("a", T1), ("b", T3), ("c", T2)], domain="d")
    assert [c.action for c in changes] == ["unchanged", "updated", "added"]
    assert changes[1].chunks_removed == 1
    assert len(kb.vectors.chunks) == 3
    ents = _entities(kb)
    assert "Halden Foods" in ents
    assert len(ents["Corvid Labs"].source_chunks) == 2


def test_the_query_linker_follows_writes(tmp_path: Path) -> None:
    config = StructuralConfig.model_validate({"graph": {"backend": "memory"}, "vectors": {"backend": "exact"},
                                              "extractor": {"kind": "rules"}})
    with open_structural_kb(config, tmp_path / "s", embedder=RecordingEmbedder()) as skb:
        skb.extractor = ScriptedExtractor(TABLE)
        skb.add_document("a", T1, domain="d")
        assert [x.name for x in skb.retrieve("Who leads Corvid Labs?", mode="local").linked] == ["Corvid Labs"]
        skb.add_document("b", T2, domain="d")  # adds the alias "Corvid" after the linker has loaded
        assert [x.name for x in skb.retrieve("Who runs Corvid?", mode="local").linked] == ["Corvid Labs"]
        assert [x.name for x in skb.retrieve("Is Halden Foods a client?", mode="local").linked] == ["Halden Foods"]
        skb.delete_document("b")
        assert skb.retrieve("Is Halden Foods a client?", mode="local").linked == []
