"""Exact cosine top-k: a float32 matrix of unit vectors searched with one matrix-vector product.

The vectors are kept twice, in two float32 matrices that grow by doubling: as the columns of a ``dim x
capacity`` matrix, which search multiplies by the query (with OpenBLAS, ``q @ M`` over columns runs 2-5x
faster than ``M @ q`` over rows: 1.1 against 2.9 ms at 20k x 384, 8.5 against 20 ms at 100k, one thread on
the project's 2-core VM), and as the rows of a ``capacity x dim`` matrix, from which :meth:`ExactIndex.get`
(the retrieval hot path: every node of the query's subgraph) takes contiguous rows (300 ids: ~20-30 us,
against 0.3-2 ms gathering strided columns). Memory: 2 x 4 x dim bytes a vector (3 KB at 384 dimensions;
300 MB for 100k), against half that for one copy. An id maps to its slot in O(1) and a removal moves the
last slot into the hole, so the first ``len(self)`` slots of both are exactly the live vectors. Saved as
``exact.json`` (ids, dimension, file names) + a snapshot ``exact-<generation>.npy`` holding one row per
vector + its delta log (see :mod:`.saved`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hybridkg.structural.base import Vector, VectorHit
from hybridkg.structural.vectors.common import corrupt, hit, id_list, unit_query, write_atomic
from hybridkg.structural.vectors.saved import SavedIndex

MANIFEST = "exact.json"
KIND = "hybridkg-exact"
VERSION = 2  # 1: no delta log


@functools.cache
def _blas() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def single_threaded_blas() -> Any:
    """One BLAS thread for a single-query product: waking a BLAS thread pool costs more than the product
    itself at these sizes (0.3-0.6 ms instead of 1-4 ms for 10k x 384 on a busy 2-core machine)."""
    return _blas().limit(limits=1, user_api="blas")


class ExactIndex(SavedIndex):
    """Brute-force cosine search; the right choice up to a few tens of thousands of vectors."""

    MANIFEST, KIND, VERSION, PREFIX, SUFFIX = MANIFEST, KIND, VERSION, "exact", ".npy"
    OLDER_VERSIONS = (1,)
    # bench/persist.py, 100k x 384: replaying a 74 MB log added 0.63 s to a 0.79 s load of the 148 MB snapshot,
    # a compaction took 1.7 s; at a quarter, a full log adds ~40% to the load and compactions ~3 ms per document
    COMPACT_FRACTION = 0.25

    def __init__(
        self, dim: int, path: Path | None = None, *, fresh: bool = False, compact_fraction: float | None = None
    ) -> None:
        """Open the index saved in ``path`` (none yet: empty); ``fresh`` ignores it and the next save replaces it.
        ``compact_fraction``: see :mod:`.saved` (0 writes a full snapshot on every save)."""
        super().__init__(dim, path, fresh, compact_fraction)
        self._cols = np.zeros((self._dim, 0), dtype=np.float32)  # search
        self._rows = np.zeros((0, self._dim), dtype=np.float32)  # get, items, save
        self._ids: list[str] = []
        self._row: dict[str, int] = {}
        self._open()

    def _members(self) -> dict[str, int]:
        return self._row

    def _put(self, ids: list[str], rows: Vector) -> None:
        added = [i for i in ids if i not in self._row]
        self._reserve(len(self._ids) + len(added))
        for id_ in added:
            self._row[id_] = len(self._ids)
            self._ids.append(id_)
        where = np.fromiter((self._row[i] for i in ids), dtype=np.int64, count=len(ids))
        self._cols[:, where] = rows.T
        self._rows[where] = rows

    def _drop(self, ids: Sequence[str]) -> list[str]:
        gone = []
        for id_ in ids:
            row = self._row.pop(id_, None)
            if row is None:
                continue
            last = len(self._ids) - 1
            if row != last:
                moved = self._ids[last]
                self._cols[:, row] = self._cols[:, last]
                self._rows[row] = self._rows[last]
                self._ids[row] = moved
                self._row[moved] = row
            self._ids.pop()
            gone.append(id_)
        return gone

    def search(self, query: Vector, k: int) -> list[VectorHit]:
        q = unit_query(query, self._dim, k)
        with self._lock:
            n = len(self._ids)
            if n == 0:
                return []
            with single_threaded_blas():
                sims = q @ self._cols[:, :n]
            if k < n:
                top = np.argpartition(-sims, k - 1)[:k]
                top = top[np.argsort(-sims[top], kind="stable")]
            else:
                top = np.argsort(-sims, kind="stable")
            return [hit(self._ids[r], sims[r]) for r in top.tolist()]

    def items(self) -> tuple[list[str], Vector]:
        """Every id with its unit vector (a copy), in storage order."""
        with self._lock:
            return list(self._ids), self._rows[: len(self._ids)].copy()

    def get(self, ids: Sequence[str]) -> tuple[list[str], Vector]:
        ids = id_list(ids)
        with self._lock:
            found = [i for i in dict.fromkeys(ids) if i in self._row]
            where = np.fromiter((self._row[i] for i in found), dtype=np.int64, count=len(found))
            return found, self._rows.take(where, axis=0)

    def ids(self) -> list[str]:
        with self._lock:
            return list(self._ids)

    def _write_data(self, target: Path) -> dict[str, Any]:
        matrix = self._rows[: len(self._ids)]
        write_atomic(target, lambda f: np.save(f, matrix, allow_pickle=False))
        return {"ids": self._ids}

    def _reserve(self, n: int) -> None:
        capacity = self._cols.shape[1]
        if n <= capacity:
            return
        size, live = max(n, 2 * capacity, 64), len(self._ids)
        cols = np.zeros((self._dim, size), dtype=np.float32)
        cols[:, :live] = self._cols[:, :live]
        rows = np.zeros((size, self._dim), dtype=np.float32)
        rows[:live] = self._rows[:live]
        self._cols, self._rows = cols, rows

    def _load_snapshot(self, manifest: dict[str, Any], file: Path) -> None:
        path = file.parent
        ids = manifest.get("ids")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise corrupt(path, f"{MANIFEST} lacks its ids")
        try:
            data = np.load(file, allow_pickle=False)
        except (OSError, ValueError, EOFError) as e:
            raise corrupt(path, f"the data file {file.name} is unreadable: {e}") from e
        if data.dtype != np.float32 or data.shape != (len(ids), self._dim):
            expected = f"float32 {(len(ids), self._dim)}"
            raise corrupt(path, f"the data file {file.name} holds {data.dtype} {data.shape}, expected {expected}")
        row = {id_: r for r, id_ in enumerate(ids)}
        if len(row) != len(ids):
            raise corrupt(path, f"{MANIFEST} lists an id twice")
        rows = np.ascontiguousarray(data)
        self._cols, self._rows, self._ids, self._row = np.ascontiguousarray(rows.T), rows, ids, row
