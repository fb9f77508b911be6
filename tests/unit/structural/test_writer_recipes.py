"""Vector recipes: what the writer embeds for each element, how it composes relation vectors, and that
rebuilding them from the graph (reconcile) gives the vectors the write stored.

Real stores (the in-memory graph or embedded FalkorDB, exact vector indexes) and the hashing embedder; the
extractor is a fake behind the :class:`Extractor` protocol so that each case says what was extracted.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from support.structural_fakes import RecordingEmbedder, ScriptedExtractor

from hybridkg.structural.base import ExtractedEntity, ExtractedRelation, Extraction
from hybridkg.structural.factory import open_structural_kb
from hybridkg.structural.knowledge import StructuralKB
from hybridkg.structural.records import RelationRecord
from hybridkg.structural.settings import StructuralConfig
from hybridkg.structural.texts import entity_recipe, entity_text, quoted_spans, relation_recipe
from hybridkg.structural.writer import KINDS, GraphWriter

A = "Orla Penn chairs the board of Wexford Mills. Wexford Mills sells yarn in Galway."
B = "Wexford Mills hired Tam Rooke in May. Tam Rooke chairs the board of Galway Looms."
TABLE = {
    A: Extraction(
        [ExtractedEntity("Orla Penn", "person", "chair of Wexford Mills. Orla Penn chairs the board of Wexford Mills."),
         ExtractedEntity("Wexford Mills", "organization", "Wexford Mills sells yarn in Galway.")],
        [ExtractedRelation("Orla Penn", "Wexford Mills", "chairs", ("board", "Orla"), "Orla Penn chairs ...", 1.0)],
    ),
    B: Extraction(
        [ExtractedEntity("Wexford Mills", "organization", "Wexford Mills hired Tam Rooke in May."),
         ExtractedEntity("Tam Rooke", "person", "Tam Rooke chairs the board of Galway Looms."),
         ExtractedEntity("Galway Looms", "organization", "Tam Rooke chairs the board of Galway Looms.")],
        [ExtractedRelation("Wexford Mills", "Tam Rooke", "hired", ("May",), "Wexford Mills hired ...", 1.0),
         ExtractedRelation("Tam Rooke", "Galway Looms", "chairs", ("board",), "Tam Rooke chairs ...", 1.0)],
    ),
}


def _kb(path: Path, graph: str = "memory") -> StructuralKB:
    config = StructuralConfig.model_validate({"graph": {"backend": graph}, "vectors": {"backend": "exact"},
                                              "extractor": {"kind": "rules"}})
    kb = open_structural_kb(config, path, embedder=RecordingEmbedder())
    kb.extractor = ScriptedExtractor(TABLE)
    return kb


@pytest.fixture
def kb(tmp_path: Path) -> Iterator[StructuralKB]:
    with _kb(tmp_path / "s") as skb:
        yield skb


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def _stored(kb: StructuralKB) -> dict[str, dict[str, np.ndarray]]:
    out = {}
    for kind in KINDS:
        index = kb.vectors.of(kind)
        ids, rows = index.get(index.ids())
        out[kind] = dict(zip(ids, np.asarray(rows), strict=True))
    return out


# --------------------------------------------------------------------------------------------- texts


def test_a_relation_recipe_embeds_its_names_and_phrase_apart_but_a_curated_one_whole() -> None:
    names = {"e:1": "Mira Holt", "e:2": "Kestrel Shipping"}
    rel = RelationRecord("r", "e:1", "e:2", "works_for", ["works for", "Kestrel", "chief pilot", "2019", "Holt"])
    assert GraphWriter.relation_recipe(rel, names).texts == ("Mira Holt", "Kestrel Shipping",
                                                             "works for. chief pilot, 2019")
    bare = RelationRecord("r2", "e:1", "e:2", "advises", ["advises", "mira holt"])
    assert GraphWriter.relation_recipe(bare, names).texts == ("Mira Holt", "Kestrel Shipping", "advises")
    curated = relation_recipe("Mira Holt", "advises", "Kestrel Shipping", ["fleet"], "Mira advises on the fleet.")
    assert curated.texts == ("Mira Holt advises Kestrel Shipping. fleet. Mira advises on the fleet.",)
    assert curated.vhash != GraphWriter.relation_recipe(bare, names).vhash


# --------------------------------------------------------------------------------------------- vectors


def test_relation_vectors_are_composed_and_entity_vectors_pool_their_quoted_sentences(kb: StructuralKB) -> None:
    kb.add_documents([("a", A)], domain="d")
    emb = kb.embedder
    assert isinstance(emb, RecordingEmbedder)
    quoted = "Orla Penn chairs the board of Wexford Mills."
    texts = [t for call in emb.calls for t in call]
    assert not any(t.startswith("Orla Penn chairs") for t in texts if t not in (A, quoted)), \
        "no sentence-long relation text"
    stored = _stored(kb)
    [chunk] = stored["chunks"].values()
    assert np.allclose(chunk, emb.inner.embed([A])[0], atol=1e-6)
    orla = next(v for i, v in stored["entities"].items() if i.endswith("orla penn"))
    # an embedder without spans embeds each span as its own text; weights are the characters' shares
    head, sentence = emb.inner.embed(["Orla Penn: chair of Wexford Mills", quoted])
    wt, ws = len("Orla Penn: chair of Wexford Mills"), len(quoted)
    assert np.allclose(orla, _unit(wt * head + ws * sentence), atol=1e-5)
    assert entity_recipe("Orla Penn", "x").vhash == entity_recipe("Orla Penn", "x").vhash
    assert entity_recipe("Orla Penn", "x").texts == (entity_text("Orla Penn", "x"),), "no chunk: the text alone"
    [rel] = stored["relations"].values()
    parts = emb.inner.embed(["Orla Penn", "Wexford Mills", "chairs. board"])
    assert np.allclose(rel, _unit(parts.sum(axis=0)), atol=1e-5)


def test_quoted_spans_split_a_description_into_the_chunk_sentences_it_quotes_and_facts() -> None:
    chunk = "Mira Holt joined in 2019.\nShe flies the  Kestrel route; the fleet is new."
    desc = "chief pilot of Kestrel Shipping; pilot. She flies the Kestrel route; the fleet is new."
    spans, facts = quoted_spans([(chunk, desc)])
    assert [chunk[s.start : s.end] for s in spans] == ["She flies the  Kestrel route", "the fleet is new."]
    assert facts == ["chief pilot of Kestrel Shipping", "pilot"]
    recipe = entity_recipe("Mira Holt", desc, [(chunk, desc)])
    assert recipe.texts == ("Mira Holt: chief pilot of Kestrel Shipping; pilot",)
    assert recipe.spans == spans
    assert recipe.vhash != entity_recipe("Mira Holt", desc, [(chunk + " More.", desc)]).vhash, "the context counts"
    assert quoted_spans([(chunk, "Nothing here is quoted.")]) == ((), ["Nothing here is quoted"])


def test_a_phrase_and_a_name_shared_by_relations_are_embedded_once(kb: StructuralKB) -> None:
    kb.add_documents([("a", A), ("b", B)], domain="d")
    emb = kb.embedder
    assert isinstance(emb, RecordingEmbedder)
    assert len(emb.calls) == 1
    texts = emb.calls[0]
    assert len(texts) == len(set(texts))
    assert texts.count("chairs. board") == 1, "two 'chairs' relations, one phrase"
    assert len(kb.vectors.relations) == 3


def test_rebuilding_from_the_graph_gives_the_vectors_the_write_stored(kb: StructuralKB) -> None:
    kb.add_documents([("a", A)], domain="d")
    kb.add_documents([("b", B)], domain="d")
    stored = _stored(kb)
    for kind in KINDS:
        ids, recipes = kb.writer._recipes_of(kind, sorted(stored[kind]))
        assert sorted(ids) == sorted(stored[kind])
        rows, _ = kb.writer.vectors_of(recipes)
        for eid, row in zip(ids, rows, strict=True):
            assert np.allclose(row, stored[kind][eid], atol=1e-5), (kind, eid)


def test_reconcile_rebuilds_lost_vectors_equal_to_the_written_ones(tmp_path: Path) -> None:
    path = tmp_path / "s"
    with _kb(path, "falkordb") as kb:
        kb.add_documents([("a", A), ("b", B)], domain="d")
        stored = _stored(kb)
        for kind in KINDS:  # lose every vector
            kb.vectors.of(kind).remove(sorted(stored[kind]))
        kb.vectors.save()
    with _kb(path, "falkordb") as kb:
        again = _stored(kb)
        for kind in KINDS:
            assert again[kind].keys() == stored[kind].keys(), kind
            for eid, row in stored[kind].items():
                assert np.allclose(again[kind][eid], row, atol=1e-5), (kind, eid)
