"""The spaCy offline extractor: one test per dependency pattern, asserted on the relation and the entity names.

Names reach the pipeline through the known list or ``learn()`` (the known-names component sets them as entity
spans before NER), so the assertions do not depend on what the statistical NER happens to guess.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from support.extraction import names, triples

from hybridkg.structural.base import (
    BatchExtractor,
    ExtractedEntity,
    ExtractedRelation,
    Extraction,
    Extractor,
    KnownEntity,
    NameLearner,
)
from hybridkg.structural.extract.mentions import class_type, map_category, ner_type
from hybridkg.structural.extract.nlp import SpacyExtractor

KESTREL = KnownEntity("http://example.org/org#Kestrel", ("Kestrel Analytics", "Kestrel"), "Organization")
KNOWN = [
    KESTREL,
    KnownEntity(None, ("Amara Okafor",), "Person"),
    KnownEntity(None, ("Lukas Brandt",), "Person"),
    KnownEntity(None, ("Ines Moreau",), "Person"),
    KnownEntity(None, ("Pinecrest Bank",), "Organization"),
    KnownEntity(None, ("Tallow Brewing",), "Organization"),
    KnownEntity(None, ("Rotterdam",), "Location"),
    KnownEntity(None, ("Valencia",), "Location"),
    KnownEntity(None, ("Lumen",), "concept"),
    KnownEntity(None, ("Brightline",), "concept"),
]
TYPES = ["Organization", "Person", "Product", "Location"]


@pytest.fixture(scope="module")
def extractor() -> SpacyExtractor:
    return SpacyExtractor(KNOWN)


def run(extractor: SpacyExtractor, text: str, types: Sequence[str] = TYPES) -> Extraction:
    return extractor.extract(text, entity_types=types)


def relation(found: Extraction, src: str, rel_type: str, dst: str) -> ExtractedRelation:
    hits = [r for r in found.relations if (r.src, r.type, r.dst) == (src, rel_type, dst)]
    assert hits, f"no {src} -[{rel_type}]-> {dst} in {sorted(triples(found))}"
    return hits[0]


def entity(found: Extraction, name: str) -> ExtractedEntity:
    hits = [e for e in found.entities if e.name == name]
    assert hits, f"no entity {name!r} in {[e.name for e in found.entities]}"
    return hits[0]


def test_implements_the_extractor_protocols(extractor: SpacyExtractor) -> None:
    assert isinstance(extractor, Extractor)
    assert isinstance(extractor, BatchExtractor)
    assert isinstance(extractor, NameLearner)


def test_subject_verb_object_with_a_preposition(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Amara Okafor joined from Pinecrest Bank in 2019.")
    rel = relation(found, "Amara Okafor", "join_from", "Pinecrest Bank")
    assert rel.description == "Amara Okafor joined from Pinecrest Bank in 2019."
    assert "2019" in rel.keywords
    assert names(found) == {"Amara Okafor", "Pinecrest Bank"}  # the year is a keyword, not an entity


def test_indirect_object_and_pronouns_resolve_to_the_nearest_compatible_entity(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Amara Okafor founded Tallow Brewing in 2015. She sold it to Kestrel Analytics in 2021.")
    assert {
        ("Amara Okafor", "found", "Tallow Brewing"),
        ("Amara Okafor", "sell", "Tallow Brewing"),  # she -> the person, it -> the company before it
        ("Amara Okafor", "sell_to", "Kestrel Analytics"),
    } <= triples(found)
    assert "2021" in relation(found, "Amara Okafor", "sell_to", "Kestrel Analytics").keywords


def test_they_and_their_resolve_to_an_organisation(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Amara Okafor praised Pinecrest Bank. They moved their headquarters to Valencia.")
    assert ("Pinecrest Bank", "move_to", "Valencia") in triples(found)
    assert not any(src == "Amara Okafor" and t.startswith("move") for src, t, _ in triples(found))


def test_shared_subject_across_and(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Lukas Brandt left Pinecrest Bank and joined Kestrel Analytics.")
    assert {
        ("Lukas Brandt", "leave", "Pinecrest Bank"),
        ("Lukas Brandt", "join", "Kestrel Analytics"),
    } <= triples(found)


def test_conjoined_subjects_each_get_the_relation(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Amara Okafor and Lukas Brandt visited Rotterdam in May.")
    assert {("Amara Okafor", "visit", "Rotterdam"), ("Lukas Brandt", "visit", "Rotterdam")} <= triples(found)


def test_a_name_modifying_the_object_is_an_object_too(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Lukas Brandt manages the Pinecrest Bank account.")
    assert ("Lukas Brandt", "manage", "account") in triples(found)
    assert "account" in relation(found, "Lukas Brandt", "manage", "Pinecrest Bank").keywords


def test_a_relation_counts_once_per_sentence(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Amara Okafor thanked Lukas Brandt, and Amara Okafor thanked Lukas Brandt. Amara Okafor "
                "thanked Lukas Brandt again.")
    assert relation(found, "Amara Okafor", "thank", "Lukas Brandt").weight == 2.0


def test_passive_with_agent_reads_as_active(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Tallow Brewing was acquired by Kestrel Analytics.")
    assert ("Kestrel Analytics", "acquire", "Tallow Brewing") in triples(found)


def test_negation_prefixes_the_type(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Amara Okafor did not sign the contract with Pinecrest Bank.")
    assert ("Amara Okafor", "not_sign", "contract") in triples(found)
    assert ("contract", "with", "Pinecrest Bank") in triples(found)


def test_apposition_gives_the_person_a_role_at_the_possessor(extractor: SpacyExtractor) -> None:
    found = run(
        extractor,
        "Kestrel Analytics opened a lab in Valencia. Its chief financial officer, Ines Moreau, approved the budget.",
    )
    assert ("Ines Moreau", "chief_financial_officer_of", "Kestrel Analytics") in triples(found)
    assert ("Ines Moreau", "approve", "budget") in triples(found)  # the role noun stands for the person
    ines = entity(found, "Ines Moreau")
    assert ines.description.startswith("chief financial officer of Kestrel Analytics. ")
    assert ines.type == "Person"


def test_role_phrase_with_of_complement(extractor: SpacyExtractor) -> None:
    found = run(
        extractor,
        "Kestrel Analytics opened a lab in Valencia. Its head of research, Ines Moreau, presented the results.",
    )
    assert ("Ines Moreau", "head_of_research_of", "Kestrel Analytics") in triples(found)


def test_apposition_without_employer_is_a_class_statement(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Brightline, a logistics company, praised Pinecrest Bank.")
    assert ("Brightline", "is_a", "logistics company") in triples(found)
    assert ("Brightline", "praise", "Pinecrest Bank") in triples(found)


def test_copula_with_a_role_and_an_of_employer(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Ines Moreau is the chief executive of Tallow Brewing.")
    assert ("Ines Moreau", "chief_executive_of", "Tallow Brewing") in triples(found)


def test_copula_class_statement_types_and_describes(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Brightline is a logistics company.")
    assert ("Brightline", "is_a", "logistics company") in triples(found)
    brightline = entity(found, "Brightline")
    assert brightline.type == "Organization"  # "company" maps onto the domain's Organization class
    assert brightline.description.startswith("logistics company. ")
    assert entity(found, "logistics company").named is False


def test_unmapped_class_phrase_becomes_the_type(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Brightline is a craft beer producer.")
    assert entity(found, "Brightline").type == "craft beer producer"


def test_class_statement_never_overrides_a_known_type(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Pinecrest Bank is a craft beer producer.")
    assert entity(found, "Pinecrest Bank").type == "Organization"
    assert ("Pinecrest Bank", "is_a", "craft beer producer") in triples(found)


def test_called_names_the_noun_phrase(extractor: SpacyExtractor) -> None:
    found = run(extractor, "The bank launched a savings app called Lumen.")
    lumen = entity(found, "Lumen")
    assert ("Lumen", "is_a", "savings app") in triples(found)
    assert lumen.type == "Product"  # "app" is a product word; the domain has Product
    assert lumen.description.startswith("savings app. ")
    assert ("bank", "launch", "Lumen") in triples(found)  # the named noun stands for the name


def test_participial_modifier(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Tallow Brewing, headquartered in Rotterdam, sells beer across Europe.")
    assert ("Tallow Brewing", "headquartered_in", "Rotterdam") in triples(found)
    assert ("Tallow Brewing", "sell", "beer") in triples(found)


def test_relative_clause_subject(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Lukas Brandt, who joined Kestrel in 2020, manages the data team.")
    assert {("Lukas Brandt", "join", "Kestrel Analytics"), ("Lukas Brandt", "manage", "data team")} <= triples(found)


def test_possessive_role_in_a_copula(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Kestrel's largest client is Pinecrest Bank.")
    assert ("Pinecrest Bank", "largest_client_of", "Kestrel Analytics") in triples(found)
    assert entity(found, "Pinecrest Bank").description.startswith("largest client of Kestrel Analytics. ")


def test_its_resolves_to_the_subject_before_it(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Kestrel Analytics praised its partner, Pinecrest Bank.")
    assert ("Pinecrest Bank", "partner_of", "Kestrel Analytics") in triples(found)


def test_known_entities_carry_iri_preferred_label_and_aliases(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Pinecrest Bank signed with Kestrel last week.")
    kestrel = entity(found, "Kestrel Analytics")  # the text says "Kestrel"; the preferred label is the name
    assert kestrel.iri == KESTREL.iri
    assert kestrel.aliases == ("Kestrel",)
    assert kestrel.type == "Organization"
    assert entity(found, "Pinecrest Bank").iri is None


def test_common_noun_phrases_are_not_named(extractor: SpacyExtractor) -> None:
    found = run(extractor, "The committee approved the new budget after Amara Okafor spoke.")
    assert names(found, named=False) >= {"committee", "new budget"}
    assert names(found) == {"Amara Okafor"}


def test_co_occurrence_is_weak_and_adds_up_per_sentence() -> None:
    extractor = SpacyExtractor(KNOWN, co_occurrence_weight=0.4)
    found = extractor.extract("Amara Okafor met Lukas Brandt. Later, Amara Okafor and Lukas Brandt had lunch.")
    assert ("Amara Okafor", "meet", "Lukas Brandt") in triples(found)
    # the second sentence has no typed relation between the two; the first has one, so only one sentence counts
    co = [r for r in found.relations if r.type == "co_occurs"]
    assert [(r.src, r.dst, r.weight) for r in co] == [("Amara Okafor", "Lukas Brandt", pytest.approx(0.4))]
    twice = extractor.extract("Amara Okafor and Lukas Brandt had lunch. Then Amara Okafor and Lukas Brandt left.")
    co = [r for r in twice.relations if r.type == "co_occurs"]
    assert [r.weight for r in co] == [pytest.approx(0.8)]
    assert all(r.weight == 1.0 for r in found.relations if r.type != "co_occurs")


def test_learn_makes_a_later_text_link_the_name() -> None:
    extractor = SpacyExtractor()
    text = "The tenants at Harbor Point Partners asked HPP for a lower rent."
    before = extractor.extract(text)
    assert not any(e.aliases for e in before.entities)
    extractor.learn([KnownEntity(None, ("Harbor Point Partners", "HPP"), "Organization")])
    after = extractor.extract(text)
    hpp = [e for e in after.entities if e.name == "Harbor Point Partners"]
    assert len(hpp) == 1  # both mentions are one entity, named by its preferred label
    assert hpp[0].aliases == ("HPP",)
    assert hpp[0].type == "Organization"
    assert "HPP" not in {e.name for e in after.entities}


def test_batch_equals_single(extractor: SpacyExtractor) -> None:
    texts = [
        "Amara Okafor joined from Pinecrest Bank in 2019.",
        "Tallow Brewing, headquartered in Rotterdam, sells beer across Europe.",
        "",
        "Kestrel's largest client is Pinecrest Bank. They moved their headquarters to Valencia.",
    ]
    batch = extractor.extract_batch(texts, entity_types=TYPES)
    assert batch == [extractor.extract(t, entity_types=TYPES) for t in texts]
    assert batch[2] == Extraction()


def test_ner_and_class_types_map_onto_the_domain() -> None:
    assert ner_type("PERSON", ["Company", "Person"]) == "Person"
    assert ner_type("ORG", ["Company", "Person"]) == "Company"
    assert ner_type("GPE", []) == "location"
    assert ner_type("PRODUCT", ["Company"]) == "product"  # no class for it: the category
    assert ner_type("EVENT", ["crm:Event"]) == "crm:Event"
    assert map_category("organization", ["http://x.org/ns#Organisation"]) == "http://x.org/ns#Organisation"
    assert class_type("payments company", "company", ["Company", "Customer"]) == "Company"
    assert class_type("key customer", "customer", ["Company", "Customer"]) == "Customer"
    assert class_type("sales representative", "representative", ["Sales representative"]) == "Sales representative"
    assert class_type("craft beer producer", "producer", ["Company"]) is None


def test_a_title_before_a_name_is_not_an_entity(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Dr. Ines Moreau approved the expansion budget.")
    assert names(found) == {"Ines Moreau"}
