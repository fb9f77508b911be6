"""Cypher -> SPARQL refuses what it cannot translate exactly, naming the construct (issue 11 §3)."""

from __future__ import annotations

import pytest
from pyoxigraph import RdfFormat, parse

from hybridkg.bridge.cypher_to_sparql import translate
from hybridkg.bridge.mapping import PropertySpec, RdfMapping, Schema, map_graph
from hybridkg.errors import InvalidQuery, Unsupported

XSD = "http://www.w3.org/2001/XMLSchema#"
DATA = """
@prefix ex: <https://example.org/> .
ex:a a ex:Person ; ex:name "A" ; ex:knows ex:b .
ex:b a ex:Person ; ex:name "B" .
"""


@pytest.fixture(scope="module")
def mapping() -> RdfMapping:
    return map_graph([q.triple for q in parse(DATA, format=RdfFormat.TURTLE)]).mapping


@pytest.mark.parametrize(
    ("query", "construct"),
    [
        ("CREATE (n:Person {name: 'x'})", "CREATE"),
        ("MERGE (n:Person {name: 'x'}) RETURN n", "MERGE"),
        ("MATCH (n:Person) SET n.name = 'x'", "SET"),
        ("MATCH (n:Person) DETACH DELETE n", "DELETE"),
        ("MATCH (n:Person) REMOVE n.name", "REMOVE"),
        ("MATCH (n:Person) REMOVE n:Person", "REMOVE"),
        ("CALL db.labels()", "CALL"),
        ("MATCH (n) CREATE (m) RETURN n", "CREATE"),
    ],
)
def test_writes_are_refused_and_sent_to_the_semantic_layer(mapping: RdfMapping, query: str, construct: str) -> None:
    with pytest.raises(Unsupported, match=construct) as e:
        translate(query, mapping)
    assert "SHACL gate" in str(e.value)


@pytest.mark.parametrize(
    ("query", "position"),
    [("MATCH (n RETURN n", "line 1, column 10"), ("MATCH (n)\nRETURN", "line 2, column 7")],
)
def test_syntax_errors_name_the_position(mapping: RdfMapping, query: str, position: str) -> None:
    with pytest.raises(InvalidQuery, match=position):
        translate(query, mapping)


@pytest.mark.parametrize(
    ("query", "construct"),
    [
        ("MATCH (n) RETURN n UNION MATCH (m) RETURN m", "UNION"),
        ("MATCH (a)-[:knows*]->(b) RETURN b", "unbounded variable-length"),
        ("MATCH (a)-[:knows*1..]->(b) RETURN b", "unbounded variable-length"),
        ("MATCH (a)-[:knows*1..9]->(b) RETURN b", r"\*1..9"),
        ("MATCH p = (a)-[:knows]->(b) RETURN p", "path variables"),
        ("MATCH p = shortestPath((a)-[:knows*]->(b)) RETURN p", "path"),
        ("MATCH (a:Person) RETURN a.age + 1", "Add"),
        ("MATCH (a:Person) RETURN a.age / 2", "Div"),
        ("MATCH (a:Person) RETURN collect(DISTINCT a.name)", "collect"),
        ("MATCH (a:Person) RETURN labels(a)", "function labels"),
        ("MATCH (a:Person) RETURN toUpper(a.name)", "function toUpper"),
        ("MATCH (a)-[r:knows]->(b) RETURN r", "relationship variable"),
        ("MATCH (a)-[r:knows]->(b) RETURN type(r)", "function type"),
        ("MATCH (a)-[:knows {since: 1}]->(b) RETURN a", "relationship property maps"),
        ("MATCH (a:Person|Robot) RETURN a", "label expression"),
        ("MATCH (a) WHERE a:Person|Robot RETURN a", "label expression"),
        ("MATCH (a:Person) RETURN a ORDER BY a", "ORDER BY a node"),
        ("MATCH (a:Person) RETURN *", r"RETURN \*"),
        ("MATCH (a:Person) WHERE a.name =~ '(?i)a' RETURN a", "Java regex"),
        ("MATCH (a:Person) RETURN sum(a)", "sum"),
        ("MATCH (a:Person) RETURN a.name.x", "Property"),
        ("MATCH (a:Person) RETURN {name: a.name}", "Map"),
        ("MATCH (a:Person) RETURN a.bnode", "bnode"),
        ("MATCH (a:Person) WHERE (a)-[:knows]->() RETURN a", "PatternPredicate"),
        ("MATCH (a:Person) RETURN CASE WHEN a.name = 'A' THEN 1 ELSE 2 END", "Case"),
        ("MATCH (a:Person) RETURN a LIMIT 1 + 1", "LIMIT"),
    ],
)
def test_constructs_outside_the_fragment_are_refused_by_name(mapping: RdfMapping, query: str, construct: str) -> None:
    with pytest.raises(Unsupported, match=construct):
        translate(query, mapping)


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("MATCH (a:Person) WHERE a.name = $name RETURN a", r"\$name has no value"),
        ("MATCH (a:Person) RETURN b", "'b' is not defined"),
        ("UNWIND $xs AS x RETURN x", r"\$xs has no value"),
    ],
)
def test_invalid_queries(mapping: RdfMapping, query: str, message: str) -> None:
    with pytest.raises(InvalidQuery, match=message):
        translate(query, mapping)


def test_a_non_list_parameter_cannot_be_unwound(mapping: RdfMapping) -> None:
    with pytest.raises(InvalidQuery, match="must be a list"):
        translate("UNWIND $xs AS x RETURN x", mapping, {"xs": 3})


def test_parameters_of_other_types_are_refused(mapping: RdfMapping) -> None:
    with pytest.raises(Unsupported, match="dict"):
        translate("UNWIND $xs AS x RETURN x", mapping, {"xs": [{"a": 1}]})


def test_keys_the_shapes_make_lists_are_refused(mapping: RdfMapping) -> None:
    schema = Schema(properties=(PropertySpec("Person", "name", XSD + "string", scalar=False, required=False),))
    with pytest.raises(Unsupported, match="'name': a list on :Person nodes"):
        translate("MATCH (p:Person) WHERE p.name = 'A' RETURN p", mapping, schema=schema)
    scalar = Schema(properties=(PropertySpec("Person", "name", XSD + "string", scalar=True, required=False),))
    assert translate("MATCH (p:Person) RETURN p.name", mapping, schema=scalar).guards
