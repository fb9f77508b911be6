"""Exact cosine top-k: a float32 matrix of unit rows searched with one matrix-vector product.

Rows live in a matrix that grows by doubling; an id maps to its row in O(1) and a removal moves the last
row into the hole, so the first ``len(self)`` rows are always exactly the live vectors. Saved as
``exact.json`` (ids, dimension, data file name) + ``exact-<generation>.npy`` (see :mod:`.common`).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..base import Vector, VectorHit
from .common import (
    check_dim,
    corrupt,
    hit,
    new_data_name,
    read_manifest,
    remove_stale,
    stored_dim,
    unit_query,
    unit_rows,
    write_atomic,
    write_manifest,
)

MANIFEST = "exact.json"
KIND = "hybridkg-exact"
VERSION = 1


class ExactIndex:
    """Brute-force cosine search; the right choice up to a few tens of thousands of vectors."""

    def __init__(self, dim: int, path: Path | None = None) -> None:
        self._dim = check_dim(dim)
        self._path = Path(path) if path is not None else None
        self._data = np.zeros((0, dim), dtype=np.float32)
        self._ids: list[str] = []
        self._row: dict[str, int] = {}
        self._lock = threading.RLock()
        self._dirty = False
        if self._path is not None:
            self._load(self._path)

    @property
    def dim(self) -> int:
        return self._dim

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, id_: object) -> bool:
        return id_ in self._row

    def upsert(self, ids: Sequence[str], vectors: Vector) -> None:
        ids, rows = unit_rows(ids, vectors, self._dim)
        if not ids:
            return
        with self._lock:
            fresh = [i for i in ids if i not in self._row]
            self._reserve(len(self._ids) + len(fresh))
            for id_ in fresh:
                self._row[id_] = len(self._ids)
                self._ids.append(id_)
            where = np.fromiter((self._row[i] for i in ids), dtype=np.int64, count=len(ids))
            self._data[where] = rows
            self._dirty = True

    def remove(self, ids: Sequence[str]) -> None:
        with self._lock:
            for id_ in ids:
                row = self._row.pop(id_, None)
                if row is None:
                    continue
                last = len(self._ids) - 1
                if row != last:
                    moved = self._ids[last]
                    self._data[row] = self._data[last]
                    self._ids[row] = moved
                    self._row[moved] = row
                self._ids.pop()
                self._dirty = True

    def search(self, query: Vector, k: int) -> list[VectorHit]:
        q = unit_query(query, self._dim, k)
        with self._lock:
            n = len(self._ids)
            if n == 0:
                return []
            sims = self._data[:n] @ q
            if k < n:
                top = np.argpartition(-sims, k - 1)[:k]
                top = top[np.argsort(-sims[top], kind="stable")]
            else:
                top = np.argsort(-sims, kind="stable")
            return [hit(self._ids[r], sims[r]) for r in top.tolist()]

    def items(self) -> tuple[list[str], Vector]:
        """Every id with its unit vector (a copy), in storage order."""
        with self._lock:
            return list(self._ids), self._data[: len(self._ids)].copy()

    def save(self) -> None:
        if self._path is None:
            return
        with self._lock:
            if not self._dirty:
                return
            data_name = new_data_name("exact", ".npy")
            matrix = self._data[: len(self._ids)]
            write_atomic(self._path / data_name, lambda f: np.save(f, matrix, allow_pickle=False))
            manifest = {"kind": KIND, "version": VERSION, "dim": self._dim, "data": data_name, "ids": self._ids}
            write_manifest(self._path, MANIFEST, manifest)
            remove_stale(self._path, "exact", ".npy", keep=data_name)
            self._dirty = False

    def _reserve(self, n: int) -> None:
        if n <= self._data.shape[0]:
            return
        grown = np.zeros((max(n, 2 * self._data.shape[0], 64), self._dim), dtype=np.float32)
        grown[: len(self._ids)] = self._data[: len(self._ids)]
        self._data = grown

    def _load(self, path: Path) -> None:
        manifest = read_manifest(path, MANIFEST, KIND, VERSION)
        if manifest is None:
            return
        stored_dim(path, manifest, MANIFEST, self._dim)
        ids, data_name = manifest.get("ids"), manifest.get("data")
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids) or not isinstance(data_name, str):
            raise corrupt(path, f"{MANIFEST} lacks its ids or data file name")
        try:
            data = np.load(path / Path(data_name).name, allow_pickle=False)
        except (OSError, ValueError, EOFError) as e:
            raise corrupt(path, f"{data_name} is missing or unreadable: {e}") from e
        if data.dtype != np.float32 or data.shape != (len(ids), self._dim):
            raise corrupt(path, f"{data_name} holds {data.dtype} {data.shape}, expected float32 ({len(ids)}, {self._dim})")
        row = {id_: r for r, id_ in enumerate(ids)}
        if len(row) != len(ids):
            raise corrupt(path, f"{MANIFEST} lists an id twice")
        self._data, self._ids, self._row = np.ascontiguousarray(data), ids, row
