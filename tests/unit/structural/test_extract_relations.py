"""Relation patterns of the spaCy extractor beyond the basic ones of test_nlp_extractor: what a verb's object
leads to, owners of nouns, definite noun phrases referring back, appositions with possessives and roles, lists.

Sentences written for these tests; the names are given as known, so the assertions rest on the patterns and
the parse, not on what the statistical NER guesses.
"""

from __future__ import annotations

import pytest
from support.extraction import typed

from hybridkg.structural.base import KnownEntity
from hybridkg.structural.extract.nlp import SpacyExtractor

TYPES = ["Organization", "Person", "Product", "Location"]
KNOWN = [
    KnownEntity(None, ("Maya Castell",), "Person"),
    KnownEntity(None, ("Tomas Reuben",), "Person"),
    KnownEntity(None, ("Ada Voss",), "Person"),
    KnownEntity(None, ("Piet Oram",), "Person"),
    KnownEntity(None, ("Ilse Brandauer",), "Person"),
    KnownEntity(None, ("Corvid Analytics",), "Organization"),
    KnownEntity(None, ("Halden Foods",), "Organization"),
    KnownEntity(None, ("Dovecote Pharmacies",), "Organization"),
    KnownEntity(None, ("Tarn Freight",), "Organization"),
    KnownEntity(None, ("Orrin Haulage",), "Organization"),
    KnownEntity(None, ("Waymark",), "Product"),
    KnownEntity(None, ("Caddon",), "Location"),
]


@pytest.fixture(scope="module")
def extractor() -> SpacyExtractor:
    return SpacyExtractor(KNOWN)


def triples(extractor: SpacyExtractor, text: str) -> set[tuple[str, str, str]]:
    return typed(extractor.extract(text, entity_types=TYPES))


def test_a_named_object_of_the_objects_preposition(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "Maya Castell scheduled a workshop with Tomas Reuben for next week.")
    assert ("Maya Castell", "schedule_workshop_with", "Tomas Reuben") in got


def test_a_name_modifying_the_object_of_an_objects_preposition(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "Maya Castell booked a review of the Waymark rollout.")
    assert ("Maya Castell", "book_review_of", "Waymark") in got


def test_the_possessor_of_the_object(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "Corvid Analytics reviews Halden Foods's accounts every quarter.")
    assert ("Corvid Analytics", "review_account_of", "Halden Foods") in got


def test_the_owner_of_a_noun_with_a_named_prepositional_object(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "Dovecote Pharmacies runs forty shops from its headquarters in Caddon.")
    assert ("Dovecote Pharmacies", "headquarters_in", "Caddon") in got


def test_a_definite_noun_phrase_refers_to_the_entity_it_described(extractor: SpacyExtractor) -> None:
    got = triples(
        extractor, "Tarn Freight, a regional carrier, renewed its contract in May. The carrier now runs Waymark."
    )
    assert ("Tarn Freight", "run", "Waymark") in got


def test_a_definite_noun_phrase_describing_two_entities_refers_to_neither(extractor: SpacyExtractor) -> None:
    text = (
        "Tarn Freight is a regional carrier. Orrin Haulage is a regional carrier too. "
        "The carrier now runs Waymark."
    )
    got = triples(extractor, text)
    assert not {t for t in got if t[2] == "Waymark" and t[0] in ("Tarn Freight", "Orrin Haulage")}


def test_a_plural_noun_beside_one_name_in_a_list_does_not_describe_it(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "Present: Ada Voss (chair), Piet Oram (treasurer), four directors.")
    assert ("Piet Oram", "is_a", "directors") not in got
    assert ("Ada Voss", "is_a", "chair") in got


def test_an_apposition_with_their_names_the_role_at_the_antecedent(extractor: SpacyExtractor) -> None:
    got = triples(
        extractor, "Halden Foods renewed in March. Their head of procurement, Ilse Brandauer, signed the order."
    )
    assert ("Ilse Brandauer", "head_of_procurement_of", "Halden Foods") in got
    assert ("Ilse Brandauer", "sign", "order") in got  # the name, not the role phrase, is the subject


