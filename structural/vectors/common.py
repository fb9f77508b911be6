"""What every in-process vector index shares: input checks, unit normalisation, and the file operations
that :mod:`.saved` builds crash-safe saving from (manifests, atomic writes, stale-file removal)."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np

from hybridkg.errors import HybridKGError, InvalidInput
from hybridkg.structural.base import Vector, VectorHit


def unit_rows(ids: Sequence[str], vectors: Vector, dim: int) -> tuple[list[str], Vector]:
    """Checked, de-duplicated (last row wins) ids with their rows scaled to unit length."""
    ids = id_list(ids)
    if not all(isinstance(i, str) for i in ids):
        raise InvalidInput("vector ids must be strings")
    matrix = _floats(vectors, "vectors")
    if matrix.ndim == 1 and len(ids) == 1:
        matrix = matrix[None, :]
    if matrix.ndim != 2:
        raise InvalidInput(f"vectors must be a 2-D matrix (one row per id), got {matrix.ndim} dimension(s)")
    if matrix.shape[0] != len(ids):
        raise InvalidInput(f"got {len(ids)} ids but {matrix.shape[0]} vectors")
    if matrix.shape[1] != dim:
        raise InvalidInput(f"vectors have dimension {matrix.shape[1]}; this index holds dimension {dim}")
    if not np.isfinite(matrix).all():
        bad = ids[int(np.flatnonzero(~np.isfinite(matrix).all(axis=1))[0])]
        raise InvalidInput(f"the vector for {bad!r} contains NaN or infinity")
    with np.errstate(over="ignore"):
        norms = np.linalg.norm(matrix, axis=1)
    if not ((norms > 0) & np.isfinite(norms)).all():
        bad = ids[int(np.flatnonzero(~((norms > 0) & np.isfinite(norms)))[0])]
        raise InvalidInput(f"the vector for {bad!r} is all zeros or too large to normalise")
    last = {id_: row for row, id_ in enumerate(ids)}
    if len(last) < len(ids):
        keep = np.fromiter(last.values(), dtype=np.int64, count=len(last))
        matrix, norms, ids = matrix[keep], norms[keep], list(last)
    return ids, (matrix / norms[:, None]).astype(np.float32, copy=False)


def id_list(ids: Sequence[str]) -> list[str]:
    if isinstance(ids, str):
        raise InvalidInput("ids must be a sequence of strings, not one string")
    return list(ids)


def unit_query(query: Vector, dim: int, k: int) -> Vector:
    """The query as a checked unit row."""
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k <= 0:
        raise InvalidInput(f"k must be a positive integer, got {k!r}")
    q = _floats(query, "the query")
    if q.ndim == 2 and q.shape[0] == 1:
        q = q[0]
    if q.ndim != 1 or q.shape[0] != dim:
        raise InvalidInput(f"the query has shape {tuple(q.shape)}; this index holds dimension {dim}")
    if not np.isfinite(q).all():
        raise InvalidInput("the query vector contains NaN or infinity")
    with np.errstate(over="ignore"):
        norm = float(np.linalg.norm(q))
    if not 0 < norm < float("inf"):
        raise InvalidInput("the query vector is all zeros or too large to normalise")
    return (q / norm).astype(np.float32, copy=False)


def _floats(value: object, what: str) -> Vector:
    try:
        return np.asarray(value, dtype=np.float32)
    except (TypeError, ValueError) as e:
        raise InvalidInput(f"{what} must be numbers: {e}") from e


def hit(id_: str, score: float) -> VectorHit:
    return VectorHit(id_, min(1.0, max(-1.0, float(score))))


def check_dim(dim: int) -> int:
    if isinstance(dim, bool) or not isinstance(dim, int) or dim <= 0:
        raise InvalidInput(f"the vector dimension must be a positive integer, got {dim!r}")
    return dim


# --------------------------------------------------------------------------------------------- files


def corrupt(path: Path, detail: str) -> HybridKGError:
    return HybridKGError(
        f"the vector index in {path} cannot be used ({detail}); delete that directory and re-index to rebuild it"
    )


def read_manifest(
    path: Path, name: str, kind: str, version: int, *, older: Sequence[int] = ()
) -> dict[str, Any] | None:
    """The manifest ``name`` in ``path`` (format ``version`` or one of the ``older`` ones this build still reads), or
    ``None`` when the index was never saved there."""
    file = path / name
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as e:
        raise corrupt(path, f"{name} is unreadable: {e}") from e
    try:
        manifest = json.loads(raw)
    except ValueError as e:
        raise corrupt(path, f"{name} is not valid JSON") from e
    if not isinstance(manifest, dict) or manifest.get("kind") != kind:
        raise corrupt(path, f"{name} is not a {kind} index manifest")
    if manifest.get("version") != version and manifest.get("version") not in older:
        raise corrupt(path, f"{name} has format version {manifest.get('version')!r}; this build reads {version}")
    return manifest


def stored_dim(path: Path, manifest: dict[str, Any], name: str, dim: int) -> int:
    found = manifest.get("dim")
    if not isinstance(found, int):
        raise corrupt(path, f"{name} has no dimension")
    if found != dim:
        raise corrupt(path, f"it holds {found}-dimensional vectors but the embedder produces {dim}")
    return found


def data_file(path: Path, manifest: dict[str, Any], name: str) -> Path:
    """The data file a manifest names, checked to exist with the size the manifest records."""
    data, size = manifest.get("data"), manifest.get("bytes")
    if not isinstance(data, str) or not isinstance(size, int):
        raise corrupt(path, f"{name} does not name its data file")
    file = path / Path(data).name
    try:
        found = file.stat().st_size
    except OSError as e:
        raise corrupt(path, f"the data file {file.name} is missing") from e
    if found != size:
        raise corrupt(path, f"the data file {file.name} has {found} bytes, {name} says {size}")
    return file


def write_atomic(target: Path, write: Callable[[IO[bytes]], None]) -> None:
    """Write ``target`` through a temporary file in the same directory, fsync it and rename it into place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    fsync_dir(target.parent)


def write_manifest(path: Path, name: str, manifest: dict[str, Any]) -> None:
    data = json.dumps(manifest, ensure_ascii=False, separators=(",", ":")).encode()

    def write(f: IO[bytes]) -> None:
        f.write(data)

    write_atomic(path / name, write)


def remove_stale(path: Path, prefix: str, suffix: str, keep: str) -> None:
    """Delete the data files of an index kind that the current manifest does not name."""
    for file in path.glob(f"{prefix}-*{suffix}"):
        if file.name != keep:
            file.unlink(missing_ok=True)


def erase_saved(path: Path, manifest: str, prefix: str, *suffixes: str) -> None:
    """Delete an index kind's manifest and data files (each of ``suffixes``) from ``path``."""
    (path / manifest).unlink(missing_ok=True)
    for suffix in suffixes:
        remove_stale(path, prefix, suffix, keep="")


def fsync_dir(path: Path) -> None:
    if os.name != "posix":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
