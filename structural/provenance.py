"""Provenance bookkeeping: what each chunk contributes to entities and relations, and how to undo it.

Every entity and relation keeps, per supporting chunk, that chunk's contribution (parallel lists keyed by
``source_chunks``): its description and, for relations, keywords and co-occurrence weight. The visible
``description``, ``keywords`` and ``w_struct`` are recomputed from the surviving contributions, so adding a
chunk twice changes nothing, and removing a chunk removes exactly what it said:

* ``w_struct`` = sum of the surviving chunks' weights (it decays as supporting chunks go away);
* curated entities and relations (``insert_graph``: ``pinned``, with ``curated_description``,
  ``curated_keywords`` and ``curated_weight``) keep their curated part whatever chunks come and go;
* an entity no chunk supports any more, and that was not inserted as a curated graph (``pinned``), is an
  orphan and is deleted, with its relations;
* a relation no chunk supports any more (and not ``pinned``) is deleted.

This module is pure: it turns current node/edge properties plus contributions into the rows to write.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hybridkg.structural.resolution import merge_descriptions, merge_types

KEYWORD_SEP = "\x1f"


@dataclass(slots=True)
class EntityClaim:
    id: str
    name: str
    norm: str
    type: str
    description: str
    iri: str | None = None


@dataclass(slots=True)
class RelationClaim:
    id: str
    src: str  # entity ids
    dst: str
    type: str
    keywords: tuple[str, ...]
    description: str
    weight: float


@dataclass(slots=True)
class ChunkClaims:
    """Everything one chunk asserts."""

    chunk_id: str
    entities: dict[str, EntityClaim] = field(default_factory=dict)
    relations: dict[str, RelationClaim] = field(default_factory=dict)


@dataclass(slots=True)
class MergePlan:
    entity_rows: list[dict[str, Any]] = field(default_factory=list)
    relation_rows: list[dict[str, Any]] = field(default_factory=list)  # with "src"/"dst" keys
    deleted_entities: list[str] = field(default_factory=list)
    deleted_relations: list[str] = field(default_factory=list)
    created_entities: list[str] = field(default_factory=list)
    created_relations: list[str] = field(default_factory=list)


def _drop(props: dict[str, Any], keys: Sequence[str], removed: set[str]) -> None:
    chunks = list(props.get("source_chunks") or [])
    keep = [i for i, c in enumerate(chunks) if c not in removed]
    if len(keep) == len(chunks):
        return
    for key in ("source_chunks", *keys):
        values = list(props.get(key) or [])
        props[key] = [values[i] for i in keep if i < len(values)]


def _add(props: dict[str, Any], chunk_id: str, values: Mapping[str, Any]) -> None:
    chunks = list(props.get("source_chunks") or [])
    lists = {k: list(props.get(k) or []) for k in values}
    if chunk_id in chunks:
        i = chunks.index(chunk_id)
        for k, v in values.items():
            lists[k][i] = v
    else:
        chunks.append(chunk_id)
        for k, v in values.items():
            lists[k].append(v)
    props["source_chunks"] = chunks
    props.update(lists)


def _description(parts: Iterable[str]) -> str:
    out = ""
    for p in parts:
        out = merge_descriptions(out, p) if out else p
    return out


def plan_merge(
    current_entities: Mapping[str, Mapping[str, Any]],
    current_relations: Mapping[str, tuple[str, str, Mapping[str, Any]]],
    added: Sequence[ChunkClaims],
    removed_chunks: Mapping[str, tuple[Sequence[str], Sequence[str]]],
    domain: str,
) -> MergePlan:
    """Rows that apply ``added`` claims and retract ``removed_chunks`` (chunk id -> (entity ids, relation ids)).

    ``current_*`` hold the stored properties of every entity/relation either side touches.
    """
    removed = set(removed_chunks)
    plan = MergePlan()
    ents: dict[str, dict[str, Any]] = {k: dict(v) for k, v in current_entities.items()}
    rels: dict[str, dict[str, Any]] = {}
    ends: dict[str, tuple[str, str]] = {}
    for rid, (src, dst, props) in current_relations.items():
        rels[rid] = dict(props)
        ends[rid] = (src, dst)

    for props in ents.values():
        _drop(props, ("chunk_descriptions",), removed)
    for props in rels.values():
        _drop(props, ("chunk_descriptions", "chunk_keywords", "chunk_weights"), removed)

    for claims in added:
        for e in claims.entities.values():
            eprops = ents.get(e.id)
            if eprops is None:
                eprops = ents[e.id] = {"name": e.name, "norm": e.norm, "type": e.type, "domain": domain}
                plan.created_entities.append(e.id)
            eprops["type"] = merge_types(str(eprops.get("type") or "concept"), e.type)
            if e.iri and not eprops.get("iri"):
                eprops["iri"] = e.iri
            _add(eprops, claims.chunk_id, {"chunk_descriptions": e.description})
        for r in claims.relations.values():
            rprops = rels.get(r.id)
            if rprops is None:
                rprops = rels[r.id] = {"type": r.type, "domain": domain, "w_attn": 1.0, "attn_epoch": 0}
                ends[r.id] = (r.src, r.dst)
                plan.created_relations.append(r.id)
            _add(
                rprops,
                claims.chunk_id,
                {
                    "chunk_descriptions": r.description,
                    "chunk_keywords": KEYWORD_SEP.join(r.keywords),
                    "chunk_weights": float(r.weight),
                },
            )

    dead_entities = {
        eid for eid, p in ents.items() if not p.get("source_chunks") and not p.get("pinned")
    }
    for eid, props in ents.items():
        if eid in dead_entities:
            if eid in current_entities:
                plan.deleted_entities.append(eid)
            continue
        curated = [str(props["curated_description"])] if props.get("curated_description") else []
        props["description"] = _description([*curated, *(props.get("chunk_descriptions") or [])])
        plan.entity_rows.append({"id": eid, **props})
    for rid, props in rels.items():
        src, dst = ends[rid]
        supported = bool(props.get("source_chunks")) or bool(props.get("pinned"))
        if not supported or src in dead_entities or dst in dead_entities:
            if rid in current_relations:
                plan.deleted_relations.append(rid)
            continue
        if props.get("source_chunks") or props.get("pinned"):
            props["w_struct"] = float(props.get("curated_weight") or 0.0) + float(sum(props.get("chunk_weights") or []))
            curated = [str(props["curated_description"])] if props.get("curated_description") else []
            props["description"] = _description([*curated, *(props.get("chunk_descriptions") or [])])
            kws: list[str] = list(props.get("curated_keywords") or [])
            for joined in props.get("chunk_keywords") or []:
                for kw in str(joined).split(KEYWORD_SEP):
                    if kw and kw not in kws:
                        kws.append(kw)
            props["keywords"] = kws
        plan.relation_rows.append({"id": rid, "src": src, "dst": dst, **props})
    plan.created_entities = [e for e in plan.created_entities if e not in dead_entities]
    live = {r["id"] for r in plan.relation_rows}
    plan.created_relations = [r for r in plan.created_relations if r in live]
    return plan
