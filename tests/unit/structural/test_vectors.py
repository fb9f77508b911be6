"""The in-process vector indexes: search, replace/remove semantics, persistence, tiering, recall, errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from support.vectors import clustered

from hybridkg.errors import HybridKGError, InvalidInput, Unsupported
from hybridkg.structural.base import VectorIndex
from hybridkg.structural.settings import VectorBackend, VectorConfig
from hybridkg.structural.vectors.exact import ExactIndex
from hybridkg.structural.vectors.factory import make_vector_index
from hybridkg.structural.vectors.hnsw import HnswIndex
from hybridkg.structural.vectors.tiered import TieredIndex

DIM = 16
Factory = Callable[[Path | None], VectorIndex]

KINDS: dict[str, Factory] = {
    "exact": lambda p: ExactIndex(DIM, p),
    "hnsw": lambda p: HnswIndex(DIM, p, ef_construction=64),
    "tiered-small": lambda p: TieredIndex(DIM, p, threshold=1_000_000),
    "tiered-large": lambda p: TieredIndex(DIM, p, threshold=0),
}


@pytest.fixture(params=list(KINDS))
def make(request: pytest.FixtureRequest) -> Factory:
    return KINDS[request.param]


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(np.float32)


def random_rows(n: int, seed: int = 1) -> np.ndarray:
    return unit(np.random.default_rng(seed).standard_normal((n, DIM)))


def ids_of(index: VectorIndex, query: np.ndarray, k: int = 10) -> list[str]:
    return [h.id for h in index.search(query, k)]


# --------------------------------------------------------------------------------------------- behaviour


def test_every_index_keeps_the_protocols_promises(make: Factory, tmp_path: Path) -> None:
    """Each VectorIndex member once, as a caller sees it: add, find, remove, save and reopen."""
    index = make(tmp_path)
    assert isinstance(index, VectorIndex)
    assert (index.dim, len(index)) == (DIM, 0)
    rows = random_rows(3)
    index.upsert(["a", "b", "c"], rows * 2.5)
    assert len(index) == 3
    for i, name in enumerate("abc"):
        best = index.search(rows[i], 1)[0]
        assert best.id == name
        assert best.score == pytest.approx(1.0, abs=1e-5)
    index.remove(["b"])
    assert len(index) == 2
    assert sorted(ids_of(index, rows[1], k=3)) == ["a", "c"]
    index.save()
    reopened = make(tmp_path)
    assert len(reopened) == 2
    assert ids_of(reopened, rows[2], k=1) == ["c"]


def test_empty_index_returns_no_hits(make: Factory) -> None:
    assert make(None).search(random_rows(1)[0], 5) == []


def test_each_vector_is_its_own_nearest_neighbour(make: Factory) -> None:
    index = make(None)
    rows = random_rows(200)
    index.upsert([f"v{i}" for i in range(200)], rows * 3.0)
    assert len(index) == 200
    for i in (0, 57, 199):
        hits = index.search(rows[i], 5)
        assert hits[0].id == f"v{i}"
        assert hits[0].score == pytest.approx(1.0, abs=1e-5)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        assert all(-1.0 <= h.score <= 1.0 for h in hits)


def test_k_larger_than_the_index_returns_everything(make: Factory) -> None:
    index = make(None)
    index.upsert(["a", "b", "c"], random_rows(3))
    assert sorted(ids_of(index, random_rows(1, seed=9)[0], k=50)) == ["a", "b", "c"]


def test_upsert_replaces_the_vector_of_an_existing_id(make: Factory) -> None:
    index = make(None)
    rows = random_rows(50)
    index.upsert([f"v{i}" for i in range(50)], rows)
    index.upsert(["v3"], -rows[3:4])
    assert len(index) == 50
    assert "v3" not in ids_of(index, rows[3], k=10)
    best = index.search(-rows[3], 1)[0]
    assert best.id == "v3"
    assert best.score == pytest.approx(1.0, abs=1e-5)


def test_duplicate_ids_in_one_batch_keep_the_last_vector(make: Factory) -> None:
    index = make(None)
    rows = random_rows(2)
    index.upsert(["x", "x"], rows)
    assert len(index) == 1
    assert index.search(rows[1], 1)[0].score == pytest.approx(1.0, abs=1e-5)


def test_a_removed_id_never_comes_back(make: Factory) -> None:
    index = make(None)
    rows = random_rows(300)
    index.upsert([f"v{i}" for i in range(300)], rows)
    gone = [f"v{i}" for i in range(0, 300, 3)]
    index.remove([*gone, "never-there"])
    assert len(index) == 200
    index.upsert([f"w{i}" for i in range(100)], random_rows(100, seed=2))
    for i in range(0, 300, 3):
        assert not set(gone) & set(ids_of(index, rows[i], k=20))
    index.upsert(["v0"], -rows[0:1])
    assert "v0" not in ids_of(index, rows[0], k=20)
    assert ids_of(index, -rows[0], k=1) == ["v0"]


def test_remove_refuses_a_bare_string(make: Factory) -> None:
    index = make(None)
    index.upsert(["a"], random_rows(1))
    with pytest.raises(InvalidInput, match="not one string"):
        index.remove("a")
    assert len(index) == 1


def test_removing_everything_leaves_an_empty_index(make: Factory) -> None:
    index = make(None)
    index.upsert(["a", "b"], random_rows(2))
    index.remove(["a", "b"])
    assert len(index) == 0
    assert index.search(random_rows(1)[0], 3) == []


# --------------------------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("ids", "vectors", "message"),
    [
        (["a", "b"], np.ones((1, DIM), np.float32), "2 ids but 1 vectors"),
        (["a"], np.ones((1, DIM + 1), np.float32), "dimension"),
        (["a"], np.full((1, DIM), np.nan, np.float32), "NaN"),
        (["a"], np.zeros((1, DIM), np.float32), "all zeros"),
        (["a"], np.full((1, DIM), 3e38, np.float32), "too large"),
        (["a"], [["x"] * DIM], "must be numbers"),
        ("ab", np.ones((2, DIM), np.float32), "not one string"),
        ([1], np.ones((1, DIM), np.float32), "strings"),
    ],
)
def test_bad_upserts_are_rejected_and_change_nothing(make: Factory, ids: object, vectors: np.ndarray,
                                                     message: str) -> None:
    index = make(None)
    with pytest.raises(InvalidInput, match=message):
        index.upsert(ids, vectors)  # type: ignore[arg-type]
    assert len(index) == 0


@pytest.mark.parametrize(
    ("query", "k", "message"),
    [
        (np.ones(DIM, np.float32), 0, "k must be a positive integer"),
        (np.ones(DIM, np.float32), -3, "k must be a positive integer"),
        (np.ones(DIM + 2, np.float32), 3, "dimension"),
        (np.full(DIM, np.nan, np.float32), 3, "NaN"),
        (np.zeros(DIM, np.float32), 3, "all zeros"),
    ],
)
def test_bad_searches_are_rejected(make: Factory, query: np.ndarray, k: int, message: str) -> None:
    index = make(None)
    index.upsert(["a"], random_rows(1))
    with pytest.raises(InvalidInput, match=message):
        index.search(query, k)


# --------------------------------------------------------------------------------------------- persistence


def test_saved_index_reopens_with_the_same_answers(make: Factory, tmp_path: Path) -> None:
    rows = random_rows(400)
    index = make(tmp_path)
    index.upsert([f"v{i}" for i in range(400)], rows)
    index.remove(["v1", "v2"])
    index.save()
    before = [index.search(rows[i], 5) for i in range(0, 400, 40)]

    again = make(tmp_path)
    assert len(again) == 398
    assert [again.search(rows[i], 5) for i in range(0, 400, 40)] == before
    again.remove(["v10"])
    again.upsert(["new"], rows[1:2])
    again.save()

    third = make(tmp_path)
    assert len(third) == 398
    assert ids_of(third, rows[10], k=20).count("v10") == 0
    assert ids_of(third, rows[1], k=1) == ["new"]


def test_in_memory_index_writes_nothing(make: Factory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    index = make(None)
    index.upsert(["a"], random_rows(1))
    index.save()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("cls", "snapshot"), [(ExactIndex, ".npy"), (HnswIndex, ".bin")])
def test_saves_leave_only_the_current_files(tmp_path: Path, cls: type, snapshot: str) -> None:
    index = cls(DIM, tmp_path)
    for i in range(3):
        index.upsert([f"v{i}"], random_rows(1, seed=i))
        index.save()
        index.compact()
    index.upsert(["w"], random_rows(1, seed=9))
    index.save()
    assert sorted(p.suffix for p in tmp_path.iterdir()) == sorted([snapshot, ".json", ".log"])


@pytest.mark.parametrize("manifest", ["exact.json", "hnsw.json"])
def test_a_garbled_manifest_says_to_delete_the_directory(tmp_path: Path, manifest: str) -> None:
    index = ExactIndex(DIM, tmp_path) if manifest == "exact.json" else HnswIndex(DIM, tmp_path)
    index.upsert(["a"], random_rows(1))
    index.save()
    (tmp_path / manifest).write_text("{not json")
    with pytest.raises(HybridKGError, match="delete that directory"):
        ExactIndex(DIM, tmp_path) if manifest == "exact.json" else HnswIndex(DIM, tmp_path)


@pytest.mark.parametrize("cls", [ExactIndex, HnswIndex])
def test_a_missing_or_truncated_data_file_is_reported(tmp_path: Path, cls: type) -> None:
    index = cls(DIM, tmp_path)
    index.upsert([f"v{i}" for i in range(50)], random_rows(50))
    index.save()
    data = next(p for p in tmp_path.iterdir() if p.suffix in (".npy", ".bin"))
    data.write_bytes(data.read_bytes()[:100])
    with pytest.raises(HybridKGError, match="delete that directory"):
        cls(DIM, tmp_path)
    data.unlink()
    with pytest.raises(HybridKGError, match="missing"):
        cls(DIM, tmp_path)


def test_an_index_of_another_dimension_is_reported(make: Factory, tmp_path: Path) -> None:
    index = make(tmp_path)
    index.upsert(["a"], random_rows(1))
    index.save()
    with pytest.raises(HybridKGError, match="16-dimensional vectors but the embedder produces 8"):
        make_vector_index(VectorConfig(backend=VectorBackend.AUTO), 8, tmp_path)


def test_a_manifest_pointing_at_unknown_labels_is_reported(tmp_path: Path) -> None:
    index = HnswIndex(DIM, tmp_path)
    index.upsert(["a", "b"], random_rows(2))
    index.save()
    manifest = json.loads((tmp_path / "hnsw.json").read_text())
    manifest["keys"], manifest["next_key"] = [0, 7], 8
    (tmp_path / "hnsw.json").write_text(json.dumps(manifest))
    with pytest.raises(HybridKGError, match="names labels the graph file"):
        HnswIndex(DIM, tmp_path)


# --------------------------------------------------------------------------------------------- HNSW


def test_hnsw_recall_against_exact_search_on_clustered_data() -> None:
    data, queries = clustered(10_000, 64, clusters=50, n_queries=200)
    ids = [f"v{i}" for i in range(len(data))]
    exact, approx = ExactIndex(64), HnswIndex(64, m=16, ef_construction=100, ef_search=64)
    exact.upsert(ids, data)
    approx.upsert(ids, data)
    found = sum(len(set(ids_of(exact, q)) & set(ids_of(approx, q))) for q in queries)
    assert found / (10 * len(queries)) >= 0.98


def test_hnsw_grows_past_its_initial_capacity_and_reuses_deleted_slots() -> None:
    index = HnswIndex(DIM, ef_construction=32)
    rows = random_rows(3_000)
    index.upsert([f"a{i}" for i in range(1_500)], rows[:1_500])
    index.remove([f"a{i}" for i in range(1_000)])
    index.upsert([f"b{i}" for i in range(1_500)], rows[1_500:])
    assert len(index) == 2_000
    assert ids_of(index, rows[2_999], k=1) == ["b1499"]
    assert ids_of(index, rows[1_200], k=1) == ["a1200"]
    assert not any(h.id.startswith("a") and int(h.id[1:]) < 1_000 for h in index.search(rows[5], 50))


@pytest.mark.parametrize(
    "make_index",
    [lambda: HnswIndex(DIM, ef_construction=64, ef_search=400), lambda: TieredIndex(DIM, threshold=60, ef_search=400)],
    ids=["hnsw", "tiered"],
)
def test_random_upserts_and_removes_agree_with_exact_search(make_index: Callable[[], VectorIndex]) -> None:
    rng = np.random.default_rng(3)
    index, truth = make_index(), ExactIndex(DIM)
    for step in range(150):
        ids = [f"v{i}" for i in rng.choice(150, size=int(rng.integers(1, 12)), replace=False)]
        if step % 3 == 2:
            index.remove(ids)
            truth.remove(ids)
        else:
            rows = unit(rng.standard_normal((len(ids), DIM)))
            index.upsert(ids, rows)
            truth.upsert(ids, rows)
        assert len(index) == len(truth)
        if len(truth):
            q = unit(rng.standard_normal(DIM))
            assert ids_of(index, q, k=5) == ids_of(truth, q, k=5)


class GraphThatCannotAnswer:
    """Wraps an hnswlib index whose searches fail, as hnswlib does when it finds fewer than k results."""

    def __init__(self, graph: object) -> None:
        self._graph = graph

    def __getattr__(self, name: str) -> object:
        return getattr(self._graph, name)

    def knn_query(self, *args: object, **kwargs: object) -> object:
        raise RuntimeError("Cannot return the results in a contiguous 2D array. Probably ef or M is too small")


def test_hnsw_falls_back_to_an_exact_scan_when_the_graph_cannot_answer() -> None:
    index = HnswIndex(DIM)
    rows = random_rows(40)
    index.upsert([f"v{i}" for i in range(40)], rows)
    index.remove(["v7"])
    index._graph = GraphThatCannotAnswer(index._graph)
    hits = index.search(rows[7], 39)
    assert len(hits) == 39
    assert "v7" not in {h.id for h in hits}
    assert index.search(rows[3], 1)[0].id == "v3"


# --------------------------------------------------------------------------------------------- tiering


def test_tiered_index_moves_to_hnsw_at_the_threshold_and_back_below_half(tmp_path: Path) -> None:
    rows = random_rows(120)
    ids = [f"v{i}" for i in range(120)]
    index = TieredIndex(DIM, tmp_path, threshold=100)
    index.upsert(ids[:99], rows[:99])
    assert index.tier == "exact"
    index.save()
    index.upsert(ids[99:], rows[99:])
    assert index.tier == "hnsw"
    assert len(index) == 120
    assert ids_of(index, rows[110], k=1) == ["v110"]
    index.save()
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".json") == ["hnsw.json", "tiered.json"]

    reopened = TieredIndex(DIM, tmp_path, threshold=100)
    assert reopened.tier == "hnsw"
    reopened.remove(ids[:60])
    assert reopened.tier == "hnsw"
    reopened.remove(ids[60:71])
    assert reopened.tier == "exact"
    assert len(reopened) == 49
    assert ids_of(reopened, rows[119], k=1) == ["v119"]
    reopened.save()
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".json") == ["exact.json", "tiered.json"]
    assert TieredIndex(DIM, tmp_path, threshold=100).tier == "exact"


def test_an_unsaved_move_leaves_the_saved_tier_intact(tmp_path: Path) -> None:
    rows = random_rows(30)
    index = TieredIndex(DIM, tmp_path, threshold=20)
    index.upsert([f"v{i}" for i in range(10)], rows[:10])
    index.save()
    index.upsert([f"v{i}" for i in range(10, 30)], rows[10:])
    assert index.tier == "hnsw"
    reopened = TieredIndex(DIM, tmp_path, threshold=20)
    assert (reopened.tier, len(reopened)) == ("exact", 10)


def test_tiered_index_opens_a_directory_saved_by_the_exact_backend(tmp_path: Path) -> None:
    exact = ExactIndex(DIM, tmp_path)
    exact.upsert(["a", "b"], random_rows(2))
    exact.save()
    tiered = TieredIndex(DIM, tmp_path, threshold=1)
    assert tiered.tier == "hnsw"
    assert sorted(ids_of(tiered, random_rows(1, seed=5)[0])) == ["a", "b"]


# --------------------------------------------------------------------------------------------- factory


@pytest.mark.parametrize(
    ("backend", "cls"),
    [(VectorBackend.AUTO, TieredIndex), (VectorBackend.EXACT, ExactIndex), (VectorBackend.HNSW, HnswIndex)],
)
def test_factory_builds_the_configured_index(backend: VectorBackend, cls: type, tmp_path: Path) -> None:
    index = make_vector_index(VectorConfig(backend=backend), 32, tmp_path)
    assert isinstance(index, cls)
    assert index.dim == 32
    row = np.eye(1, 32, 5, dtype=np.float32)
    index.upsert(["a"], row)
    index.save()
    reopened = make_vector_index(VectorConfig(backend=backend), 32, tmp_path)
    assert ids_of(reopened, row[0], k=1) == ["a"]


def test_factory_applies_the_hnsw_settings() -> None:
    index = make_vector_index(VectorConfig(backend=VectorBackend.HNSW, hnsw_ef_search=300), 8, None)
    assert isinstance(index, HnswIndex)
    assert index.ef_search == 300


def test_native_backend_is_the_index_or_callable_the_caller_passes() -> None:
    config = VectorConfig(backend=VectorBackend.NATIVE)
    with pytest.raises(Unsupported, match="graph database"):
        make_vector_index(config, 8, None)
    seen: list[tuple[VectorConfig, int]] = []

    def native(cfg: VectorConfig, dim: int) -> VectorIndex:
        seen.append((cfg, dim))
        return ExactIndex(dim)

    assert make_vector_index(config, 8, None, native=native).dim == 8
    assert seen == [(config, 8)]
    built = ExactIndex(8)
    assert make_vector_index(config, 8, None, native=built) is built
    with pytest.raises(InvalidInput, match="dimension 8, the embedder 4"):
        make_vector_index(config, 4, None, native=built)


def test_factory_rejects_a_bad_dimension() -> None:
    with pytest.raises(InvalidInput, match="dimension"):
        make_vector_index(VectorConfig(), 0, None)


# --------------------------------------------------------------------------------------------- get and ids


def test_get_returns_the_stored_unit_rows_of_the_held_ids_in_the_order_asked(make: Factory, tmp_path: Path) -> None:
    rows = random_rows(30)
    index = make(tmp_path)
    index.upsert([f"v{i}" for i in range(30)], rows * 4.0)
    index.remove(["v5"])
    index.upsert(["v7"], -rows[7:8])
    for opened in (index, _saved_and_reopened(index, make, tmp_path)):
        found, matrix = opened.get(["v9", "v5", "nope", "v7", "v0", "v9"])
        assert found == ["v9", "v7", "v0"]
        assert matrix.dtype == np.float32
        assert matrix.shape == (3, DIM)
        np.testing.assert_allclose(matrix, np.stack([rows[9], -rows[7], rows[0]]), atol=1e-6)
        assert sorted(opened.ids()) == sorted(f"v{i}" for i in range(30) if i != 5)


def _saved_and_reopened(index: VectorIndex, make: Factory, path: Path) -> VectorIndex:
    index.save()
    return make(path)


def test_get_of_nothing_held_is_an_empty_matrix_of_the_index_dimension(make: Factory) -> None:
    index = make(None)
    assert index.ids() == []
    found, matrix = index.get(["a"])
    assert (found, matrix.shape, matrix.dtype) == ([], (0, DIM), np.float32)
    index.upsert(["a"], random_rows(1))
    found, matrix = index.get([])
    assert (found, matrix.shape) == ([], (0, DIM))
    with pytest.raises(InvalidInput, match="not one string"):
        index.get("a")


def test_get_agrees_with_search_after_many_replacements_and_removals(make: Factory) -> None:
    rng = np.random.default_rng(11)
    index, truth = make(None), dict[str, np.ndarray]()
    for step in range(60):
        ids = [f"v{i}" for i in rng.choice(80, size=int(rng.integers(1, 10)), replace=False)]
        if step % 4 == 3:
            index.remove(ids)
            for i in ids:
                truth.pop(i, None)
        else:
            rows = unit(rng.standard_normal((len(ids), DIM)))
            index.upsert(ids, rows)
            truth.update(zip(ids, rows, strict=True))
    assert sorted(index.ids()) == sorted(truth)
    found, matrix = index.get(list(truth))
    assert found == list(truth)
    np.testing.assert_allclose(matrix, np.stack(list(truth.values())), atol=1e-6)
