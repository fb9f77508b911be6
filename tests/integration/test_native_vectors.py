"""The graph database's own vector index (NativeVectorIndex) on the managed FalkorDB server, and on Neo4j when
NEO4J_URI and NEO4J_AUTH are set: recall against exact search, cosine scores, lifecycle, and get/ids (the stored
unit rows of the ids held, in the order asked, for nodes and relationships)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from support.falkor import falkordb_server, fresh_graph
from support.neo4j_env import neo4j_store
from support.vectors import clustered

from hybridkg.errors import InvalidInput, Unsupported
from hybridkg.structural.base import ENTITY, RELATED, EdgeRow
from hybridkg.structural.graphstore.cypher import CypherGraphStore
from hybridkg.structural.graphstore.memory import InMemoryGraphStore
from hybridkg.structural.graphstore.server import ManagedFalkorDB
from hybridkg.structural.settings import VectorConfig
from hybridkg.structural.vectors.native import NativeVectorIndex

DIM = 384
CONFIG = VectorConfig(hnsw_ef_construction=100, hnsw_ef_search=64)


@pytest.fixture(scope="module")
def falkor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ManagedFalkorDB]:
    with falkordb_server(tmp_path_factory.mktemp("falkor") / "data") as server:
        yield server


@pytest.fixture(params=["falkordb", "neo4j"])
def graph(request: pytest.FixtureRequest) -> Iterator[CypherGraphStore]:
    store = fresh_graph(request.getfixturevalue("falkor")) if request.param == "falkordb" else neo4j_store()
    try:
        yield store
    finally:
        store.close()


def entities(graph: CypherGraphStore, n: int) -> list[str]:
    ids = [f"ent:{i}" for i in range(n)]
    graph.upsert_nodes(ENTITY, [{"id": i, "name": f"entity {i}"} for i in ids])
    return ids


def test_recall_and_scores_against_exact_search(graph: CypherGraphStore) -> None:
    data, queries = clustered(2_000, DIM, clusters=40, n_queries=50, seed=3)
    ids = entities(graph, len(data))
    index = NativeVectorIndex(graph, ENTITY, DIM, CONFIG)
    index.upsert(ids, data * 3.0)
    assert len(index) == len(data)
    assert index.dim == DIM
    exact = queries @ data.T
    truth = np.argsort(-exact, axis=1)[:, :10]
    found = []
    for q, want, sims in zip(queries, truth, exact, strict=True):
        hits = index.search(q, 10)
        assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
        for h in hits:
            assert h.score == pytest.approx(float(sims[int(h.id[4:])]), abs=1e-5)
        found.append(len({int(h.id[4:]) for h in hits} & set(want.tolist())) / 10)
    assert float(np.mean(found)) >= 0.95


def test_upsert_replace_remove_and_node_deletion(graph: CypherGraphStore) -> None:
    ids = entities(graph, 3)
    index = NativeVectorIndex(graph, ENTITY, 4, VectorConfig())
    index.upsert(ids, np.array([[1, 0, 0, 0], [0, 1, 0, 0], [-1, 0, 0, 0]], dtype=np.float32))
    assert [h.id for h in index.search(np.array([1, 0.1, 0, 0], dtype=np.float32), 3)] == ids
    index.upsert(["ent:2"], np.array([[1, 0.05, 0, 0]], dtype=np.float32))
    assert index.search(np.array([1, 0, 0, 0], dtype=np.float32), 1)[0].id == "ent:0"
    assert index.search(np.array([1, 0, 0, 0], dtype=np.float32), 3)[1].id == "ent:2"
    index.remove(["ent:0", "unknown"])
    assert len(index) == 2
    assert [h.id for h in index.search(np.array([1, 0, 0, 0], dtype=np.float32), 5)] == [
        "ent:2",
        "ent:1",
    ]
    assert "embedding" not in graph.neighbourhood(ENTITY, ["ent:2"], depth=0).nodes["ent:2"].props
    graph.delete(ENTITY, ["ent:2"])
    assert len(index) == 1
    index.save()


def test_vectors_need_their_node_and_the_right_dimension(graph: CypherGraphStore) -> None:
    ids = entities(graph, 2)
    index = NativeVectorIndex(graph, ENTITY, 4, VectorConfig())
    with pytest.raises(InvalidInput, match="ghost"):
        index.upsert([ids[0], "ghost"], np.eye(2, 4, dtype=np.float32))
    assert len(index) == 0
    with pytest.raises(InvalidInput, match="dimension"):
        index.upsert(ids, np.eye(2, 3, dtype=np.float32))
    with pytest.raises(InvalidInput, match="4-dimensional"):
        NativeVectorIndex(graph, ENTITY, 8, VectorConfig())


def test_relationship_vectors(graph: CypherGraphStore) -> None:
    entities(graph, 3)
    graph.upsert_edges(
        RELATED,
        [
            EdgeRow("r01", "ent:0", "ent:1", ENTITY, ENTITY, {"w": 1.0}),
            EdgeRow("r12", "ent:1", "ent:2", ENTITY, ENTITY, {"w": 1.0}),
        ],
    )
    index = NativeVectorIndex(graph, RELATED, 3, VectorConfig())
    index.upsert(["r01", "r12"], np.array([[1, 0, 0], [0, 1, 0]], dtype=np.float32))
    hits = index.search(np.array([0, 1, 0], dtype=np.float32), 2)
    assert [h.id for h in hits] == ["r12", "r01"]
    assert hits[0].score == pytest.approx(1.0, abs=1e-6)
    assert graph.edges(RELATED, ["r12"])[0].props == {"id": "r12", "w": 1.0}


# ---------------------------------------------------------------------------------------------- get / ids

GET_DIM = 8


def _unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(np.float32)


def test_get_and_ids_of_node_vectors(graph: CypherGraphStore) -> None:
    n = 700  # more than one batch of 500 ids
    ids = [f"ent:{i}" for i in range(n)]
    graph.upsert_nodes(ENTITY, [{"id": i, "name": i} for i in [*ids, "ent:bare"]])
    rows = _unit(np.random.default_rng(4).standard_normal((n, GET_DIM)))
    index = NativeVectorIndex(graph, ENTITY, GET_DIM, VectorConfig())
    assert index.ids() == []
    assert index.get(ids[:3])[1].shape == (0, GET_DIM)
    index.upsert(ids, (rows * 3.0).astype(np.float32))
    index.remove(["ent:3"])
    assert sorted(index.ids()) == sorted(i for i in ids if i != "ent:3")
    wanted = ["ent:650", "ent:3", "ent:bare", "ghost", "ent:0", *ids[100:600]]
    found, matrix = index.get(wanted)
    assert found == ["ent:650", "ent:0", *ids[100:600]]
    assert matrix.dtype == np.float32
    np.testing.assert_allclose(matrix, rows[[650, 0, *range(100, 600)]], atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-6)


def test_get_and_ids_of_relationship_vectors(graph: CypherGraphStore) -> None:
    graph.upsert_nodes(ENTITY, [{"id": f"ent:{i}", "name": str(i)} for i in range(3)])
    graph.upsert_edges(
        RELATED,
        [
            EdgeRow("r01", "ent:0", "ent:1", ENTITY, ENTITY, {"w": 1.0}),
            EdgeRow("r12", "ent:1", "ent:2", ENTITY, ENTITY, {"w": 1.0}),
        ],
    )
    index = NativeVectorIndex(graph, RELATED, 3, VectorConfig())
    index.upsert(["r12"], np.array([[0, 2, 0]], dtype=np.float32))
    assert index.ids() == ["r12"]
    found, matrix = index.get(["r01", "r12"])
    assert found == ["r12"]
    np.testing.assert_allclose(matrix, [[0, 1, 0]], atol=1e-6)


def test_the_in_memory_graph_has_no_native_index() -> None:
    with pytest.raises(Unsupported, match="falkordb or neo4j"):
        NativeVectorIndex(InMemoryGraphStore(), ENTITY, 4)
