"""The offline extractor: known-entity linking, new entities, co-occurrence and verb relations."""

from __future__ import annotations

import time

import pytest

from hybridkg.structural.base import ExtractedRelation, Extraction, Extractor, KnownEntity
from hybridkg.structural.extract.matcher import Gazetteer
from hybridkg.structural.extract.offline import OfflineExtractor
from hybridkg.structural.extract.sentences import sentence_spans
from hybridkg.structural.ingest.chunking import chunk_text
from hybridkg.structural.ingest.tokenizer import Tokenizer

ASPIRIN = KnownEntity("http://example.org/med#Aspirin", ("Aspirin", "ASA", "acetylsalicylic acid"), "Drug")
HEADACHE = KnownEntity("http://example.org/med#Headache", ("headache", "cephalalgia"), "Disease")
ACID = KnownEntity("http://example.org/chem#Acid", ("acid",), "Chemical")
TYPES = ["Drug", "Disease", "Person", "Organization"]


@pytest.fixture(scope="module")
def extractor() -> OfflineExtractor:
    return OfflineExtractor([ASPIRIN, HEADACHE, ACID])


def entities(found: Extraction) -> dict[str, tuple[str, str | None]]:
    return {e.name: (e.type, e.iri) for e in found.entities}


def relations(found: Extraction) -> dict[tuple[str, str, str], ExtractedRelation]:
    return {(r.src, r.type, r.dst): r for r in found.relations}


def test_links_labels_and_alt_labels_to_the_known_iri(extractor: OfflineExtractor) -> None:
    found = extractor.extract("ASA is cheap. Doctors still recommend aspirin for a headache.")
    linked = [e for e in found.entities if e.iri]
    assert [(e.name, e.type, e.iri) for e in linked] == [
        ("Aspirin", "Drug", ASPIRIN.iri),
        ("headache", "Disease", HEADACHE.iri),
    ]
    assert linked[0].description == "ASA is cheap."
    assert isinstance(extractor, Extractor)


def test_gazetteer_matching_rules() -> None:
    gazetteer = Gazetteer([ASPIRIN, HEADACHE, ACID])
    text = "NASA tested Acetylsalicylic\n  Acid (asa) on headaches; acid, ASA and aspirins."
    found = [(m.text, m.entity.iri) for m in gazetteer.find(text)]
    assert found == [
        ("Acetylsalicylic\n  Acid", ASPIRIN.iri),
        ("headaches", HEADACHE.iri),
        ("acid", ACID.iri),
        ("ASA", ASPIRIN.iri),
    ]
    assert all(text[m.start : m.end] == m.text for m in gazetteer.find(text))
    assert Gazetteer([]).find(text) == []


def test_a_preferred_label_wins_an_ambiguous_match() -> None:
    cold = KnownEntity("ex:cold", ("cold",), "Disease")
    temperature = KnownEntity("ex:low", ("chill", "cold"), "Quality")
    assert Gazetteer([temperature, cold]).find("a cold")[0].entity is cold


def test_finds_new_named_entities_with_types(extractor: OfflineExtractor) -> None:
    text = (
        "The World Health Organization lists aspirin as an essential medicine. "
        "Dr. Jane Smith of Johns Hopkins University prescribed ibuprofen for chronic back pain in 2023."
    )
    found = entities(extractor.extract(text, entity_types=TYPES))
    assert found["World Health Organization"] == ("Organization", None)
    assert found["Johns Hopkins University"] == ("Organization", None)
    assert found["Jane Smith"] == ("Person", None)
    assert found["ibuprofen"] == ("Drug", None)
    assert found["chronic back pain"] == ("Disease", None)
    assert found["essential medicine"] == ("concept", None)
    assert not {"The", "Dr", "2023", "The World Health Organization"} & set(found)


def test_skips_sentence_openers_stopwords_and_numbers(extractor: OfflineExtractor) -> None:
    found = entities(extractor.extract("However, 42 patients improved. Moreover it was 100 % safe. 2024."))
    assert not {"However", "Moreover", "42", "100", "2024", "it"} & set(found)
    assert "patients" in found


def test_description_is_the_first_sentence(extractor: OfflineExtractor) -> None:
    found = extractor.extract("Metformin lowers blood glucose.\nMetformin is cheap.")
    by_name = {e.name: e for e in found.entities}
    assert by_name["blood glucose"].description == "Metformin lowers blood glucose."


