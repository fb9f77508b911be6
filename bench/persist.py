"""Cost of saving one document's vectors into a large vector index: full rewrite vs delta log.

    python -m bench.persist [--quick] [--n 100000] [--dim 384] [--docs 20] [--kinds exact hnsw]

For each index kind, builds an index of ``--n`` clustered unit vectors (the model of bench.vectors) in a
temporary directory under /tmp, saves it, then adds ``--docs`` documents of 40 vectors each (30 new ids,
10 replaced ones, as re-ingesting an entity does), timing ``upsert`` + ``save()`` per document:

* before: ``compact_fraction=0``, so every save writes the whole index as a new snapshot + manifest, which is
  what ``save()`` did before the delta log (same files, same fsyncs);
* after: the default policy, so a save appends one record to the delta log; "amortised" adds the cost of
  the compaction that the log eventually triggers, spread over the documents between two compactions.

Then fills the log up to the point where the next save would compact, and times opening the index with
that log (snapshot + replay) against opening it right after a compaction. Files are in the page cache in
both cases (the machine's disk is not what is measured). ``--quick``: 10k vectors, 8 documents.
Prints one JSON line per measurement, then a table.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bench.vectors import clustered
from hybridkg.structural.vectors.exact import ExactIndex
from hybridkg.structural.vectors.hnsw import HnswIndex
from hybridkg.structural.vectors.saved import SavedIndex

DOC_VECTORS, DOC_REPLACED = 40, 10
Opener = Callable[[Path], SavedIndex]


def opener(kind: str, dim: int) -> Opener:
    if kind == "exact":
        return lambda path: ExactIndex(dim, path)
    return lambda path: HnswIndex(dim, path)


class Docs:
    """Document-sized batches: new ids from a pool of held-out vectors, plus replacements of existing ids."""

    def __init__(self, pool: np.ndarray, n_existing: int, seed: int = 1) -> None:
        self._pool, self._n, self._next = pool, n_existing, 0
        self._rng = np.random.default_rng(seed)

    def next(self) -> tuple[list[str], np.ndarray]:
        new = DOC_VECTORS - DOC_REPLACED
        ids = [f"new{self._next + i}" for i in range(new)]
        replaced = [f"e{i}" for i in self._rng.choice(self._n, size=DOC_REPLACED, replace=False)]
        rows = self._pool[self._rng.integers(0, len(self._pool), size=DOC_VECTORS)]
        self._next += new
        return ids + replaced, rows


def add_doc(index: SavedIndex, docs: Docs) -> tuple[float, float]:
    """Milliseconds for the upsert and for the save."""
    ids, rows = docs.next()
    t0 = time.perf_counter()
    index.upsert(ids, rows)
    t1 = time.perf_counter()
    index.save()
    return (t1 - t0) * 1e3, (time.perf_counter() - t1) * 1e3


def median(times: list[tuple[float, float]], part: int | None = None) -> float:
    return statistics.median(sum(t) if part is None else t[part] for t in times)


def timed_open(open_index: Opener, path: Path) -> tuple[float, SavedIndex]:
    t0 = time.perf_counter()
    index = open_index(path)
    return (time.perf_counter() - t0) * 1e3, index


def run(kind: str, n: int, dim: int, n_docs: int, root: Path) -> list[dict[str, object]]:
    data, pool = clustered(n, 5_000, dim, clusters=200)
    path = root / kind
    open_index = opener(kind, dim)
    index = open_index(path)
    t0 = time.perf_counter()
    index.upsert([f"e{i}" for i in range(n)], data)
    build_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    index.save()
    first_save_ms = (time.perf_counter() - t0) * 1e3
    docs = Docs(pool, n)
    out: list[dict[str, object]] = []

    default_fraction = index.compact_fraction
    index.compact_fraction = 0.0
    before = [add_doc(index, docs) for _ in range(n_docs)]
    index.compact_fraction = default_fraction
    after = [add_doc(index, docs) for _ in range(n_docs)]
    per_doc_log = index.log_bytes / n_docs
    t0 = time.perf_counter()
    index.compact()
    compact_ms = (time.perf_counter() - t0) * 1e3
    docs_per_compaction = max(1, int(index.log_limit // per_doc_log))
    amortised = median(after) + compact_ms / docs_per_compaction
    out.append(
        {
            "kind": kind,
            "n": n,
            "dim": dim,
            "build_s": round(build_s, 1),
            "first_save_ms": round(first_save_ms, 1),
            "upsert_ms": round(median(before + after, 0), 2),
            "before_save_ms": round(median(before, 1), 2),
            "after_save_ms": round(median(after, 1), 2),
            "before_ms": round(median(before), 2),
            "after_ms": round(median(after), 2),
            "after_max_ms": round(max(sum(t) for t in after), 2),
            "compaction_ms": round(compact_ms, 1),
            "docs_per_compaction": docs_per_compaction,
            "after_amortised_ms": round(amortised, 2),
            "speedup": round(median(before) / median(after), 1),
            "speedup_amortised": round(median(before) / amortised, 1),
        }
    )
    print(json.dumps(out[-1]), flush=True)

    filled = 0
    while index.log_bytes + per_doc_log <= index.log_limit:
        add_doc(index, docs)
        filled += 1
    long_log_bytes = index.log_bytes
    snapshot_bytes = sum(p.stat().st_size for p in path.iterdir() if p.suffix in (".npy", ".bin"))
    del index
    load_long_ms, reopened = timed_open(open_index, path)
    reopened.compact()
    del reopened
    load_compacted_ms, _ = timed_open(open_index, path)
    out.append(
        {
            "kind": kind,
            "n": n,
            "snapshot_mb": round(snapshot_bytes / 2**20, 1),
            "log_mb": round(long_log_bytes / 2**20, 1),
            "log_records": filled,
            "load_long_log_ms": round(load_long_ms, 1),
            "load_compacted_ms": round(load_compacted_ms, 1),
        }
    )
    print(json.dumps(out[-1]), flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--quick", action="store_true", help="10k vectors, 8 documents")
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--docs", type=int, default=20)
    ap.add_argument("--kinds", nargs="+", default=["exact", "hnsw"], choices=["exact", "hnsw"])
    args = ap.parse_args()
    n, n_docs = (10_000, 8) if args.quick else (args.n, args.docs)
    root = Path(tempfile.mkdtemp(prefix="hkg-persist-", dir="/tmp"))
    try:
        rows = [row for kind in args.kinds for row in run(kind, n, args.dim, n_docs, root)]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print()
    print(
        f"{'index':6} {'n':>7} {'upsert':>7} {'save before':>12} {'save after':>11} "
        f"{'doc before':>11} {'doc after':>10} {'amortised':>10} {'ratio':>6} {'amortised':>10}"
    )
    for r in rows:
        if "before_ms" in r:
            print(
                f"{r['kind']!s:6} {r['n']!s:>7} {r['upsert_ms']!s:>7} {r['before_save_ms']!s:>12} "
                f"{r['after_save_ms']!s:>11} {r['before_ms']!s:>11} {r['after_ms']!s:>10} "
                f"{r['after_amortised_ms']!s:>10} {r['speedup']!s:>5}x {r['speedup_amortised']!s:>9}x"
            )
    print()
    print(f"{'index':6} {'snapshot MB':>11} {'log MB':>7} {'records':>8} {'load, long log ms':>18} {'compacted':>10}")
    for r in rows:
        if "load_long_log_ms" in r:
            print(
                f"{r['kind']!s:6} {r['snapshot_mb']!s:>11} {r['log_mb']!s:>7} {r['log_records']!s:>8} "
                f"{r['load_long_log_ms']!s:>18} {r['load_compacted_ms']!s:>13}"
            )


if __name__ == "__main__":
    main()
