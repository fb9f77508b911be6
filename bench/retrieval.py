"""Retrieval latency: hybridkg's five modes against LightRAG 1.5.7's on the same graph, vectors and queries.

    python -m bench.retrieval --quick      # synthetic 10k entities / ~30k relations, 50 queries
    python -m bench.retrieval              # synthetic 100k / ~300k and the MetaQA KB, 200 queries each
    python -m bench.retrieval --json out.json --datasets metaqa --queries 100

Both systems get the identical entities and relations (hybridkg: ``StructuralKB.insert_graph`` into managed
FalkorDB; LightRAG: ``ainsert_custom_kg`` into its JsonKV / NetworkX storages) and the same vectors, computed
once by hybridkg's embedder and looked up by text on both sides, so neither pays embedding at insert. LightRAG
runs in its own virtualenv (``bench/.venv-lightrag``, made on first use) as ``bench/lightrag_worker.py``; its
LLM is a stub that raises, and the worker reports how often it was called.

Two comparisons, each on freshly built stores (``--comparisons``):

* ``default``: each side's default vector search: hybridkg ``auto`` (HNSW at these sizes), LightRAG its
  NanoVectorDB (full scan + full argsort).
* ``exact``: the same exact search on both sides: hybridkg's ``exact`` backend, LightRAG the worker's
  ``ExactVectorStorage`` (the same ``q @ M`` on one BLAS thread + argpartition).

Both sides take ``--top-k`` vector seeds (hybridkg ``retrieval.k``, LightRAG ``top_k``; ``--seeds`` overrides
hybridkg's) and keep ``--top-k`` items. Every timed query runs once per pass, cold: the warm-up queries are
distinct from the timed ones, no query repeats, and hybridkg's context-candidate memo is emptied before each
pass. Latency "excl" leaves the query embedding out (hybridkg: ``query_vector=``; LightRAG: the time inside its
embedding function, a lookup, is subtracted). "incl" is a separate, later hybridkg pass (memo emptied again)
that embeds each query inside ``retrieve``; LightRAG's "incl" is its excl plus the same query's measured
embedding time.
The last line is one JSON object: the headline mode (local), excluding embedding, on the largest synthetic
graph, from the comparison where hybridkg fares worse (the higher hybridkg / LightRAG p50 ratio).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from bench.common import REPO, shared
from bench.retrieval_data import Dataset, metaqa, name_key, synthetic

MODES = ("local", "global", "hybrid", "naive", "mix")
HEADLINE = "local"
COMPARISONS = {  # name -> (hybridkg vectors.backend, LightRAG vector storage as the worker names it)
    "default": ("auto", "default"),
    "exact": ("exact", "exact"),
}
LIGHTRAG_PIN = "lightrag-hku==1.5.7"
LIGHTRAG_VENV = REPO / "bench" / ".venv-lightrag"
WORKER = Path(__file__).resolve().parent / "lightrag_worker.py"
SYMMETRIC = ("related_to", "co_occurs")  # insert_graph orders the ends of these by id


class LookupEmbedder:
    """hybridkg's Embedder seam over precomputed rows (by exact text); unseen texts go to the real embedder."""

    def __init__(self, inner: Any, texts: Sequence[str], vectors: np.ndarray) -> None:
        self.inner = inner
        self.rows = {t: i for i, t in enumerate(texts)}
        self.vectors = vectors
        self.misses = 0

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        idx = [self.rows.get(t, -1) for t in texts]
        if -1 not in idx:
            return self.vectors[idx]
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        miss = [i for i, r in enumerate(idx) if r < 0]
        self.misses += len(miss)
        out[miss] = self.inner.embed([texts[i] for i in miss])
        hit = [i for i, r in enumerate(idx) if r >= 0]
        out[hit] = self.vectors[[idx[i] for i in hit]]
        return out


# --------------------------------------------------------------------------------------------- LightRAG venv


