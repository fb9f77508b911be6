"""Provenance bookkeeping: claims merge idempotently and retract exactly what a chunk said."""

from __future__ import annotations

from typing import Any

from hybridkg.structural.provenance import ChunkClaims, EntityClaim, RelationClaim, plan_merge
from hybridkg.structural.records import EntityRecord, RelationRecord, to_props


def _claims(chunk: str, pairs: list[tuple[str, str]], desc: str = "") -> ChunkClaims:
    c = ChunkClaims(chunk)
    for a, b in pairs:
        for n in (a, b):
            c.entities[n] = EntityClaim(n, n.upper(), n, "concept", f"{n} in {chunk}{desc}")
        rid = f"r:{a}:{b}"
        c.relations[rid] = RelationClaim(rid, a, b, "co_occurs", ("kw", chunk), f"{a}-{b} in {chunk}", 1.0)
    return c


def _state(plan: Any) -> tuple[dict[str, EntityRecord], dict[str, RelationRecord]]:
    return {e.id: e for e in plan.entities}, {r.id: r for r in plan.relations}


def _props(records: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {k: to_props(v) for k, v in records.items()}


def test_w_struct_counts_co_occurrence_across_chunks() -> None:
    plan = plan_merge({}, {}, [_claims("c1", [("a", "b")]), _claims("c2", [("a", "b"), ("b", "c")])], {}, "d")
    _, rels = _state(plan)
    assert rels["r:a:b"].w_struct == 2.0
    assert rels["r:b:c"].w_struct == 1.0
    assert sorted(plan.created_entities) == ["a", "b", "c"]
    assert rels["r:a:b"].keywords == ["kw", "c1", "c2"]


def test_adding_the_same_chunk_twice_changes_nothing() -> None:
    first = plan_merge({}, {}, [_claims("c1", [("a", "b")])], {}, "d")
    ents, rels = _state(first)
    again = plan_merge(ents, rels, [_claims("c1", [("a", "b")])], {}, "d")
    ents2, rels2 = _state(again)
    assert (_props(ents2), _props(rels2)) == (_props(ents), _props(rels))
    assert again.created_entities == []
    assert again.created_relations == []


def test_removing_a_chunk_decays_w_struct_and_drops_orphans() -> None:
    ents, rels = _state(plan_merge({}, {}, [_claims("c1", [("a", "b")]), _claims("c2", [("a", "b"), ("b", "c")])],
                                   {}, "d"))
    plan = plan_merge(ents, rels, [], {"c2": (["a", "b", "c"], ["r:a:b", "r:b:c"])}, "d")
    ents2, rels2 = _state(plan)
    assert plan.deleted_entities == ["c"]
    assert plan.deleted_relations == ["r:b:c"]
    assert rels2["r:a:b"].w_struct == 1.0
    assert "c2" not in rels2["r:a:b"].description
    assert ents2["a"].source_chunks == ["c1"]
    assert "c2" not in ents2["a"].description


def test_pinned_entities_survive_and_keep_their_curated_part() -> None:
    current = {"a": EntityRecord("a", "A", "a", "Company", pinned=True, curated_description="curated A")}
    plan = plan_merge(current, {}, [_claims("c1", [("a", "b")])], {}, "d")
    ents, rels = _state(plan)
    assert ents["a"].type == "Company"
    assert ents["a"].description.startswith("curated A")
    removed = plan_merge(ents, rels, [], {"c1": (["a", "b"], ["r:a:b"])}, "d")
    ents2, _ = _state(removed)
    assert ents2["a"].description == "curated A"
    assert removed.deleted_entities == ["b"]
