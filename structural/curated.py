"""Curated graphs (LightRAG's custom-KG insert): entities and relations given directly, not extracted.

Curated elements are ``pinned``: document deletions never remove them, and their curated description,
keywords and weight survive whatever chunks later add to or retract from them (see :mod:`.provenance`).

This module only turns specs into records (checking them all before anything is written) and pins them onto
what the graph already holds; :class:`~.knowledge.StructuralKB` writes them through the one write path
(:mod:`.writer`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hybridkg.errors import InvalidInput
from hybridkg.structural.base import ExtractedEntity, ExtractedRelation
from hybridkg.structural.provenance import refresh_entity, refresh_relation
from hybridkg.structural.records import EntityRecord, RelationRecord, copy_record
from hybridkg.structural.resolution import entity_id, normalise_name, relation_id
from hybridkg.structural.texts import SYMMETRIC_TYPES

# A curated entity or relation carries exactly what an extractor yields for one (name, type, description,
# IRI, aliases; ends, type, keywords, description, weight): one record type serves both.
EntitySpec = ExtractedEntity
RelationSpec = ExtractedRelation


@dataclass(slots=True)
class GraphInsert:
    entities: int = 0
    relations: int = 0
    embedded: int = 0
    took_ms: float = 0.0


def curated_records(
    entities: Sequence[EntitySpec], relations: Sequence[RelationSpec], *, domain: str
) -> tuple[list[EntityRecord], list[RelationRecord]]:
    """The pinned records of a curated insert; raises :class:`InvalidInput` (before any write) for an empty
    name or a relation whose end is not among ``entities``."""
    ids: dict[str, str] = {}
    ents: dict[str, EntityRecord] = {}
    for e in entities:
        norm = normalise_name(e.name)
        if not norm:
            raise InvalidInput(f"entity name {e.name!r} is empty after normalisation")
        eid = entity_id(domain, e.name)
        ids[norm] = eid
        name = e.name.strip()
        aliases = [a.strip() for a in e.aliases if a.strip() and a.strip() != name]
        ents[eid] = EntityRecord(
            eid, name, norm, e.type or "concept", e.description, domain, e.iri, aliases,
            named=True, pinned=True, curated_description=e.description,
        )
    rels: dict[str, RelationRecord] = {}
    for r in relations:
        src, dst = ids.get(normalise_name(r.src)), ids.get(normalise_name(r.dst))
        if src is None or dst is None:
            raise InvalidInput(f"relation {r.src!r} -[{r.type}]-> {r.dst!r} names an entity not in this insert")
        if r.type in SYMMETRIC_TYPES and dst < src:
            src, dst = dst, src
        rid = relation_id(domain, src, dst, r.type)
        rels[rid] = RelationRecord(
            rid, src, dst, r.type, list(r.keywords), r.description, float(r.weight), domain=domain, pinned=True,
            curated_description=r.description, curated_keywords=list(r.keywords), curated_weight=float(r.weight),
        )
    return list(ents.values()), list(rels.values())


def pin_entity(curated: EntityRecord, current: EntityRecord | None) -> EntityRecord:
    """``curated`` laid over the stored record: chunk provenance and the vector hash stay."""
    if current is None:
        return curated
    out = copy_record(current)
    out.name, out.norm, out.type, out.domain = curated.name, curated.norm, curated.type, curated.domain
    out.iri = curated.iri or out.iri
    out.aliases = list(dict.fromkeys([*out.aliases, *curated.aliases]))
    out.named, out.pinned, out.curated_description = True, True, curated.curated_description
    refresh_entity(out)
    return out


def pin_relation(curated: RelationRecord, current: RelationRecord | None) -> RelationRecord:
    """``curated`` laid over the stored record: chunk provenance, attention weight and vector hash stay."""
    if current is None:
        return curated
    out = copy_record(current)
    out.pinned = True
    out.curated_description = curated.curated_description
    out.curated_keywords = curated.curated_keywords
    out.curated_weight = curated.curated_weight
    refresh_relation(out)
    return out
