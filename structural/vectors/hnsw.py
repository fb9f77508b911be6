"""Approximate cosine top-k over an HNSW graph (hnswlib, inner product on unit rows).

hnswlib was chosen by ``python -m bench.vectors`` (usearch, hnswlib, faiss on 100k clustered 384-d rows;
numbers in bench/RESULTS.md): same recall, the fastest single-query latency and build.

String ids map to integer labels that are never reused: replacing a vector updates its graph node in place;
removing one marks the node deleted (it keeps routing searches but is never returned) and a later insert
takes over its slot, so a removed id cannot come back with a stale vector. Saved as ``hnsw.json`` (id ->
label map, parameters, file names) + a snapshot of the graph ``hnsw-<generation>.bin`` + its delta log (see
:mod:`.saved`); replaying the log inserts its vectors again and marks its removals deleted.

:meth:`HnswIndex.get` (the retrieval hot path: every node of the query's subgraph) reads a row-major float32
copy of the vectors kept beside the graph, one numpy take (300 ids from 100k: ~20-30 us, against ~15-40 ms
through hnswlib's ``get_items``, ~50-130 us an id on the busy 2-core VM). Memory: 4 x dim bytes a vector on
top of the graph's own copy (1.5 KB at 384 dimensions, ~150 MB for 100k). Opening fills it from the
snapshot file's element records (one strided read, ~0.5 s for 100k, checked against ``get_items`` on a
sample); a vector it lacks is fetched from the graph on first use.
"""

from __future__ import annotations

import logging
import os
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hybridkg.errors import BackendUnavailable, InvalidInput
from hybridkg.structural.base import Vector, VectorHit
from hybridkg.structural.vectors.common import corrupt, hit, id_list, unit_query
from hybridkg.structural.vectors.saved import SavedIndex

MANIFEST = "hnsw.json"
KIND = "hybridkg-hnsw"
VERSION = 2  # 1: no delta log
INITIAL_CAPACITY = 1_024
PARALLEL_ADD = 512  # batches at least this large are inserted on every core
# hnswlib's saveIndex header: offsetLevel0, max_elements, cur_element_count, size_data_per_element,
# label_offset, offsetData (size_t each), maxlevel (int), enterpoint (uint32), maxM, maxM0, M (size_t), mult
# (double), ef_construction (size_t); then cur_element_count records of size_data_per_element bytes
_SAVED_HEADER = struct.Struct("<6QiI3QdQ")
CHECKED_ROWS = 16

log = logging.getLogger(__name__)


def _hnswlib() -> Any:
    try:
        import hnswlib
    except ImportError as e:
        raise BackendUnavailable("the HNSW vector index needs hnswlib: pip install hnswlib") from e
    return hnswlib