def lightrag_python(venv: Path) -> Path:
    """The benchmark virtualenv's interpreter, creating the venv (python -m venv + pip) on first use.

    pip first resolves the install without installing (``--dry-run --report``) and refuses if the plan holds
    torch or an NVIDIA/CUDA package: lightrag-hku 1.5.7 needs neither, and a CUDA build is gigabytes."""
    py = venv / "bin" / "python"
    probe = [str(py), "-c", "import lightrag, numpy, threadpoolctl; print(lightrag.__version__)"]
    if py.exists() and subprocess.run(probe, capture_output=True, text=True).stdout.strip() == "1.5.7":
        return py
    print(f"creating {venv} with {LIGHTRAG_PIN} (first use; not counted in the run time) ...", flush=True)
    start = time.perf_counter()
    made = subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], capture_output=True, text=True)
    if made.returncode:
        raise SystemExit(f"python -m venv {venv} failed: {made.stderr.strip()[-800:]}")
    wanted = [LIGHTRAG_PIN, "numpy", "threadpoolctl"]
    plan = subprocess.run([str(py), "-m", "pip", "install", "--quiet", "--dry-run", "--report", "-", *wanted],
                          capture_output=True, text=True)
    if plan.returncode:
        raise SystemExit(f"pip could not resolve {LIGHTRAG_PIN} for {venv}: {plan.stderr.strip()[-1500:]}\n"
                         "check that the package index is reachable, or run with --skip-lightrag")
    names = [str(i["metadata"]["name"]).lower() for i in json.loads(plan.stdout).get("install", [])]
    if heavy := [n for n in names if n == "torch" or n.startswith(("nvidia", "cuda", "triton"))]:
        raise SystemExit(f"installing {LIGHTRAG_PIN} would pull {', '.join(heavy)}; refused (no CUDA builds here)")
    pip = subprocess.run([str(py), "-m", "pip", "install", "--quiet", *wanted], capture_output=True, text=True)
    if pip.returncode:
        raise SystemExit(f"pip could not install {LIGHTRAG_PIN} into {venv}: {pip.stderr.strip()[-1500:]}\n"
                         "check that the package index is reachable, or run with --skip-lightrag")
    if subprocess.run(probe, capture_output=True, text=True).stdout.strip() != "1.5.7":
        raise SystemExit(f"{venv} has no working lightrag 1.5.7 after pip install; delete {venv} and retry")
    print(f"created {venv} in {time.perf_counter() - start:.0f} s", flush=True)
    return py


# --------------------------------------------------------------------------------------------- helpers


def pct(values: Sequence[float], q: float) -> float:
    return float(np.percentile(values, q)) if len(values) else float("nan")


def embed_all(embedder: Any, texts: list[str], desc: str, batch: int = 2048) -> np.ndarray:
    out = np.empty((len(texts), embedder.dim), dtype=np.float32)
    for i in tqdm(range(0, len(texts), batch), desc=desc, unit="batch", leave=False):
        out[i : i + batch] = embedder.embed(texts[i : i + batch])
    return out


def texts_for(ds: Dataset) -> tuple[list[str], list[str], list[str]]:
    """Entity and relation texts exactly as ``insert_graph`` embeds them, plus the swapped-end variants of
    symmetric relations (insert_graph may order their ends the other way)."""
    from hybridkg.structural.knowledge import entity_text, relation_text

    ents = [entity_text(e.name.strip(), e.description) for e in ds.entities]
    rels = [relation_text(r.src, r.type, r.dst, r.keywords, r.description) for r in ds.relations]
    extra = [relation_text(r.dst, r.type, r.src, r.keywords, r.description)
             for r in ds.relations if r.type in SYMMETRIC]
    return ents, rels, extra


# --------------------------------------------------------------------------------------------- hybridkg side


def timed(kb: Any, query: str, mode: str, top_k: int, vector: np.ndarray | None) -> tuple[Any, float]:
    t0 = time.perf_counter()
    result = kb.retrieve(query, mode=mode, top_k=top_k, query_vector=vector)
    return result, (time.perf_counter() - t0) * 1000


