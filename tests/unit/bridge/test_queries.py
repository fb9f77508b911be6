"""``bridge/queries.py`` without a server: what is refused before anything is sent, the JSON shapes of graph
values, ``--param`` parsing, and translations against a registry."""

from __future__ import annotations

import json

import pytest
from pyoxigraph import Literal, NamedNode, Triple

from hybridkg.bridge.mapping import map_graph
from hybridkg.bridge.queries import (
    BridgeNames,
    Language,
    check_read_only,
    json_value,
    names_of,
    parse_params,
    run_cypher,
    translate,
)
from hybridkg.errors import InvalidInput, InvalidQuery, NotFound, Unsupported
from hybridkg.structural.base import GraphNode, GraphPath, GraphRelationship
from hybridkg.structural.graphstore.memory import InMemoryGraphStore

EX = "http://example.org/"
UNION_AFTER_MATCH = (
    "MATCH (a) CALL { WITH a MATCH (a)-->(b) CALL { WITH b MATCH (b)-->(c) RETURN c UNION ALL "
    "WITH b MATCH (c)-->(b) RETURN c } RETURN count(c) AS n } RETURN n"
)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("CREATE (n:A)", "CREATE is a write"),
        ("MATCH (n) SET n.x = 1 RETURN n", "SET is a write"),
        ("MATCH (n) DETACH DELETE n", "DELETE is a write"),
        ("MATCH (n) REMOVE n:A RETURN n", "REMOVE is a write"),
        ("MERGE (n:A {k: 1}) RETURN n", "MERGE is a write"),
        ("CALL db.idx.fulltext.createNodeIndex('A', 'k')", "CALL db.idx.fulltext.createNodeIndex()"),
        (UNION_AFTER_MATCH, "UNION subquery after other clauses inside an aggregating CALL"),
        ("MATCH (a) CALL { WITH a OPTIONAL MATCH (a)-->(b) CALL { WITH b MATCH (b)-->(c) RETURN c UNION "
         "WITH b MATCH (c)-->(b) RETURN c } RETURN collect(c) AS cs } RETURN cs", "UNION subquery"),
        # nested aggregating subqueries: the UNION is after other clauses in the inner one
        ("MATCH (a) CALL { WITH a MATCH (a)-->(b) CALL { WITH b MATCH (b)-->(d) CALL { WITH d MATCH (d)-->(c) "
         "RETURN c UNION ALL WITH d MATCH (c)-->(d) RETURN c } RETURN count(c) > 0 AS x } RETURN count(*) AS n } "
         "RETURN n", "UNION subquery after other clauses"),
        # ... or in a non-aggregating subquery after other clauses of an aggregating one
        ("MATCH (a) CALL { WITH a MATCH (a)-->(b) CALL { WITH b CALL { WITH b MATCH (b)-->(c) RETURN c UNION ALL "
         "WITH b MATCH (c)-->(b) RETURN c } RETURN c } RETURN count(c) AS n } RETURN n", "UNION subquery"),
    ],
)
def test_refused_before_sending(query: str, message: str) -> None:
    with pytest.raises(Unsupported, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_read_only(query)


@pytest.mark.parametrize(
    "query",
    [
        "MATCH (n:A)-[r:T*1..3]->(m) WHERE n.k > $x RETURN n, r, m ORDER BY n.k LIMIT 5",
        "CALL db.labels() YIELD label RETURN label",
        # a UNION subquery first in the aggregating subquery (after its importing WITH): the translator's shape
        "MATCH (a) CALL { WITH a CALL { WITH a MATCH (a)-->(c) RETURN c UNION ALL WITH a MATCH (c)-->(a) RETURN c } "
        "RETURN count(c) AS n } RETURN n",
        # a UNION first in an aggregating subquery nested after other clauses of another (W3C exists04: one EXISTS
        # inside another, each an aggregating subquery; run on FalkorDB, it answers as Oxigraph does)
        "MATCH (a) CALL { WITH a MATCH (a)-->(b) CALL { WITH a, b CALL { WITH b MATCH (b)-->(c) RETURN c UNION ALL "
        "WITH b MATCH (c)-->(b) RETURN c } RETURN count(*) > 0 AS x } WITH a, x WHERE x RETURN count(*) > 0 AS y } "
        "RETURN a, y",
        # a UNION after other clauses in a subquery that does not aggregate
        "MATCH (a) CALL { WITH a MATCH (a)-->(b) CALL { WITH b MATCH (b)-->(c) RETURN c UNION ALL WITH b "
        "MATCH (c)-->(b) RETURN c } RETURN c } RETURN a, c",
    ],
)
def test_reads_pass(query: str) -> None:
    check_read_only(query)


def test_syntax_errors_name_line_and_column() -> None:
    with pytest.raises(InvalidQuery, match=r"line 2, column \d+"):
        check_read_only("MATCH (n)\nRETURN n LIMIT")
    with pytest.raises(InvalidQuery, match="empty"):
        check_read_only("  ")


def test_a_store_that_cannot_enforce_reads_is_refused_before_running() -> None:
    with pytest.raises(Unsupported, match="falkordb"):
        run_cypher(InMemoryGraphStore(), "MATCH (n) RETURN n")
    with pytest.raises(Unsupported, match="CREATE"):
        run_cypher(InMemoryGraphStore(), "CREATE (n)")


def test_json_shapes() -> None:
    a = GraphNode("1", ("Resource", "Dog"), {"uri": f"{EX}rex", "w": [1, 2.5]})
    b = GraphNode("2", ("Resource",), {"uri": f"{EX}ann"})
    r = GraphRelationship("7", "owner", "1", "2", {})
    value = [a, {"r": r}, GraphPath((a, b), (r,)), float("nan"), float("-inf"), None, True, 3]
    out = json_value(value)
    assert out == [
        {"element": "node", "id": "1", "labels": ["Resource", "Dog"], "properties": {"uri": f"{EX}rex", "w": [1, 2.5]}},
        {"r": {"element": "relationship", "id": "7", "type": "owner", "start": "1", "end": "2", "properties": {}}},
        {"element": "path", "nodes": [out[0], {"element": "node", "id": "2", "labels": ["Resource"],
                                               "properties": {"uri": f"{EX}ann"}}],
         "relationships": [out[1]["r"]]},
        "NaN", "-Infinity", None, True, 3,
    ]
    json.loads(json.dumps(out, allow_nan=False))  # strict JSON


def test_params() -> None:
    assert parse_params(["n=3", 'name="Ann"', "xs=[1, 2.5]", "m={\"a\": null}"]) == {
        "n": 3, "name": "Ann", "xs": [1, 2.5], "m": {"a": None}}
    with pytest.raises(InvalidInput, match="is not JSON"):
        parse_params(["name=Ann"])
    with pytest.raises(InvalidInput, match="NAME=JSON"):
        parse_params(["nothing"])


def _names() -> BridgeNames:
    triples = [Triple(NamedNode(f"{EX}rex"), NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
                      NamedNode(f"{EX}Dog")),
               Triple(NamedNode(f"{EX}rex"), NamedNode(f"{EX}name"), Literal("Rex"))]
    return BridgeNames("g", map_graph(triples).mapping.registry)


def test_translate_both_ways() -> None:
    names = _names()
    c = translate(f"SELECT ?d ?n WHERE {{ ?d a <{EX}Dog> ; <{EX}name> ?n }}", Language.CYPHER, names)
    assert (c.columns, c.kind) == (("d", "n"), "select")
    assert "`Dog`" in c.text
    assert c.to_text().splitlines()[-1].startswith("// params: ")
    s = translate("MATCH (d:Dog) WHERE d.name = $n RETURN d", Language.SPARQL, names, {"n": "Rex"})
    assert f"<{EX}Dog>" in s.text
    assert '"Rex"' in s.text
    assert s.to_json()["guards"] == list(s.guards)
    with pytest.raises(InvalidInput, match="parameters go with Cypher"):
        translate("SELECT * { ?s a ?c }", Language.CYPHER, names, {"x": 1})


def test_an_unsynced_graph_says_so() -> None:
    class Empty(InMemoryGraphStore):
        def query(self, cypher: str, params: object = None) -> list[dict[str, object]]:
            return []

    with pytest.raises(NotFound, match="hybridkg bridge sync"):
        names_of(Empty(), "hybridkg_bridge")


@pytest.mark.parametrize("inner", ["filter exists", "filter not exists"])
def test_a_translated_exists_inside_exists_passes_the_check(inner: str) -> None:
    """W3C exists04/05: an EXISTS nested in another over a variable predicate (a UNION first in the inner
    aggregating subquery); the check had refused it, though it answers as Oxigraph does."""
    import pyoxigraph as ox

    from hybridkg.bridge.mapping import map_graph
    from hybridkg.bridge.sparql_to_cypher import translate as to_cypher

    store = ox.Store()
    store.load(f"<{EX}s> <{EX}p> <{EX}o>, <{EX}o1>, <{EX}o2> .", format=ox.RdfFormat.TURTLE)
    mapping = map_graph([q.triple for q in store]).mapping
    query = f"SELECT * {{ ?s ?p <{EX}o> FILTER EXISTS {{ ?s ?p <{EX}o1> {inner} {{ ?s ?p <{EX}o2> }} }} }}"
    check_read_only(to_cypher(query, mapping).text)