class HnswIndex(SavedIndex):
    """HNSW cosine search; ``m`` and ``ef_construction`` are fixed when the graph is created, ``ef_search`` is not."""

    MANIFEST, KIND, VERSION, PREFIX, SUFFIX = MANIFEST, KIND, VERSION, "hnsw", ".bin"
    OLDER_VERSIONS = (1,)
    # opening replays the log by inserting its vectors into the graph again, ~2.7 ms a vector on this 2-core
    # machine (bench/persist.py, 100k x 384: a 16 MB log, 11k vectors, took 30 s to replay; the 163 MB snapshot
    # loads in 0.6 s): keep the log to ~1,000 vectors per 100k
    COMPACT_FRACTION = 0.01

    def __init__(
        self,
        dim: int,
        path: Path | None = None,
        *,
        m: int = 16,
        ef_construction: int = 200,
        ef_search: int = 128,
        fresh: bool = False,
        compact_fraction: float | None = None,
    ) -> None:
        """Open the index saved in ``path`` (none yet: empty); ``fresh`` ignores it and the next save replaces it.
        ``compact_fraction``: see :mod:`.saved` (0 writes a full snapshot on every save)."""
        if m < 2 or ef_construction < 1 or ef_search < 1:
            raise InvalidInput(f"bad HNSW parameters m={m}, ef_construction={ef_construction}, ef_search={ef_search}")
        super().__init__(dim, path, fresh, compact_fraction)
        self._m, self._ef_construction, self.ef_search = m, ef_construction, ef_search
        self._lib = _hnswlib()
        self._key: dict[str, int] = {}
        self._id: dict[int, str] = {}
        self._next_key = 0
        self._graph = self._empty_graph(INITIAL_CAPACITY)
        self._rows = RowCopy(self._dim)
        self._open()

    def _members(self) -> dict[str, int]:
        return self._key

    def _put(self, ids: list[str], rows: Vector) -> None:
        old = np.fromiter((i in self._key for i in ids), dtype=bool, count=len(ids))
        if old.any():
            keys = np.fromiter((self._key[i] for i in ids if i in self._key), dtype=np.int64)
            self._graph.add_items(rows[old], keys, num_threads=self._threads(len(keys)))
        new = [i for i, o in zip(ids, old.tolist(), strict=True) if not o]
        if new:
            keys = np.arange(self._next_key, self._next_key + len(new), dtype=np.int64)
            self._reserve(len(new))
            self._graph.add_items(rows[~old], keys, num_threads=self._threads(len(new)), replace_deleted=True)
            self._next_key += len(new)
            for id_, key in zip(new, keys.tolist(), strict=True):
                self._key[id_], self._id[key] = key, id_
        self._rows.put(ids, rows)

    def _drop(self, ids: Sequence[str]) -> list[str]:
        gone = []
        for id_ in ids:
            key = self._key.pop(id_, None)
            if key is None:
                continue
            del self._id[key]
            self._graph.mark_deleted(key)
            gone.append(id_)
        self._rows.drop(gone)
        return gone

    def search(self, query: Vector, k: int) -> list[VectorHit]:
        q = unit_query(query, self._dim, k)
        with self._lock:
            k = min(k, len(self._key))
            if k == 0:
                return []
            self._graph.set_ef(max(self.ef_search, k))
            try:
                labels, dists = self._graph.knn_query(q, k=k, num_threads=1)
            except RuntimeError:
                return self._scan(q, k)
            return [hit(self._id[key], 1.0 - d) for key, d in zip(labels[0].tolist(), dists[0].tolist(), strict=True)]

    def items(self) -> tuple[list[str], Vector]:
        """Every id with its unit vector (a copy)."""
        with self._lock:
            ids = list(self._key)
            self._fill(ids)
            return ids, self._rows.take(ids)

    def get(self, ids: Sequence[str]) -> tuple[list[str], Vector]:
        ids = id_list(ids)
        with self._lock:
            found = [i for i in dict.fromkeys(ids) if i in self._key]
            self._fill(found)
            return found, self._rows.take(found)

    def _fill(self, ids: list[str]) -> None:
        """Copy the vectors of ``ids`` the row copy lacks from the graph."""
        missing = [i for i in ids if i not in self._rows]
        if missing:
            rows = self._graph.get_items([self._key[i] for i in missing], return_type="numpy")
            self._rows.put(missing, np.asarray(rows, dtype=np.float32))

    def ids(self) -> list[str]:
        with self._lock:
            return list(self._key)

    def _write_data(self, target: Path) -> dict[str, Any]:
        try:
            self._graph.save_index(str(target))
            with target.open("rb+") as f:
                os.fsync(f.fileno())
        except BaseException:
            target.unlink(missing_ok=True)
            raise
        return {
            "m": self._m,
            "ef_construction": self._ef_construction,
            "next_key": self._next_key,
            "ids": list(self._key),
            "keys": list(self._key.values()),
        }

    def _threads(self, n: int) -> int:
        return -1 if n >= PARALLEL_ADD else 1

    def _empty_graph(self, capacity: int) -> Any:
        graph = self._lib.Index(space="ip", dim=self._dim)
        graph.init_index(
            max_elements=capacity, M=self._m, ef_construction=self._ef_construction, allow_replace_deleted=True
        )
        return graph

    def _reserve(self, n_new: int) -> None:
        """Grow the graph so ``n_new`` inserts fit (they fill deleted slots first)."""
        deleted = self._graph.element_count - len(self._key)
        needed = self._graph.element_count + max(0, n_new - deleted)
        capacity = self._graph.get_max_elements()
        if needed > capacity:
            self._graph.resize_index(max(needed, 2 * capacity))

    def _scan(self, q: Vector, k: int) -> list[VectorHit]:
        """Exact search over the stored vectors: the fallback when the graph cannot return ``k`` results."""
        ids, rows = self.items()
        sims = rows @ q
        top = np.argsort(-sims, kind="stable")[:k]
        return [hit(ids[r], sims[r]) for r in top.tolist()]

    def _load_snapshot(self, manifest: dict[str, Any], file: Path) -> None:
        path = file.parent
        ids, keys = manifest.get("ids"), manifest.get("keys")
        m, efc, next_key = manifest.get("m"), manifest.get("ef_construction"), manifest.get("next_key")
        if (
            not isinstance(ids, list)
            or not isinstance(keys, list)
            or len(ids) != len(keys)
            or not all(isinstance(i, str) for i in ids)
            or not all(isinstance(x, int) for x in keys)
            or not isinstance(m, int)
            or not isinstance(efc, int)
            or not isinstance(next_key, int)
        ):
            raise corrupt(path, f"{MANIFEST} is incomplete")
        key = dict(zip(ids, keys, strict=True))
        by_key = {v: i for i, v in key.items()}
        if len(key) != len(ids) or len(by_key) != len(ids) or any(x < 0 or x >= next_key for x in keys):
            raise corrupt(path, f"{MANIFEST} maps ids to labels inconsistently")
        graph = self._lib.Index(space="ip", dim=self._dim)
        try:
            graph.load_index(str(file), max_elements=0, allow_replace_deleted=True)
        except (RuntimeError, MemoryError, ValueError) as e:
            raise corrupt(path, f"the graph file {file.name} is unreadable: {e}") from e
        if graph.dim != self._dim or graph.element_count < len(ids):
            raise corrupt(path, f"the graph file {file.name} does not match {MANIFEST}")
        if not set(keys) <= set(graph.get_ids_list()):
            raise corrupt(path, f"{MANIFEST} names labels the graph file {file.name} lacks")
        self._m, self._ef_construction = m, efc
        self._graph, self._key, self._id, self._next_key = graph, key, by_key, next_key
        self._rows = RowCopy(self._dim)
        self._copy_saved_rows(file)

    def _copy_saved_rows(self, file: Path) -> None:
        """Fill the row copy from the element records of the snapshot ``file`` (hnswlib's layout, checked
        against ``get_items`` on a sample); on any mismatch leave it to :meth:`_fill`."""
        try:
            with file.open("rb") as f:
                head = f.read(_SAVED_HEADER.size)
            _, _, count, size, label_at, data_at, *_ = _SAVED_HEADER.unpack(head)
            if count == 0 or data_at + 4 * self._dim > size or label_at + 8 > size:
                return
            records = np.memmap(file, dtype=np.uint8, mode="r", offset=_SAVED_HEADER.size, shape=(count, size))
            try:
                labels = np.ascontiguousarray(records[:, label_at : label_at + 8]).view("<u8").ravel()
                data = np.ascontiguousarray(records[:, data_at : data_at + 4 * self._dim]).view("<f4")
            finally:
                del records
        except (OSError, ValueError, struct.error) as e:
            log.debug("%s: vectors not copied from the snapshot (%s); read from the graph on demand", file, e)
            return
        slot = {int(label): r for r, label in enumerate(labels.tolist())}
        ids = [i for i, k in self._key.items() if k in slot]
        if not ids:
            return
        rows = data[[slot[self._key[i]] for i in ids]]
        sample = np.linspace(0, len(ids) - 1, min(CHECKED_ROWS, len(ids))).astype(np.int64)
        check = self._graph.get_items([self._key[ids[r]] for r in sample.tolist()], return_type="numpy")
        if not np.array_equal(np.asarray(check, dtype=np.float32), rows[sample]):
            log.debug("%s: the snapshot's element layout is not the one expected; vectors read on demand", file)
            return
        self._rows.put(ids, rows)


