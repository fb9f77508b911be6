"""The structural layer's one write path: typed records in, graph and vectors kept in step.

Document ingestion and curated inserts both hand a :class:`WriteBatch` of records (:mod:`.records`) to
:meth:`GraphWriter.write`, which

1. works out the :class:`~.texts.VectorRecipe` of every entity, embedded relation (not ``co_occurs``: weak
   evidence gets no vector) and new chunk, and keeps only those whose hash (``vhash``) differs from the
   stored one;
2. embeds the distinct texts of all recipes once, shortest first (less padding in each model batch), and
   composes the vectors (a relation's is the sum of its names' and its phrase's);
3. writes the graph (nodes, edges, mentions, then deletions);
4. writes and saves the vector indexes.

Embedding runs before the first write, so a failing embedder changes nothing. A crash between 3 and 4 leaves
the graph ahead of the indexes; :meth:`GraphWriter.reconcile` (run when the store opens) rebuilds from the
graph's records the vectors an index lacks and drops vectors whose element is gone. An element the index holds
with a vector of its old text is caught by the journal: before the graph write the writer records the ids
whose vectors it is about to change (``journal``, a small JSON file), and removes it once the indexes are
saved; a journal found at open means those vectors are rebuilt from the graph.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from hybridkg.errors import Unsupported
from hybridkg.structural.base import (
    CHUNK,
    DOCUMENT,
    ENTITY,
    MENTIONS,
    RELATED,
    EdgeRow,
    Embedder,
    GraphStore,
    SharedRecords,
    Vector,
    VectorIndex,
)
from hybridkg.structural.records import (
    CO_OCCURS,
    ChunkRecord,
    DocumentRecord,
    EntityRecord,
    RelationRecord,
    edge_row,
    from_props,
    node_row,
)
from hybridkg.structural.texts import (
    ENTITY_CONTEXTS,
    VectorRecipe,
    chunk_recipe,
    content_hash,
    entity_recipe,
    relation_recipe,
)

log = logging.getLogger(__name__)

KINDS = ("entities", "relations", "chunks")
_ALL_IDS = {
    "entities": f"MATCH (n:{ENTITY}) RETURN n.id AS id",
    "relations": f"MATCH ()-[r:{RELATED}]->() WHERE r.type <> '{CO_OCCURS}' RETURN r.id AS id",
    "chunks": f"MATCH (n:{CHUNK}) RETURN n.id AS id",
}
_ALL_ENTITY_NAMES = f"MATCH (n:{ENTITY}) RETURN n.id AS id, n.name AS name, n.aliases AS aliases, " \
    "n.type AS type, n.named AS named"


@dataclass(slots=True)
class VectorSet:
    entities: VectorIndex
    relations: VectorIndex
    chunks: VectorIndex

    def of(self, kind: str) -> VectorIndex:
        index: VectorIndex = getattr(self, kind)
        return index

    def save(self) -> None:
        for index in (self.entities, self.relations, self.chunks):
            index.save()

    def close(self) -> None:
        """Close every index (each saves first); all are closed even when one fails, the first error is raised."""
        error: BaseException | None = None
        for index in (self.entities, self.relations, self.chunks):
            try:
                index.close()
            except BaseException as e:
                error = error or e
        if error is not None:
            raise error


@dataclass(slots=True)
class WriteBatch:
    """Records to upsert and ids to delete in one write. Records carry their stored ``vhash`` (``None`` when
    new); the writer sets the new one."""

    documents: list[DocumentRecord] = field(default_factory=list)
    chunks: list[ChunkRecord] = field(default_factory=list)
    entities: list[EntityRecord] = field(default_factory=list)
    relations: list[RelationRecord] = field(default_factory=list)
    mentions: list[tuple[str, str]] = field(default_factory=list)  # (chunk id, entity id)
    deleted_documents: list[str] = field(default_factory=list)
    deleted_chunks: list[str] = field(default_factory=list)
    deleted_entities: list[str] = field(default_factory=list)
    deleted_relations: list[str] = field(default_factory=list)


@dataclass(slots=True)
class WriteResult:
    texts: int = 0  # distinct texts sent to the embedder
    vectors: int = 0  # vectors upserted (one text may serve several elements)
    removed_vectors: int = 0
    embedded_ids: set[str] = field(default_factory=set)  # elements whose vector was (re)computed


@dataclass(slots=True)
class ReconcileResult:
    embedded: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    dropped: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))

    @property
    def changed(self) -> bool:
        return any(self.embedded.values()) or any(self.dropped.values())


def _compose(recipe: VectorRecipe, texts: list[Vector], pooled: dict[tuple[str, int, int], Vector]) -> Vector:
    """The recipe's unit vector: its texts' rows, plus the normalised mean of its spans' rows weighted by the
    spans' share of the characters (the proxy for tokens: as mean pooling over one text holding them all)."""
    parts = list(texts)
    if recipe.spans:
        m = np.sum([pooled[(sp.context, sp.start, sp.end)] for sp in recipe.spans], axis=0)
        wt = sum(len(t) for t in recipe.texts)
        ws = sum(sp.end - sp.start for sp in recipe.spans)
        parts = [p * (wt / (wt + ws)) for p in parts]
        parts.append(m / max(float(np.linalg.norm(m)), 1e-12) * (ws / (wt + ws)))
    v = np.sum(parts, axis=0)
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 and len(parts) > 1 else v


