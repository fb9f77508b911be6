"""Entity resolution: which names are one entity, stable ids, merged descriptions and types."""

from __future__ import annotations

import pytest

from hybridkg.errors import InvalidInput
from hybridkg.structural.resolution import (
    entity_id,
    merge_descriptions,
    merge_types,
    normalise_name,
    normalise_relation_type,
    relation_id,
)


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("Aspirin", "aspirin"),
        ("  The   World Health\nOrganization. ", "world health organization"),
        ('"ASA"', "asa"),
        ("an apple", "apple"),
        ("A", "a"),
        ("the", "the"),
        ("C++", "c++"),
        ("ﬁle", "file"),
        ("Straße", "strasse"),
        ("headaches", "headache"),
        ("therapies", "therapy"),
        ("boxes", "box"),
        ("mild headaches", "mild headache"),
        ("COVID-19", "covid-19"),
    ],
)
def test_normalise_name(name: str, key: str) -> None:
    assert normalise_name(name) == key


@pytest.mark.parametrize("name", ["Williams", "Athens", "diabetes", "series", "news", "analysis", "virus", "glass"])
def test_singular_looking_words_and_capitalised_names_are_not_singularised(name: str) -> None:
    assert normalise_name(name) == name.lower()


def test_names_that_normalise_alike_share_an_id() -> None:
    assert entity_id("med", "The Headache") == entity_id("med", "the headache") == "ent:med:headache"
    assert entity_id("med", "headaches") == entity_id("med", "headache")
    assert entity_id("med", "Aspirin") != entity_id("crm", "Aspirin")


def test_an_empty_name_has_no_id() -> None:
    with pytest.raises(InvalidInput, match="empty"):
        entity_id("med", " ... ")


def test_relation_ids_are_stable_and_directed() -> None:
    rid = relation_id("med", "ent:med:a", "ent:med:b", "treats")
    assert rid.startswith("rel:med:")
    assert rid == relation_id("med", "ent:med:a", "ent:med:b", " Treats ")
    assert rid != relation_id("med", "ent:med:b", "ent:med:a", "treats")
    assert rid != relation_id("med", "ent:med:a", "ent:med:b", "causes")
    assert rid != relation_id("crm", "ent:med:a", "ent:med:b", "treats")


def test_normalise_relation_type() -> None:
    assert normalise_relation_type("Is Treated With") == "is_treated_with"
    assert normalise_relation_type("  ") == "related_to"


def test_merge_descriptions_dedupes_sentences() -> None:
    merged = merge_descriptions("Aspirin is a drug. It treats pain.", "aspirin is a drug! It is cheap.")
    assert merged == "Aspirin is a drug. It treats pain. It is cheap."


def test_merge_descriptions_replaces_a_sentence_by_one_that_says_more() -> None:
    assert merge_descriptions("It treats pain.", "It treats pain and fever.") == "It treats pain and fever."
    assert merge_descriptions("It treats pain and fever.", "It treats pain.") == "It treats pain and fever."


def test_merge_descriptions_is_bounded() -> None:
    merged = merge_descriptions("First sentence here.", "Second one is much longer than the limit allows.", 40)
    assert merged == "First sentence here."
    clipped = merge_descriptions("", "word " * 100, 50)
    assert len(clipped) <= 50
    assert clipped.endswith("…")
    long_text = " ".join(f"Fact number {i} holds." for i in range(200))
    assert len(merge_descriptions("", long_text)) <= 1000


def test_merge_types_prefers_a_specific_type() -> None:
    assert merge_types("concept", "Drug") == "Drug"
    assert merge_types("Drug", "concept") == "Drug"
    assert merge_types("Drug", "Chemical") == "Drug"
    assert merge_types("Drug", "Chemical", new_is_known=True) == "Chemical"
    assert merge_types(None, "") == "concept"
