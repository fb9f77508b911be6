"""The append-only delta log of a saved vector index: what changed since its last full snapshot.

Each ``save()`` appends one record (the ids removed since the previous save, and the ids upserted with their
unit rows) and fsyncs it. A record is framed as ``MAGIC``, the payload's length (u64) and its CRC-32 (u32),
so a write torn by a crash is recognised when the log is read: the log keeps its complete records and is cut
back to the last of them (the torn bytes are never followed by good ones, so nothing written later is lost).

Payload: the length (u32) of a JSON header ``{"removed": [...], "upserted": [...]}``, the header, then one
little-endian float32 row of the index's dimension per upserted id.
"""

from __future__ import annotations

import json
import logging
import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from hybridkg.errors import HybridKGError
from hybridkg.structural.base import Vector
from hybridkg.structural.vectors.common import fsync_dir

MAGIC = b"HKGD"
FRAME = struct.Struct("<4sQI")  # magic, payload length, CRC-32 of the payload
HEADER_LENGTH = struct.Struct("<I")
ROW_DTYPE = np.dtype("<f4")

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Delta:
    """One save's worth of changes: ``removed`` ids, then ``upserted`` ids with one unit row each in ``rows``."""

    removed: list[str]
    upserted: list[str]
    rows: Vector


@dataclass(frozen=True, slots=True)
class NetChanges:
    """A log's records folded into their net effect on the snapshot (for an id, its last record decides)."""

    removed: list[str]
    upserted: list[str]
    rows: Vector
    records: int
    bytes: int  # the length of the log's complete records


def encode(delta: Delta) -> bytes:
    header = json.dumps({"removed": delta.removed, "upserted": delta.upserted}, ensure_ascii=False).encode()
    rows = np.ascontiguousarray(delta.rows, dtype=ROW_DTYPE)
    payload = b"".join((HEADER_LENGTH.pack(len(header)), header, rows.tobytes()))
    return FRAME.pack(MAGIC, len(payload), zlib.crc32(payload)) + payload


def append(file: Path, delta: Delta) -> int:
    """Append ``delta`` to the log ``file`` durably (the record, and the file's creation); the bytes written."""
    record = encode(delta)
    created = not file.exists()
    with file.open("ab") as f:
        f.write(record)
        f.flush()
        os.fsync(f.fileno())
    if created:
        fsync_dir(file.parent)
    return len(record)


def read(file: Path, dim: int) -> NetChanges:
    """The net changes of the complete records in ``file`` (none when it does not exist); a torn tail is cut off
    the file so that the next append follows the last complete record."""
    try:
        data = file.read_bytes()
    except FileNotFoundError:
        return NetChanges([], [], np.zeros((0, dim), dtype=np.float32), 0, 0)
    except OSError as e:
        raise _corrupt(file, f"it is unreadable: {e}") from e
    upserts: dict[str, tuple[Vector, int]] = {}
    removed: dict[str, None] = {}
    offset = records = 0
    view = memoryview(data)
    while offset + FRAME.size <= len(data):
        magic, length, crc = FRAME.unpack_from(data, offset)
        start, end = offset + FRAME.size, offset + FRAME.size + length
        if magic != MAGIC or end > len(data) or zlib.crc32(view[start:end]) != crc:
            break
        gone, put, rows = _decode(file, view[start:end], dim)
        for id_ in gone:
            upserts.pop(id_, None)
            removed[id_] = None
        for row, id_ in enumerate(put):
            removed.pop(id_, None)
            upserts[id_] = (rows, row)
        offset, records = end, records + 1
    if offset < len(data):
        log.warning("%s: ignoring %d bytes after its last complete record (a torn write)", file, len(data) - offset)
        _truncate(file, offset)
    matrix = np.empty((len(upserts), dim), dtype=np.float32)
    for r, (rows, row) in enumerate(upserts.values()):
        matrix[r] = rows[row]
    return NetChanges(list(removed), list(upserts), matrix, records, offset)


def _decode(file: Path, payload: memoryview, dim: int) -> tuple[list[str], list[str], Vector]:
    """A checksummed record that does not parse was written by something else: the log cannot be trusted."""
    try:
        (n,) = HEADER_LENGTH.unpack_from(payload, 0)
        header = json.loads(bytes(payload[HEADER_LENGTH.size : HEADER_LENGTH.size + n]))
        removed, upserted = header["removed"], header["upserted"]
        rows = np.frombuffer(payload[HEADER_LENGTH.size + n :], dtype=ROW_DTYPE)
    except (struct.error, ValueError, KeyError, TypeError) as e:
        raise _corrupt(file, f"a record does not parse: {e}") from e
    ok = isinstance(removed, list) and isinstance(upserted, list)
    if not ok or not all(isinstance(i, str) for i in [*removed, *upserted]) or rows.size != len(upserted) * dim:
        raise _corrupt(file, f"a record does not hold string ids and {dim}-dimensional rows")
    return removed, upserted, rows.reshape(len(upserted), dim)


def _truncate(file: Path, length: int) -> None:
    with file.open("rb+") as f:
        f.truncate(length)
        f.flush()
        os.fsync(f.fileno())


def _corrupt(file: Path, detail: str) -> HybridKGError:
    return HybridKGError(
        f"the vector index log {file} cannot be used ({detail}); delete its directory and re-index to rebuild it"
    )
