"""LightRAG side of ``bench.retrieval``, run inside the benchmark's own virtualenv (stdlib + lightrag + numpy).

    python bench/lightrag_worker.py DIR

DIR (written by the parent) holds ``params.json``, ``graph.json`` (entities, relations, chunks),
``entity_vectors.npy`` / ``relation_vectors.npy`` / ``chunk_vectors.npy`` (rows aligned with graph.json) and
``queries.json`` + ``query_vectors.npy`` (warm-up queries first). The graph goes in through LightRAG's
custom-KG insert; its embedding function only looks precomputed vectors up by the exact text LightRAG asks
for, and its LLM function is a stub that raises and counts, so the result proves no LLM was called.
``params["vector_storage"]`` picks LightRAG's vector store: ``default`` (its NanoVectorDBStorage: full scan
and a full argsort) or ``exact`` (:class:`ExactVectorStorage` below: the same exact search as hybridkg's
``exact`` backend, registered with LightRAG's storage registry).
Prints progress on stderr and one JSON object on stdout.
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import re
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from lightrag import kg as lightrag_kg
from lightrag.base import BaseVectorStorage
from lightrag.constants import DEFAULT_QUERY_PRIORITY
from lightrag.utils import compute_mdhash_id
from threadpoolctl import ThreadpoolController

LLM_CALLS = 0
BLAS = ThreadpoolController()
STORAGES = {"default": "NanoVectorDBStorage", "exact": "ExactVectorStorage"}


async def llm_stub(*args: Any, **kwargs: Any) -> str:
    global LLM_CALLS
    LLM_CALLS += 1
    raise RuntimeError("bench: LightRAG called its LLM; retrieval must not need one")


class WordTokenizer:
    """Words and punctuation marks as tokens (leading whitespace kept, so decode(encode(s)) == s); thread-safe,
    offline, and shared rather than copied by ``copy.deepcopy`` as LightRAG's Tokenizer contract asks."""

    _PIECE = re.compile(r"\s*\w+|\s*[^\w\s]|\s+")

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}
        self._pieces: list[str] = []
        self._lock = threading.Lock()

    def encode(self, content: str) -> list[int]:
        out = []
        for piece in self._PIECE.findall(content):
            i = self._ids.get(piece)
            if i is None:
                with self._lock:
                    i = self._ids.get(piece)
                    if i is None:
                        i = len(self._pieces)
                        self._pieces.append(piece)
                        self._ids[piece] = i
            out.append(i)
        return out

    def decode(self, tokens: list[int]) -> str:
        return "".join(self._pieces[t] for t in tokens)

    def __deepcopy__(self, memo: dict[int, Any]) -> WordTokenizer:
        return self


