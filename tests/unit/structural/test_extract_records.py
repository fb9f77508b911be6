"""The spaCy extractor on records and known names: ``label: value`` fields under a heading naming their subject
become relations, and a known name that is one of the domain's classes is a type, not an entity.

Texts are written for these tests; names reach the pipeline through the known list, so the assertions do not
depend on what the statistical NER guesses.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from support.extraction import triples

from hybridkg.structural.base import Extraction, KnownEntity
from hybridkg.structural.extract.nlp import SpacyExtractor

SUPPLIER_CLASS = KnownEntity("http://example.org/shop#Supplier", ("Supplier", "Vendor"), "concept")
HARROW = KnownEntity("http://example.org/shop/harrow-timber", ("Harrow Timber",), "Supplier")
KNOWN = [
    SUPPLIER_CLASS,
    HARROW,
    KnownEntity(None, ("Calloway Income Fund",), "Product"),
    KnownEntity(None, ("Rowan Ashdown",), "Person"),
    KnownEntity(None, ("Tamsin Vey",), "Person"),
    KnownEntity(None, ("Brackwater Mills",), "Organization"),
]
TYPES = ["Supplier", "Organization", "Person", "Product", "Location"]


@pytest.fixture(scope="module")
def extractor() -> SpacyExtractor:
    return SpacyExtractor(KNOWN)


def run(extractor: SpacyExtractor, text: str, types: Sequence[str] = TYPES) -> Extraction:
    return extractor.extract(text, entity_types=types)


# -- class labels are types


def test_a_known_name_that_is_a_domain_class_is_not_an_entity(extractor: SpacyExtractor) -> None:
    text = "Vendor onboarding took three weeks. Harrow Timber is our newest supplier."
    found = run(extractor, text)
    iris = {e.iri for e in found.entities}
    assert SUPPLIER_CLASS.iri not in iris
    assert "Vendor" not in {e.name for e in found.entities if e.named}
    assert HARROW.iri in iris  # an individual of that class still is one
    # without the domain's classes the same known name is matched: the class list is what tells them apart
    assert SUPPLIER_CLASS.iri in {e.iri for e in run(extractor, text, types=()).entities}


def test_a_class_label_at_a_sentence_start_does_not_become_a_name(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Supplier reviews happen every spring. Rowan Ashdown leads them.")
    assert not {"Supplier", "Supplier reviews"} & {e.name for e in found.entities if e.named}


# -- label: value fields


def test_fields_under_a_heading_naming_one_entity_relate_it_to_the_named_values(extractor: SpacyExtractor) -> None:
    text = "Calloway Income Fund\n\nFund manager: Rowan Ashdown\nCustodian: Brackwater Mills\nLaunched: 2019"
    found = run(extractor, text)
    got = triples(found)
    assert ("Calloway Income Fund", "fund_manager", "Rowan Ashdown") in got
    assert ("Calloway Income Fund", "custodian", "Brackwater Mills") in got
    assert not {t for t in got if t[1] == "launched"}  # a year is no name
    rel = next(r for r in found.relations if r.type == "fund_manager")
    assert rel.description == "Fund manager: Rowan Ashdown; Custodian: Brackwater Mills; Launched: 2019"
    assert "fund manager" in rel.keywords


def test_a_section_heading_naming_nothing_is_passed_over(extractor: SpacyExtractor) -> None:
    text = "Calloway Income Fund\n\nThe fund invests in listed bonds.\n\nKey facts\n\nCustodian: Brackwater Mills"
    assert ("Calloway Income Fund", "custodian", "Brackwater Mills") in triples(run(extractor, text))


def test_a_value_listing_names_relates_each(extractor: SpacyExtractor) -> None:
    text = "Calloway Income Fund\n\nPortfolio managers: Rowan Ashdown and Tamsin Vey"
    got = triples(run(extractor, text))
    assert ("Calloway Income Fund", "portfolio_managers", "Rowan Ashdown") in got
    assert ("Calloway Income Fund", "portfolio_managers", "Tamsin Vey") in got


def test_a_heading_naming_an_entity_amid_other_words_gives_no_subject(extractor: SpacyExtractor) -> None:
    text = "Meeting with Brackwater Mills\n\nOwner: Rowan Ashdown\nNext step: Tamsin Vey"
    got = triples(run(extractor, text))
    assert not {t for t in got if t[1] in ("owner", "next_step")}


def test_a_value_that_is_a_sentence_gives_no_field_relation(extractor: SpacyExtractor) -> None:
    text = "Calloway Income Fund\n\nNotes: Rowan Ashdown met the trustees of Brackwater Mills"
    got = triples(run(extractor, text))
    assert not {t for t in got if t[1] == "notes"}


# -- the attribute ruler's cached match step


def test_the_cached_attribute_ruler_matches_what_spacys_does(extractor: SpacyExtractor) -> None:
    from spacy.pipeline import AttributeRuler

    from hybridkg.structural.extract.attributes import CACHED_ATTRIBUTE_RULER, CachedAttributeRuler

    cached = extractor.nlp.get_pipe(CACHED_ATTRIBUTE_RULER)
    ruler = extractor.nlp.get_pipe("attribute_ruler")
    assert isinstance(cached, CachedAttributeRuler)
    assert isinstance(ruler, AttributeRuler)
    assert CACHED_ATTRIBUTE_RULER in extractor.nlp.pipe_names
    assert "attribute_ruler" not in extractor.nlp.pipe_names
    texts = [
        "I ain't gonna lie: she gets the keys, he got the van, and we gotta leave by 9.",
        "Their accountant, Ms. Vey, emailed us twice -- once on Monday and again yesterday!",
        "Calloway Income Fund\n\nFund manager: Rowan Ashdown\n  Custodian:   Brackwater Mills",
        "Contact | Role\nTamsin Vey | Head of Finance\n\nIts bonds weren't sold; they're held to maturity.",
    ]
    docs = list(extractor.nlp.pipe(texts))
    matched = 0
    for doc in docs:
        expected = ruler.match(doc)
        assert cached.match(doc) == expected
        matched += len(expected)
    assert matched > sum(len(d) for d in docs) // 2  # nearly every token gets its part of speech this way
    she = next(t for t in docs[0] if t.lower_ == "she")
    assert she.pos_ == "PRON"
    assert "Fem" in she.morph.get("Gender")
