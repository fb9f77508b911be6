"""The GraphStore contract, run against every backend: the managed FalkorDB server (always), Neo4j (when
NEO4J_URI and NEO4J_AUTH are set) and the in-memory store."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from support.falkor import falkordb_server, fresh_graph
from support.neo4j_env import neo4j_store

from hybridkg.errors import InvalidInput, Unsupported
from hybridkg.structural.base import CHUNK, ENTITY, MENTIONS, RELATED, Edge, EdgeRow, GraphStore, Node
from hybridkg.structural.graphstore.memory import InMemoryGraphStore
from hybridkg.structural.graphstore.server import ManagedFalkorDB

TRICKY = "quote \" back \\ newline \n tab \t unit \x1f unicode é 漢 } $x `tick` 'single'"


@pytest.fixture(scope="module")
def falkor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ManagedFalkorDB]:
    with falkordb_server(tmp_path_factory.mktemp("falkor") / "data") as server:
        yield server


@pytest.fixture(params=["falkordb", "neo4j", "memory"])
def store(request: pytest.FixtureRequest) -> Iterator[GraphStore]:
    s: GraphStore
    if request.param == "falkordb":
        s = fresh_graph(request.getfixturevalue("falkor"))
    elif request.param == "neo4j":
        s = neo4j_store()
    else:
        s = InMemoryGraphStore()
    try:
        yield s
    finally:
        s.close()


def ent(*ids: str, **props: object) -> list[dict[str, object]]:
    return [{"id": i, "name": i.upper(), **props} for i in ids]


def rel(id_: str, src: str, dst: str, **props: object) -> EdgeRow:
    return EdgeRow(id_, src, dst, ENTITY, ENTITY, props)


def triangle(store: GraphStore) -> None:
    """a -> b -> c, c -> a over RELATED; chunk k MENTIONS a; d is isolated."""
    store.upsert_nodes(ENTITY, ent("a", "b", "c", "d"))
    store.upsert_nodes(CHUNK, [{"id": "k", "text": "about a"}])
    store.upsert_edges(RELATED, [rel("ab", "a", "b", w=1.0), rel("bc", "b", "c", w=2.0), rel("ca", "c", "a")])
    store.upsert_edges(MENTIONS, [EdgeRow("ka", "k", "a", CHUNK, ENTITY)])


def test_what_is_written_reads_back_until_deleted(store: GraphStore) -> None:
    """The GraphStore members as a user meets them: write two nodes and an edge, read them back, delete one."""
    assert isinstance(store, GraphStore)
    store.upsert_nodes(ENTITY, [{"id": "ada", "name": "Ada", "born": 1815}, {"id": "cb", "name": "Babbage"}])
    store.upsert_edges(RELATED, [rel("r", "ada", "cb", kind="worked with")])
    edge = Edge("r", RELATED, "ada", "cb", {"id": "r", "kind": "worked with"})
    sub = store.neighbourhood(ENTITY, ["ada"], depth=1)
    assert sub.nodes == {
        "ada": Node("ada", ENTITY, {"id": "ada", "name": "Ada", "born": 1815}),
        "cb": Node("cb", ENTITY, {"id": "cb", "name": "Babbage"}),
    }
    assert sub.edges == [edge]
    assert store.edges(RELATED, ["r"]) == [edge]
    store.delete(ENTITY, ["cb"])
    assert set(store.neighbourhood(ENTITY, ["ada", "cb"], depth=1).nodes) == {"ada"}
    assert store.edges(RELATED, ["r"]) == []


def test_nodes_merge_by_id_and_none_removes(store: GraphStore) -> None:
    store.upsert_nodes(ENTITY, [{"id": "a", "name": "A", "type": "person", "n": 1}])
    store.upsert_nodes(ENTITY, [{"id": "a", "type": None, "n": 2, "tags": ["x", "y"]}])
    node = store.neighbourhood(ENTITY, ["a"], depth=0).nodes["a"]
    assert node == Node("a", ENTITY, {"id": "a", "name": "A", "n": 2, "tags": ["x", "y"]})


def test_duplicate_rows_in_one_call_fold_in_order(store: GraphStore) -> None:
    store.upsert_nodes(ENTITY, [{"id": "a", "x": 1, "y": 1}, {"id": "a", "x": None, "z": 3}, {"id": "b"}])
    nodes = store.neighbourhood(ENTITY, ["a", "b"], depth=0).nodes
    assert nodes["a"].props == {"id": "a", "y": 1, "z": 3}
    assert set(nodes) == {"a", "b"}


def test_values_round_trip(store: GraphStore) -> None:
    values = {
        "text": TRICKY,
        "i": -7,
        "f": 1.0,
        "g": 0.1,
        "yes": True,
        "no": False,
        "strs": [TRICKY, ""],
        "floats": [0.5, -1.25],
        "np_scalar": np.float32(0.5),
        "np_list": [np.int64(0), np.int64(1), 2],
    }
    store.upsert_nodes(ENTITY, [{"id": TRICKY, **values}])
    node = store.neighbourhood(ENTITY, [TRICKY], depth=0).nodes[TRICKY]
    assert node.props["text"] == TRICKY
    assert node.props["strs"] == [TRICKY, ""]
    assert node.props["i"] == -7
    assert node.props["yes"] is True
    assert node.props["no"] is False
    assert isinstance(node.props["f"], float)
    assert node.props["f"] == 1.0
    assert node.props["g"] == 0.1
    assert node.props["np_scalar"] == 0.5
    assert node.props["np_list"] == [0, 1, 2]


@pytest.mark.parametrize(
    "bad",
    [
        {"id": "a", "m": {"nested": 1}},
        {"id": "a", "l": [[1]]},
        {"id": "a", "v": np.zeros(2)},
        {"id": "a", "bad key": 1},
        {"id": ""},
        {"x": 1},
    ],
)
def test_bad_node_rows_are_rejected(store: GraphStore, bad: dict[str, object]) -> None:
    with pytest.raises(InvalidInput):
        store.upsert_nodes(ENTITY, [{"id": "ok"}, bad])
    assert store.neighbourhood(ENTITY, ["ok", "a"], depth=0).nodes == {}


@pytest.mark.parametrize("name", ["Bad Label", "x) DETACH DELETE (n", "1abc", "", "Entity`"])
def test_names_spliced_into_cypher_are_validated(store: GraphStore, name: str) -> None:
    store.upsert_nodes(ENTITY, ent("a"))
    with pytest.raises(InvalidInput, match="not a valid name"):
        store.upsert_nodes(name, ent("x"))
    with pytest.raises(InvalidInput, match="not a valid name"):
        store.upsert_edges(name, [rel("r", "a", "a")])
    with pytest.raises(InvalidInput, match="not a valid name"):
        store.neighbourhood(ENTITY, ["a"], rel_types=[name])
    with pytest.raises(InvalidInput, match="not a valid name"):
        store.delete(name, ["a"])
    assert "a" in store.neighbourhood(ENTITY, ["a"], depth=0).nodes


def test_node_ids_are_unique_across_labels(store: GraphStore) -> None:
    store.upsert_nodes(ENTITY, ent("a"))
    with pytest.raises(InvalidInput, match="already exists as :Entity"):
        store.upsert_nodes(CHUNK, [{"id": "b"}, {"id": "a"}])
    assert store.neighbourhood(CHUNK, ["a", "b"], depth=0).nodes == {}


def test_edges_keep_direction_and_properties(store: GraphStore) -> None:
    triangle(store)
    edges = {e.id: e for e in store.edges(RELATED, ["ab", "ca", "nope"])}
    assert edges == {
        "ab": Edge("ab", RELATED, "a", "b", {"id": "ab", "w": 1.0}),
        "ca": Edge("ca", RELATED, "c", "a", {"id": "ca"}),
    }
    store.upsert_edges(RELATED, [rel("ab", "a", "b", w=None, k="x")])
    assert store.edges(RELATED, ["ab"])[0].props == {"id": "ab", "k": "x"}


def test_missing_endpoint_fails_the_whole_call(store: GraphStore) -> None:
    store.upsert_nodes(ENTITY, ent("a", "b"))
    store.upsert_nodes(CHUNK, [{"id": "k"}])
    rows = [rel("ok", "a", "b"), rel("bad", "a", "ghost"), EdgeRow("wrong", "a", "k", ENTITY, ENTITY)]
    with pytest.raises(InvalidInput, match="ghost") as caught:
        store.upsert_edges(RELATED, rows)
    assert "(:Entity {id: 'k'})" in str(caught.value)
    assert "nothing was written" in str(caught.value)
    assert store.edges(RELATED, ["ok", "bad", "wrong"]) == []


def test_an_edge_id_given_new_endpoints_moves(store: GraphStore) -> None:
    store.upsert_nodes(ENTITY, ent("a", "b", "c"))
    store.upsert_edges(RELATED, [rel("r", "a", "b", w=1.0)])
    store.upsert_edges(RELATED, [rel("r", "c", "a", k="x")])
    assert store.edges(RELATED, ["r"]) == [Edge("r", RELATED, "c", "a", {"id": "r", "w": 1.0, "k": "x"})]
    assert {e.id for e in store.neighbourhood(ENTITY, ["b"]).edges} == set()
    store.upsert_edges(RELATED, [rel("s", "a", "b"), rel("s", "b", "c", k="y")])
    assert store.edges(RELATED, ["s"]) == [Edge("s", RELATED, "b", "c", {"id": "s", "k": "y"})]


def test_neighbourhood_walks_any_direction(store: GraphStore) -> None:
    triangle(store)
    sub = store.neighbourhood(ENTITY, ["b"], depth=1)
    assert set(sub.nodes) == {"a", "b", "c"}
    assert {(e.id, e.src, e.dst) for e in sub.edges} == {("ab", "a", "b"), ("bc", "b", "c")}
    assert sub.nodes["a"] == Node("a", ENTITY, {"id": "a", "name": "A"})
    sub = store.neighbourhood(ENTITY, ["a"], depth=1)
    assert set(sub.nodes) == {"a", "b", "c", "k"}
    assert sub.nodes["k"].label == CHUNK
    assert {e.type for e in sub.edges} == {RELATED, MENTIONS}


def test_neighbourhood_projects_properties(store: GraphStore) -> None:
    triangle(store)
    sub = store.neighbourhood(ENTITY, ["b"], depth=1, rel_types=[RELATED], props=["w"])
    assert sub.nodes["a"] == Node("a", ENTITY, {"id": "a"})
    assert {e.id: e.props for e in sub.edges} == {"ab": {"id": "ab", "w": 1.0}, "bc": {"id": "bc", "w": 2.0}}
    assert store.neighbourhood(ENTITY, ["a"], depth=0, props=["name"]).nodes["a"].props == {"id": "a", "name": "A"}
    with pytest.raises(InvalidInput, match="not a valid name"):
        store.neighbourhood(ENTITY, ["a"], props=["x}) DETACH DELETE (n"])


def test_neighbourhood_caps_relationships_per_node(store: GraphStore) -> None:
    triangle(store)
    sub = store.neighbourhood(ENTITY, ["b"], depth=1, rel_types=[RELATED], limit=1, order_by="w")
    assert set(sub.nodes) == {"b", "c"}
    assert [e.id for e in sub.edges] == ["bc"]
    both = store.neighbourhood(ENTITY, ["a", "b"], depth=1, rel_types=[RELATED], props=["w"], limit=1, order_by="w")
    assert {e.id for e in both.edges} == {"ab", "bc"}  # a: ab (w 1) beats ca (no w); b: bc (w 2)
    with pytest.raises(InvalidInput, match="limit"):
        store.neighbourhood(ENTITY, ["b"], depth=1, limit=0)
    with pytest.raises(InvalidInput, match="depth=1"):
        store.neighbourhood(ENTITY, ["b"], depth=2, limit=3)


def test_neighbourhood_filters_types_and_depth(store: GraphStore) -> None:
    triangle(store)
    sub = store.neighbourhood(ENTITY, ["a"], depth=1, rel_types=[RELATED])
    assert set(sub.nodes) == {"a", "b", "c"}
    assert {e.id for e in sub.edges} == {"ab", "ca"}
    sub = store.neighbourhood(CHUNK, ["k"], depth=2, rel_types=[MENTIONS, RELATED])
    assert set(sub.nodes) == {"k", "a", "b", "c"}
    assert {e.id for e in sub.edges} == {"ka", "ab", "ca"}
    sub = store.neighbourhood(CHUNK, ["k"], depth=2, rel_types=[MENTIONS])
    assert set(sub.nodes) == {"k", "a"}
    assert {e.id for e in sub.edges} == {"ka"}
    assert set(store.neighbourhood(ENTITY, ["a"], depth=3, rel_types=[]).nodes) == {"a"}
    assert set(store.neighbourhood(ENTITY, ["d"], depth=2).nodes) == {"d"}


def test_neighbourhood_seeds_must_have_the_label(store: GraphStore) -> None:
    triangle(store)
    assert store.neighbourhood(CHUNK, ["a", "nope"], depth=1).nodes == {}
    assert store.neighbourhood(ENTITY, [], depth=1).nodes == {}
    with pytest.raises(InvalidInput):
        store.neighbourhood(ENTITY, "a", depth=1)
    with pytest.raises(InvalidInput):
        store.neighbourhood(ENTITY, ["a"], depth=-1)


def test_delete_nodes_detaches_and_delete_edges_by_id(store: GraphStore) -> None:
    triangle(store)
    store.delete(RELATED, ["bc", "nope"], edges=True)
    assert [e.id for e in store.edges(RELATED, ["ab", "bc", "ca"])] == ["ab", "ca"]
    store.delete(CHUNK, ["a"])
    assert "a" in store.neighbourhood(ENTITY, ["a"], depth=0).nodes
    store.delete(ENTITY, ["a", "nope"])
    assert store.neighbourhood(ENTITY, ["a"], depth=0).nodes == {}
    assert store.edges(RELATED, ["ab", "ca"]) == []
    assert store.edges(MENTIONS, ["ka"]) == []
    assert set(store.neighbourhood(ENTITY, ["b"], depth=1).nodes) == {"b"}


def test_large_batches_cross_statement_boundaries(store: GraphStore) -> None:
    n = 12_000
    store.upsert_nodes(ENTITY, [{"id": f"e{i}", "i": i} for i in range(n)])
    store.upsert_edges(RELATED, [rel(f"r{i}", f"e{i}", f"e{(i + 1) % n}") for i in range(n)])
    sub = store.neighbourhood(ENTITY, ["e0", "e11999"], depth=1)
    assert set(sub.nodes) == {"e0", "e1", "e11998", "e11999"}
    assert len(sub.edges) == 3
    assert len(store.edges(RELATED, [f"r{i}" for i in range(n)])) == n


def test_query_returns_plain_rows(store: GraphStore) -> None:
    triangle(store)
    if not hasattr(store, "dialect"):
        with pytest.raises(Unsupported):
            store.query("MATCH (n) RETURN n")
        return
    rows = store.query(
        "MATCH (a:Entity {id: $id})-[r:RELATED]->(b) RETURN a, r, b.id AS b, [1, 2] AS l, {k: $v} AS m",
        {"id": "a", "v": np.float32(0.5)},
    )
    assert rows == [
        {
            "a": Node("a", ENTITY, {"id": "a", "name": "A"}),
            "r": Edge("ab", RELATED, "a", "b", {"id": "ab", "w": 1.0}),
            "b": "b",
            "l": [1, 2],
            "m": {"k": 0.5},
        }
    ]
    (row,) = store.query("MATCH p = (:Chunk {id: 'k'})-[:MENTIONS]->()-[:RELATED]->() RETURN p")
    assert [n.id for n in row["p"]["nodes"]] == ["k", "a", "b"]
    assert [(e.id, e.src, e.dst) for e in row["p"]["edges"]] == [("ka", "k", "a"), ("ab", "a", "b")]
    assert store.query("MATCH (n:Entity) RETURN count(n) AS c") == [{"c": 4}]
