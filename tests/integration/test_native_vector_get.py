"""NativeVectorIndex.get and .ids on the managed FalkorDB server (and on Neo4j when NEO4J_URI and NEO4J_AUTH are
set): the stored unit rows of the ids held, in the order asked, for nodes and relationships."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from support.falkor import falkordb_server, fresh_graph
from support.neo4j_env import neo4j_store

from hybridkg.structural.base import ENTITY, RELATED, EdgeRow
from hybridkg.structural.graphstore.cypher import CypherGraphStore
from hybridkg.structural.graphstore.server import ManagedFalkorDB
from hybridkg.structural.settings import VectorConfig
from hybridkg.structural.vectors.native import NativeVectorIndex

DIM = 8


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


def unit(rows: np.ndarray) -> np.ndarray:
    return (rows / np.linalg.norm(rows, axis=-1, keepdims=True)).astype(np.float32)


def test_get_and_ids_of_node_vectors(graph: CypherGraphStore) -> None:
    n = 700  # more than one batch of 500 ids
    ids = [f"ent:{i}" for i in range(n)]
    graph.upsert_nodes(ENTITY, [{"id": i, "name": i} for i in [*ids, "ent:bare"]])
    rows = unit(np.random.default_rng(4).standard_normal((n, DIM)))
    index = NativeVectorIndex(graph, ENTITY, DIM, VectorConfig())
    assert index.ids() == []
    assert index.get(ids[:3])[1].shape == (0, DIM)
    index.upsert(ids, rows * 3.0)
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