def test_an_apposition_with_our_names_no_employer(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "Halden Foods renewed in March. Our account manager, Piet Oram, sent the invoice.")
    assert not {t for t in got if t[0] == "Piet Oram" and t[2] == "Halden Foods"}


@pytest.mark.parametrize(
    "text",
    [
        "Ilse Brandauer, the head of digital at Corvid Analytics, approved the budget.",
        "Ilse Brandauer, Corvid Analytics's head of digital, approved the budget.",
    ],
)
def test_a_role_apposition_with_an_employer(extractor: SpacyExtractor, text: str) -> None:
    got = triples(extractor, text)
    assert ("Ilse Brandauer", "head_of_digital_of", "Corvid Analytics") in got


def test_a_relative_clause_takes_the_noun_it_modifies_as_subject(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "Maya Castell, who manages Waymark, will visit Caddon in June.")
    assert ("Maya Castell", "manage", "Waymark") in got
    assert ("Maya Castell", "visit", "Caddon") in got


def test_passive_with_an_agent_and_made_by(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "Tarn Freight was acquired by Orrin Haulage. It plans routes on Waymark, "
                             "the routing suite made by Corvid Analytics.")
    assert ("Orrin Haulage", "acquire", "Tarn Freight") in got
    assert ("Corvid Analytics", "make", "Waymark") in got


def test_a_name_a_who_clause_modifies_is_a_person_and_its_pronoun_is_not_that_name(
    extractor: SpacyExtractor,
) -> None:
    found = extractor.extract(
        "Corvid Analytics was founded in 2014 by Tolliver Quence, who is still its chief executive. "
        "Its flagship product is Waymark.",
        entity_types=TYPES,
    )
    got = {(r.src, r.type, r.dst) for r in found.relations}
    founder = next(e for e in found.entities if "Quence" in e.name)
    assert founder.type == "Person"  # NER or not: "who" is said of persons
    assert (founder.name, "chief_executive_of", "Corvid Analytics") in got
    assert ("Waymark", "flagship_product_of", "Corvid Analytics") in got  # not of the (person) founder


def test_a_title_case_table_value_is_an_entity_and_a_lower_case_one_is_not_named(extractor: SpacyExtractor) -> None:
    found = extractor.extract("Contact | Role | Mood\nIlse Brandauer | Head of Procurement | calm", entity_types=TYPES)
    values = {e.name: e.named for e in found.entities}
    assert values.get("Head of Procurement") is True
    assert values.get("calm") is False


def test_a_pronoun_prefers_the_previous_sentences_subject_to_a_nearer_name(extractor: SpacyExtractor) -> None:
    got = triples(
        extractor, "Waymark was built by Corvid Analytics last year. Maya Castell wants to replace it in spring."
    )
    assert ("Maya Castell", "replace", "Waymark") in got
    assert ("Maya Castell", "replace", "Corvid Analytics") not in got



def test_a_definite_noun_phrase_refers_to_the_one_earlier_name_ending_in_its_noun(extractor: SpacyExtractor) -> None:
    got = triples(
        extractor, "Halden Foods renewed Waymark in May. Ilse Brandauer, finance director of the foods group, signed."
    )
    assert not {t for t in got if t[0] == "Ilse Brandauer" and t[2] == "Halden Foods"}  # "group" ends no name
    known = [*KNOWN, KnownEntity(None, ("Harrow Valley Trust",), "Organization")]
    local = SpacyExtractor(known)
    found = local.extract(
        "Harrow Valley Trust renewed Waymark in May.\nSigned by: Ilse Brandauer, finance director of the trust",
        entity_types=TYPES,
    )
    assert ("Ilse Brandauer", "finance_director_of", "Harrow Valley Trust") in {
        (r.src, r.type, r.dst) for r in found.relations
    }


def test_an_item_after_a_list_of_names_describes_none_of_them(extractor: SpacyExtractor) -> None:
    got = triples(extractor, "Attendees: Ada Voss (Halden Foods), Piet Oram (Halden Foods), our support team")
    assert not {t for t in got if t[1] == "is_a" and t[2] == "support team"}
    assert ("Piet Oram", "is_a", "account manager") in triples(
        extractor, "Piet Oram, our account manager, sent the invoice."
    )