def _embed_texts(embedder: Embedder, texts: Sequence[str], *, progress: bool) -> Vector:
    """One row per text, each distinct text embedded once, shortest first, in slices for the progress bar."""
    distinct = sorted(set(texts), key=lambda t: (len(t), t))
    if not distinct:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    step = 2048 if progress else len(distinct)
    rows: list[Vector] = []
    from tqdm import tqdm

    with tqdm(total=len(distinct), desc="embed", unit="text", disable=not progress, leave=False) as bar:
        for i in range(0, len(distinct), step):
            part = distinct[i : i + step]
            rows.append(np.asarray(embedder.embed(part), dtype=np.float32))
            bar.update(len(part))
    matrix = np.vstack(rows)
    where = {t: i for i, t in enumerate(distinct)}
    return matrix[[where[t] for t in texts]]


class GraphWriter:
    """Writes records to the graph store and their vectors to the :class:`VectorSet`."""

    def __init__(
        self, graph: GraphStore, vectors: VectorSet, embedder: Embedder, *, journal: Path | None = None
    ) -> None:
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self.journal = journal  # None: the indexes are not persisted apart from the graph
        # called between the graph write and the vector write (tests use it to crash the process there)
        self.after_graph: Callable[[], None] | None = None

    # ------------------------------------------------------------------------------------------ texts

    def entity_names(self, ids: Iterable[str], known: Iterable[EntityRecord] = ()) -> dict[str, str]:
        """Entity id -> name, from ``known`` records first, then the graph."""
        names = {e.id: e.name for e in known}
        missing = sorted(set(ids) - set(names))
        if missing:
            for nid, node in self.graph.neighbourhood(ENTITY, missing, depth=0).nodes.items():
                names[nid] = str(node.props.get("name") or nid)
        return names

    def chunk_texts(self, ids: Iterable[str], known: Iterable[ChunkRecord] = ()) -> dict[str, str]:
        """Chunk id -> text, from ``known`` records first, then the graph."""
        texts = {c.id: c.text for c in known}
        missing = sorted(set(ids) - set(texts))
        if missing:
            for nid, node in self.graph.neighbourhood(CHUNK, missing, depth=0).nodes.items():
                texts[nid] = str(node.props.get("text") or "")
        return texts

    def prefetch(self, chunks: Sequence[str]) -> None:
        """Let the embedder start the passes of chunks about to be written (before their extraction), when it
        can (:meth:`SentenceEmbedder.prefetch`)."""
        prefetch = getattr(self.embedder, "prefetch", None)
        if prefetch is not None and chunks:
            prefetch(chunks)

    @staticmethod
    def entity_recipe(ent: EntityRecord, contexts: dict[str, str]) -> VectorRecipe:
        """The entity's recipe from its first chunks' texts (``contexts``: chunk id -> text) and the description
        extraction gave it in each (:func:`~.texts.entity_recipe`)."""
        pairs = [
            (contexts[c], d)
            for c, d in zip(ent.source_chunks[:ENTITY_CONTEXTS], ent.chunk_descriptions, strict=False)
            if c in contexts and d
        ]
        return entity_recipe(ent.name, ent.description, pairs)

    @staticmethod
    def relation_recipe(rel: RelationRecord, names: dict[str, str]) -> VectorRecipe:
        return relation_recipe(names.get(rel.src, rel.src), rel.type, names.get(rel.dst, rel.dst), rel.keywords,
                               rel.curated_description or "")

    def _jobs(self, batch: WriteBatch) -> list[tuple[str, str, VectorRecipe]]:
        """(kind, id, recipe) of every element whose vector must be (re)computed; sets the records' ``vhash``."""
        jobs: list[tuple[str, str, VectorRecipe]] = [
            ("chunks", c.id, chunk_recipe(c.text)) for c in batch.chunks
        ]
        contexts = self.chunk_texts({c for e in batch.entities for c in e.source_chunks[:ENTITY_CONTEXTS]},
                                    batch.chunks)
        for ent in batch.entities:
            recipe = self.entity_recipe(ent, contexts)
            if ent.vhash != recipe.vhash:
                ent.vhash = recipe.vhash
                jobs.append(("entities", ent.id, recipe))
        embedded = [r for r in batch.relations if r.embedded]
        names = self.entity_names({e for r in embedded for e in (r.src, r.dst)}, batch.entities)
        for rel in embedded:
            recipe = self.relation_recipe(rel, names)
            if rel.vhash != recipe.vhash:
                rel.vhash = recipe.vhash
                jobs.append(("relations", rel.id, recipe))
        for rel in batch.relations:
            if not rel.embedded:
                rel.vhash = None
        return jobs

    def vectors_of(self, recipes: Sequence[VectorRecipe], *, progress: bool = False) -> tuple[Vector, int]:
        """``(one unit row per recipe, distinct texts embedded)``: every distinct text once, then every distinct
        context once with all the spans recipes pool from it (:meth:`SentenceEmbedder.embed_with_spans`). An
        embedder without spans gets one call: the texts, the contexts and each span's own text."""
        wanted: dict[str, dict[tuple[int, int], None]] = {}
        for r in recipes:
            for sp in r.spans:
                wanted.setdefault(sp.context, {})[(sp.start, sp.end)] = None
        spans = getattr(self.embedder, "embed_with_spans", None)
        plain = {t for r in recipes for t in r.texts}
        if spans is None:
            plain |= set(wanted) | {c[lo:hi] for c, ss in wanted.items() for lo, hi in ss}
        texts = sorted(plain)
        matrix = _embed_texts(self.embedder, texts, progress=progress)
        row = {t: matrix[i] for i, t in enumerate(texts)}
        pooled: dict[tuple[str, int, int], Vector] = {}
        if spans is None:
            pooled = {(c, lo, hi): row[c[lo:hi]] for c, ss in wanted.items() for lo, hi in ss}
        elif wanted:
            contexts = sorted(wanted, key=lambda c: (len(c), c))
            _, rows = spans(contexts, [list(wanted[c]) for c in contexts])
            for context, got in zip(contexts, rows, strict=True):
                for (lo, hi), v in zip(wanted[context], np.asarray(got, dtype=np.float32), strict=True):
                    pooled[(context, lo, hi)] = v
        out = np.empty((len(recipes), self.embedder.dim), dtype=np.float32)
        for i, recipe in enumerate(recipes):
            out[i] = _compose(recipe, [row[t] for t in recipe.texts], pooled)
        return out, len(plain | set(wanted))

    # ------------------------------------------------------------------------------------------ write

    def write(self, batch: WriteBatch, *, progress: bool = False) -> WriteResult:
        """Embed, then write the graph, then the vectors (see the module doc)."""
        jobs = self._jobs(batch)
        matrix, texts = self.vectors_of([r for _, _, r in jobs], progress=progress)
        result = WriteResult(texts, len(jobs), embedded_ids={i for _, i, _ in jobs})
        upserts: dict[str, list[tuple[str, int]]] = {k: [] for k in KINDS}
        for row, (kind, eid, _) in enumerate(jobs):
            upserts[kind].append((eid, row))
        removals = {
            "entities": set(batch.deleted_entities),
            "relations": set(batch.deleted_relations) | {r.id for r in batch.relations if not r.embedded},
            "chunks": set(batch.deleted_chunks),
        }
        self._journal({k: [eid for eid, _ in upserts[k]] for k in KINDS})
        self._write_graph(batch)
        if self.after_graph is not None:
            self.after_graph()
        for kind in KINDS:
            index = self.vectors.of(kind)
            gone = removals[kind] - {eid for eid, _ in upserts[kind]}
            if gone:
                before = len(index)
                index.remove(sorted(gone))
                result.removed_vectors += before - len(index)
            if upserts[kind]:
                index.upsert([eid for eid, _ in upserts[kind]], matrix[[r for _, r in upserts[kind]]])
        self.vectors.save()
        self._journal(None)
        return result

    def _journal(self, ids: dict[str, list[str]] | None) -> None:
        """Record the ids whose vectors are about to change (durably), or clear the record (``None``)."""
        if self.journal is None:
            return
        if ids is None:
            self.journal.unlink(missing_ok=True)
            return
        if not any(ids.values()) and not self.journal.exists():
            return
        self.journal.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.journal.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(ids, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.journal)

    def _journaled(self) -> dict[str, set[str]]:
        if self.journal is None or not self.journal.exists():
            return {k: set() for k in KINDS}
        try:
            data = json.loads(self.journal.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            log.warning("structural store: unreadable write journal %s; re-embedding nothing from it", self.journal)
            return {k: set() for k in KINDS}
        return {k: {str(i) for i in data.get(k) or []} for k in KINDS}

    def _write_graph(self, batch: WriteBatch) -> None:
        g = self.graph
        if batch.chunks:
            g.upsert_nodes(CHUNK, [node_row(c) for c in batch.chunks])
        if batch.entities:
            g.upsert_nodes(ENTITY, [node_row(e) for e in batch.entities])
        if batch.relations:
            g.upsert_edges(RELATED, [edge_row(r) for r in batch.relations])
        dead = set(batch.deleted_entities)
        mentions = [
            EdgeRow(f"m:{content_hash(cid, eid)}", cid, eid, CHUNK, ENTITY, {})
            for cid, eid in batch.mentions
            if eid not in dead
        ]
        if mentions:
            g.upsert_edges(MENTIONS, mentions)
        if batch.deleted_relations:
            g.delete(RELATED, batch.deleted_relations, edges=True)
        if batch.deleted_entities:
            g.delete(ENTITY, batch.deleted_entities)
        if batch.deleted_chunks:
            g.delete(CHUNK, batch.deleted_chunks)
        if batch.documents:
            g.upsert_nodes(DOCUMENT, [node_row(d) for d in batch.documents])
        if batch.deleted_documents:
            g.delete(DOCUMENT, batch.deleted_documents)

    # ------------------------------------------------------------------------------------------ reconcile

    def _graph_ids(self, kind: str) -> set[str] | None:
        """Ids of the graph's elements that should have a vector of ``kind``; ``None`` when the store cannot
        list them (the in-memory store, whose vectors are never persisted apart from it)."""
        try:
            return {str(r["id"]) for r in self.graph.query(_ALL_IDS[kind])}
        except Unsupported:
            return None

    def reconcile(self, *, progress: bool = False) -> ReconcileResult:
        """Re-embed what the graph has and an index lacks; drop vectors whose element is gone."""
        result = ReconcileResult()
        journaled = self._journaled()
        for kind in KINDS:
            want = self._graph_ids(kind)
            if want is None:
                continue
            index = self.vectors.of(kind)
            have = set(index.ids())
            missing, extra = sorted((want - have) | (want & journaled[kind])), sorted(have - want)
            if extra:
                index.remove(extra)
                result.dropped[kind] = len(extra)
            if not missing:
                continue
            ids, recipes = self._recipes_of(kind, missing)
            if ids:
                index.upsert(ids, self.vectors_of(recipes, progress=progress)[0])
                result.embedded[kind] = len(ids)
        if result.changed:
            log.warning("structural store: vectors reconciled with the graph (re-embedded %s, dropped %s)",
                        result.embedded, result.dropped)
            self.vectors.save()
        self._journal(None)
        return result

    def _recipes_of(self, kind: str, ids: list[str]) -> tuple[list[str], list[VectorRecipe]]:
        """The graph's elements of ``ids`` and their recipes."""
        if kind == "relations":
            rels = [from_props(RelationRecord, e.props, src=e.src, dst=e.dst) for e in self.graph.edges(RELATED, ids)]
            names = self.entity_names({x for r in rels for x in (r.src, r.dst)})
            return [r.id for r in rels], [self.relation_recipe(r, names) for r in rels]
        label = ENTITY if kind == "entities" else CHUNK
        nodes = self.graph.neighbourhood(label, ids, depth=0).nodes
        if kind == "chunks":
            return list(nodes), [chunk_recipe(str(n.props.get("text") or "")) for n in nodes.values()]
        ents = [from_props(EntityRecord, {**n.props, "id": nid}) for nid, n in nodes.items()]
        contexts = self.chunk_texts({c for e in ents for c in e.source_chunks[:ENTITY_CONTEXTS]})
        return [e.id for e in ents], [self.entity_recipe(e, contexts) for e in ents]

    # ------------------------------------------------------------------------------------------ names

    def all_entities(self) -> list[EntityRecord]:
        """Every entity's name record (id, name, aliases, type, named), for name matchers."""
        try:
            rows = self.graph.query(_ALL_ENTITY_NAMES)
        except Unsupported:
            if not isinstance(self.graph, SharedRecords):
                return []
            nodes = self.graph.shared_nodes(ENTITY, self.graph.shared_ids(ENTITY))
            rows = [{**n.props, "id": i} for i, n in nodes.items()]
        return [
            from_props(EntityRecord, {k: r.get(k) for k in ("id", "name", "aliases", "type", "named")} | {"norm": ""})
            for r in rows
            if r.get("name")
        ]
