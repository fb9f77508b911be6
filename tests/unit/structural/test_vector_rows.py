"""``get`` reads the row-major copy of every in-process index: the same rows as the stored vectors, after
replacements, removals, reused HNSW slots, a snapshot reopened and a delta log replayed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hybridkg.structural.vectors.exact import ExactIndex
from hybridkg.structural.vectors.hnsw import HnswIndex
from hybridkg.structural.vectors.tiered import TieredIndex

DIM = 24


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(np.float32)


def churn(index: ExactIndex | HnswIndex | TieredIndex, rng: np.random.Generator, steps: int) -> dict[str, np.ndarray]:
    truth: dict[str, np.ndarray] = {}
    for step in range(steps):
        ids = [f"v{i}" for i in rng.choice(300, size=int(rng.integers(1, 40)), replace=False)]
        if step % 3 == 2:
            index.remove(ids)
            for i in ids:
                truth.pop(i, None)
        else:
            rows = unit(rng.standard_normal((len(ids), DIM)))
            index.upsert(ids, rows * np.float32(3.0))
            truth.update(zip(ids, rows, strict=True))
    return truth


def assert_rows(index: ExactIndex | HnswIndex | TieredIndex, truth: dict[str, np.ndarray]) -> None:
    ids = sorted(truth)
    found, matrix = index.get([*ids, "never-stored"])
    assert found == ids
    assert matrix.flags.c_contiguous
    np.testing.assert_allclose(matrix, np.stack([truth[i] for i in ids]), atol=1e-6)
    every, rows = index.items()
    assert sorted(every) == ids
    np.testing.assert_allclose(rows, np.stack([truth[i] for i in every]), atol=1e-6)


@pytest.mark.parametrize("make", [
    lambda p: ExactIndex(DIM, p, compact_fraction=0.5),
    lambda p: HnswIndex(DIM, p, ef_construction=32, compact_fraction=0.5),
    lambda p: TieredIndex(DIM, p, threshold=120, compact_fraction=0.5),
], ids=["exact", "hnsw", "tiered"])
def test_get_returns_the_stored_rows_through_churn_snapshots_and_log_replay(make: Any, tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    index = make(tmp_path)
    truth = churn(index, rng, 30)
    assert_rows(index, truth)
    index.compact()  # a snapshot ...
    more = churn(index, rng, 12)  # ... then changes that go to the delta log
    for i in list(truth):
        if i in more or i not in set(index.ids()):
            truth.pop(i)
    truth.update(more)
    index.save()
    assert_rows(index, truth)
    reopened = make(tmp_path)
    assert_rows(reopened, truth)


def test_hnsw_get_after_reopening_matches_the_graph_and_needs_no_graph_reads(tmp_path: Path) -> None:
    rng = np.random.default_rng(9)
    index = HnswIndex(DIM, tmp_path, ef_construction=32, compact_fraction=0)
    ids = [f"e{i}" for i in range(500)]
    index.upsert(ids, unit(rng.standard_normal((500, DIM))))
    index.remove(ids[:100])  # deleted slots, some taken over by the next insert
    index.upsert([f"n{i}" for i in range(50)], unit(rng.standard_normal((50, DIM))))
    index.save()
    reopened = HnswIndex(DIM, tmp_path)
    held = reopened.ids()
    graph_rows = reopened._graph.get_items([reopened._key[i] for i in held], return_type="numpy")
    calls: list[object] = []
    graph = reopened._graph

    class Counting:
        def __getattr__(self, name: str) -> object:
            return getattr(graph, name)

        def get_items(self, *args: object, **kwargs: object) -> object:
            calls.append(args)
            return graph.get_items(*args, **kwargs)

    reopened._graph = Counting()
    found, matrix = reopened.get(held)
    assert found == held
    np.testing.assert_array_equal(matrix, np.asarray(graph_rows, dtype=np.float32))
    assert calls == []  # every row came from the copy filled at open


def test_hnsw_get_falls_back_to_the_graph_when_the_snapshot_layout_is_not_recognised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hybridkg.structural.vectors.hnsw as hnsw

    rng = np.random.default_rng(3)
    rows = unit(rng.standard_normal((40, DIM)))
    index = HnswIndex(DIM, tmp_path, ef_construction=32)
    index.upsert([f"x{i}" for i in range(40)], rows)
    index.save()
    monkeypatch.setattr(hnsw, "CHECKED_ROWS", 40)
    real = np.array_equal
    monkeypatch.setattr(hnsw.np, "array_equal", lambda a, b: False)  # the sample check fails: nothing copied
    reopened = HnswIndex(DIM, tmp_path)
    monkeypatch.setattr(hnsw.np, "array_equal", real)
    assert all(f"x{i}" not in reopened._rows for i in range(40))
    found, matrix = reopened.get(["x3", "x39"])
    assert found == ["x3", "x39"]
    np.testing.assert_allclose(matrix, rows[[3, 39]], atol=1e-6)