class VectorLookup:
    """The embedding function: precomputed rows by text; an unknown text is an error, never a silent vector."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.index: dict[str, int] = {}
        self.blocks: list[np.ndarray] = []
        self.matrix = np.zeros((0, dim), dtype=np.float32)
        self.seconds = 0.0
        self.calls = 0
        self.misses: list[str] = []

    def add(self, texts: list[str], vectors: np.ndarray) -> None:
        base = sum(len(b) for b in self.blocks)
        for i, t in enumerate(texts):
            self.index.setdefault(t, base + i)
        self.blocks.append(np.asarray(vectors, dtype=np.float32))
        self.matrix = np.vstack(self.blocks) if self.blocks else self.matrix

    async def __call__(self, texts: list[str], **kwargs: Any) -> np.ndarray:
        start = time.perf_counter()
        rows = [self.index.get(t, -1) for t in texts]
        if -1 in rows:
            missing = [t for t, r in zip(texts, rows, strict=True) if r < 0]
            self.misses.extend(missing[:5])
            raise KeyError(f"bench: no precomputed vector for {missing[0][:120]!r}")
        out = self.matrix[rows]
        self.seconds += time.perf_counter() - start
        self.calls += 1
        return out


@dataclass
class ExactVectorStorage(BaseVectorStorage):
    """LightRAG's ``BaseVectorStorage`` over an in-memory float32 matrix, searched exactly as hybridkg's
    ``ExactIndex.search`` does: unit vectors as the columns of a ``dim x capacity`` matrix, one ``q @ M``
    product on one BLAS thread, ``argpartition`` for the top k, then a sort of those k. In memory only (the
    benchmark never reopens it); rows are embedded at upsert, in batches of ``embedding_batch_num``."""

    def __post_init__(self) -> None:
        self._validate_embedding_func()
        kwargs = self.global_config.get("vector_db_storage_cls_kwargs", {})
        if kwargs.get("cosine_better_than_threshold") is None:
            raise ValueError("cosine_better_than_threshold must be specified in vector_db_storage_cls_kwargs")
        self.cosine_better_than_threshold = float(kwargs["cosine_better_than_threshold"])
        self._batch = int(self.global_config["embedding_batch_num"])
        self._dim = int(self.embedding_func.embedding_dim)
        self._cols = np.zeros((self._dim, 0), dtype=np.float32)
        self._ids: list[str] = []
        self._row: dict[str, int] = {}
        self._records: dict[str, dict[str, Any]] = {}

    async def index_done_callback(self) -> bool:
        return True  # nothing to persist

    async def drop(self) -> dict[str, str]:
        self._cols = np.zeros((self._dim, 0), dtype=np.float32)
        self._ids, self._row, self._records = [], {}, {}
        return {"status": "success", "message": "data dropped"}

    async def upsert(self, data: dict[str, dict[str, Any]]) -> None:
        if not data:
            return
        now = int(time.time())
        ids = list(data)
        contents = [data[i]["content"] for i in ids]
        batches = [contents[i : i + self._batch] for i in range(0, len(contents), self._batch)]
        parts = await asyncio.gather(*(self.embedding_func(b, context="document") for b in batches))
        rows = np.asarray(np.concatenate(parts), dtype=np.float32)
        if rows.shape != (len(ids), self._dim):
            raise RuntimeError(f"embedding returned {rows.shape} for {len(ids)} texts of dimension {self._dim}")
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        rows = rows / np.where(norms > 0, norms, 1.0)
        added = [i for i in ids if i not in self._row]
        need = len(self._ids) + len(added)
        if need > self._cols.shape[1]:
            grown = np.zeros((self._dim, max(need, 2 * self._cols.shape[1], 64)), dtype=np.float32)
            grown[:, : len(self._ids)] = self._cols[:, : len(self._ids)]
            self._cols = grown
        for i in added:
            self._row[i] = len(self._ids)
            self._ids.append(i)
        self._cols[:, [self._row[i] for i in ids]] = rows.T
        for i in ids:
            self._records[i] = {"__id__": i, "__created_at__": now,
                                **{k: v for k, v in data[i].items() if k in self.meta_fields}}

    async def query(self, query: str, top_k: int, query_embedding: Any = None) -> list[dict[str, Any]]:
        if query_embedding is None:
            query_embedding = (await self.embedding_func([query], context="query",
                                                         _priority=DEFAULT_QUERY_PRIORITY))[0]
        q = np.asarray(query_embedding, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(q))
        q = q / norm if norm > 0 else q
        n = len(self._ids)
        if n == 0 or top_k <= 0:
            return []
        with BLAS.limit(limits=1, user_api="blas"):
            sims = q @ self._cols[:, :n]
        if top_k < n:
            top = np.argpartition(-sims, top_k - 1)[:top_k]
            top = top[np.argsort(-sims[top], kind="stable")]
        else:
            top = np.argsort(-sims, kind="stable")
        out = []
        for r in top.tolist():
            score = float(sims[r])
            if score < self.cosine_better_than_threshold:
                break
            rec = self._records[self._ids[r]]
            out.append({**rec, "__metrics__": score, "id": rec["__id__"], "distance": score,
                        "created_at": rec["__created_at__"]})
        return out

    def _format(self, rec: dict[str, Any] | None) -> dict[str, Any] | None:
        return None if rec is None else {**rec, "id": rec["__id__"], "created_at": rec["__created_at__"]}

    async def get_by_id(self, id: str) -> dict[str, Any] | None:
        return self._format(self._records.get(id))

    async def get_by_ids(self, ids: list[str]) -> list[dict[str, Any]]:
        return [self._format(self._records.get(i)) for i in ids]  # type: ignore[misc]  # None where absent

    async def get_vectors_by_ids(self, ids: list[str]) -> dict[str, list[float]]:
        return {i: self._cols[:, self._row[i]].tolist() for i in ids if i in self._row}

    async def delete(self, ids: list[str]) -> None:
        for id_ in ids:
            row = self._row.pop(id_, None)
            if row is None:
                continue
            self._records.pop(id_, None)
            last = len(self._ids) - 1
            if row != last:
                moved = self._ids[last]
                self._cols[:, row] = self._cols[:, last]
                self._ids[row] = moved
                self._row[moved] = row
            self._ids.pop()

    async def delete_entity(self, entity_name: str) -> None:
        await self.delete([compute_mdhash_id(entity_name, prefix="ent-")])

    async def delete_entity_relation(self, entity_name: str) -> None:
        await self.delete([i for i, r in self._records.items()
                           if entity_name in (r.get("src_id"), r.get("tgt_id"))])


def register_storage(cls: type) -> str:
    """Make ``cls`` a vector storage LightRAG accepts by name (its registry: implementation list, required
    environment variables, module to import it from)."""
    name = cls.__name__
    impls = lightrag_kg.STORAGE_IMPLEMENTATIONS["VECTOR_STORAGE"]["implementations"]
    if name not in impls:
        impls.append(name)
    lightrag_kg.STORAGE_ENV_REQUIREMENTS.setdefault(name, [])
    lightrag_kg.STORAGES[name] = cls.__module__
    return name


def log(msg: str) -> None:
    print(f"[lightrag] {msg}", file=sys.stderr, flush=True)


def vdb_texts(graph: dict[str, Any], normalize: Any) -> tuple[list[str], list[str], list[str]]:
    """The exact strings LightRAG 1.5.7's custom-KG insert embeds (lightrag.py ``ainsert_custom_kg``)."""
    ents = [f"{normalize(e['entity_name'])}\n{e['description']}" for e in graph["entities"]]
    rels = []
    for r in graph["relationships"]:
        src, dst = sorted((normalize(r["src_id"]), normalize(r["tgt_id"])))
        rels.append(f"{r['keywords']}\t{src}\n{dst}\n{r['description']}")
    chunks = [c["content"] for c in graph["chunks"]]
    return ents, rels, chunks


