"""Relation patterns for passives, relative pronouns, "whose", object predicates, "after doing" and bulleted
fields (spaCy extractor). Sentences written for these tests; the names are given as known, so the assertions
rest on the patterns and the parse, not on what the statistical NER guesses.
"""

from __future__ import annotations

import pytest
from support.extraction import typed

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
    return typed(extractor.extract(text, entity_types=TYPES))


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


def test_a_nominalisation_with_of_and_by_relates_agent_and_object(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "The takeover of Ossory Mills by Quillon Foods was cleared on Friday.")
    assert ("Quillon Foods", "takeover_of", "Ossory Mills") in got


def test_a_nominalisation_with_of_and_another_preposition(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "Analysts welcomed the sale of Ossory Mills to Marlowe Trust.")
    assert ("Ossory Mills", "sale_to", "Marlowe Trust") in got


def test_a_noun_between_two_conjoined_names_relates_them(extractor: SpacyExtractor) -> None:
    got = pairs(extractor, "A dispute between Sarn Engineering and Baskerfield Council delayed the works.")
    assert "dispute_with" in got.get(frozenset(("Sarn Engineering", "Baskerfield Council")), set())


def test_a_name_joined_to_a_participle_modifying_an_apposition(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "Quillon Foods, a Kilbrack-based cooperative, doubled its output.")
    assert ("Quillon Foods", "based", "Kilbrack") in got


def test_a_title_before_a_name_with_the_employer_before_it(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "Quillon Foods treasurer Idris Falk signed the lease.")
    assert ("Idris Falk", "treasurer_of", "Quillon Foods") in got


def test_a_record_opening_the_chunk_is_about_its_first_fields_name(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "From: Teodor Lusk\nTo: Mona Achterberg\nSubject: roof repairs\n\nThe quote is attached.")
    assert ("Teodor Lusk", "to", "Mona Achterberg") in got


def test_a_record_after_other_text_is_not_about_its_first_field(extractor: SpacyExtractor) -> None:
    text = "Visit to Sarn Engineering\n\n- Host: Teodor Lusk\n- Driver: Mona Achterberg"
    got = pairs(extractor, text)
    assert frozenset(("Teodor Lusk", "Mona Achterberg")) not in got


def test_a_participle_with_an_agent_conjoined_to_a_passive_is_passive(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "Ossory Mills is owned by Marlowe Trust and managed by Sarn Engineering.")
    assert ("Marlowe Trust", "own", "Ossory Mills") in got
    assert ("Sarn Engineering", "manage", "Ossory Mills") in got


def test_a_person_with_an_organisation_in_parentheses(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "Present: Idris Falk (Quillon Foods), Mona Achterberg (Baskerfield Council)")
    assert ("Idris Falk", "of", "Quillon Foods") in got
    assert ("Mona Achterberg", "of", "Baskerfield Council") in got
    assert not any({s, d} == {"Idris Falk", "Mona Achterberg"} for s, _, d in got)


def test_a_plural_noun_after_a_name_in_a_sentence_without_a_verb_is_its_verb(extractor: SpacyExtractor) -> None:
    got = pairs(extractor, "Marlowe Trust funds Baskerfield Council and Sarn Engineering.")  # "funds" tagged NNS
    assert "fund" in got.get(frozenset(("Marlowe Trust", "Baskerfield Council")), set())
    assert "fund" in got.get(frozenset(("Marlowe Trust", "Sarn Engineering")), set())


def test_a_heading_without_a_verb_relates_nothing(extractor: SpacyExtractor) -> None:
    got = pairs(extractor, "Marlowe Trust Funds Baskerfield Council\n\nThe review is due.")
    assert frozenset(("Sarn Engineering", "Marlowe Trust")) not in got


def test_a_nominalisations_object_counts_by_the_names_modifying_it(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "The board approved the transfer of the Harlin depot to Quillon Foods.")
    assert ("Harlin", "transfer_to", "Quillon Foods") in got
