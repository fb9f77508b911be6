"""HNSW libraries on clustered unit vectors: build time, single-query latency and recall@10 against exact search.

    python -m bench.vectors [--n 100000] [--dim 384] [--clusters 200] [--queries 1000] [--m 16]
                            [--ef-construction 200] [--ef-search 64 128] [--threads 2] [--libs usearch hnswlib faiss]

The data imitates sentence embeddings: 200 topic centres on the unit sphere, cluster sizes drawn from a
Dirichlet (a few large topics, many small ones), each cluster with its own spread (cosine to its centre
0.6-0.85), all rows normalised. Queries come from the same model but are not in the index. Every library
builds with the same M / efConstruction on ``--threads`` threads and answers one query per call on one
thread (the way the retriever calls it); ground truth is an exact numpy inner product. Prints one JSON
line per library and ef, then a table.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from importlib.metadata import version

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
I64 = npt.NDArray[np.int64]
Search = Callable[[F32, int], I64]


@dataclass(frozen=True, slots=True)
class Row:
    lib: str
    version: str
    ef_search: int
    build_s: float
    p50_query_ms: float
    p99_query_ms: float
    recall_at_10: float


def clustered(n: int, n_queries: int, dim: int, clusters: int, seed: int = 7) -> tuple[F32, F32]:
    """``n`` data rows and ``n_queries`` held-out query rows drawn from one clustered model."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim)).astype(np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    share = rng.dirichlet(np.full(clusters, 2.0))
    spread = rng.uniform(0.6, 1.3, clusters).astype(np.float32)

    def draw(count: int) -> F32:
        which = rng.choice(clusters, size=count, p=share)
        noise = rng.standard_normal((count, dim)).astype(np.float32) / np.float32(np.sqrt(dim))
        x = centres[which] + spread[which, None] * noise
        return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)

    return draw(n), draw(n_queries)


def exact_top(data: F32, queries: F32, k: int) -> I64:
    out = np.empty((len(queries), k), dtype=np.int64)
    for start in range(0, len(queries), 256):
        sims = queries[start : start + 256] @ data.T
        part = np.argpartition(-sims, k, axis=1)[:, :k]
        order = np.take_along_axis(sims, part, axis=1).argsort(axis=1)[:, ::-1]
        out[start : start + 256] = np.take_along_axis(part, order, axis=1)
    return out


def build_usearch(data: F32, m: int, efc: int, threads: int) -> tuple[str, Callable[[int], Search]]:
    from usearch.index import Index

    index = Index(ndim=data.shape[1], metric="cos", dtype="f32", connectivity=m, expansion_add=efc)
    index.add(np.arange(len(data), dtype=np.uint64), data, threads=threads)

    def at(ef: int) -> Search:
        index.expansion_search = ef
        return lambda q, k: np.asarray(index.search(q, k, threads=1).keys, dtype=np.int64)

    return version("usearch"), at


def build_hnswlib(data: F32, m: int, efc: int, threads: int) -> tuple[str, Callable[[int], Search]]:
    import hnswlib

    index = hnswlib.Index(space="ip", dim=data.shape[1])
    index.init_index(max_elements=len(data), ef_construction=efc, M=m)
    index.add_items(data, np.arange(len(data)), num_threads=threads)

    def at(ef: int) -> Search:
        index.set_ef(ef)
        return lambda q, k: np.asarray(index.knn_query(q, k=k, num_threads=1)[0][0], dtype=np.int64)

    return version("hnswlib"), at


def build_faiss(data: F32, m: int, efc: int, threads: int) -> tuple[str, Callable[[int], Search]]:
    import faiss

    faiss.omp_set_num_threads(threads)
    index = faiss.IndexHNSWFlat(data.shape[1], m, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = efc
    index.add(data)

    def at(ef: int) -> Search:
        faiss.omp_set_num_threads(1)
        index.hnsw.efSearch = ef
        return lambda q, k: np.asarray(index.search(q[None, :], k)[1][0], dtype=np.int64)

    return version("faiss-cpu"), at


BUILDERS = {"usearch": build_usearch, "hnswlib": build_hnswlib, "faiss": build_faiss}


def measure(search: Search, queries: F32, truth: I64, k: int) -> tuple[float, float, float]:
    for q in queries[:50]:
        search(q, k)
    times = []
    found = 0
    for q, want in zip(queries, truth, strict=True):
        t0 = time.perf_counter()
        got = search(q, k)
        times.append(time.perf_counter() - t0)
        found += len(set(got.tolist()) & set(want.tolist()))
    times.sort()
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    return statistics.median(times) * 1e3, p99 * 1e3, found / truth.size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--clusters", type=int, default=200)
    ap.add_argument("--queries", type=int, default=1_000)
    ap.add_argument("--m", type=int, default=16)
    ap.add_argument("--ef-construction", type=int, default=200)
    ap.add_argument("--ef-search", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--libs", nargs="+", default=list(BUILDERS), choices=list(BUILDERS))
    args = ap.parse_args()
    k = 10

    data, queries = clustered(args.n, args.queries, args.dim, args.clusters)
    t0 = time.perf_counter()
    truth = exact_top(data, queries, k)
    exact_s = time.perf_counter() - t0
    print(json.dumps({"n": args.n, "dim": args.dim, "clusters": args.clusters, "queries": args.queries,
                      "m": args.m, "ef_construction": args.ef_construction, "threads": args.threads,
                      "exact_ms_per_query": round(exact_s / args.queries * 1e3, 3)}))

    rows = []
    for lib in args.libs:
        gc.collect()
        t0 = time.perf_counter()
        version, at = BUILDERS[lib](data, args.m, args.ef_construction, args.threads)
        build_s = time.perf_counter() - t0
        for ef in args.ef_search:
            p50, p99, recall = measure(at(ef), queries, truth, k)
            row = Row(lib, version, ef, round(build_s, 2), round(p50, 3), round(p99, 3), round(recall, 4))
            print(json.dumps(asdict(row)), flush=True)
            rows.append(row)
        del at
    print("\n| library | ef_search | build (s) | p50 query (ms) | p99 query (ms) | recall@10 |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r.lib} {r.version} | {r.ef_search} | {r.build_s} | {r.p50_query_ms} | {r.p99_query_ms} "
              f"| {r.recall_at_10} |")


if __name__ == "__main__":
    main()