async def run(work: Path) -> dict[str, Any]:
    from lightrag import LightRAG, QueryParam
    from lightrag import __version__ as lightrag_version
    from lightrag.utils import EmbeddingFunc, Tokenizer, normalize_entity_name

    params = json.loads((work / "params.json").read_text())
    graph = json.loads((work / "graph.json").read_text())
    queries: list[str] = json.loads((work / "queries.json").read_text())
    n_warm = int(params["warmup"])
    logging.getLogger("lightrag").setLevel(logging.ERROR)  # per-entity warnings and per-query info lines

    lookup = VectorLookup(int(params["dim"]))
    ent_texts, rel_texts, chunk_texts = vdb_texts(graph, normalize_entity_name)
    lookup.add(ent_texts, np.load(work / "entity_vectors.npy"))
    lookup.add(rel_texts, np.load(work / "relation_vectors.npy"))
    if chunk_texts:
        lookup.add(chunk_texts, np.load(work / "chunk_vectors.npy"))
    lookup.add(queries, np.load(work / "query_vectors.npy"))

    storage = STORAGES[params.get("vector_storage", "default")]
    if storage == ExactVectorStorage.__name__:
        register_storage(ExactVectorStorage)
    with tempfile.TemporaryDirectory(prefix="lightrag-bench-") as tmp:
        rag = LightRAG(
            working_dir=tmp,
            vector_storage=storage,
            embedding_func=EmbeddingFunc(embedding_dim=lookup.dim, func=lookup, model_name="bench-precomputed"),
            llm_model_func=llm_stub,
            tokenizer=Tokenizer("bench-words", WordTokenizer()),
            vector_db_storage_cls_kwargs={"cosine_better_than_threshold": float(params["cosine_threshold"])},
            enable_llm_cache=False,
            enable_llm_cache_for_entity_extract=False,
            embedding_batch_num=int(params.get("embedding_batch_num", 256)),
            top_k=int(params["top_k"]),
            chunk_top_k=int(params["chunk_top_k"]),
        )
        await rag.initialize_storages()
        try:
            log(f"inserting {len(graph['entities'])} entities, {len(graph['relationships'])} relations, "
                f"{len(graph['chunks'])} chunks (custom KG, vector storage {storage})")
            lookup.seconds = 0.0
            start = time.perf_counter()
            await rag.ainsert_custom_kg(graph)
            insert_s = time.perf_counter() - start
            insert_embed_s = lookup.seconds
            store = rag.chunk_entity_relation_graph
            nx_graph = await store._get_graph()  # NetworkXStorage keeps one networkx.Graph
            out: dict[str, Any] = {
                "version": lightrag_version,
                "vector_storage": type(rag.entities_vdb).__name__,
                "insert_s": insert_s,
                "insert_lookup_s": insert_embed_s,
                "nodes": nx_graph.number_of_nodes(),
                "edges": nx_graph.number_of_edges(),
                "modes": {},
            }
            log(f"inserted in {insert_s:.1f} s: {out['nodes']} nodes, {out['edges']} edges")
            gc.freeze()  # as on the hybridkg side: the loaded graph leaves the collector's generations
            for mode in params["modes"]:
                out["modes"][mode] = await run_mode(rag, QueryParam, mode, queries, n_warm, params, lookup)
                m = out["modes"][mode]
                log(f"{mode}: p50 {np.percentile(m['total_ms'], 50):.1f} ms over {len(m['total_ms'])} queries, "
                    f"{m['failures']} without context")
        finally:
            await rag.finalize_storages()
    out["llm_calls"] = LLM_CALLS
    out["embed_misses"] = lookup.misses
    return out


