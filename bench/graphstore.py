"""The embedded FalkorDB graph store and its native vector index: bulk upserts, ego-network latency, recall.

    python -m bench.graphstore graph   [--nodes 100000] [--edges 300000] [--ids 8] [--calls 500]
    python -m bench.graphstore vectors [--n 20000] [--dim 384] [--queries 200] [--ef 128]

``graph`` upserts ``--nodes`` Entity nodes with LightRAG-like properties, then ``--edges`` RELATED edges (half
uniform, half towards a Zipf-like set of hubs), then times ``neighbourhood(ENTITY, ids, depth=1,
rel_types=[RELATED])`` for ``--ids`` random non-hub ids per call, and the restart after ``kill -9``.
``vectors`` stores ``--n`` clustered unit vectors as Entity embeddings and measures recall@10 against exact
numpy search: with FalkorDB's default efRuntime (10), with ``--ef`` candidates fetched from that index, and
with an index built with ``efRuntime = --ef`` (what NativeVectorIndex creates). Prints one JSON line per result.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

from hybridkg.structural.base import ENTITY, RELATED, EdgeRow
from hybridkg.structural.graphstore.falkordb_store import FalkorDBGraphStore
from hybridkg.structural.settings import VectorConfig
from hybridkg.structural.vectors.native import NativeVectorIndex

F32 = npt.NDArray[np.float32]


def emit(**row: object) -> None:
    print(json.dumps(row), flush=True)


def bench_graph(args: argparse.Namespace) -> None:
    rng = np.random.default_rng(1)
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp, FalkorDBGraphStore.managed(Path(tmp) / "g") as store:
        rows = [
            {
                "id": f"ent:{i}",
                "name": f"entity {i}",
                "norm": f"entity {i}",
                "type": "concept",
                "description": f"entity {i} is a thing that appears in several documents",
                "domain": "bench",
                "source_chunks": [f"chunk:{i % 5000}"],
            }
            for i in range(args.nodes)
        ]
        t = time.perf_counter()
        store.upsert_nodes(ENTITY, rows)
        emit(what="upsert_nodes", n=args.nodes, seconds=round(time.perf_counter() - t, 2))

        hubs = np.minimum(rng.zipf(1.5, args.edges), args.nodes) - 1
        dst = np.where(np.arange(args.edges) % 2 == 0, rng.integers(0, args.nodes, args.edges), hubs)
        src = rng.integers(0, args.nodes, args.edges)
        props = {
            "type": "related_to",
            "keywords": "alpha\x1fbeta",
            "description": "they appear together",
            "w_struct": 1.0,
            "w_attn": 1.0,
            "attn_epoch": 0,
            "source_chunks": ["chunk:1"],
            "domain": "bench",
        }
        edges = [
            EdgeRow(f"rel:{i}", f"ent:{s}", f"ent:{d}", ENTITY, ENTITY, props)
            for i, (s, d) in enumerate(zip(src.tolist(), dst.tolist(), strict=True))
        ]
        t = time.perf_counter()
        store.upsert_edges(RELATED, edges)
        emit(what="upsert_edges", n=args.edges, seconds=round(time.perf_counter() - t, 2))

        lat, sizes = [], []
        for _ in range(args.calls):
            ids = [f"ent:{i}" for i in rng.integers(1000, args.nodes, args.ids)]
            t = time.perf_counter()
            sub = store.neighbourhood(ENTITY, ids, depth=1, rel_types=[RELATED])
            lat.append(time.perf_counter() - t)
            sizes.append((len(sub.nodes), len(sub.edges)))
        lat.sort()
        emit(
            what="neighbourhood_depth1",
            ids=args.ids,
            p50_ms=round(1000 * lat[len(lat) // 2], 3),
            p90_ms=round(1000 * lat[int(len(lat) * 0.9)], 3),
            mean_nodes=round(statistics.mean(n for n, _ in sizes), 1),
            mean_edges=round(statistics.mean(e for _, e in sizes), 1),
        )

        server = store.server
        assert server is not None
        assert server.pid is not None
        os.kill(server.pid, signal.SIGKILL)
        t = time.perf_counter()
        count = store.query("MATCH ()-[r:RELATED]->() RETURN count(r) AS c")[0]["c"]
        emit(what="recover_after_kill9", seconds=round(time.perf_counter() - t, 2), edges=count)


def clustered(n: int, n_queries: int, dim: int, clusters: int = 200, seed: int = 7) -> tuple[F32, F32]:
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    spread = rng.uniform(0.6, 1.3, clusters)
    share = rng.dirichlet(np.full(clusters, 0.5))

    def draw(count: int) -> F32:
        which = rng.choice(clusters, size=count, p=share)
        x = centres[which] + spread[which, None] * rng.standard_normal((count, dim)) / np.sqrt(dim)
        return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)

    return draw(n), draw(n_queries)


def recall(index: NativeVectorIndex, queries: F32, truth: npt.NDArray[np.int64]) -> tuple[float, float]:
    found, lat = [], []
    for q, want in zip(queries, truth, strict=True):
        t = time.perf_counter()
        hits = index.search(q, 10)
        lat.append(time.perf_counter() - t)
        found.append(len({int(h.id.split(":")[1]) for h in hits} & set(want.tolist())) / 10)
    return float(np.mean(found)), 1000 * statistics.median(lat)


def bench_vectors(args: argparse.Namespace) -> None:
    data, queries = clustered(args.n, args.queries, args.dim)
    truth = np.argsort(-(queries @ data.T), axis=1)[:, :10]
    ids = [f"ent:{i}" for i in range(args.n)]
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp, FalkorDBGraphStore.managed(Path(tmp) / "g") as store:
        for label, index_ef in (("Entity", 10), ("Chunk", args.ef)):
            ids = [f"{label.lower()}:{i}" for i in range(args.n)]
            store.upsert_nodes(label, [{"id": i} for i in ids])
            index = NativeVectorIndex(store, label, args.dim, VectorConfig(hnsw_ef_search=index_ef))
            t = time.perf_counter()
            index.upsert(ids, data)
            emit(what="native_upsert", n=args.n, index_ef=index_ef, seconds=round(time.perf_counter() - t, 2))
            r, ms = recall(index, queries, truth)
            emit(what="native_recall@10", index_ef=index_ef, fetched=10, recall=round(r, 4), p50_ms=round(ms, 3))
            if index_ef < args.ef:
                wide = NativeVectorIndex(store, label, args.dim, VectorConfig(hnsw_ef_search=args.ef))
                r, ms = recall(wide, queries, truth)
                emit(
                    what="native_recall@10", index_ef=index_ef, fetched=args.ef, recall=round(r, 4), p50_ms=round(ms, 3)
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    g = sub.add_parser("graph")
    g.add_argument("--nodes", type=int, default=100_000)
    g.add_argument("--edges", type=int, default=300_000)
    g.add_argument("--ids", type=int, default=8)
    g.add_argument("--calls", type=int, default=500)
    v = sub.add_parser("vectors")
    v.add_argument("--n", type=int, default=20_000)
    v.add_argument("--dim", type=int, default=384)
    v.add_argument("--queries", type=int, default=200)
    v.add_argument("--ef", type=int, default=128)
    args = parser.parse_args()
    bench_graph(args) if args.what == "graph" else bench_vectors(args)


if __name__ == "__main__":
    main()
