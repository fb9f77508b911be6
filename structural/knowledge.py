"""The structural knowledge base: documents in, property graph + vectors kept in step, retrieval and feedback out.

One :class:`StructuralKB` owns a :class:`GraphStore`, three :class:`VectorIndex` es (entities, relations,
chunks, persisted under ``<path>/vectors``), an :class:`Embedder` and an :class:`Extractor`. Nothing is
global: the service builds one per store (:func:`hybridkg.structural.factory.open_structural_kb`).

Incremental update (seed design):

* adding documents chunks them, extracts and embeds only their new chunks (and the entities/relations those
  touch), and merges them into the graph with provenance; re-inserting identical content is a no-op;
* updating a document diffs its chunks by content: unchanged chunks stay, vanished ones are retracted,
  new ones are added;
* deleting a document retracts all its chunks: relations only it supported and entities left orphaned go,
  and ``w_struct`` of surviving relations drops by what its chunks contributed (see :mod:`.provenance`).

Many documents in one call (:meth:`StructuralKB.add_documents`, :meth:`StructuralKB.put_documents`) are
extracted in one batch and merged and embedded together: a text shared by several documents is embedded once.
A common noun phrase (``named=False``) becomes an entity only when it recurs across chunks (two chunks of the
call, or a chunk already in the graph). Every write goes through :class:`~.writer.GraphWriter`.

Everything that can fail on input (decoding, size, format, extraction) runs before the first write.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from hybridkg.errors import InvalidInput, NotFound, Unsupported
from hybridkg.structural.base import (
    CHUNK,
    DOCUMENT,
    ENTITY,
    RELATED,
    BatchExtractor,
    Embedder,
    Extraction,
    Extractor,
    GraphStore,
    KnownEntity,
    NameLearner,
    Vector,
)
from hybridkg.structural.curated import (
    EntitySpec,
    GraphInsert,
    RelationSpec,
    curated_records,
    pin_entity,
    pin_relation,
)
from hybridkg.structural.feedback import FeedbackLoop, FeedbackResult
from hybridkg.structural.ingest.chunking import chunk_text
from hybridkg.structural.ingest.documents import PreparedDocument, prepare_document
from hybridkg.structural.ingest.tokenizer import Tokenizer
from hybridkg.structural.provenance import ChunkClaims, EntityClaim, MergePlan, RelationClaim, plan_merge
from hybridkg.structural.records import ChunkRecord, DocumentRecord, EntityRecord, RelationRecord, from_props
from hybridkg.structural.resolution import entity_id, merge_descriptions, normalise_name, relation_id
from hybridkg.structural.retrieval.engine import Retriever
from hybridkg.structural.retrieval.results import RetrievalResult
from hybridkg.structural.settings import Mode, StructuralConfig
from hybridkg.structural.texts import SYMMETRIC_TYPES, content_hash, entity_text, relation_text
from hybridkg.structural.writer import KINDS, GraphWriter, ReconcileResult, VectorSet, WriteBatch, WriteResult

_TOKEN_RE = re.compile(r"\w+|[^\w\s]")
_DOMAIN_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")

__all__ = [
    "KINDS",
    "Action",
    "DocumentChange",
    "DocumentInput",
    "EntitySpec",
    "GraphInsert",
    "RelationSpec",
    "StructuralKB",
    "VectorSet",
    "entity_text",
    "known_from_rows",
    "relation_text",
]


class Action(StrEnum):
    ADDED = "added"
    UPDATED = "updated"
    DELETED = "deleted"
    UNCHANGED = "unchanged"


@dataclass(slots=True)
class DocumentChange:
    """What one add/update/delete did (``took_ms`` of a batch is the batch's time, shared evenly)."""

    doc_id: str
    domain: str
    action: Action
    chunks_added: int = 0
    chunks_removed: int = 0
    entities_added: int = 0
    entities_removed: int = 0
    relations_added: int = 0
    relations_removed: int = 0
    embedded: int = 0
    took_ms: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {k: (str(v) if isinstance(v, StrEnum) else v) for k, v in asdict(self).items()}


@dataclass(frozen=True, slots=True)
class DocumentInput:
    """One document of a batch: its id, content, and optionally format and name (for the title)."""

    doc_id: str
    data: bytes | str
    fmt: str | None = None
    name: str | None = None


class _How(StrEnum):
    ADD = "add"  # new, or the same content again (no-op)
    UPDATE = "update"  # must exist
    PUT = "put"  # either


@dataclass(slots=True)
class _DocPlan:
    """One document's part of a batch write."""

    doc_id: str
    prepared: PreparedDocument
    action: Action
    chunk_ids: list[str]
    new_chunks: list[ChunkRecord]
    removed_chunks: list[str]
    claims: list[ChunkClaims]
def estimate_tokens(text: str) -> int:
    """Words and punctuation marks: the context budget's token count, ~10x cheaper than WordPiece and within
    ~20% of it on English text."""
    return len(_TOKEN_RE.findall(text))


def check_domain(domain: str) -> str:
    if not isinstance(domain, str) or not _DOMAIN_RE.match(domain):
        raise InvalidInput(f"domain {domain!r} is not a valid domain name (letters, digits, '_', '-', '.')")
    return domain


def check_doc_id(doc_id: str) -> str:
    if not isinstance(doc_id, str) or not doc_id.strip():
        raise InvalidInput("document id is empty")
    if len(doc_id) > 1024 or any(ord(c) < 32 for c in doc_id):
        raise InvalidInput(f"document id {doc_id[:60]!r} is too long or contains control characters")
    return doc_id


class StructuralKB:
    """Documents and curated graphs in; graph + vector retrieval and feedback out."""

    def __init__(
        self,
        graph: GraphStore,
        vectors: VectorSet,
        embedder: Embedder,
        extractor: Extractor,
        config: StructuralConfig,
        *,
        tokenizer: Tokenizer | None = None,
        on_close: Callable[[], None] | None = None,
        journal: Path | None = None,
    ) -> None:
        """``journal``: where the writer records the vectors a write is about to change (see :mod:`.writer`);
        ``None`` when the vectors are not persisted apart from the graph."""
        self.graph = graph
        self.vectors = vectors
        self.embedder = embedder
        self.extractor = extractor
        self.config = config
        self.tokenizer = tokenizer or Tokenizer()
        self.entity_types: dict[str, list[str]] = {}
        self.writer = GraphWriter(graph, vectors, embedder, journal=journal)
        self._lock = threading.RLock()
        self._on_close = on_close
        self.retriever = Retriever(
            graph,
            vectors.entities,
            vectors.relations,
            vectors.chunks,
            embedder,
            config.retrieval,
            config.feedback,
            count_tokens=estimate_tokens,
        )
        self.feedback_loop = FeedbackLoop(graph, config.feedback)

    @classmethod
    def open(
        cls,
        config: StructuralConfig,
        path: Any,
        *,
        known: Sequence[KnownEntity] = (),
        embedder: Embedder | None = None,
    ) -> StructuralKB:
        """Compatibility entry point: :func:`hybridkg.structural.factory.open_structural_kb` opens the store."""
        from hybridkg.structural.factory import open_structural_kb

        return open_structural_kb(config, path, known=known, embedder=embedder)

    def recover(self, *, progress: bool = False) -> ReconcileResult:
        """Bring the vector indexes in line with the graph (after a crash between the two writes) and teach the
        extractor the graph's entity names; the factory calls this when it opens a store."""
        with self._lock:
            result = self.writer.reconcile(progress=progress)
            self._learn(self.writer.all_entities())
            return result

    def close(self) -> None:
        """Close the vector indexes (saved, long delta logs compacted), then the graph store."""
        with self._lock:
            try:
                self.vectors.close()
            finally:
                self.graph.close()
                if self._on_close is not None:
                    self._on_close()

    def __enter__(self) -> StructuralKB:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------------------ documents

    def add_document(
        self, doc_id: str, data: bytes | str, *, domain: str, fmt: str | None = None, name: str | None = None
    ) -> DocumentChange:
        """Add a document; identical content again is a no-op, different content needs :meth:`update_document`."""
        return self._ingest([DocumentInput(doc_id, data, fmt, name)], domain, _How.ADD)[0]

    def update_document(
        self, doc_id: str, data: bytes | str, *, domain: str, fmt: str | None = None, name: str | None = None
    ) -> DocumentChange:
        """Replace a document's content, re-extracting only chunks whose text changed."""
        return self._ingest([DocumentInput(doc_id, data, fmt, name)], domain, _How.UPDATE)[0]

    def put_document(
        self, doc_id: str, data: bytes | str, *, domain: str, fmt: str | None = None, name: str | None = None
    ) -> DocumentChange:
        """Add the document, or replace its content when it exists (re-extracting only changed chunks)."""
        return self._ingest([DocumentInput(doc_id, data, fmt, name)], domain, _How.PUT)[0]

    def add_documents(
        self, documents: Iterable[DocumentInput | tuple[str, bytes | str]], *, domain: str, progress: bool = False
    ) -> list[DocumentChange]:
        """Add many documents in one batch (as :meth:`add_document` each, but extracted, merged and embedded
        together); any invalid document fails the whole call before anything is written."""
        return self._ingest(_inputs(documents), domain, _How.ADD, progress=progress)

    def update_documents(
        self, documents: Iterable[DocumentInput | tuple[str, bytes | str]], *, domain: str, progress: bool = False
    ) -> list[DocumentChange]:
        """:meth:`update_document` for many documents in one batch."""
        return self._ingest(_inputs(documents), domain, _How.UPDATE, progress=progress)

    def put_documents(
        self, documents: Iterable[DocumentInput | tuple[str, bytes | str]], *, domain: str, progress: bool = False
    ) -> list[DocumentChange]:
        """:meth:`put_document` for many documents in one batch."""
        return self._ingest(_inputs(documents), domain, _How.PUT, progress=progress)

    def delete_document(self, doc_id: str, *, domain: str | None = None) -> DocumentChange:
        """Retract all of a document's chunks; ``domain``, when given, must be the document's domain."""
        check_doc_id(doc_id)
        with self._lock:
            start = time.perf_counter()
            doc = self._documents([doc_id]).get(doc_id)
            if doc is None:
                raise NotFound(f"document {doc_id!r} is not in the store")
            if domain is not None and doc.domain != domain:
                raise InvalidInput(f"document {doc_id!r} belongs to domain {doc.domain!r}, not {domain!r}")
            change = DocumentChange(doc_id, doc.domain, Action.DELETED, chunks_removed=len(doc.chunk_ids))
            batch = WriteBatch(deleted_documents=[doc.id])
            plan, before = self._merge(doc.domain, [], list(doc.chunk_ids), batch)
            change.entities_removed = len(plan.deleted_entities)
            change.relations_removed = len(plan.deleted_relations)
            self._commit(batch, before)
            change.took_ms = (time.perf_counter() - start) * 1000
            return change

    @staticmethod
    def _doc_node_id(doc_id: str) -> str:
        return f"doc:{doc_id}"

    def _documents(self, doc_ids: Sequence[str]) -> dict[str, DocumentRecord]:
        nodes = self.graph.neighbourhood(DOCUMENT, [self._doc_node_id(d) for d in doc_ids], depth=0).nodes
        out = {}
        for nid, node in nodes.items():
            rec = from_props(DocumentRecord, {**node.props, "id": nid})
            out[rec.doc_id] = rec
        return out

    def _ingest(
        self, items: Sequence[DocumentInput], domain: str, how: _How, *, progress: bool = False
    ) -> list[DocumentChange]:
        check_domain(domain)
        seen: set[str] = set()
        for item in items:
            check_doc_id(item.doc_id)
            if item.doc_id in seen:
                raise InvalidInput(f"document {item.doc_id!r} is given twice in one call")
            seen.add(item.doc_id)
        start = time.perf_counter()
        max_bytes = self.config.chunking.max_document_bytes
        prepared = [prepare_document(i.data, fmt=i.fmt, name=i.name or i.doc_id, max_bytes=max_bytes) for i in items]
        with self._lock:
            stored = self._documents([i.doc_id for i in items]) if items else {}
            plans = [self._plan_document(i.doc_id, p, stored.get(i.doc_id), domain, how)
                     for i, p in zip(items, prepared, strict=True)]
            todo = [p for p in plans if p.action is not Action.UNCHANGED]
            self.writer.prefetch([c.text for p in todo for c in p.new_chunks])
            self._extract(todo, domain, progress=progress)
            batch = WriteBatch()
            for p in todo:
                batch.chunks.extend(p.new_chunks)
                batch.documents.append(DocumentRecord(
                    self._doc_node_id(p.doc_id), p.doc_id, domain, p.prepared.hash,
                    p.prepared.title or p.doc_id, p.prepared.format, p.chunk_ids,
                ))
            claims = [c for p in todo for c in p.claims]
            removed = [c for p in todo for c in p.removed_chunks]
            merge, before = self._merge(domain, claims, removed, batch) if todo else (MergePlan(), {})
            result = self._commit(batch, before, progress=progress) if todo else WriteResult()
            changes = self._changes(plans, merge, result, domain)
        took = (time.perf_counter() - start) * 1000
        for c in changes:
            c.took_ms = took / max(1, len(changes))
        return changes

    def _plan_document(
        self, doc_id: str, prepared: PreparedDocument, doc: DocumentRecord | None, domain: str, how: _How
    ) -> _DocPlan:
        if doc is not None and how is _How.ADD and doc.hash != prepared.hash:
            raise InvalidInput(
                f"document {doc_id!r} already exists with different content; use `docs update` to replace it"
            )
        if doc is None and how is _How.UPDATE:
            raise NotFound(f"document {doc_id!r} is not in the store; use `docs add` to add it")
        if doc is not None and doc.domain != domain:
            raise InvalidInput(
                f"document {doc_id!r} belongs to domain {doc.domain!r}, not {domain!r}; delete it first to move it"
            )
        if doc is not None and doc.hash == prepared.hash:
            return _DocPlan(doc_id, prepared, Action.UNCHANGED, list(doc.chunk_ids), [], [], [])
        pieces = chunk_text(
            prepared.text,
            chunk_tokens=self.config.chunking.chunk_tokens,
            overlap_tokens=self.config.chunking.overlap_tokens,
            tokenizer=self.tokenizer,
        )
        chunk_ids: list[str] = []
        seen: dict[str, int] = {}
        for piece in pieces:
            text_hash = content_hash(piece.text)
            seen[text_hash] = seen.get(text_hash, 0) + 1
            chunk_ids.append(f"chunk:{content_hash(doc_id, text_hash, str(seen[text_hash]))}")
        old_chunks = list(doc.chunk_ids) if doc else []
        old_set, new_set = set(old_chunks), set(chunk_ids)
        new_chunks = [
            ChunkRecord(cid, doc_id, domain, p.index, p.text, p.tokens)
            for cid, p in zip(chunk_ids, pieces, strict=True)
            if cid not in old_set
        ]
        removed = [c for c in old_chunks if c not in new_set]
        return _DocPlan(doc_id, prepared, Action.UPDATED if doc else Action.ADDED, chunk_ids, new_chunks, removed, [])

    def _extract(self, plans: Sequence[_DocPlan], domain: str, *, progress: bool) -> None:
        """Extract every new chunk of ``plans`` (batched when the extractor can), then keep a common noun phrase
        only when it recurs across chunks; fills each plan's claims and its chunks' entity/relation ids."""
        chunks = [c for p in plans for c in p.new_chunks]
        if not chunks:
            return
        types = self.entity_types.get(domain, [])
        texts = [c.text for c in chunks]
        extractions: list[Extraction]
        if isinstance(self.extractor, BatchExtractor):
            step = max(1, self.config.extractor.spacy_batch) * 4 if progress else len(texts)
            extractions = []
            from tqdm import tqdm

            with tqdm(total=len(texts), desc="extract", unit="chunk", disable=not progress, leave=False) as bar:
                for i in range(0, len(texts), step):
                    extractions.extend(self.extractor.extract_batch(texts[i : i + step], entity_types=types))
                    bar.update(min(step, len(texts) - i))
        else:
            from tqdm import tqdm

            extractions = [
                self.extractor.extract(t, entity_types=types)
                for t in tqdm(texts, desc="extract", unit="chunk", disable=not progress, leave=False)
            ]
        claims = [self._claims(c.id, x, domain) for c, x in zip(chunks, extractions, strict=True)]
        _drop_noise(claims, self._recurring(claims, {c.id for c in chunks}))
        by_chunk = {c.chunk_id: c for c in claims}
        for p in plans:
            p.claims = [by_chunk[c.id] for c in p.new_chunks]
            for c in p.new_chunks:
                c.entity_ids = sorted(by_chunk[c.id].entities)
                c.relation_ids = sorted(by_chunk[c.id].relations)
        for c, x in zip(chunks, extractions, strict=True):
            c.syntax = x.syntax

    def _recurring(self, claims: Sequence[ChunkClaims], chunk_ids: set[str]) -> set[str]:
        """Ids of the unnamed entities of ``claims`` that recur: in two of these chunks, or already in the graph
        from another chunk (or curated)."""
        seen: dict[str, int] = {}
        for c in claims:
            for eid, e in c.entities.items():
                if not e.named:
                    seen[eid] = seen.get(eid, 0) + 1
        keep = {eid for eid, n in seen.items() if n > 1}
        lone = sorted(set(seen) - keep)
        if lone:
            for eid, node in self.graph.neighbourhood(ENTITY, lone, depth=0).nodes.items():
                rec = from_props(EntityRecord, {**node.props, "id": eid})
                if rec.pinned or any(s not in chunk_ids for s in rec.source_chunks):
                    keep.add(eid)
        return keep

    def _claims(self, chunk_id: str, extraction: Extraction, domain: str) -> ChunkClaims:
        claims = ChunkClaims(chunk_id)
        by_name: dict[str, str] = {}
        for e in extraction.entities:
            norm = normalise_name(e.name)
            if not norm:
                continue
            eid = entity_id(domain, e.name)
            by_name[norm] = eid
            for alias in e.aliases:
                if normalise_name(alias):
                    by_name.setdefault(normalise_name(alias), eid)
            prior = claims.entities.get(eid)
            description = e.description if prior is None else merge_descriptions(prior.description, e.description)
            aliases = tuple(dict.fromkeys([*(prior.aliases if prior else ()), *(a.strip() for a in e.aliases)]))
            named = e.named or (prior is not None and prior.named)
            iri = e.iri or (prior.iri if prior else None)
            claims.entities[eid] = EntityClaim(eid, e.name.strip(), norm, e.type, description, iri, aliases, named)
        for r in extraction.relations:
            src, dst = by_name.get(normalise_name(r.src)), by_name.get(normalise_name(r.dst))
            if src is None or dst is None or src == dst:
                continue
            if r.type in SYMMETRIC_TYPES and dst < src:
                src, dst = dst, src
            rid = relation_id(domain, src, dst, r.type)
            prior_r = claims.relations.get(rid)
            weight = r.weight + (prior_r.weight if prior_r else 0.0)
            keywords = tuple(dict.fromkeys([*(prior_r.keywords if prior_r else ()), *r.keywords]))
            description = r.description if prior_r is None else prior_r.description
            claims.relations[rid] = RelationClaim(rid, src, dst, r.type, keywords, description, weight)
        return claims

    def _merge(self, domain: str, claims: Sequence[ChunkClaims], removed_chunks: Sequence[str],
               batch: WriteBatch) -> tuple[MergePlan, dict[str, tuple[str, ...]]]:
        """Merge ``claims`` and retract ``removed_chunks`` against the stored records; fills ``batch``. Also
        returns the stored names of the entities touched (to tell what changed)."""
        removed_nodes = self.graph.neighbourhood(CHUNK, list(removed_chunks), depth=0).nodes if removed_chunks else {}
        removed_map = {
            cid: (list(n.props.get("entity_ids") or []), list(n.props.get("relation_ids") or []))
            for cid, n in removed_nodes.items()
        }
        ent_ids: set[str] = {e for c in claims for e in c.entities}
        rel_ids: set[str] = {r for c in claims for r in c.relations}
        for e_ids, r_ids in removed_map.values():
            ent_ids.update(e_ids)
            rel_ids.update(r_ids)
        current_e = {
            k: from_props(EntityRecord, {**n.props, "id": k})
            for k, n in self.graph.neighbourhood(ENTITY, sorted(ent_ids), depth=0).nodes.items()
        }
        current_r = {
            e.id: from_props(RelationRecord, {**e.props, "id": e.id}, src=e.src, dst=e.dst)
            for e in self.graph.edges(RELATED, sorted(rel_ids))
        }
        plan = plan_merge(current_e, current_r, claims, removed_map, domain)
        dead = set(plan.deleted_entities)
        batch.entities.extend(plan.entities)
        batch.relations.extend(plan.relations)
        batch.mentions.extend((c.chunk_id, eid) for c in claims for eid in c.entities if eid not in dead)
        batch.deleted_entities.extend(plan.deleted_entities)
        batch.deleted_relations.extend(plan.deleted_relations)
        batch.deleted_chunks.extend(removed_chunks)
        return plan, {eid: rec.names() for eid, rec in current_e.items()}

    def _commit(
        self, batch: WriteBatch, before: Mapping[str, tuple[str, ...]], *, progress: bool = False
    ) -> WriteResult:
        """Write ``batch`` through the one write path, then tell the query linker and the extractor which names
        changed (``before``: the stored names of the entities the batch touches)."""
        result = self.writer.write(batch, progress=progress)
        changed = [e for e in batch.entities if e.named and before.get(e.id) != e.names()]
        if changed or batch.deleted_entities:
            self.retriever.names_changed({e.id: e.names() for e in changed}, list(batch.deleted_entities))
        self._learn(changed)
        return result

    def _learn(self, entities: Sequence[EntityRecord]) -> None:
        if isinstance(self.extractor, NameLearner):
            known = [KnownEntity(None, e.names(), e.type or "concept") for e in entities if e.named and e.name]
            if known:
                self.extractor.learn(known)

    def _changes(
        self, plans: Sequence[_DocPlan], merge: MergePlan, result: WriteResult, domain: str
    ) -> list[DocumentChange]:
        """Per-document counts; an element two documents of the batch share counts for the first."""
        created_e, created_r = set(merge.created_entities), set(merge.created_relations)
        embedded = set(result.embedded_ids)
        claimed: set[str] = set()
        out: list[DocumentChange] = []
        for p in plans:
            change = DocumentChange(p.doc_id, domain, p.action)
            if p.action is not Action.UNCHANGED:
                mine = {c.id for c in p.new_chunks}
                for c in p.claims:
                    mine.update(c.entities)
                    mine.update(c.relations)
                mine -= claimed
                claimed |= mine
                change.chunks_added, change.chunks_removed = len(p.new_chunks), len(p.removed_chunks)
                change.entities_added = len(mine & created_e)
                change.relations_added = len(mine & created_r)
                change.embedded = len(mine & embedded)
            out.append(change)
        live = [c for c in out if c.action is not Action.UNCHANGED]
        if live:
            live[0].entities_removed = len(merge.deleted_entities)
            live[0].relations_removed = len(merge.deleted_relations)
            live[0].embedded += len(embedded - claimed)
        return out

    # ------------------------------------------------------------------------------------------ curated graphs

    def insert_graph(
        self,
        entities: Sequence[EntitySpec],
        relations: Sequence[RelationSpec],
        *,
        domain: str,
        progress: bool = False,
        batch: int = 20_000,
    ) -> GraphInsert:
        """Insert a curated entity/relation graph (LightRAG's ``insert_custom_kg``); entities merge by name.
        Written in slices of ``batch`` elements through the same write path as documents."""
        check_domain(domain)
        start = time.perf_counter()
        ents, rels = curated_records(entities, relations, domain=domain)
        embedded = 0
        from tqdm import tqdm

        with self._lock, tqdm(total=len(ents) + len(rels), desc="insert graph", unit="item",
                              disable=not progress) as bar:
            for i in range(0, len(ents), batch):
                part = ents[i : i + batch]
                current = {
                    k: from_props(EntityRecord, {**n.props, "id": k})
                    for k, n in self.graph.neighbourhood(ENTITY, [e.id for e in part], depth=0).nodes.items()
                }
                before = {k: r.names() for k, r in current.items()}
                pinned = [pin_entity(e, current.get(e.id)) for e in part]
                embedded += self._commit(WriteBatch(entities=pinned), before).vectors
                bar.update(len(part))
            for i in range(0, len(rels), batch):
                rpart = rels[i : i + batch]
                stored = {
                    e.id: from_props(RelationRecord, {**e.props, "id": e.id}, src=e.src, dst=e.dst)
                    for e in self.graph.edges(RELATED, [r.id for r in rpart])
                }
                pinned_r = [pin_relation(r, stored.get(r.id)) for r in rpart]
                embedded += self.writer.write(WriteBatch(relations=pinned_r)).vectors
                bar.update(len(rpart))
        return GraphInsert(len(ents), len(rels), embedded, (time.perf_counter() - start) * 1000)

    # ------------------------------------------------------------------------------------------ retrieval

    def retrieve(
        self,
        query: str,
        *,
        mode: Mode | str = Mode.HYBRID,
        top_k: int | None = None,
        domain: str | None = None,
        query_vector: Vector | None = None,
    ) -> RetrievalResult:
        if domain is not None:
            check_domain(domain)
        return self.retriever.retrieve(query, mode=mode, top_k=top_k, domain=domain, query_vector=query_vector)

    def warm(self, *, progress: bool = False) -> int:
        """Load the in-process mirror of the graph (when configured) and prepare retrieval for every entity, so
        that the first queries cost what later ones do; a service calls this once at start-up. Returns the
        number of entities prepared (0 without the mirror)."""
        warm_mirror = getattr(self.graph, "warm", None)
        if warm_mirror is not None:
            warm_mirror()
        return self.retriever.prepare(progress=progress)

    def feedback(self, scores: Mapping[str, float]) -> FeedbackResult:
        with self._lock:
            return self.feedback_loop.apply(scores)

    def stats(self) -> dict[str, int]:
        """Counts of graph elements (where the backend runs Cypher) and of vectors."""
        counts: dict[str, int] = {
            "entity_vectors": len(self.vectors.entities),
            "relation_vectors": len(self.vectors.relations),
            "chunk_vectors": len(self.vectors.chunks),
        }
        try:
            for label in (DOCUMENT, CHUNK, ENTITY):
                rows = self.graph.query(f"MATCH (n:{label}) RETURN count(n) AS c")
                counts[label.lower() + "s"] = int(rows[0]["c"]) if rows else 0
            rows = self.graph.query(f"MATCH ()-[r:{RELATED}]->() RETURN count(r) AS c")
            counts["relations"] = int(rows[0]["c"]) if rows else 0
        except Unsupported:
            pass
        return counts

def known_from_rows(rows: Iterable[Mapping[str, Any]]) -> list[KnownEntity]:
    """Group ``{iri, label, type}`` rows (e.g. a SPARQL result) into :class:`KnownEntity` records."""
    grouped: dict[str, tuple[list[str], str]] = {}
    for row in rows:
        iri, label = str(row["iri"]), str(row["label"])
        labels, typ = grouped.setdefault(iri, ([], str(row.get("type") or "concept")))
        if label not in labels:
            labels.append(label)
    return [KnownEntity(iri, tuple(labels), typ) for iri, (labels, typ) in grouped.items()]


def _inputs(documents: Iterable[DocumentInput | tuple[str, bytes | str]]) -> list[DocumentInput]:
    return [d if isinstance(d, DocumentInput) else DocumentInput(d[0], d[1]) for d in documents]


def _drop_noise(claims: Sequence[ChunkClaims], keep: set[str]) -> None:
    """Remove unnamed entities not in ``keep``, and the relations that touch them."""
    for c in claims:
        gone = {eid for eid, e in c.entities.items() if not e.named and eid not in keep}
        if not gone:
            continue
        for eid in gone:
            del c.entities[eid]
        for rid in [rid for rid, r in c.relations.items() if r.src in gone or r.dst in gone]:
            del c.relations[rid]