def test_co_occurrence_within_a_sentence_counts_sentences(extractor: OfflineExtractor) -> None:
    text = "Aspirin and caffeine help with migraine. Caffeine, aspirin: a classic pair. Caffeine is bitter."
    found = relations(extractor.extract(text))
    pair = found[("Aspirin", "co_occurs", "caffeine")]
    assert pair.weight == 2.0
    assert pair.description == "Aspirin and caffeine help with migraine."
    assert ("caffeine", "helps", "migraine") in found
    assert all("bitter" not in k for r in found.values() for k in r.keywords)


def test_no_relations_across_sentences(extractor: OfflineExtractor) -> None:
    found = extractor.extract("Aspirin is old. Ibuprofen is newer.")
    assert found.relations == []


def test_verbs_type_relations(extractor: OfflineExtractor) -> None:
    text = (
        "Aspirin treats headaches. ASA is prescribed for rheumatic fever. Seagen was acquired by Pfizer. "
        "NSAIDs inhibit COX enzymes. Aspirin does not cure influenza."
    )
    found = relations(extractor.extract(text))
    assert found[("Aspirin", "treats", "headache")].keywords == ("treats",)
    assert found[("Aspirin", "prescribed", "rheumatic fever")].keywords == ("is prescribed for",)
    assert ("Pfizer", "acquires", "Seagen") in found
    assert ("NSAIDs", "inhibits", "COX") in found
    assert ("Aspirin", "not_cures", "influenza") in found


def test_the_subject_of_a_verb_is_not_inside_a_prepositional_phrase(extractor: OfflineExtractor) -> None:
    found = relations(extractor.extract("Dr. Jane Smith of Johns Hopkins University prescribed ibuprofen."))
    assert ("Johns Hopkins University", "prescribes", "ibuprofen") not in found
    assert ("Johns Hopkins University", "co_occurs", "ibuprofen") in found


def test_pairs_per_sentence_stay_linear(extractor: OfflineExtractor) -> None:
    names = [f"Compound{chr(65 + i)}{chr(65 + j)}" for i in range(6) for j in range(10)]
    text = "Researchers compared " + ", ".join(names) + " in one trial."
    found = extractor.extract(text)
    assert len(found.entities) >= 60
    assert len(found.relations) <= 2 * len(found.entities)


def test_deterministic(extractor: OfflineExtractor) -> None:
    text = "Aspirin treats headaches. The World Health Organization lists aspirin. Bayer sells it in Germany."
    assert extractor.extract(text, entity_types=TYPES) == extractor.extract(text, entity_types=TYPES)


def test_sentence_spans_respect_abbreviations_and_lines() -> None:
    text = "Dr. Smith (e.g. Prof. Lee) met J. Doe. Then they left!\n- item one\n- item two\n\nNew paragraph"
    assert [text[s:e] for s, e in sentence_spans(text)] == [
        "Dr. Smith (e.g. Prof. Lee) met J. Doe.",
        "Then they left!",
        "- item one",
        "- item two",
        "New paragraph",
    ]
    wrapped = "This is a long line of hard-wrapped prose that goes on\nand continues on the next line."
    assert len(sentence_spans(wrapped)) == 1


def test_a_200_token_chunk_takes_well_under_10_ms(extractor: OfflineExtractor) -> None:
    text = " ".join(
        [
            "Aspirin, also known as acetylsalicylic acid, treats mild headaches and reduces fever.",
            "The World Health Organization lists aspirin as an essential medicine.",
            "Dr. Jane Smith of Johns Hopkins University prescribed ibuprofen for chronic back pain.",
            "Seagen was acquired by Pfizer in 2023 for 43 billion dollars.",
            "Patients with rheumatoid arthritis often take NSAIDs such as naproxen or diclofenac.",
            "However, long-term use may cause gastrointestinal bleeding and kidney damage.",
        ]
        * 3
    )
    chunk = chunk_text(text, chunk_tokens=200, overlap_tokens=0, tokenizer=Tokenizer())[0]
    assert chunk.tokens > 180
    extractor.extract(chunk.text)
    runs = 30
    start = time.perf_counter()
    for _ in range(runs):
        extractor.extract(chunk.text, entity_types=TYPES)
    per_chunk = (time.perf_counter() - start) / runs
    assert per_chunk < 0.010, f"{per_chunk * 1000:.1f} ms per 200-token chunk"
