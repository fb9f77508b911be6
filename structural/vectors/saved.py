"""Saving an in-process vector index: a full snapshot plus an append-only delta log, compacted now and then.

An index directory holds one JSON manifest per index kind (``exact.json``, ``hnsw.json``) naming a snapshot
(``exact-<generation>.npy``, ...) and the delta log that goes with it (``exact-<generation>.log``, see
:mod:`.delta`). ``save()`` appends the changes since the previous save to that log and fsyncs it, so adding a
document costs in proportion to the document, not to the index. Opening reads the snapshot and replays the
log's complete records over it.

A compaction writes the whole index as a new snapshot under a fresh generation, atomically replaces the
manifest (naming the new snapshot and a new, empty log), then deletes the files no manifest names: a crash
at any point leaves the previous state (old snapshot + old log) or the new one, never a mix. ``save()``
compacts when the log would outgrow ``compact_fraction`` of the snapshot (at least of 1 MiB), and always for
an index that has no snapshot with a log yet; ``close()`` compacts a log past a quarter of that.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from hybridkg.errors import InvalidInput
from hybridkg.structural.base import Vector
from hybridkg.structural.vectors import delta
from hybridkg.structural.vectors.common import (
    check_dim,
    corrupt,
    data_file,
    erase_saved,
    id_list,
    read_manifest,
    remove_stale,
    stored_dim,
    unit_rows,
    write_manifest,
)

LOG_SUFFIX = ".log"
MIN_SNAPSHOT_BYTES = 1 << 20  # a small index's log may grow to a fraction of this before compaction
CLOSE_SHARE = 0.25  # close() compacts a log past this share of the save-time limit


class SavedIndex:
    """What the exact and the HNSW index share: the dimension, membership by id, one lock, input checks, and
    persistence as snapshot + delta log.

    Subclasses set the class attributes, keep their ids in the mapping :meth:`_members` returns, change their
    state only in :meth:`_put` and :meth:`_drop` (which the public methods and the log replay call), and read
    and write their snapshot in :meth:`_load_snapshot` and :meth:`_write_data`. Their ``__init__`` builds the
    empty state, then calls :meth:`_open`."""

    MANIFEST: ClassVar[str]
    KIND: ClassVar[str]
    VERSION: ClassVar[int]
    OLDER_VERSIONS: ClassVar[tuple[int, ...]] = ()  # formats without a log, still read
    PREFIX: ClassVar[str]  # snapshots are PREFIX-<generation>SUFFIX, logs PREFIX-<generation>.log
    SUFFIX: ClassVar[str]
    COMPACT_FRACTION: ClassVar[float]

    def __init__(self, dim: int, path: Path | None, fresh: bool, compact_fraction: float | None) -> None:
        self._dim = check_dim(dim)
        self._path = Path(path) if path is not None else None
        self._fresh = fresh
        self._lock = threading.RLock()
        fraction = self.COMPACT_FRACTION if compact_fraction is None else compact_fraction
        if not fraction >= 0:
            raise InvalidInput(f"compact_fraction must be 0 or more, got {compact_fraction!r}")
        self.compact_fraction = fraction
        self._log: Path | None = None  # the log the manifest names; None until a snapshot with a log exists
        self._log_bytes = 0
        self._snapshot_bytes = 0
        self._upserted: set[str] = set()  # changed since the last save
        self._removed: set[str] = set()

    @property
    def dim(self) -> int:
        return self._dim

    def __len__(self) -> int:
        return len(self._members())

    def __contains__(self, id_: object) -> bool:
        return id_ in self._members()

    # ------------------------------------------------------------------------------------------ subclasses

    def _members(self) -> Mapping[str, object]:
        raise NotImplementedError

    def _put(self, ids: list[str], rows: Vector) -> None:
        """Store unit ``rows`` (checked, distinct ``ids``)."""
        raise NotImplementedError

    def _drop(self, ids: Sequence[str]) -> list[str]:
        """Remove ``ids``; those that were held."""
        raise NotImplementedError

    def get(self, ids: Sequence[str]) -> tuple[list[str], Vector]:
        raise NotImplementedError

    def _load_snapshot(self, manifest: dict[str, Any], file: Path) -> None:
        """Replace the state with the snapshot ``file`` that ``manifest`` names."""
        raise NotImplementedError

    def _write_data(self, target: Path) -> dict[str, Any]:
        """Write the snapshot ``target`` durably; return the manifest entries it needs besides the common ones."""
        raise NotImplementedError

    # ------------------------------------------------------------------------------------------ changes

    def upsert(self, ids: Sequence[str], vectors: Vector) -> None:
        ids, rows = unit_rows(ids, vectors, self._dim)
        if not ids:
            return
        with self._lock:
            self._put(ids, rows)
            self._upserted.update(ids)
            self._removed.difference_update(ids)

    def remove(self, ids: Sequence[str]) -> None:
        ids = id_list(ids)
        with self._lock:
            gone = self._drop(ids)
            self._removed.update(gone)
            self._upserted.difference_update(gone)

    # ------------------------------------------------------------------------------------------ persistence

    def save(self) -> None:
        """Append the changes since the previous save to the log (fsynced), or compact (see the module doc)."""
        if self._path is None:
            return
        with self._lock:
            changed = bool(self._upserted or self._removed)
            if self._log is None:
                if changed or self._fresh:
                    self._compact(self._path)
                return
            if not changed:
                return
            found, rows = self.get(list(self._upserted))
            change = delta.Delta(list(self._removed), found, rows)
            if self._log_bytes + rows.nbytes > self._log_limit():
                self._compact(self._path)
                return
            self._log_bytes += delta.append(self._log, change)
            self._upserted.clear()
            self._removed.clear()

    def compact(self) -> None:
        """Write the whole index as a new snapshot with an empty log."""
        if self._path is not None:
            with self._lock:
                self._compact(self._path)

    def close(self) -> None:
        """Save; compact too when the log is past a quarter of the size at which a save would compact."""
        if self._path is None:
            return
        with self._lock:
            self.save()
            if self._log_bytes > CLOSE_SHARE * self._log_limit():
                self._compact(self._path)

    @property
    def log_bytes(self) -> int:
        """The size of the delta log (0 right after a compaction)."""
        return self._log_bytes

    @property
    def log_limit(self) -> float:
        """The log size past which a save compacts instead of appending."""
        return self._log_limit()

    @classmethod
    def discard(cls, path: Path) -> None:
        """Delete an index of this kind saved in ``path`` (other files there are left alone)."""
        erase_saved(path, cls.MANIFEST, cls.PREFIX, cls.SUFFIX, LOG_SUFFIX)

    def _log_limit(self) -> float:
        return self.compact_fraction * max(self._snapshot_bytes, MIN_SNAPSHOT_BYTES)

    def _compact(self, path: Path) -> None:
        path.mkdir(parents=True, exist_ok=True)
        generation = uuid.uuid4().hex[:16]
        data_name, log_name = f"{self.PREFIX}-{generation}{self.SUFFIX}", f"{self.PREFIX}-{generation}{LOG_SUFFIX}"
        target = path / data_name
        extra = self._write_data(target)
        size = target.stat().st_size
        manifest = {
            "kind": self.KIND,
            "version": self.VERSION,
            "dim": self._dim,
            "data": data_name,
            "bytes": size,
            "log": log_name,
            **extra,
        }
        write_manifest(path, self.MANIFEST, manifest)
        remove_stale(path, self.PREFIX, self.SUFFIX, keep=data_name)
        remove_stale(path, self.PREFIX, LOG_SUFFIX, keep=log_name)
        self._log, self._log_bytes, self._snapshot_bytes = path / log_name, 0, size
        self._fresh = False
        self._upserted.clear()
        self._removed.clear()

    def _open(self) -> None:
        """Load the snapshot and replay its log (unless the index was opened ``fresh``)."""
        if self._path is None or self._fresh:
            return
        path = self._path
        manifest = read_manifest(path, self.MANIFEST, self.KIND, self.VERSION, older=self.OLDER_VERSIONS)
        if manifest is None:
            return
        stored_dim(path, manifest, self.MANIFEST, self._dim)
        file = data_file(path, manifest, self.MANIFEST)
        self._load_snapshot(manifest, file)
        self._snapshot_bytes = file.stat().st_size
        log = manifest.get("log")
        if manifest.get("version") != self.VERSION:
            return  # no log: the next save writes a snapshot with one
        if not isinstance(log, str):
            raise corrupt(path, f"{self.MANIFEST} does not name its log")
        self._log = path / Path(log).name
        changes = delta.read(self._log, self._dim)
        self._drop(changes.removed)
        if changes.upserted:
            self._put(changes.upserted, changes.rows)
        self._log_bytes = changes.bytes
