"""Incremental persistence of the in-process vector indexes: snapshot + delta log, torn tails, crashes during a
compaction, compaction policy, replay equal to the in-memory state."""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from hybridkg.errors import HybridKGError
from hybridkg.structural.base import VectorIndex
from hybridkg.structural.vectors import saved
from hybridkg.structural.vectors.exact import ExactIndex
from hybridkg.structural.vectors.hnsw import HnswIndex
from hybridkg.structural.vectors.saved import SavedIndex
from hybridkg.structural.vectors.tiered import TieredIndex

DIM = 16
Opener = Callable[..., SavedIndex]
# a log of up to 1 MiB unless a test sets another compact_fraction: these tests' logs stay short of it
KINDS: dict[str, Opener] = {
    "exact": lambda path, compact_fraction=1.0: ExactIndex(DIM, path, compact_fraction=compact_fraction),
    "hnsw": lambda path, compact_fraction=1.0: HnswIndex(
        DIM, path, ef_construction=64, ef_search=200, compact_fraction=compact_fraction
    ),
}
State = dict[str, np.ndarray]


@pytest.fixture(params=list(KINDS))
def open_index(request: pytest.FixtureRequest) -> Opener:
    return KINDS[request.param]


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(np.float32)


def state_of(index: VectorIndex) -> State:
    found, rows = index.get(index.ids())
    return dict(zip(found, rows, strict=True))


def assert_same(index: SavedIndex, want: State) -> None:
    assert sorted(index.ids()) == sorted(want)
    assert len(index) == len(want)
    if want:
        found, rows = index.get(list(want))
        assert found == list(want)
        np.testing.assert_array_equal(rows, np.stack(list(want.values())))


def random_changes(index: SavedIndex, rng: np.random.Generator, universe: int = 120) -> None:
    """One document's worth of changes: a few upserts (new and replaced ids), sometimes removals."""
    ids = [f"v{i}" for i in rng.choice(universe, size=int(rng.integers(1, 9)), replace=False)]
    index.upsert(ids, rng.standard_normal((len(ids), DIM)).astype(np.float32))
    if rng.random() < 0.4:
        index.remove([f"v{i}" for i in rng.choice(universe, size=3, replace=False)])


def log_file(path: Path) -> Path:
    return next(path.glob("*.log"))


def snapshot_names(path: Path) -> list[str]:
    return sorted(p.name for p in path.iterdir() if p.suffix in (".npy", ".bin"))


# --------------------------------------------------------------------------------------------- the log


