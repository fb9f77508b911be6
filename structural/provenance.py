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

This module is pure: it turns the current records plus contributions into the records to write
(:mod:`.records`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from hybridkg.structural.records import EntityRecord, RelationRecord, copy_record
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
    aliases: tuple[str, ...] = ()
    named: bool = True


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
    entities: list[EntityRecord] = field(default_factory=list)
    relations: list[RelationRecord] = field(default_factory=list)
    deleted_entities: list[str] = field(default_factory=list)
    deleted_relations: list[str] = field(default_factory=list)
    created_entities: list[str] = field(default_factory=list)
    created_relations: list[str] = field(default_factory=list)


def _drop(record: EntityRecord | RelationRecord, removed: set[str]) -> None:
    chunks = record.source_chunks
    keep = [i for i, c in enumerate(chunks) if c not in removed]
    if len(keep) == len(chunks):
        return
    record.source_chunks = [chunks[i] for i in keep]
    record.chunk_descriptions = [record.chunk_descriptions[i] for i in keep if i < len(record.chunk_descriptions)]
    if isinstance(record, RelationRecord):
        record.chunk_keywords = [record.chunk_keywords[i] for i in keep if i < len(record.chunk_keywords)]
        record.chunk_weights = [record.chunk_weights[i] for i in keep if i < len(record.chunk_weights)]


def _slot(record: EntityRecord | RelationRecord, chunk_id: str) -> int:
    """The index of ``chunk_id`` in the record's parallel lists, appending a slot when it is new."""
    if chunk_id in record.source_chunks:
        return record.source_chunks.index(chunk_id)
    record.source_chunks.append(chunk_id)
    n = len(record.source_chunks)
    record.chunk_descriptions += [""] * (n - len(record.chunk_descriptions))
    if isinstance(record, RelationRecord):
        record.chunk_keywords += [""] * (n - len(record.chunk_keywords))
        record.chunk_weights += [0.0] * (n - len(record.chunk_weights))
    return n - 1


def _description(parts: Iterable[str]) -> str:
    out = ""
    for p in parts:
        out = merge_descriptions(out, p) if out else p
    return out


def refresh_entity(ent: EntityRecord) -> None:
    """Recompute the visible description from the curated part and the surviving chunks' contributions."""
    curated = [ent.curated_description] if ent.curated_description else []
    ent.description = _description([*curated, *ent.chunk_descriptions])


def refresh_relation(rel: RelationRecord) -> None:
    """Recompute ``w_struct``, ``description`` and ``keywords`` from the curated part and the chunks'."""
    rel.w_struct = float(rel.curated_weight or 0.0) + float(sum(rel.chunk_weights))
    curated = [rel.curated_description] if rel.curated_description else []
    rel.description = _description([*curated, *rel.chunk_descriptions])
    kws: list[str] = list(rel.curated_keywords or [])
    for joined in rel.chunk_keywords:
        for kw in str(joined).split(KEYWORD_SEP):
            if kw and kw not in kws:
                kws.append(kw)
    rel.keywords = kws


def plan_merge(
    current_entities: Mapping[str, EntityRecord],
    current_relations: Mapping[str, RelationRecord],
    added: Sequence[ChunkClaims],
    removed_chunks: Mapping[str, tuple[Sequence[str], Sequence[str]]],
    domain: str,
) -> MergePlan:
    """Records that apply ``added`` claims and retract ``removed_chunks`` (chunk id -> (entity ids, relation ids)).

    ``current_*`` hold the stored records of every entity/relation either side touches (they are not changed).
    """
    removed = set(removed_chunks)
    plan = MergePlan()
    ents = {k: copy_record(v) for k, v in current_entities.items()}
    rels = {k: copy_record(v) for k, v in current_relations.items()}
    for e in ents.values():
        _drop(e, removed)
    for r in rels.values():
        _drop(r, removed)

    for claims in added:
        for c in claims.entities.values():
            ent = ents.get(c.id)
            if ent is None:
                ent = ents[c.id] = EntityRecord(c.id, c.name, c.norm, c.type, domain=domain, named=c.named)
                plan.created_entities.append(c.id)
            ent.type = merge_types(ent.type or "concept", c.type)
            ent.named = ent.named or c.named
            if c.iri and not ent.iri:
                ent.iri = c.iri
            for alias in c.aliases:
                if alias != ent.name and alias not in ent.aliases:
                    ent.aliases.append(alias)
            ent.chunk_descriptions[_slot(ent, claims.chunk_id)] = c.description
        for rc in claims.relations.values():
            rel = rels.get(rc.id)
            if rel is None:
                rel = rels[rc.id] = RelationRecord(rc.id, rc.src, rc.dst, rc.type, domain=domain)
                plan.created_relations.append(rc.id)
            i = _slot(rel, claims.chunk_id)
            rel.chunk_descriptions[i] = rc.description
            rel.chunk_keywords[i] = KEYWORD_SEP.join(rc.keywords)
            rel.chunk_weights[i] = float(rc.weight)

    dead_entities = {eid for eid, e in ents.items() if not e.source_chunks and not e.pinned}
    for eid, ent in ents.items():
        if eid in dead_entities:
            if eid in current_entities:
                plan.deleted_entities.append(eid)
            continue
        refresh_entity(ent)
        plan.entities.append(ent)
    for rid, rel in rels.items():
        supported = bool(rel.source_chunks) or rel.pinned
        if not supported or rel.src in dead_entities or rel.dst in dead_entities:
            if rid in current_relations:
                plan.deleted_relations.append(rid)
            continue
        refresh_relation(rel)
        plan.relations.append(rel)
    plan.created_entities = [e for e in plan.created_entities if e not in dead_entities]
    live = {r.id for r in plan.relations}
    plan.created_relations = [r for r in plan.created_relations if r in live]
    return plan
