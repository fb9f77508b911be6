"""The duckdb engine reports the OWL 2 RL rules with ``false`` as head (inconsistent input), as warnings: in the
original terms (equality classes expanded), at a session's start for all of them, after a change for those it
introduced (found from the rows it added)."""

from __future__ import annotations

import logging

import pytest
from pyoxigraph import NamedNode, RdfFormat, Triple, parse

from hybridkg.semantic.reasoning.duckdb_engine import DuckDBClosure, DuckDBReasoner
from hybridkg.semantic.vocab import TYPE

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


EX = "http://example.org/"
OWL = "http://www.w3.org/2002/07/owl#"


def n(name: str) -> NamedNode:
    return NamedNode(EX + name)


def test_eq_diff1_reports_the_equal_pair_and_the_different_from_triple_in_original_terms() -> None:
    closure = DuckDBClosure(triples(CASES["eq-diff1"]))
    try:
        ((rule, found),) = closure.inconsistencies()
    finally:
        closure.close()
    assert rule == "eq-diff1"
    different = Triple(n("a"), NamedNode(OWL + "differentFrom"), n("b"))
    assert found[:2] == [Triple(n("a"), NamedNode(OWL + "sameAs"), n("b")), different]  # the asserted one first
    assert len(found) % 2 == 0
    for same, diff in zip(found[::2], found[1::2], strict=True):  # pairs: a sameAs b, a differentFrom b
        assert (same.subject, same.object) == (diff.subject, diff.object)
        assert same.predicate == NamedNode(OWL + "sameAs")
        assert diff.predicate == NamedNode(OWL + "differentFrom")


def test_other_clashes_are_reported_with_each_representative_expanded() -> None:
    # x and y are one class: the representatives' form has one of them typed A and B
    text = ":A owl:disjointWith :B . :x a :A . :y a :B . :x owl:sameAs :y ."
    closure = DuckDBClosure(triples(text))
    try:
        ((rule, found),) = closure.inconsistencies()
    finally:
        closure.close()
    a = Triple(n("x"), TYPE, n("A"))
    assert rule == "cax-dw"
    assert found[0] == a  # asserted first
    assert set(found) == {a, Triple(n("y"), TYPE, n("A"))}


def _warned(caplog: pytest.LogCaptureFixture) -> list[str]:
    rules = [r.getMessage().split("rule ")[1].split(" ")[0] for r in caplog.records if "is violated" in r.getMessage()]
    caplog.clear()
    return rules


@pytest.mark.parametrize("later", [
    ":x a :B .",  # a new asserted triple (rank 0)
    ":x owl:sameAs :y .",  # a merge rewrites y's type onto the class (a low rank, not above the mark)
    ":C rdfs:subClassOf :B . :x a :C .",  # a derived type (ranked above the mark)
    ":A owl:disjointWith :F . :F owl:equivalentClass :E .",  # schema: the axiom and w's type F are new
])
def test_a_clash_a_later_change_adds_is_reported_once(later: str, caplog: pytest.LogCaptureFixture) -> None:
    base = triples(":A owl:disjointWith :B . :x a :A . :y a :B . :w a :A , :E . :p a owl:IrreflexiveProperty . "
                   ":u :p :u .")
    caplog.set_level(logging.WARNING)
    session = DuckDBReasoner().session(base)
    try:
        with caplog.at_level(logging.WARNING):
            assert _warned(caplog) == ["prp-irp"]  # the session's start
            session.apply(added=triples(":k :q :l ."))
            assert _warned(caplog) == []  # an unrelated write: the clash that existed before is not reported again
            session.apply(added=triples(later))
            assert _warned(caplog) == ["cax-dw"]
            session.apply(added=triples(":k :q :m ."), removed=triples(":k :q :l ."))
            assert _warned(caplog) == []
            assert [r for r, _ in session.report()] == ["cax-dw", "prp-irp"]  # all of them, on request
    finally:
        session.close()  # type: ignore[attr-defined]


def test_the_start_of_a_session_reports_every_clash(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        session = DuckDBReasoner().session(triples(CASES["cax-dw"] + CASES["prp-asyp"]))
        session.close()  # type: ignore[attr-defined]
    assert sorted(_warned(caplog)) == ["cax-dw", "prp-asyp"]
