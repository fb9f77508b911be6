"""The in-memory GraphStore keeps the protocol's semantics: merge, removal by None, endpoints, walks, deletes."""

from __future__ import annotations

import pytest

from hybridkg.errors import InvalidInput, Unsupported
from hybridkg.structural.base import CHUNK, ENTITY, MENTIONS, RELATED, EdgeRow, GraphStore
from hybridkg.structural.graphstore.memory import InMemoryGraphStore


@pytest.fixture
def g() -> InMemoryGraphStore:
    store = InMemoryGraphStore()
    store.upsert_nodes(ENTITY, [{"id": f"ent:{x}", "name": x.upper()} for x in "abcde"])
    store.upsert_nodes(CHUNK, [{"id": "chunk:1", "text": "a and b"}])
    store.upsert_edges(
        RELATED,
        [
            EdgeRow("rel:ab", "ent:a", "ent:b", ENTITY, ENTITY, {"w_struct": 1.0}),
            EdgeRow("rel:cb", "ent:c", "ent:b", ENTITY, ENTITY),
            EdgeRow("rel:cd", "ent:c", "ent:d", ENTITY, ENTITY),
        ],
    )
    store.upsert_edges(MENTIONS, [EdgeRow("m:1a", "chunk:1", "ent:a", CHUNK, ENTITY)])
    return store


def test_it_serves_the_graph_store_protocol(g: InMemoryGraphStore) -> None:
    store: GraphStore = g
    store.upsert_nodes(ENTITY, [{"id": "ent:z", "name": "Z"}])
    assert store.neighbourhood(ENTITY, ["ent:z"], depth=0).nodes["ent:z"].props["name"] == "Z"


def test_upsert_merges_properties_and_none_removes_one(g: InMemoryGraphStore) -> None:
    g.upsert_nodes(ENTITY, [{"id": "ent:a", "type": "person"}, {"id": "ent:b", "name": None}])
    nodes = g.neighbourhood(ENTITY, ["ent:a", "ent:b"], depth=0).nodes
    assert nodes["ent:a"].props == {"id": "ent:a", "name": "A", "type": "person"}
    assert nodes["ent:b"].props == {"id": "ent:b"}
    g.upsert_edges(RELATED, [EdgeRow("rel:ab", "ent:a", "ent:b", ENTITY, ENTITY, {"w_struct": None, "w_attn": 2})])
    assert g.edges(RELATED, ["rel:ab"])[0].props == {"id": "rel:ab", "w_attn": 2}


def test_returned_records_are_copies(g: InMemoryGraphStore) -> None:
    g.upsert_nodes(ENTITY, [{"id": "ent:a", "source_chunks": ["chunk:1"]}])
    node = g.neighbourhood(ENTITY, ["ent:a"], depth=0).nodes["ent:a"]
    node.props["source_chunks"].append("chunk:2")
    node.props["name"] = "changed"
    again = g.neighbourhood(ENTITY, ["ent:a"], depth=0).nodes["ent:a"]
    assert again.props["source_chunks"] == ["chunk:1"]
    assert again.props["name"] == "A"


def test_a_missing_endpoint_writes_nothing_of_the_batch(g: InMemoryGraphStore) -> None:
    rows = [
        EdgeRow("rel:ae", "ent:a", "ent:e", ENTITY, ENTITY),
        EdgeRow("rel:ax", "ent:a", "ent:x", ENTITY, ENTITY),
        EdgeRow("rel:a1", "ent:a", "chunk:1", ENTITY, ENTITY),  # wrong label
    ]
    with pytest.raises(InvalidInput, match=r"ent:x.*chunk:1"):
        g.upsert_edges(RELATED, rows)
    assert g.edges(RELATED, ["rel:ae", "rel:ax", "rel:a1"]) == []


def test_neighbourhood_walks_any_direction_to_the_depth(g: InMemoryGraphStore) -> None:
    one = g.neighbourhood(ENTITY, ["ent:b"], depth=1, rel_types=[RELATED])
    assert set(one.nodes) == {"ent:a", "ent:b", "ent:c"}
    assert {e.id for e in one.edges} == {"rel:ab", "rel:cb"}
    two = g.neighbourhood(ENTITY, ["ent:b"], depth=2, rel_types=[RELATED])
    assert set(two.nodes) == {"ent:a", "ent:b", "ent:c", "ent:d"}
    assert {e.id for e in two.edges} == {"rel:ab", "rel:cb", "rel:cd"}
    every = g.neighbourhood(ENTITY, ["ent:b"], depth=2)
    assert "chunk:1" in every.nodes
    assert "m:1a" in {e.id for e in every.edges}
    assert g.neighbourhood(CHUNK, ["ent:b", "ent:zzz"], depth=1).nodes == {}
    edge = g.edges(RELATED, ["rel:cb"])[0]
    assert (edge.src, edge.dst, edge.type) == ("ent:c", "ent:b", RELATED)


def test_delete_detaches_nodes_and_removes_edges_by_id(g: InMemoryGraphStore) -> None:
    g.delete(ENTITY, ["ent:b", "ent:unknown"])
    assert g.edges(RELATED, ["rel:ab", "rel:cb", "rel:cd"])[0].id == "rel:cd"
    assert "ent:b" not in g.neighbourhood(ENTITY, ["ent:a", "ent:c"], depth=1).nodes
    g.delete(RELATED, ["rel:cd"], edges=True)
    assert g.neighbourhood(ENTITY, ["ent:c"], depth=1, rel_types=[RELATED]).edges == []
    g.delete(CHUNK, ["ent:a"])  # wrong label: nothing happens
    assert "ent:a" in g.neighbourhood(ENTITY, ["ent:a"], depth=0).nodes


def test_reattaching_an_edge_id_moves_it(g: InMemoryGraphStore) -> None:
    g.upsert_edges(RELATED, [EdgeRow("rel:ab", "ent:a", "ent:e", ENTITY, ENTITY)])
    assert g.edges(RELATED, ["rel:ab"])[0].dst == "ent:e"
    assert g.neighbourhood(ENTITY, ["ent:b"], depth=1, rel_types=[RELATED]).nodes.keys() == {"ent:b", "ent:c"}


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda g: g.upsert_nodes("Bad-Label", [{"id": "x"}]), "label"),
        (lambda g: g.upsert_nodes(ENTITY, [{"name": "no id"}]), "id"),
        (lambda g: g.upsert_nodes(CHUNK, [{"id": "ent:a"}]), "already exists"),
        (lambda g: g.upsert_nodes(ENTITY, [{"id": "ent:z", "meta": {"nested": 1}}]), "meta"),
        (lambda g: g.neighbourhood(ENTITY, ["ent:a"], depth=-1), "depth"),
        (lambda g: g.neighbourhood(ENTITY, ["ent:a"], rel_types=["RELATED; DROP"]), "relationship type"),
        (lambda g: g.edges("1x", ["rel:ab"]), "relationship type"),
    ],
)
def test_bad_names_and_values_are_invalid(g: InMemoryGraphStore, call: object, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        call(g)  # type: ignore[operator]
    assert "ent:z" not in g.neighbourhood(ENTITY, ["ent:z"], depth=0).nodes


def test_cypher_is_unsupported(g: InMemoryGraphStore) -> None:
    with pytest.raises(Unsupported, match="use falkordb or neo4j"):
        g.query("MATCH (n) RETURN n")
