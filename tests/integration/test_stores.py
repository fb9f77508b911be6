"""The TripleStore contract, run against every backend: in-memory, on-disk, and a real
`oxigraph serve` process reached over the SPARQL 1.1 Protocol."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyoxigraph import BlankNode, Literal, NamedNode, Quad

from hybridkg.errors import BackendUnavailable, InvalidQuery
from hybridkg.semantic.settings import StoreConfig
from hybridkg.semantic.store.factory import make_store

EX = "http://example.org/"
G1 = NamedNode(EX + "g1")
G2 = NamedNode(EX + "g2")


def q(s: str, p: str, o: str | Literal, g: NamedNode = G1) -> Quad:
    obj = o if isinstance(o, Literal) else NamedNode(EX + o)
    return Quad(NamedNode(EX + s), NamedNode(EX + p), obj, g)


@pytest.fixture(params=["memory", "embedded", "remote"])
def store(request: pytest.FixtureRequest, tmp_path: Path):
    if request.param == "remote":
        base = request.getfixturevalue("oxigraph_server")
        return make_store(StoreConfig(backend="remote", query_url=f"{base}/query", update_url=f"{base}/update"))
    return make_store(StoreConfig(backend=request.param, path=tmp_path / "store"))


def test_add_query_remove_roundtrip(store) -> None:
    tricky = Literal('quote " backslash \\ newline \n and > brace }', language="en")
    quads = [q("a", "p", "b"), q("b", "p", "c"), q("a", "label", tricky), q("a", "p", "b", G2)]
    assert store.add(quads) == 4
    res = store.query(f"SELECT ?o WHERE {{ <{EX}a> <{EX}label> ?o }}")
    assert res.kind == "select"
    assert [row[0] for row in res.rows] == [tricky]
    assert sorted(g.value for g in store.graphs()) == [G1.value, G2.value]
    # default graph = union of all graphs
    n = store.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ ?s <{EX}p> ?o }}").rows[0][0]
    assert int(n.value) == 3
    # restricted default graph
    n = store.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ ?s <{EX}p> ?o }}", default_graphs=[G2]).rows[0][0]
    assert int(n.value) == 1
    assert store.remove([q("a", "p", "b")]) == 1
    assert set(store.quads(graph=G1)) == {q("b", "p", "c"), q("a", "label", tricky)}
    assert list(store.quads(NamedNode(EX + "a"), NamedNode(EX + "p"), None, G2)) == [q("a", "p", "b", G2)]


def test_ask_and_construct(store) -> None:
    store.add([q("a", "p", "b")])
    assert store.query(f"ASK {{ <{EX}a> <{EX}p> <{EX}b> }}").boolean is True
    res = store.query(f"CONSTRUCT {{ ?o <{EX}inv> ?s }} WHERE {{ ?s <{EX}p> ?o }}")
    assert res.kind == "graph"
    assert [str(t) for t in res.triples] == [f"<{EX}b> <{EX}inv> <{EX}a>"]


def test_update_and_clear_graph(store) -> None:
    store.update(f"INSERT DATA {{ GRAPH <{G1.value}> {{ <{EX}x> <{EX}p> 42 }} }}")
    assert len(list(store.quads(graph=G1))) == 1
    store.clear_graph(G1)
    assert list(store.quads(graph=G1)) == []


def test_bad_query_names_the_problem(store) -> None:
    with pytest.raises(InvalidQuery, match=r"(?i)syntax|parse|reject"):
        store.query("SELECT ?x WHERE { ?x ?p }")


def test_blank_nodes_can_be_stored(store) -> None:
    b = BlankNode()
    store.add([Quad(b, NamedNode(EX + "p"), Literal("v"), G1)])
    rows = store.query(f"SELECT ?s WHERE {{ ?s <{EX}p> \"v\" }}").rows
    assert len(rows) == 1
    assert isinstance(rows[0][0], BlankNode)


def test_unreachable_endpoint_is_backend_unavailable() -> None:
    s = make_store(StoreConfig(backend="remote", query_url="http://127.0.0.1:9/query"))
    with pytest.raises(BackendUnavailable, match="cannot reach the SPARQL endpoint"):
        s.query("ASK {}")


def test_embedded_store_persists(tmp_path: Path) -> None:
    s = make_store(StoreConfig(backend="embedded", path=tmp_path / "db"))
    s.add([q("a", "p", "b")])
    s.flush()
    del s
    s2 = make_store(StoreConfig(backend="embedded", path=tmp_path / "db"))
    assert list(s2.quads(graph=G1)) == [q("a", "p", "b")]
