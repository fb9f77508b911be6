"""Explanations through restriction types the duckdb engine reasons with but does not store
(``reasoning.store_blank_node_types: false``, its default): the proof still reaches asserted triples, in the
process that loaded the data and in a new one over the same store."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyoxigraph import BlankNode, NamedNode, Quad, Triple

from hybridkg.semantic.base import Explanation
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.reasoning.duckdb_engine import DuckDBSession
from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.settings import ReasoningConfig, StoreConfig, ValidationConfig
from hybridkg.semantic.store.factory import make_store
from hybridkg.semantic.validation.factory import make_validator
from hybridkg.semantic.vocab import TYPE

V = "http://example.org/vessel#"
# a ship that carries something hazardous is a restricted vessel: an intersection with an existential restriction
# (cls-svf1, cls-int1, then cax-sco), and "carries" reached through a property chain (prp-spo2) and an inverse
ONTOLOGY = f"""@prefix : <{V}> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
:RestrictedVessel a owl:Class ; rdfs:subClassOf :Ship .
[ a owl:Class ; owl:intersectionOf ( :Ship [ a owl:Restriction ; owl:onProperty :carries ;
                                             owl:someValuesFrom :Hazard ] ) ]
    rdfs:subClassOf :RestrictedVessel .
:carries owl:propertyChainAxiom ( :hasHold :holds ) .
:heldIn owl:inverseOf :holds .
:Explosive rdfs:subClassOf :Hazard .
"""
DATA = f"""@prefix : <{V}> .
:aurora a :Ship ; :hasHold :hold1 . :crate7 :heldIn :hold1 ; a :Explosive .
:brig a :Ship ; :hasHold :hold2 . :crate8 :heldIn :hold2 .
"""
GOAL = Triple(NamedNode(V + "aurora"), TYPE, NamedNode(V + "RestrictedVessel"))


def _kb(path: Path, *, store_types: bool = False) -> KnowledgeBase:
    return KnowledgeBase(make_store(StoreConfig(backend="embedded", path=path)),
                         reasoner=make_reasoner(ReasoningConfig(engine="duckdb", store_blank_node_types=store_types)),
                         validator=make_validator(ValidationConfig()))


def _rules(e: Explanation) -> set[str]:
    return ({e.rule} if e.rule else set()) | {r for p in e.premises for r in _rules(p)}


def _leaves(e: Explanation) -> list[Explanation]:
    return [e] if e.status != "inferred" else [x for p in e.premises for x in _leaves(p)]


def _check(e: Explanation) -> None:
    assert e.status == "inferred"
    assert e.rule == "cax-sco"
    assert {"cls-int1", "cls-svf1", "prp-spo2", "prp-inv1"} <= _rules(e)
    assert all(leaf.status == "asserted" for leaf in _leaves(e)), "the proof ends in asserted triples"


@pytest.mark.parametrize("store_types", [False, True])
def test_a_proof_through_a_restriction_reaches_asserted_triples(tmp_path: Path, store_types: bool) -> None:
    kb = _kb(tmp_path / "store", store_types=store_types)
    try:
        kb.load(ONTOLOGY.encode(), fmt="turtle", graph="urn:onto")
        kb.load(DATA.encode(), fmt="turtle", graph="urn:data")
        stored = [t for t in kb.inferred_triples() if t.predicate == TYPE and isinstance(t.object, BlankNode)]
        assert bool(stored) is store_types
        _check(kb.explain(GOAL))
        # brig's crate is no hazard: not entailed, with or without the unstored part
        assert kb.explain(Triple(NamedNode(V + "brig"), TYPE, NamedNode(V + "RestrictedVessel"))).status == \
            "not_entailed"
    finally:
        kb.close()
    again = _kb(tmp_path / "store", store_types=store_types)  # a new process over the same store (a CLI run)
    try:
        _check(again.explain(GOAL))
        # the restriction type itself, stored or not
        rows = again.query(f"SELECT ?r WHERE {{ ?r <http://www.w3.org/2002/07/owl#someValuesFrom> <{V}Hazard> }}")
        restriction = rows.rows[0][0]
        assert isinstance(restriction, BlankNode)
        typed = again.explain(Triple(NamedNode(V + "aurora"), TYPE, restriction))
        assert (typed.status, typed.rule) == ("inferred", "cls-svf1")
    finally:
        again.close()


def test_the_unstored_part_follows_changes(tmp_path: Path) -> None:
    kb = _kb(tmp_path / "store")
    try:
        kb.load(ONTOLOGY.encode(), fmt="turtle", graph="urn:onto")
        kb.load(DATA.encode(), fmt="turtle", graph="urn:data")
        session = kb._tls.session
        assert isinstance(session, DuckDBSession)
        aurora = NamedNode(V + "aurora")
        held = session.unstored(aurora, None, None)
        assert held
        assert all(t.predicate == TYPE and isinstance(t.object, BlankNode) for t in held)
        assert not any(t.subject == NamedNode(V + "brig") for t in session.unstored(None, TYPE, None))
        assert session.unstored(aurora, NamedNode(V + "hasHold"), None) == []  # only restriction types
        assert session.unstored(aurora, None, NamedNode(V + "Ship")) == []
        for t in held:
            assert session.unstored(None, None, t.object)  # by the restriction alone
        kb.write(removed=[Quad(NamedNode(V + "crate7"), TYPE, NamedNode(V + "Explosive"), NamedNode("urn:data"))])
        assert session.unstored(aurora, None, None) == []  # no hazard aboard: neither restriction holds
        assert kb.explain(GOAL).status == "not_entailed"
    finally:
        kb.close()
