"""LightRAG side of ``bench.retrieval``, run inside the benchmark's own virtualenv (stdlib + lightrag + numpy).

    python bench/lightrag_worker.py DIR

DIR (written by the parent) holds ``params.json``, ``graph.json`` (entities, relations, chunks),
``entity_vectors.npy`` / ``relation_vectors.npy`` / ``chunk_vectors.npy`` (rows aligned with graph.json) and
``queries.json`` + ``query_vectors.npy`` (warm-up queries first). The graph goes in through LightRAG's
custom-KG insert; its embedding function only looks precomputed vectors up by the exact text LightRAG asks
for, and its LLM function is a stub that raises and counts, so the result proves no LLM was called.
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
from pathlib import Path
from typing import Any

import numpy as np

LLM_CALLS = 0


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

    with tempfile.TemporaryDirectory(prefix="lightrag-bench-") as tmp:
        rag = LightRAG(
            working_dir=tmp,
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
                f"{len(graph['chunks'])} chunks (custom KG)")
            lookup.seconds = 0.0
            start = time.perf_counter()
            await rag.ainsert_custom_kg(graph)
            insert_s = time.perf_counter() - start
            insert_embed_s = lookup.seconds
            store = rag.chunk_entity_relation_graph
            nx_graph = await store._get_graph()  # NetworkXStorage keeps one networkx.Graph
            out: dict[str, Any] = {
                "version": lightrag_version,
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
