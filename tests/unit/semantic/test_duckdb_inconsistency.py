"""The duckdb engine reports the OWL 2 RL rules with ``false`` as head (inconsistent input), as warnings."""

from __future__ import annotations

import logging

import pytest
from pyoxigraph import RdfFormat, Triple, parse

from hybridkg.semantic.reasoning.duckdb_engine import DuckDBClosure, DuckDBReasoner

PREFIXES = """@prefix : <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
"""

CASES = {
    "cax-dw": ":A owl:disjointWith :B . :C rdfs:subClassOf :B . :x a :A , :C .",
    "cls-com": ":A owl:complementOf :B . :x a :A , :B .",
    "cls-nothing2": ":A rdfs:subClassOf owl:Nothing . :x a :A .",
    "cls-maxc1": ':R owl:maxCardinality "0"^^xsd:nonNegativeInteger ; owl:onProperty :p . :x a :R ; :p :y .',
    "prp-irp": ":p a owl:IrreflexiveProperty . :q rdfs:subPropertyOf :p . :x :q :x .",
    "prp-asyp": ":p a owl:AsymmetricProperty . :x :p :y . :y :p :x .",
    "prp-pdw": ":p owl:propertyDisjointWith :q . :x :p :y ; :q :y .",
    "eq-diff1": ":f a owl:FunctionalProperty . :x :f :a , :b . :a owl:differentFrom :b .",
}


def triples(text: str) -> list[Triple]:
    return [q.triple for q in parse((PREFIXES + text).encode(), format=RdfFormat.TURTLE)]


@pytest.mark.parametrize("rule", sorted(CASES))
def test_each_clash_is_found_through_inference(rule: str, caplog: pytest.LogCaptureFixture) -> None:
    closure = DuckDBClosure(triples(CASES[rule]))
    try:
        assert [r for r, _ in closure.inconsistencies()] == [rule]
    finally:
        closure.close()
    with caplog.at_level(logging.WARNING):
        DuckDBReasoner().materialize(triples(CASES[rule]))
    assert f"rule {rule} is violated" in caplog.text


def test_consistent_input_reports_nothing(caplog: pytest.LogCaptureFixture) -> None:
    text = ":A owl:disjointWith :B . :x a :A . :y a :B . :p a owl:AsymmetricProperty . :x :p :y ."
    closure = DuckDBClosure(triples(text))
    try:
        assert closure.inconsistencies() == []
    finally:
        closure.close()
