"""SPARQL -> Cypher: the shape of the emitted statements (clauses, parameters, names), and rows read back as terms.
Answers are checked against Oxigraph in tests/integration/test_sparql_to_cypher_falkordb.py."""

from __future__ import annotations

import re

import pyoxigraph as ox
import pytest
from support.bridge_fakes import DictMapping

from hybridkg.bridge.sparql_to_cypher import CypherQuery, Kind, Sort, translate
from hybridkg.bridge.sparql_to_cypher.parse import integers_as_written, parse
from hybridkg.errors import InvalidQuery

P = "PREFIX : <http://e/> "
MAPPING = DictMapping(
    labels={"http://e/Person": "Person"},
    relationships={"http://e/knows": "knows", "http://e/worksFor": "worksFor"},
    properties={"http://e/name": "name", "http://e/age": "age"},
)


def cy(query: str, mapping: DictMapping = MAPPING) -> CypherQuery:
    return translate(P + query, mapping)


def test_a_bgp_is_one_match_per_triple_with_every_iri_and_literal_a_parameter() -> None:
    c = cy("SELECT ?s ?n WHERE { ?s a :Person ; :name ?n ; :knows :bob ; :age 30 }")
    assert c.columns == ("s", "n")
    assert c.sorts == (Sort.NODE, Sort.VALUE)
    assert c.kind is Kind.SELECT
    assert len(re.findall(r"\bMATCH\b", c.text)) == 5  # one per triple, plus :bob's node
    assert ":`Person`" in c.text
    assert sorted(c.params.values(), key=str) == [30, "http://e/bob"]
    assert "http://e/bob" not in c.text
    assert "30" not in c.text.replace("$p", "")


def test_a_literal_is_never_spliced_into_the_statement() -> None:
    nasty = "x' }) MATCH (n) DETACH DELETE n //"
    c = cy(f'SELECT ?s WHERE {{ ?s :name "{nasty}" FILTER(?s != :a) }}')
    assert nasty not in c.text
    assert nasty in c.params.values()
    assert "http://e/a" in c.params.values()


def test_names_are_backtick_quoted() -> None:
    m = DictMapping(relationships={"http://e/p": "we`ird name"})
    c = translate("SELECT ?s ?o WHERE { ?s <http://e/p> ?o }", m)
    assert "[:`we``ird name`]" in c.text


def test_a_property_is_unwound_from_a_scalar_or_a_list_and_a_literal_matches_its_type() -> None:
    c = cy("SELECT ?s WHERE { ?s :age 30 }")
    assert "typeOf(v_s.`age`) = 'List'" in c.text
    assert "typeOf(_x) = 'Integer'" in c.text  # 30 does not match 30.0


def test_optional_union_minus_exists_run_in_subqueries() -> None:
    opt = cy("SELECT ?s ?w WHERE { ?s a :Person OPTIONAL { ?s :worksFor ?w } }")
    assert "CALL { WITH v_s" in opt.text
    assert "collect([v_w])" in opt.text
    assert "[null]" in opt.text
    union = cy("SELECT ?x WHERE { { ?x a :Person } UNION { ?x :knows ?y } }")
    assert " UNION ALL " in union.text  # bag semantics
    minus = cy("SELECT ?s WHERE { ?s a :Person MINUS { ?s :worksFor ?w } }")
    assert "count(*) AS _m" in minus.text
    assert "= 0" in minus.text
    exists = cy("SELECT ?s WHERE { ?s a :Person FILTER NOT EXISTS { ?s :knows ?o } }")
    assert "count(*) > 0 AS _x" in exists.text
    assert "(NOT _x" in exists.text


def test_an_arbitrary_length_path_keeps_set_semantics() -> None:
    c = cy("SELECT ?s ?o WHERE { ?s :knows+ ?o }")
    assert "[:`knows`*1..]" in c.text
    assert "RETURN DISTINCT" in c.text
    inverse = cy("SELECT ?s WHERE { ?s ^:knows ?o }")
    assert "<-[:`knows`]-" in inverse.text
    alt = cy("SELECT ?s ?o WHERE { ?s :knows|:worksFor ?o }")
    assert ":`knows`|`worksFor`]" in alt.text


def test_order_by_and_slice_end_the_return() -> None:
    c = cy("SELECT ?n WHERE { ?s :name ?n } ORDER BY DESC(?n) LIMIT 5 OFFSET 2")
    assert re.search(r"RETURN v_n AS `n`, _k\d+, _k\d+ ORDER BY _k\d+ DESC, _k\d+ DESC SKIP 2 LIMIT 5$", c.text)


def test_aggregates_group_then_compute() -> None:
    c = cy("SELECT ?s (COUNT(?o) AS ?c) (SUM(?a) AS ?t) WHERE { ?s :knows ?o ; :age ?a } GROUP BY ?s")
    assert "WITH v_s, count(v_o) AS" in c.text
    assert "reduce(_s = 0" in c.text  # FalkorDB's sum() gives floats for integers
    assert c.columns == ("s", "c", "t")


def test_a_name_absent_from_the_mapping_matches_nothing() -> None:
    c = cy("SELECT ?s ?o WHERE { ?s :unknown ?o }")
    assert c.text.startswith("UNWIND [] AS")
    assert c.columns == ("s", "o")


def test_a_variable_both_node_and_literal_matches_nothing() -> None:
    c = cy("SELECT ?s ?o WHERE { ?s :knows ?o . ?s :name ?o }")
    assert c.text.startswith("UNWIND [] AS")


def test_ask_and_construct() -> None:
    ask = cy("ASK { :a :knows ?x }")
    assert ask.kind is Kind.ASK
    assert ask.columns == ()
    assert ask.text.endswith("LIMIT 1")
    construct = cy("CONSTRUCT { ?o :knownBy ?s . _:b :name 'x' } WHERE { ?s :knows ?o }")
    assert construct.kind is Kind.CONSTRUCT
    triples = construct.triples([{"o": "http://e/b", "s": "_:n1"}], MAPPING)
    assert ox.Triple(ox.NamedNode("http://e/b"), ox.NamedNode("http://e/knownBy"), ox.BlankNode("n1")) in triples
    assert len(triples) == 2


def test_rows_read_back_as_terms() -> None:
    c = cy("SELECT ?s ?n ?missing WHERE { ?s :name ?n }")
    row = {"s": "_:b0", "n": "¶@en¶hi", "missing": None}
    assert c.terms(row, MAPPING) == (ox.BlankNode("b0"), ox.Literal("hi", language="en"), None)
    assert c.terms({"s": "http://e/a", "n": 3}, MAPPING)[:2] == (ox.NamedNode("http://e/a"), ox.Literal(3))


def test_parsing_is_cached_and_syntax_errors_are_invalid_queries() -> None:
    q = P + "SELECT * WHERE { ?s :p ?o }"
    assert parse(q) is parse(q)
    with pytest.raises(InvalidQuery, match="line 1"):
        translate("SELECT * WHERE { ?s ?p }", MAPPING)
    with pytest.raises(InvalidQuery, match="prefix"):
        translate("SELECT * WHERE { ?s x:p ?o }", MAPPING)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("?s :p 30", True),
        ("?s :p -4 . ?s <http://e/x10> 0", True),
        ("?s :p 007", False),
        ("?s :p 1.5", True),
        ("?s :p +3", False),
        ("?s :p 1e3", True),
        ("?s :p 01 FILTER(?x < 2.5e0)", False),
    ],
)
def test_numbers_are_trusted_as_written_only_when_canonical_integers(query: str, expected: bool) -> None:
    assert integers_as_written(query) is expected
