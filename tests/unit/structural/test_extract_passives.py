"""Relation patterns for passives, relative pronouns, "whose", object predicates, "after doing" and bulleted
fields (spaCy extractor). Sentences written for these tests; the names are given as known, so the assertions
rest on the patterns and the parse, not on what the statistical NER guesses.
"""

from __future__ import annotations

import pytest

from hybridkg.structural.base import KnownEntity
from hybridkg.structural.extract.nlp import SpacyExtractor

TYPES = ["Organization", "Person", "Location"]
NAMES = {
    "Person": ["Idris Falk", "Mona Achterberg", "Teodor Lusk", "Greta Lindahl"],
    "Organization": ["Quillon Foods", "Baskerfield Council", "Marlowe Trust", "Sarn Engineering", "Ossory Mills"],
    "Location": ["Dunmere", "Kilbrack"],
}
KNOWN = [KnownEntity(None, (n,), t) for t, ns in NAMES.items() for n in ns]
KNOWN.append(KnownEntity(None, ("Harlin",), "concept"))


@pytest.fixture(scope="module")
def extractor() -> SpacyExtractor:
    return SpacyExtractor(KNOWN)


def pairs(extractor: SpacyExtractor, text: str) -> dict[frozenset[str], set[str]]:
    """The typed relations of ``text`` by unordered pair of names, each with its relation types."""
    out: dict[frozenset[str], set[str]] = {}
    for r in extractor.extract(text, entity_types=TYPES).relations:
        if r.type != "co_occurs":
            out.setdefault(frozenset((r.src, r.dst)), set()).add(r.type)
    return out


def triples(extractor: SpacyExtractor, text: str) -> set[tuple[str, str, str]]:
    return {(r.src, r.type, r.dst) for r in extractor.extract(text, entity_types=TYPES).relations
            if r.type != "co_occurs"}


def test_a_passive_subject_leads_the_agent_to_the_subjects_named_prepositional_object(
    extractor: SpacyExtractor,
) -> None:
    got = triples(extractor, "The inspection of Ossory Mills was carried out by Sarn Engineering.")
    assert any(s == "Sarn Engineering" and d == "Ossory Mills" and t.startswith("carry_out") for s, t, d in got)


def test_a_passive_subject_leads_the_agent_to_its_named_modifier(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "The Harlin warehouse is managed by Quillon Foods.")
    assert ("Quillon Foods", "manage", "Harlin") in got


def test_a_named_modifier_of_the_agent_is_an_agent(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "Ossory Mills, owned by the Harlin family for a century, closed its oldest site.")
    assert ("Harlin", "own", "Ossory Mills") in got


def test_a_relative_pronoun_object_stands_for_the_noun_it_modifies(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "The Harlin depot, which Quillon Foods bought last year, needs a new roof.")
    assert ("Quillon Foods", "buy", "Harlin") in got


def test_whose_is_the_noun_the_clause_modifies(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "Marlowe Trust, whose treasurer is Mona Achterberg, sold the Kilbrack estate.")
    assert ("Mona Achterberg", "treasurer_of", "Marlowe Trust") in got


def test_the_object_predicate_of_a_passive_describes_its_subject(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "Greta Lindahl was elected treasurer of Marlowe Trust last week.")
    assert ("Greta Lindahl", "treasurer_of", "Marlowe Trust") in got


def test_the_object_predicate_of_an_active_verb_describes_its_object(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "Marlowe Trust named Greta Lindahl treasurer of Baskerfield Council.")
    assert ("Marlowe Trust", "name", "Greta Lindahl") in got
    assert ("Greta Lindahl", "treasurer_of", "Baskerfield Council") in got


def test_a_gerund_after_a_preposition_takes_the_main_clauses_subject(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "Before joining Sarn Engineering, Idris Falk worked for Baskerfield Council.")
    assert ("Idris Falk", "join", "Sarn Engineering") in got
    assert ("Idris Falk", "work_for", "Baskerfield Council") in got


def test_bulleted_fields_under_a_heading_that_is_a_name(extractor: SpacyExtractor) -> None:
    got = pairs(extractor, "Marlowe Trust\n\n- Treasurer: Greta Lindahl\n* Auditor: Sarn Engineering")
    assert "treasurer" in got.get(frozenset(("Marlowe Trust", "Greta Lindahl")), set())
    assert "auditor" in got.get(frozenset(("Marlowe Trust", "Sarn Engineering")), set())