def cold_pass(kb: Any, ds: Dataset, mode: str, top_k: int, qvecs: np.ndarray | None, desc: str
              ) -> tuple[list[float], list[Any]]:
    """One pass over the timed queries, each run once: the candidate memo emptied, then the (distinct) warm-up
    queries untimed, then every query timed. ``qvecs`` None: each query is embedded inside ``retrieve``."""
    kb.retriever.forget_candidates()
    for q in ds.warmup:
        kb.retrieve(q, mode=mode, top_k=top_k)  # embedded by the real embedder; untimed
    took: list[float] = []
    results: list[Any] = []
    for i, q in enumerate(tqdm(ds.queries, desc=desc, leave=False)):
        r, ms = timed(kb, q, mode, top_k, None if qvecs is None else qvecs[i])
        took.append(ms)
        results.append(r)
    return took, results


def run_hybridkg(ds: Dataset, inner: Any, kind: str, vectors: str, ents: list[str], rels: list[str],
                 extra: list[str], vecs: np.ndarray, qvecs: np.ndarray, q_embed_ms: list[float],
                 args: argparse.Namespace) -> dict[str, Any]:
    from hybridkg.structural.knowledge import EntitySpec, RelationSpec, StructuralKB
    from hybridkg.structural.settings import (
        EmbedderConfig,
        GraphBackend,
        GraphConfig,
        RetrievalConfig,
        StructuralConfig,
        VectorBackend,
        VectorConfig,
    )

    config = StructuralConfig(embedder=EmbedderConfig(kind=kind), graph=GraphConfig(backend=GraphBackend(args.graph)),
                              vectors=VectorConfig(backend=VectorBackend(vectors)),
                              retrieval=RetrievalConfig(k=args.seeds, top_k=args.top_k))
    lookup = LookupEmbedder(inner, [*ents, *rels, *extra], vecs)
    out: dict[str, Any] = {"modes": {}, "vectors": vectors, "k": config.retrieval.k}
    with tempfile.TemporaryDirectory(prefix="hybridkg-bench-") as tmp:
        kb = StructuralKB.open(config, Path(tmp), embedder=lookup)
        try:
            start = time.perf_counter()
            kb.insert_graph([EntitySpec(e.name, e.type, e.description) for e in ds.entities],
                            [RelationSpec(r.src, r.dst, r.type, r.keywords, r.description, r.weight)
                             for r in ds.relations], domain="bench", progress=True)
            out["insert_s"] = time.perf_counter() - start
            out["insert_embed_misses"] = lookup.misses
            stats = kb.stats()
            out["nodes"] = stats.get("entities", stats.get("entity_vectors"))
            out["edges"] = stats.get("relations", stats.get("relation_vectors"))
            print(f"hybridkg ({vectors} vectors): inserted in {out['insert_s']:.1f} s ({out['nodes']} entities, "
                  f"{out['edges']} relations)", flush=True)
            start = time.perf_counter()
            prepared = kb.warm(progress=True)  # what a service does once at start-up
            out["warm_s"] = time.perf_counter() - start
            print(f"hybridkg: warmed in {out['warm_s']:.1f} s (mirror loaded, adjacency of {prepared} entities)",
                  flush=True)
            gc.freeze()  # what a service does after loading: the loaded graph leaves the collector's generations
            for mode in args.modes:
                excl, results = cold_pass(kb, ds, mode, args.top_k, qvecs, f"hybridkg {vectors} {mode} excl")
                if args.no_incl:
                    incl = [x + e for x, e in zip(excl, q_embed_ms, strict=True)]
                else:  # a second, separate pass: the lookup has no query texts, so the real embedder runs
                    incl, _ = cold_pass(kb, ds, mode, args.top_k, None, f"hybridkg {vectors} {mode} incl")
                out["modes"][mode] = {
                    "excl_ms": excl, "incl_ms": incl,
                    "counts": [[len(r.items), len(r.relations), len(r.chunks)] for r in results],
                    "entities": [[e.name for e in r.items] for r in results],
                }
        finally:
            gc.unfreeze()
            kb.close()
    return out


# --------------------------------------------------------------------------------------------- LightRAG side