def test_small_saves_append_to_the_log_and_reload_to_the_same_state(open_index: Opener, tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    index = open_index(tmp_path)
    random_changes(index, rng)
    index.save()
    first = snapshot_names(tmp_path)
    sizes = []
    for _ in range(60):
        random_changes(index, rng)
        index.save()
        sizes.append(log_file(tmp_path).stat().st_size)
    assert snapshot_names(tmp_path) == first  # no save after the first rewrote the snapshot
    assert sizes == sorted(sizes)
    assert sizes[-1] == index.log_bytes > 0
    want = state_of(index)
    reopened = open_index(tmp_path)
    assert_same(reopened, want)
    assert reopened.log_bytes == index.log_bytes
    q = unit(rng.standard_normal(DIM))
    assert [h.id for h in reopened.search(q, 10)] == [h.id for h in index.search(q, 10)]


def test_a_save_with_nothing_changed_writes_nothing(open_index: Opener, tmp_path: Path) -> None:
    index = open_index(tmp_path)
    index.upsert(["a"], np.ones((1, DIM), np.float32))
    index.save()
    index.upsert(["b"], np.ones((1, DIM), np.float32))
    index.save()
    before = {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()}
    index.save()
    index.remove(["not-there"])
    index.save()
    assert {p.name: p.stat().st_mtime_ns for p in tmp_path.iterdir()} == before


def test_replay_keeps_the_last_change_of_each_id(open_index: Opener, tmp_path: Path) -> None:
    rows = unit(np.random.default_rng(2).standard_normal((4, DIM)))
    index = open_index(tmp_path)
    index.upsert(["a", "b"], rows[:2])
    index.save()
    index.remove(["a"])
    index.save()
    index.upsert(["a"], rows[2:3])  # back, with another vector
    index.remove(["b"])
    index.save()
    index.upsert(["b"], rows[3:4])
    index.remove(["b"])  # added and removed between two saves
    index.save()
    assert_same(open_index(tmp_path), {"a": rows[2]})


def test_a_torn_tail_loses_only_the_incomplete_record(
    open_index: Opener, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    rng = np.random.default_rng(3)
    live = tmp_path / "live"
    index = open_index(live)
    random_changes(index, rng)
    index.save()
    ends, states = [0], [state_of(index)]  # the log's length and the index's state after each save
    for _ in range(12):
        random_changes(index, rng)
        index.save()
        ends.append(index.log_bytes)
        states.append(state_of(index))
    log_name = log_file(live).name
    cuts = sorted({int(c) for c in rng.integers(1, ends[-1], size=25)} | {ends[3] + 1, ends[7] - 1})
    for cut in cuts:
        crashed = tmp_path / f"cut{cut}"
        shutil.copytree(live, crashed)
        with (crashed / log_name).open("rb+") as f:
            f.truncate(cut)
        complete = max(i for i, end in enumerate(ends) if end <= cut)
        with caplog.at_level(logging.WARNING):
            reopened = open_index(crashed)
        assert_same(reopened, states[complete])
        assert (crashed / log_name).stat().st_size == ends[complete]  # cut back, so appends follow good records
        assert "torn write" in caplog.text
        caplog.clear()
        reopened.upsert(["after"], np.ones((1, DIM), np.float32))
        reopened.save()
        assert "after" in open_index(crashed)


def test_a_damaged_record_ends_the_replay(open_index: Opener, tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    index = open_index(tmp_path)
    random_changes(index, rng)
    index.save()
    random_changes(index, rng)
    index.save()
    first_record, want = index.log_bytes, state_of(index)
    random_changes(index, rng)
    index.save()
    data = bytearray(log_file(tmp_path).read_bytes())
    data[first_record + 40] ^= 0xFF
    log_file(tmp_path).write_bytes(bytes(data))
    assert_same(open_index(tmp_path), want)


def test_a_checksummed_record_that_does_not_parse_is_reported(tmp_path: Path) -> None:
    from hybridkg.structural.vectors import delta

    index = ExactIndex(DIM, tmp_path)
    index.upsert(["a"], np.ones((1, DIM), np.float32))
    index.save()
    index.upsert(["b"], np.ones((1, DIM), np.float32))
    index.save()
    wrong = delta.encode(delta.Delta([], ["c", "d"], np.ones((1, DIM), np.float32)))  # two ids, one row
    with log_file(tmp_path).open("ab") as f:
        f.write(wrong)
    with pytest.raises(HybridKGError, match="delete its directory"):
        ExactIndex(DIM, tmp_path)


# --------------------------------------------------------------------------------------------- compaction


def test_a_crash_during_compaction_leaves_the_old_or_the_new_state(
    open_index: Opener, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(5)
    index = open_index(tmp_path)
    for _ in range(5):
        random_changes(index, rng)
        index.save()
    saved_state = state_of(index)
    random_changes(index, rng)
    newer = state_of(index)

    def crash(*args: object, **kwargs: object) -> None:
        raise OSError("power cut")

    monkeypatch.setattr(saved, "write_manifest", crash)  # the new snapshot is written, the manifest is not
    with pytest.raises(OSError, match="power cut"):
        index.compact()
    assert_same(open_index(tmp_path), saved_state)
    monkeypatch.undo()

    monkeypatch.setattr(saved, "remove_stale", crash)  # the manifest is replaced, old files are still there
    with pytest.raises(OSError, match="power cut"):
        index.compact()
    assert_same(open_index(tmp_path), newer)
    monkeypatch.undo()
    index.compact()
    assert len(snapshot_names(tmp_path)) == 1
    assert not list(tmp_path.glob("*.log"))


def test_the_log_is_compacted_past_its_fraction_of_the_snapshot(open_index: Opener, tmp_path: Path) -> None:
    rng = np.random.default_rng(6)
    index = open_index(tmp_path, compact_fraction=0.01)  # 10 KiB of log against the 1 MiB floor
    index.upsert([f"v{i}" for i in range(100)], rng.standard_normal((100, DIM)).astype(np.float32))
    index.save()
    snapshots, compactions = snapshot_names(tmp_path), 0
    for _ in range(40):
        random_changes(index, rng)
        index.save()
        assert index.log_bytes <= 0.01 * saved.MIN_SNAPSHOT_BYTES
        if snapshot_names(tmp_path) != snapshots:
            snapshots, compactions = snapshot_names(tmp_path), compactions + 1
            assert index.log_bytes == 0
    assert 1 <= compactions < 40
    assert_same(open_index(tmp_path), state_of(index))


def test_compact_fraction_zero_rewrites_the_snapshot_on_every_save(open_index: Opener, tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    index = open_index(tmp_path, compact_fraction=0)
    seen = set()
    for _ in range(4):
        random_changes(index, rng)
        index.save()
        seen.add(tuple(snapshot_names(tmp_path)))
        assert index.log_bytes == 0
    assert len(seen) == 4
    assert_same(open_index(tmp_path), state_of(index))


def test_close_compacts_a_long_log_but_not_a_short_one(open_index: Opener, tmp_path: Path) -> None:
    rng = np.random.default_rng(8)
    index = open_index(tmp_path, compact_fraction=0.05)
    random_changes(index, rng)
    index.save()
    random_changes(index, rng)
    index.close()
    assert index.log_bytes > 0  # a few hundred bytes: below a quarter of 5% of 1 MiB
    index.upsert([f"w{i}" for i in range(300)], rng.standard_normal((300, DIM)).astype(np.float32))
    index.save()
    assert index.log_bytes > 0.25 * 0.05 * saved.MIN_SNAPSHOT_BYTES
    index.close()
    assert index.log_bytes == 0
    assert not list(tmp_path.glob("*.log"))
    assert_same(open_index(tmp_path), state_of(index))


def test_a_directory_saved_before_the_log_opens_and_gains_one(open_index: Opener, tmp_path: Path) -> None:
    rows = unit(np.random.default_rng(9).standard_normal((3, DIM)))
    index = open_index(tmp_path)
    index.upsert(["a", "b"], rows[:2])
    index.compact()
    index.upsert(["c"], rows[2:3])
    want_ab, want_abc = {k: v for k, v in state_of(index).items() if k != "c"}, state_of(index)
    manifest_file = next(tmp_path.glob("*.json"))
    manifest = json.loads(manifest_file.read_text())
    del manifest["log"]
    manifest["version"] = 1
    manifest_file.write_text(json.dumps(manifest))

    old = open_index(tmp_path)
    assert_same(old, want_ab)
    old.save()
    assert json.loads(manifest_file.read_text())["version"] == 1  # nothing changed, nothing written
    old.upsert(["c"], rows[2:3])
    old.save()
    assert json.loads(manifest_file.read_text())["version"] == 2
    assert_same(open_index(tmp_path), want_abc)


def test_a_manifest_without_its_log_name_is_reported(open_index: Opener, tmp_path: Path) -> None:
    index = open_index(tmp_path)
    index.upsert(["a"], np.ones((1, DIM), np.float32))
    index.save()
    manifest_file = next(tmp_path.glob("*.json"))
    manifest = json.loads(manifest_file.read_text())
    del manifest["log"]
    manifest_file.write_text(json.dumps(manifest))
    with pytest.raises(HybridKGError, match="does not name its log"):
        open_index(tmp_path)


# --------------------------------------------------------------------------------------------- replay


def test_random_histories_replay_to_the_in_memory_state(open_index: Opener, tmp_path: Path) -> None:
    """Upserts, replacements and removals with saves, reopenings and compactions in between."""
    rng = np.random.default_rng(10)
    index = open_index(tmp_path, compact_fraction=0.02)
    for step in range(80):
        random_changes(index, rng, universe=60)
        if step % 3 == 0:
            index.save()
        if step % 17 == 16:
            index.save()
            want = state_of(index)
            index = open_index(tmp_path, compact_fraction=0.02)
            assert_same(index, want)
    index.save()
    assert_same(open_index(tmp_path), state_of(index))


def test_tiered_index_logs_each_tier_and_reopens_after_moves(tmp_path: Path) -> None:
    rng = np.random.default_rng(11)
    index = TieredIndex(DIM, tmp_path, threshold=40, ef_construction=64)
    history = []
    for _ in range(30):
        index.upsert([f"v{len(history)}-{i}" for i in range(3)], rng.standard_normal((3, DIM)).astype(np.float32))
        index.save()
        history.append(index.tier)
    assert (history[0], history[-1]) == ("exact", "hnsw")
    want = state_of(index)
    reopened = TieredIndex(DIM, tmp_path, threshold=40)
    assert reopened.tier == "hnsw"
    found, rows = reopened.get(list(want))
    assert found == list(want)
    np.testing.assert_array_equal(rows, np.stack(list(want.values())))
    assert sorted(p.suffix for p in tmp_path.iterdir() if p.name.startswith("hnsw-")) == [".bin", ".log"]
    assert not list(tmp_path.glob("exact*"))
    reopened.upsert(["late"], np.ones((1, DIM), np.float32))
    reopened.close()
    assert reopened.tier == "hnsw"
    assert "late" in TieredIndex(DIM, tmp_path, threshold=40)
    reopened.compact()
    assert not list(tmp_path.glob("*.log"))