class RowCopy:
    """A float32 matrix of one row per id that grows by doubling; removing an id moves the last row into its
    slot, so :meth:`take` is one numpy take over contiguous rows."""

    def __init__(self, dim: int) -> None:
        self._dim = dim
        self._matrix = np.zeros((0, dim), dtype=np.float32)
        self._ids: list[str] = []
        self._slot: dict[str, int] = {}

    def __contains__(self, id_: object) -> bool:
        return id_ in self._slot

    def put(self, ids: Sequence[str], rows: Vector) -> None:
        added = [i for i in dict.fromkeys(ids) if i not in self._slot]
        n = len(self._ids) + len(added)
        if n > self._matrix.shape[0]:
            grown = np.zeros((max(n, 2 * self._matrix.shape[0], 64), self._dim), dtype=np.float32)
            grown[: len(self._ids)] = self._matrix[: len(self._ids)]
            self._matrix = grown
        for id_ in added:
            self._slot[id_] = len(self._ids)
            self._ids.append(id_)
        self._matrix[[self._slot[i] for i in ids]] = rows

    def drop(self, ids: Sequence[str]) -> None:
        for id_ in ids:
            slot = self._slot.pop(id_, None)
            if slot is None:
                continue
            last = len(self._ids) - 1
            if slot != last:
                moved = self._ids[last]
                self._matrix[slot] = self._matrix[last]
                self._ids[slot], self._slot[moved] = moved, slot
            self._ids.pop()

    def take(self, ids: Sequence[str]) -> Vector:
        """The rows of ``ids`` (all held) as a new ``(len(ids), dim)`` matrix."""
        where = np.fromiter((self._slot[i] for i in ids), dtype=np.int64, count=len(ids))
        return self._matrix.take(where, axis=0)