def run_lightrag(ds: Dataset, python: Path, storage: str, ents_v: np.ndarray, rels_v: np.ndarray,
                 qvecs: np.ndarray, args: argparse.Namespace) -> dict[str, Any]:
    graph = {
        "entities": [{"entity_name": e.name, "entity_type": e.type, "description": e.description}
                     for e in ds.entities],
        "relationships": [{"src_id": r.src, "tgt_id": r.dst, "keywords": ", ".join((r.type.replace("_", " "),
                           *r.keywords)), "description": r.description, "weight": r.weight} for r in ds.relations],
        "chunks": [],
    }
    params = {"warmup": len(ds.warmup), "dim": int(ents_v.shape[1]), "top_k": args.top_k, "chunk_top_k": args.top_k,
              "cosine_threshold": args.cosine_threshold, "modes": list(args.modes), "vector_storage": storage}
    with tempfile.TemporaryDirectory(prefix="lightrag-io-") as tmp:
        work = Path(tmp)
        (work / "graph.json").write_text(json.dumps(graph))
        (work / "params.json").write_text(json.dumps(params))
        (work / "queries.json").write_text(json.dumps([*ds.warmup, *ds.queries]))
        np.save(work / "entity_vectors.npy", ents_v)
        np.save(work / "relation_vectors.npy", rels_v)
        np.save(work / "query_vectors.npy", qvecs)
        env = {**os.environ, "PYTHONWARNINGS": "ignore", "TOKENIZERS_PARALLELISM": "false"}
        proc = subprocess.run([str(python), str(WORKER), str(work)], stdout=subprocess.PIPE, text=True, env=env,
                              cwd=tmp)
    if proc.returncode:
        raise SystemExit(f"the LightRAG worker failed (exit {proc.returncode}); its stderr is above. "
                         f"Rerun it alone: {python} {WORKER} DIR, or delete {args.lightrag_venv} to rebuild the venv")
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    if out["llm_calls"]:
        raise SystemExit(f"LightRAG called its LLM {out['llm_calls']} times; the comparison is void")
    if out["embed_misses"]:
        raise SystemExit(f"LightRAG asked for vectors of texts the benchmark did not precompute: "
                         f"{out['embed_misses'][:3]}")
    return out


# --------------------------------------------------------------------------------------------- report


def run_dataset(ds: Dataset, args: argparse.Namespace, python: Path | None) -> dict[str, Any]:
    from hybridkg.structural.embedding.factory import make_embedder
    from hybridkg.structural.settings import EmbedderConfig

    kind = args.embedder
    inner = make_embedder(EmbedderConfig(kind=kind, cache_size=0))
    asked = [*ds.warmup, *ds.queries]
    if len(set(asked)) != len(asked):
        raise SystemExit(f"{ds.name}: the warm-up and timed queries are not all distinct; a repeat would run warm")
    print(f"\n== {ds.name}: {len(ds.entities)} entities, {len(ds.relations)} relations, {len(ds.queries)} queries "
          f"(+{len(ds.warmup)} distinct warm-up), embedder {kind} (dim {inner.dim}), top_k {args.top_k}, "
          f"hybridkg seeds k {args.seeds}",
          flush=True)
    for note in ds.notes:
        print(f"   {note}")
    ents, rels, extra = texts_for(ds)
    start = time.perf_counter()
    vecs = embed_all(inner, [*ents, *rels, *extra], f"embed {kind}")
    embed_s = time.perf_counter() - start
    print(f"vectors: {len(vecs)} texts embedded once in {embed_s:.1f} s ({len(vecs) / embed_s:.0f}/s), "
          "shared by both systems", flush=True)
    inner.embed(["load the model", "before timing single queries"])
    q_embed_ms: list[float] = []
    qrows = []
    for q in ds.queries:
        t0 = time.perf_counter()
        qrows.append(inner.embed([q])[0])
        q_embed_ms.append((time.perf_counter() - t0) * 1000)
    qvecs = np.vstack(qrows).astype(np.float32)
    all_qvecs = np.vstack([inner.embed(ds.warmup), qvecs]) if ds.warmup else qvecs

    res: dict[str, Any] = {"dataset": ds.name, "entities": len(ds.entities), "relations": len(ds.relations),
                           "queries": len(ds.queries), "warmup": len(ds.warmup), "embedder": kind,
                           "dim": int(inner.dim), "embed_s": embed_s, "query_embed_p50_ms": pct(q_embed_ms, 50),
                           "top_k": args.top_k, "seeds": args.seeds, "notes": ds.notes, "comparisons": {}}
    if args.minilm_query_cost and kind != "sentence":
        res["minilm_query_embed_p50_ms"] = minilm_query_ms(ds.queries)
    for name in args.comparisons:
        vectors, storage = COMPARISONS[name]
        h = run_hybridkg(ds, inner, kind, vectors, ents, rels, extra, vecs, qvecs, q_embed_ms, args)
        lr = None
        if python is not None:
            lr = run_lightrag(ds, python, storage, vecs[: len(ents)], vecs[len(ents) : len(ents) + len(rels)],
                              all_qvecs, args)
        res["comparisons"][name] = compare(ds, name, h, lr, q_embed_ms)
        print_table(res, name)
    return res


