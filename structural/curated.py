"""Curated graphs (LightRAG's custom-KG insert): entities and relations given directly, not extracted.

Curated elements are ``pinned``: document deletions never remove them, and their curated description,
keywords and weight survive whatever chunks later add to or retract from them (see :mod:`.provenance`).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hybridkg.errors import InvalidInput
from hybridkg.structural.base import ENTITY, RELATED, EdgeRow, ExtractedEntity, ExtractedRelation
from hybridkg.structural.resolution import entity_id, normalise_name, relation_id
from hybridkg.structural.texts import SYMMETRIC_TYPES, content_hash, entity_text, relation_text

if TYPE_CHECKING:
    from hybridkg.structural.knowledge import StructuralKB


# A curated entity or relation carries exactly what an extractor yields for one (name, type, description,
# IRI; ends, type, keywords, description, weight): one record type serves both.
EntitySpec = ExtractedEntity
RelationSpec = ExtractedRelation


@dataclass(slots=True)
class GraphInsert:
    entities: int = 0
    relations: int = 0
    embedded: int = 0
    took_ms: float = 0.0


def insert_curated(
    kb: StructuralKB,
    entities: Sequence[EntitySpec],
    relations: Sequence[RelationSpec],
    *,
    domain: str,
    progress: bool,
    batch: int,
) -> GraphInsert:
    """Upsert curated entities and relations with their vectors, in batches."""
    start = time.perf_counter()
    ids: dict[str, str] = {}
    ent_rows: list[dict[str, Any]] = []
    for e in entities:
        norm = normalise_name(e.name)
        if not norm:
            raise InvalidInput(f"entity name {e.name!r} is empty after normalisation")
        eid = entity_id(domain, e.name)
        ids[norm] = eid
        ent_rows.append(
            {
                "id": eid, "name": e.name.strip(), "norm": norm, "type": e.type or "concept",
                "description": e.description, "curated_description": e.description, "domain": domain,
                "pinned": True, "iri": e.iri,
            }
        )
    rel_rows: list[EdgeRow] = []
    rel_texts: list[str] = []
    names = {r["id"]: r["name"] for r in ent_rows}
    for r in relations:
        src, dst = ids.get(normalise_name(r.src)), ids.get(normalise_name(r.dst))
        if src is None or dst is None:
            raise InvalidInput(f"relation {r.src!r} -[{r.type}]-> {r.dst!r} names an entity not in this insert")
        if r.type in SYMMETRIC_TYPES and dst < src:
            src, dst = dst, src
        rid = relation_id(domain, src, dst, r.type)
        rel_rows.append(
            EdgeRow(rid, src, dst, ENTITY, ENTITY, {
                "type": r.type, "keywords": list(r.keywords), "curated_keywords": list(r.keywords),
                "description": r.description, "curated_description": r.description,
                "w_struct": float(r.weight), "curated_weight": float(r.weight), "w_attn": 1.0, "attn_epoch": 0,
                "domain": domain, "pinned": True,
            })
        )
        rel_texts.append(relation_text(names[src], r.type, names[dst], r.keywords, r.description))
    embedded = _insert_batches(kb, ent_rows, rel_rows, rel_texts, batch=batch, progress=progress)
    return GraphInsert(len(ent_rows), len(rel_rows), embedded, (time.perf_counter() - start) * 1000)


def _insert_batches(
    kb: StructuralKB,
    ent_rows: list[dict[str, Any]],
    rel_rows: list[EdgeRow],
    rel_texts: list[str],
    *,
    batch: int,
    progress: bool,
) -> int:
    from tqdm import tqdm

    total = len(ent_rows) + len(rel_rows)
    embedded = 0
    with tqdm(total=total, desc="insert graph", unit="item", disable=not progress) as bar:
        for i in range(0, len(ent_rows), batch):
            rows = ent_rows[i : i + batch]
            texts = [entity_text(r["name"], r["description"]) for r in rows]
            for r, t in zip(rows, texts, strict=True):
                r["vhash"] = content_hash(t)
            vecs = kb.embedder.embed(texts)
            kb.graph.upsert_nodes(ENTITY, rows)
            kb.vectors.entities.upsert([r["id"] for r in rows], vecs)
            embedded += len(rows)
            bar.update(len(rows))
        for i in range(0, len(rel_rows), batch):
            rows_e = rel_rows[i : i + batch]
            texts = rel_texts[i : i + batch]
            vecs = kb.embedder.embed(texts)
            kb.graph.upsert_edges(
                RELATED, [EdgeRow(r.id, r.src, r.dst, r.src_label, r.dst_label, {**r.props, "vhash": content_hash(t)})
                          for r, t in zip(rows_e, texts, strict=True)]
            )
            kb.vectors.relations.upsert([r.id for r in rows_e], vecs)
            embedded += len(rows_e)
            bar.update(len(rows_e))
    kb.vectors.save()
    return embedded
