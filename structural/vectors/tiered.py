"""The "auto" vector index: exact search while the index is small, HNSW once it is not.

An upsert that brings the index to ``threshold`` vectors moves every vector into a new HNSW graph; a
removal that leaves fewer than ``threshold // 2`` moves them back into an exact matrix (the gap keeps an
index hovering around the threshold from rebuilding on every call). Both kinds save into the same
directory; ``tiered.json`` names the active one, and a save writes the active index (a full snapshot after
a move, else an append to its delta log), then that manifest, then deletes the other kind's files, so a
crash leaves a complete old or new state. A directory written by
the plain ``exact`` or ``hnsw`` backend opens too.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from hybridkg.structural.base import Vector, VectorHit
from hybridkg.structural.vectors.common import check_dim, corrupt, read_manifest, write_manifest
from hybridkg.structural.vectors.exact import MANIFEST as EXACT_MANIFEST
from hybridkg.structural.vectors.exact import ExactIndex
from hybridkg.structural.vectors.hnsw import MANIFEST as HNSW_MANIFEST
from hybridkg.structural.vectors.hnsw import HnswIndex

MANIFEST = "tiered.json"
KIND = "hybridkg-tiered"
VERSION = 1
EXACT, HNSW = "exact", "hnsw"


class TieredIndex:
    """Exact below ``threshold`` vectors, HNSW (``m``, ``ef_construction``, ``ef_search``) from there on."""

    def __init__(
        self,
        dim: int,
        path: Path | None = None,
        *,
        threshold: int = 5_000,
        m: int = 16,
        ef_construction: int = 200,
        ef_search: int = 128,
        compact_fraction: float | None = None,
    ) -> None:
        self._compact_fraction = compact_fraction
        self._dim = check_dim(dim)
        self._path = Path(path) if path is not None else None
        self._threshold = max(0, threshold)
        self._m, self._ef_construction, self._ef_search = m, ef_construction, ef_search
        self._lock = threading.RLock()
        self._tier = self._saved_tier()
        self._active: ExactIndex | HnswIndex = self._open(self._tier, fresh=False)
        self._moved = False
        self._rebalance()

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def tier(self) -> str:
        """``"exact"`` or ``"hnsw"``: the kind of index answering now."""
        return self._tier

    def __len__(self) -> int:
        return len(self._active)

    def __contains__(self, id_: object) -> bool:
        return id_ in self._active

    def upsert(self, ids: Sequence[str], vectors: Vector) -> None:
        with self._lock:
            self._active.upsert(ids, vectors)
            self._rebalance()

    def remove(self, ids: Sequence[str]) -> None:
        with self._lock:
            self._active.remove(ids)
            self._rebalance()

    def search(self, query: Vector, k: int) -> list[VectorHit]:
        with self._lock:
            return self._active.search(query, k)

    def items(self) -> tuple[list[str], Vector]:
        with self._lock:
            return self._active.items()

    def get(self, ids: Sequence[str]) -> tuple[list[str], Vector]:
        with self._lock:
            return self._active.get(ids)

    def ids(self) -> list[str]:
        with self._lock:
            return self._active.ids()

    def save(self) -> None:
        if self._path is None:
            return
        with self._lock:
            self._active.save()
            if not self._moved and (self._path / MANIFEST).is_file():
                return
            manifest = {"kind": KIND, "version": VERSION, "dim": self._dim, "active": self._tier}
            write_manifest(self._path, MANIFEST, manifest)
            (HnswIndex if self._tier == EXACT else ExactIndex).discard(self._path)
            self._moved = False

    def compact(self) -> None:
        """Save, writing the active index as a new snapshot with an empty log."""
        with self._lock:
            self._active.compact()
            self.save()

    def close(self) -> None:
        """Save; compact the active index's log when it is long (see :mod:`.saved`)."""
        with self._lock:
            self._active.close()
            self.save()

    def _rebalance(self) -> None:
        n = len(self._active)
        if self._tier == EXACT and n >= self._threshold:
            self._move(HNSW)
        elif self._tier == HNSW and n < self._threshold // 2:
            self._move(EXACT)

    def _move(self, tier: str) -> None:
        ids, rows = self._active.items()
        target = self._open(tier, fresh=True)
        if ids:
            target.upsert(ids, rows)
        self._active, self._tier, self._moved = target, tier, True

    def _open(self, tier: str, *, fresh: bool) -> ExactIndex | HnswIndex:
        if tier == EXACT:
            return ExactIndex(self._dim, self._path, fresh=fresh, compact_fraction=self._compact_fraction)
        return HnswIndex(
            self._dim,
            self._path,
            m=self._m,
            ef_construction=self._ef_construction,
            ef_search=self._ef_search,
            fresh=fresh,
            compact_fraction=self._compact_fraction,
        )

    def _saved_tier(self) -> str:
        """The tier saved in the directory; for a new index, the one its size 0 calls for."""
        empty = EXACT if self._threshold > 0 else HNSW
        if self._path is None:
            return empty
        manifest = read_manifest(self._path, MANIFEST, KIND, VERSION)
        if manifest is not None:
            tier = manifest.get("active")
            if tier not in (EXACT, HNSW):
                raise corrupt(self._path, f"{MANIFEST} names no active index")
            return str(tier)
        exact, hnsw = (self._path / EXACT_MANIFEST).is_file(), (self._path / HNSW_MANIFEST).is_file()
        if exact and hnsw:
            raise corrupt(self._path, f"it holds both {EXACT_MANIFEST} and {HNSW_MANIFEST} but no {MANIFEST}")
        return EXACT if exact else HNSW if hnsw else empty
