"""FalkorDB's compact replies as the store decodes them: every value type, and the names of labels, relationship
types and property keys kept right while other clients change the graph's schema (or delete and recreate it)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest
import redis
from support.falkor import falkordb_server, fresh_graph

from hybridkg.structural.base import Edge, GraphNode, GraphRelationship, Node
from hybridkg.structural.graphstore.falkordb_store import FalkorDBGraphStore
from hybridkg.structural.graphstore.server import ManagedFalkorDB


@pytest.fixture(scope="module")
def falkor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ManagedFalkorDB]:
    with falkordb_server(tmp_path_factory.mktemp("falkor") / "data") as server:
        yield server


@pytest.fixture
def store(falkor: ManagedFalkorDB) -> Iterator[FalkorDBGraphStore]:
    s = fresh_graph(falkor)
    try:
        yield s
    finally:
        s.close()


@pytest.fixture
def other(falkor: ManagedFalkorDB) -> Iterator[redis.Redis]:
    """Another client of the same server."""
    client = falkor.client(timeout=5.0)
    try:
        yield client
    finally:
        client.close()


def _queries(client: redis.Redis) -> int:
    """How many GRAPH.QUERY and GRAPH.RO_QUERY commands the server has run."""
    stats = client.info("commandstats")
    return sum(int(stats.get(f"cmdstat_{c}", {}).get("calls", 0)) for c in ("graph.QUERY", "graph.RO_QUERY"))


def test_every_value_type_decodes(store: FalkorDBGraphStore) -> None:
    store.query("CREATE (:A:B {id: 'a', n: 1, x: 2.5, s: 'é \"q\"', t: true, l: [1, 'two', 3.5, false]})")
    (row,) = store.query(
        "MATCH (a:A) RETURN a.n AS n, a.x AS x, a.s AS s, a.t AS t, a.l AS l, null AS z, {k: [a.n, 'v']} AS m, "
        "point({latitude: 1.5, longitude: -2}) AS p, date('2020-01-02') AS d, vecf32([1.0, 2.5]) AS v, "
        "-9007199254740993 AS big, 1.0 / 4 AS q"
    )
    assert row == {
        "n": 1,
        "x": 2.5,
        "s": 'é "q"',
        "t": True,
        "l": [1, "two", 3.5, False],
        "z": None,
        "m": {"k": [1, "v"]},
        "p": {"latitude": 1.5, "longitude": -2.0},
        "d": dt.date(2020, 1, 2),
        "v": [1.0, 2.5],
        "big": -9007199254740993,
        "q": 0.25,
    }
    assert [type(row[k]) for k in ("n", "x", "t")] == [int, float, bool]


def test_graph_values_keep_their_names(store: FalkorDBGraphStore) -> None:
    store.query("CREATE (:A:B {id: 'a', k: 1})-[:R {id: 'r', w: 2}]->(:C {id: 'c'})")
    (row,) = store.query("MATCH p = (a)-[r]->(c) RETURN a, r, c, p, [a] AS l")
    a, c = Node("a", "A", {"id": "a", "k": 1}), Node("c", "C", {"id": "c"})
    r = Edge("r", "R", "a", "c", {"id": "r", "w": 2})
    assert row == {"a": a, "r": r, "c": c, "p": {"nodes": [a, c], "edges": [r]}, "l": [a]}
    ((c_id,),) = store.rows("MATCH (c:C) RETURN id(c)")
    ((node, rel),) = store.read_query("MATCH (a)-[r]->(c) RETURN a, r").rows
    assert node == GraphNode(node.element_id, ("A", "B"), {"id": "a", "k": 1})
    assert rel == GraphRelationship(rel.element_id, "R", node.element_id, str(c_id), {"id": "r", "w": 2})


def test_names_follow_schema_changes_made_by_another_client(store: FalkorDBGraphStore, other: redis.Redis) -> None:
    store.query("CREATE (:A {id: 'a', k: 1})")
    assert store.query("MATCH (n) RETURN n") == [{"n": Node("a", "A", {"id": "a", "k": 1})}]
    other.execute_command("GRAPH.QUERY", store.graph_name, "CREATE (:Z:Y {id: 'z', late: 'yes'})-[:T]->(:A {id: 'b'})")
    rows = store.query("MATCH (n:Z)-[t]->(m) RETURN n, t, m")
    assert rows == [
        {
            "n": Node("z", "Z", {"id": "z", "late": "yes"}),
            "t": Edge("", "T", "z", "b", {}),
            "m": Node("b", "A", {"id": "b"}),
        }
    ]
    assert store.read_query("MATCH (n:Z) RETURN n").rows[0][0].labels == ("Z", "Y")


def test_names_are_right_after_the_graph_is_deleted_and_made_again(
    store: FalkorDBGraphStore, other: redis.Redis
) -> None:
    store.query("CREATE (:A {id: 'a', first: 1}), (:B {id: 'b', second: 2})")
    assert {r["n"].label for r in store.query("MATCH (n) RETURN n")} == {"A", "B"}
    other.execute_command("GRAPH.DELETE", store.graph_name)
    # the same numbers now stand for other names: B is label 0, A label 1; second is key 0
    other.execute_command("GRAPH.QUERY", store.graph_name, "CREATE (:B {second: 'x', id: 'b2'}), (:A {id: 'a2'})")
    rows = store.query("MATCH (n) RETURN n ORDER BY n.id")
    assert rows == [{"n": Node("a2", "A", {"id": "a2"})}, {"n": Node("b2", "B", {"second": "x", "id": "b2"})}]


def test_a_query_returning_nodes_is_one_round_trip(store: FalkorDBGraphStore, other: redis.Redis) -> None:
    store.query("CREATE (:A {id: 'a'})-[:R {id: 'r'}]->(:A {id: 'b'})")
    store.query("MATCH (a)-[r]->(b) RETURN a, r, b")  # the schema is read once, here
    before = _queries(other)
    for _ in range(5):
        assert len(store.query("MATCH (a)-[r]->(b) RETURN a, r, b")) == 1
    assert _queries(other) - before == 5