def compare(ds: Dataset, name: str, h: dict[str, Any], lr: dict[str, Any] | None, q_embed_ms: list[float]
            ) -> dict[str, Any]:
    """One comparison's summary: both sides' stores and, per mode, p50/p95 excl and incl, items and overlap."""
    out: dict[str, Any] = {"hybridkg": {k: h[k] for k in ("vectors", "k", "insert_s", "warm_s", "nodes", "edges",
                                                         "insert_embed_misses")}, "modes": {}}
    if lr is not None:
        out["lightrag"] = {k: lr[k] for k in ("version", "vector_storage", "insert_s", "insert_lookup_s", "nodes",
                                              "edges", "llm_calls")}
    for side in ("hybridkg", "lightrag"):
        got = out.get(side)
        if got and (got["nodes"], got["edges"]) != (len(ds.entities), len(ds.relations)):
            print(f"warning ({name}): {side} stored {got['nodes']} entities / {got['edges']} relations, not the "
                  f"{len(ds.entities)} / {len(ds.relations)} given: the two systems do not hold the same graph")
    for mode, hm in h["modes"].items():
        row: dict[str, Any] = {
            "hybridkg_p50_ms": pct(hm["excl_ms"], 50), "hybridkg_p95_ms": pct(hm["excl_ms"], 95),
            "hybridkg_incl_p50_ms": pct(hm["incl_ms"], 50), "hybridkg_incl_p95_ms": pct(hm["incl_ms"], 95),
            "hybridkg_items": np.mean(hm["counts"], axis=0).round(1).tolist(),
        }
        if lr is not None:
            lm = lr["modes"][mode]
            excl = [t - e for t, e in zip(lm["total_ms"], lm["lookup_ms"], strict=True)]
            incl = [x + e for x, e in zip(excl, q_embed_ms, strict=True)]
            row.update({
                "lightrag_p50_ms": pct(excl, 50), "lightrag_p95_ms": pct(excl, 95),
                "lightrag_incl_p50_ms": pct(incl, 50), "lightrag_incl_p95_ms": pct(incl, 95),
                "lightrag_lookup_p50_ms": pct(lm["lookup_ms"], 50),
                "lightrag_items": np.mean(lm["counts"], axis=0).round(1).tolist(),
                "lightrag_no_context": lm["failures"],
                "lightrag_context_chars_p50": pct(lm["context_chars"], 50),
                "entity_overlap": overlap(lm["entities"], hm["entities"]),
            })
            row["ratio"] = row["hybridkg_p50_ms"] / row["lightrag_p50_ms"]
            row["ratio_incl"] = row["hybridkg_incl_p50_ms"] / row["lightrag_incl_p50_ms"]
        out["modes"][mode] = row
    return out


def minilm_query_ms(queries: Sequence[str]) -> float:
    """p50 of embedding one query with all-MiniLM-L6-v2: what "incl" would add with the real model."""
    from hybridkg.structural.embedding.sentence import SentenceEmbedder

    model = SentenceEmbedder()
    model.embed(["warm up"])
    times = []
    for q in queries:
        t0 = time.perf_counter()
        model.embed([q])
        times.append((time.perf_counter() - t0) * 1000)
    return pct(times, 50)


def overlap(lightrag: list[list[str]], hybrid: list[list[str]]) -> float | None:
    """Share of LightRAG's returned entities that hybridkg also returned, over all queries."""
    both = total = 0
    for a, b in zip(lightrag, hybrid, strict=True):
        keys = {name_key(n) for n in b}
        total += len(a)
        both += sum(name_key(n) in keys for n in a)
    return both / total if total else None


