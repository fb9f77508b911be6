"""Provenance bookkeeping: claims merge idempotently and retract exactly what a chunk said."""

from __future__ import annotations

from typing import Any

from hybridkg.structural.provenance import ChunkClaims, EntityClaim, RelationClaim, plan_merge


def _claims(chunk: str, pairs: list[tuple[str, str]], desc: str = "") -> ChunkClaims:
    c = ChunkClaims(chunk)
    for a, b in pairs:
        for n in (a, b):
            c.entities[n] = EntityClaim(n, n.upper(), n, "concept", f"{n} in {chunk}{desc}")
        rid = f"r:{a}:{b}"
        c.relations[rid] = RelationClaim(rid, a, b, "co_occurs", ("kw", chunk), f"{a}-{b} in {chunk}", 1.0)
    return c


def _state(plan: Any) -> tuple[dict[str, dict[str, Any]], dict[str, tuple[str, str, dict[str, Any]]]]:
    ents = {r["id"]: {k: v for k, v in r.items() if k != "id"} for r in plan.entity_rows}
    rels = {r["id"]: (r["src"], r["dst"], {k: v for k, v in r.items() if k not in ("id", "src", "dst")})
            for r in plan.relation_rows}
    return ents, rels


def test_w_struct_counts_co_occurrence_across_chunks() -> None:
    plan = plan_merge({}, {}, [_claims("c1", [("a", "b")]), _claims("c2", [("a", "b"), ("b", "c")])], {}, "d")
    _, rels = _state(plan)
    assert rels["r:a:b"][2]["w_struct"] == 2.0
    assert rels["r:b:c"][2]["w_struct"] == 1.0
    assert sorted(plan.created_entities) == ["a", "b", "c"]
    assert rels["r:a:b"][2]["keywords"] == ["kw", "c1", "c2"]


def test_adding_the_same_chunk_twice_changes_nothing() -> None:
    first = plan_merge({}, {}, [_claims("c1", [("a", "b")])], {}, "d")
    ents, rels = _state(first)
    again = plan_merge(ents, rels, [_claims("c1", [("a", "b")])], {}, "d")
    assert _state(again) == (ents, rels)
    assert again.created_entities == []
    assert again.created_relations == []


def test_removing_a_chunk_decays_w_struct_and_drops_orphans() -> None:
    ents, rels = _state(plan_merge({}, {}, [_claims("c1", [("a", "b")]), _claims("c2", [("a", "b"), ("b", "c")])],
                                   {}, "d"))
    plan = plan_merge(ents, rels, [], {"c2": (["a", "b", "c"], ["r:a:b", "r:b:c"])}, "d")
    ents2, rels2 = _state(plan)
    assert plan.deleted_entities == ["c"]
    assert plan.deleted_relations == ["r:b:c"]
    assert rels2["r:a:b"][2]["w_struct"] == 1.0
    assert "c2" not in rels2["r:a:b"][2]["description"]
    assert ents2["a"]["source_chunks"] == ["c1"]
    assert "c2" not in ents2["a"]["description"]


def test_pinned_entities_survive_and_keep_their_curated_part() -> None:
    current = {"a": {"name": "A", "pinned": True, "curated_description": "curated A", "type": "Company"}}
    plan = plan_merge(current, {}, [_claims("c1", [("a", "b")])], {}, "d")
    ents, rels = _state(plan)
    assert ents["a"]["type"] == "Company"
    assert ents["a"]["description"].startswith("curated A")
    removed = plan_merge(ents, rels, [], {"c1": (["a", "b"], ["r:a:b"])}, "d")
    ents2, _ = _state(removed)
    assert ents2["a"]["description"] == "curated A"
    assert removed.deleted_entities == ["b"]