async def run_mode(rag: Any, query_param: Any, mode: str, queries: list[str], n_warm: int, params: dict[str, Any],
                   lookup: VectorLookup) -> dict[str, Any]:
    total_ms: list[float] = []
    lookup_ms: list[float] = []
    counts: list[list[int]] = []
    context_chars: list[int] = []
    entity_names: list[list[str]] = []
    failures = 0
    for i, q in enumerate(queries):
        param = query_param(
            mode=mode, only_need_context=True, top_k=int(params["top_k"]), chunk_top_k=int(params["chunk_top_k"]),
            hl_keywords=[q], ll_keywords=[q], enable_rerank=False,
        )
        lookup.seconds = 0.0
        start = time.perf_counter()
        result = await rag.aquery_llm(q, param)  # what aquery() runs; also hands back the structured data
        took = (time.perf_counter() - start) * 1000
        if i < n_warm:
            continue
        data = result.get("data") or {}
        if result.get("status") != "success":
            failures += 1
        total_ms.append(took)
        lookup_ms.append(lookup.seconds * 1000)
        counts.append([len(data.get("entities", [])), len(data.get("relationships", [])), len(data.get("chunks", []))])
        context_chars.append(len((result.get("llm_response") or {}).get("content") or ""))
        entity_names.append([e.get("entity_name", "") for e in data.get("entities", [])])
    return {"total_ms": total_ms, "lookup_ms": lookup_ms, "counts": counts, "context_chars": context_chars,
            "entities": entity_names, "failures": failures}


def main() -> None:
    if len(sys.argv) != 2:
        raise SystemExit("usage: python lightrag_worker.py WORK_DIR")
    out = asyncio.run(run(Path(sys.argv[1])))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