def print_table(res: dict[str, Any], name: str) -> None:
    c = res["comparisons"][name]
    h, lr = c["hybridkg"], c.get("lightrag")
    print(f"\n{res['dataset']}, comparison '{name}': hybridkg vectors {h['vectors']} (k = {h['k']} seeds), insert "
          f"{h['insert_s']:.1f} s (+ warm {h['warm_s']:.1f} s)"
          + (f"; LightRAG {lr['version']} {lr['vector_storage']} (top_k {res['top_k']}), insert {lr['insert_s']:.1f} s,"
             f" LLM calls: {lr['llm_calls']}" if lr else "")
          + f"; vectors {res['embed_s']:.1f} s ({res['embedder']}), not in either insert;"
          f" query embedding p50 {res['query_embed_p50_ms']:.2f} ms"
          + (f" (all-MiniLM-L6-v2: {res['minilm_query_embed_p50_ms']:.1f} ms)" if "minilm_query_embed_p50_ms" in res
             else ""))
    head = (f"{'mode':<7} | {'hybridkg p50/p95 excl':>21} | {'incl (2nd pass)':>15} | {'LightRAG p50/p95 excl':>21} | "
            f"{'incl':>13} | {'ratio':>6} | {'items h (e/r/c)':>16} | {'items L (e/r/c)':>16} | overlap")
    print(head)
    print("-" * len(head))
    for mode, r in c["modes"].items():
        line = (f"{mode:<7} | {r['hybridkg_p50_ms']:>9.2f} / {r['hybridkg_p95_ms']:>7.2f} ms | "
                f"{r['hybridkg_incl_p50_ms']:>7.2f}/{r['hybridkg_incl_p95_ms']:>7.2f} | ")
        if "lightrag_p50_ms" in r:
            ov = r["entity_overlap"]
            line += (f"{r['lightrag_p50_ms']:>9.2f} / {r['lightrag_p95_ms']:>7.2f} ms | "
                     f"{r['lightrag_incl_p50_ms']:>6.1f}/{r['lightrag_incl_p95_ms']:>6.1f} | {r['ratio']:>5.3f}x | "
                     f"{'/'.join(f'{x:g}' for x in r['hybridkg_items']):>16} | "
                     f"{'/'.join(f'{x:g}' for x in r['lightrag_items']):>16} | "
                     + (f"{ov:.0%}" if ov is not None else "-"))
        print(line)
    print("ratio = hybridkg p50 / LightRAG p50, both excluding the query embedding, each query timed once (cold); "
          "incl = a separate later hybridkg pass embedding each query (LightRAG: excl + the measured embedding); "
          "items = mean entities / relations / chunks returned; overlap = share of LightRAG's entities hybridkg "
          "also returned", flush=True)


def headline(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The summary line: the headline mode on the largest synthetic graph (else the first dataset), from the
    comparison with the higher hybridkg / LightRAG ratio; the other comparisons' ratios ride along."""
    synth = [r for r in results if r["dataset"].startswith("synthetic")]
    head = max(synth, key=lambda r: r["entities"]) if synth else results[0]
    rows = {}
    for name, c in head["comparisons"].items():
        rows[name] = c["modes"].get(HEADLINE) or next(iter(c["modes"].values()))
    rated = {n: r for n, r in rows.items() if r.get("ratio") is not None}
    worst = max(rated, key=lambda n: rated[n]["ratio"]) if rated else next(iter(rows))
    m = rows[worst]
    y = m.get("lightrag_p50_ms")
    out = {"entities": head["entities"], "hybridkg_p50_ms": round(m["hybridkg_p50_ms"], 3),
           "lightrag_p50_ms": round(y, 3) if y else None, "ratio": round(m["ratio"], 4) if y else None,
           "mode": HEADLINE, "comparison": worst}
    out.update({f"ratio_{n}": round(r["ratio"], 4) for n, r in rated.items()})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--quick", action="store_true", help="10k-entity synthetic graph, 50 queries (~2 min)")
    ap.add_argument("--entities", type=int, help="synthetic graph size (default 100000, quick 10000)")
    ap.add_argument("--queries", type=int, help="timed queries per mode (default 200, quick 50)")
    ap.add_argument("--datasets", default=None, help="comma list of synthetic, metaqa (default both, quick synthetic)")
    ap.add_argument("--modes", default=",".join(MODES), help="comma list of modes")
    ap.add_argument("--top-k", type=int, default=10,
                    help="on both sides: vector seeds (hybridkg retrieval.k, LightRAG top_k) and items kept (hybridkg "
                    "top_k, LightRAG top_k and chunk_top_k)")
    ap.add_argument("--seeds", type=int, default=None,
                    help="hybridkg's vector seeds (retrieval.k); default --top-k, LightRAG's (library default: 8)")
    ap.add_argument("--comparisons", default=",".join(COMPARISONS),
                    help="comma list: default (hybridkg auto/HNSW vs LightRAG NanoVectorDB), exact (exact search on "
                    "both sides)")
    ap.add_argument("--embedder", choices=("hash", "sentence"), default="hash",
                    help="vectors for both systems: hash (default; all-MiniLM-L6-v2 embeds ~50-90 texts/s on this "
                    "machine, ~45 min for MetaQA's 150k texts) or sentence")
    ap.add_argument("--minilm-query-cost", action=argparse.BooleanOptionalAction, default=None,
                    help="also time all-MiniLM-L6-v2 on each query (default: on, off with --quick)")
    ap.add_argument("--graph", default="falkordb", choices=("falkordb", "memory"), help="hybridkg graph backend")
    ap.add_argument("--cosine-threshold", type=float, default=-1.0,
                    help="LightRAG's cosine_better_than_threshold (default off: hybridkg has none)")
    ap.add_argument("--skip-lightrag", action="store_true", help="hybridkg only")
    ap.add_argument("--no-incl", action="store_true",
                    help="no separate hybridkg pass with embedding: incl = excl + the query's measured embedding time")
    ap.add_argument("--lightrag-venv", type=Path, default=LIGHTRAG_VENV, help="virtualenv for lightrag-hku")
    ap.add_argument("--json", type=Path, help="write the full summary (every dataset and mode) to this file")
    args = ap.parse_args()
    args.modes = [m for m in args.modes.split(",") if m]
    if bad := set(args.modes) - set(MODES):
        raise SystemExit(f"unknown mode(s) {sorted(bad)}; choose from {', '.join(MODES)}")
    args.seeds = args.seeds or args.top_k
    args.comparisons = [c for c in args.comparisons.split(",") if c]
    if not args.comparisons or (bad := set(args.comparisons) - set(COMPARISONS)):
        raise SystemExit(f"unknown comparison(s) {args.comparisons}; choose from {', '.join(COMPARISONS)}")
    n_ent = args.entities or (10_000 if args.quick else 100_000)
    n_q = args.queries or (50 if args.quick else 200)
    if args.minilm_query_cost is None:
        args.minilm_query_cost = not args.quick
    names = (args.datasets or ("synthetic" if args.quick else "synthetic,metaqa")).split(",")
    python = None if args.skip_lightrag else lightrag_python(args.lightrag_venv)
    start = time.perf_counter()
    load = os.getloadavg()[0]
    results = []
    for name in names:
        if name == "synthetic":
            ds = synthetic(n_ent, n_queries=n_q, n_warmup=10 if args.quick else 20)
        elif name == "metaqa":
            ds = metaqa(shared("kgqa", "metaqa", "kb.txt"), n_queries=n_q, n_warmup=10 if args.quick else 20)
        else:
            raise SystemExit(f"unknown dataset {name!r}; choose synthetic or metaqa")
        results.append(run_dataset(ds, args, python))
        if args.json:  # after each dataset, so an interrupted run keeps what finished
            args.json.write_text(json.dumps({"argv": sys.argv[1:], "run_s": time.perf_counter() - start,
                                             "load_start": load, "load_now": os.getloadavg()[0],
                                             "results": results}, indent=1))
    took = time.perf_counter() - start
    print(f"\nrun time {took:.0f} s (LightRAG venv creation excluded); load average {load:.1f} at start, "
          f"{os.getloadavg()[0]:.1f} at end on {os.cpu_count()} cores")
    print(json.dumps(headline(results)))


if __name__ == "__main__":
    main()
