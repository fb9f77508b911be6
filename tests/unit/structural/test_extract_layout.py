"""Layout of a chunk before parsing (lines, headings, tables, fields) and what the spaCy extractor makes of it:
no name across a line break, a cell or a heading; labels and headers are not names; a table row is a record.

Sentences are written for these tests. Assertions hold whatever the statistical NER guesses: they check what
must never come out (a name with a line break in it, a label as a name) or use names given as known.
"""

from __future__ import annotations

import pytest
from spacy.tokens import Doc
from support.extraction import names, triples

from hybridkg.structural.base import Extraction, KnownEntity
from hybridkg.structural.extract.layout import Kind, analyse
from hybridkg.structural.extract.mentions import collect
from hybridkg.structural.extract.nlp import SpacyExtractor, names_together

TYPES = ["Organization", "Person", "Product", "Location"]
KNOWN = [
    KnownEntity(None, ("Brackwater Mills",), "Organization"),
    KnownEntity(None, ("Rowan Ashdown",), "Person"),
    KnownEntity(None, ("Tamsin Vey",), "Person"),
    KnownEntity(None, ("Odile Farrant",), "Person"),
    KnownEntity(None, ("Quillfeather",), "Organization"),
    KnownEntity("http://example.org/crm#Customer", ("Customer",), "concept"),
]


@pytest.fixture(scope="module")
def extractor() -> SpacyExtractor:
    return SpacyExtractor(KNOWN)


def run(extractor: SpacyExtractor, text: str) -> Extraction:
    return extractor.extract(text, entity_types=TYPES)


# -- layout


def kinds(text: str) -> list[tuple[Kind, str]]:
    layout = analyse(text)
    return [(s.kind, layout.text[s.start : s.end]) for s in layout.segments]


def test_table_rows_are_cells_and_records() -> None:
    text = "Owner | Task | Due\nHelga Marsh | Order the valves | 3 May\nIvo Strand | Audit | 9 May"
    layout = analyse(text)
    assert (Kind.HEADER, "Owner") in kinds(text)
    assert (Kind.CELL, "Order the valves") in kinds(text)
    assert [r.text for r in layout.records] == [
        "Owner: Helga Marsh; Task: Order the valves; Due: 3 May",
        "Owner: Ivo Strand; Task: Audit; Due: 9 May",
    ]
    assert all(r.table for r in layout.records)


def test_empty_cells_keep_the_columns_of_the_cells_after_them() -> None:
    layout = analyse("Contact | Role | Mood\nAda Voss |  | calm\nPiet Oram | Buyer |")
    assert [r.text for r in layout.records] == ["Contact: Ada Voss; Mood: calm", "Contact: Piet Oram; Role: Buyer"]


def test_a_single_row_is_cells_without_a_record() -> None:
    layout = analyse("Helga Marsh | Order the valves")
    assert [s.kind for s in layout.segments] == [Kind.CELL, Kind.CELL]
    assert layout.records == ()


def test_fields_are_label_and_value() -> None:
    text = "Customer: Brackwater Mills\nAccount owner: Tamsin Vey · Stage: renewal"
    assert kinds(text) == [
        (Kind.LABEL, "Customer"), (Kind.VALUE, "Brackwater Mills"), (Kind.LABEL, "Account owner"),
        (Kind.VALUE, "Tamsin Vey"), (Kind.LABEL, "Stage"), (Kind.VALUE, "renewal"),
    ]
    (record,) = analyse(text).records
    assert not record.table
    assert record.text == "Customer: Brackwater Mills; Account owner: Tamsin Vey; Stage: renewal"


def test_a_sentence_with_a_colon_late_in_it_is_not_a_field() -> None:
    text = "The plant manager told the whole night shift the news: the line restarts on Monday."
    assert kinds(text) == [(Kind.PROSE, text)]


def test_hard_wraps_join_and_short_lines_stand_alone() -> None:
    text = (
        "Next quarter\n"
        "Brackwater Mills moved its billing to a new provider in the spring and now wants the\n"
        "Quillfeather reports to reconcile every week.\n"
        "Short line\n"
        "Another short line"
    )
    layout = analyse(text)
    got = [(s.kind, layout.text[s.start : s.end]) for s in layout.segments]
    assert got == [
        (Kind.HEADING, "Next quarter"),
        (Kind.PROSE, "Brackwater Mills moved its billing to a new provider in the spring and now wants the "
                     "Quillfeather reports to reconcile every week."),
        (Kind.HEADING, "Short line"),
        (Kind.HEADING, "Another short line"),
    ]
    assert len(layout.text) == len(text)  # offsets hold


def test_capitals_mark_a_heading() -> None:
    (segment,) = analyse("QUARTERLY REVIEW - NORTHERN REGION").segments
    assert segment.caps
    assert segment.kind == Kind.HEADING


# -- extraction over the layout


def test_no_name_runs_across_lines_cells_or_headings(extractor: SpacyExtractor) -> None:
    text = (
        "Harwell Dynamics\n\nPriority: high\n\n"
        "Vendor | Region\nMorrow Freight Partners | Northern Europe\nGlenmoor Textiles | Iberia\n\n"
        "Renewal terms\nGlenmoor Textiles signed for two years."
    )
    found = run(extractor, text)
    for e in found.entities:
        for part in ("\n", "|", "Priority", "Renewal", "Vendor"):
            assert part not in e.name, e.name


def test_headings_in_capitals_give_no_names(extractor: SpacyExtractor) -> None:
    found = run(extractor, "HARWELL DYNAMICS - NOTES OF THE PLANNING MEETING\n\nThe meeting opened at nine.")
    assert not any(e.name.isupper() and " " in e.name for e in found.entities)
    assert not any("NOTES" in e.name or "MEETING" in e.name for e in found.entities)


def test_labels_and_words_capitalised_by_position_are_not_names(extractor: SpacyExtractor) -> None:
    text = (
        "Summary\n\n"
        "Attendees: Rowan Ashdown, Tamsin Vey\n"
        "Owner: Odile Farrant\n\n"
        "Status | Notes\nopen | waiting for parts\n\n"
        "Usage fell in March when the depot closed."
    )
    found = run(extractor, text)
    assert {"Rowan Ashdown", "Tamsin Vey", "Odile Farrant"} <= names(found)
    for label in ("Summary", "Attendees", "Owner", "Status", "Notes", "Usage"):
        assert label not in names(found), label


def test_a_word_capitalised_elsewhere_mid_sentence_stays_a_name(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Tamsin Vey met Rowan Ashdown and Odile Farrant.\nRowan to send the draft contract.")
    assert "Rowan Ashdown" in names(found)
    assert ("Rowan Ashdown", "send", "draft contract") in triples(found)


def test_a_table_row_relates_its_first_name_to_the_other_cells(extractor: SpacyExtractor) -> None:
    text = "Contact | Role | Sentiment\nTamsin Vey | Head of Finance | positive\nOdile Farrant | Buyer | neutral"
    found = run(extractor, text)
    got = triples(found)
    assert ("Tamsin Vey", "role", "Head of Finance") in got
    assert ("Tamsin Vey", "sentiment", "positive") in got
    assert ("Odile Farrant", "role", "Buyer") in got
    assert not {t for t in got if t[0] == "Tamsin Vey" and t[2] == "Odile Farrant"}  # rows are not prose
    row = next(r for r in found.relations if (r.src, r.type) == ("Tamsin Vey", "role"))
    assert row.description == "Contact: Tamsin Vey; Role: Head of Finance; Sentiment: positive"


def test_a_known_capitalised_label_in_lower_case_is_the_common_noun(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Brackwater Mills has been a customer since 2015. Its chief financial officer, "
                           "Rowan Ashdown, approves the budget.")
    assert "Customer" not in names(found)
    assert ("Rowan Ashdown", "chief_financial_officer_of", "Brackwater Mills") in triples(found)
    assert ("Rowan Ashdown", "approve", "budget") in triples(found)


def test_a_short_name_is_the_full_name_of_the_chunk(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Odile Farrant chairs the panel. Later Farrant asked for the figures.")
    assert "Farrant" not in names(found)
    assert ("Odile Farrant", "ask_for", "figures") in triples(found)


def test_a_description_of_a_field_value_names_its_label(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Superintendent: Odile Farrant\nSigned by: Rowan Ashdown")
    odile = next(e for e in found.entities if e.name == "Odile Farrant")
    assert "Superintendent: Odile Farrant" in odile.description


# -- the mention rules on a parsed chunk whose NER spans the test sets itself (no dependence on the model's NER)


def parsed(extractor: SpacyExtractor, text: str, ents: list[tuple[str, str]]) -> Doc:
    """``text`` through the pipeline, then its entity spans replaced by ``ents`` (surface text, label)."""
    doc = next(extractor.nlp.pipe([extractor._prepare(text)]))
    spans = []
    for surface, label in ents:
        start = doc.text.index(surface)
        span = doc.char_span(start, start + len(surface), label=label)
        assert span is not None
        spans.append(span)
    doc.set_ents(spans, default="outside")
    return doc


def mention_names(extractor: SpacyExtractor, doc: Doc) -> set[str]:
    graph = collect(doc, lambda key: None, TYPES, extractor._common.__contains__)
    return {d.name for d in graph.drafts.values() if d.named}


def test_an_ner_span_across_a_line_break_is_cut_there(extractor: SpacyExtractor) -> None:
    doc = parsed(extractor, "Harwell Dynamics\n\nPriority: high", [("Harwell Dynamics\n\nPriority", "ORG")])
    got = mention_names(extractor, doc)
    assert "Harwell Dynamics" in got
    assert not any("Priority" in name for name in got)


def test_an_ner_span_grows_over_the_proper_noun_compounded_with_it(extractor: SpacyExtractor) -> None:
    doc = parsed(extractor, "Yesterday Farid Rask approved the budget.", [("Farid", "PERSON")])
    assert next(t for t in doc if t.text == "Farid").dep_ == "compound"  # the parse the rule reads
    got = mention_names(extractor, doc)
    assert "Farid Rask" in got
    assert "Rask" not in got


def test_no_sentence_starts_inside_a_run_of_proper_nouns(extractor: SpacyExtractor) -> None:
    with extractor.nlp.select_pipes(enable=["tok2vec", "tagger"]):
        doc = extractor.nlp("The budget was approved. Farid Rask signed it.")
    rask = next(t for t in doc if t.text == "Rask")
    assert rask.tag_ == "NNP"
    assert rask.is_sent_start is None
    names_together(doc)
    assert rask.is_sent_start is False


def test_a_title_case_cell_names_the_phrase_prose_used_in_lower_case(extractor: SpacyExtractor) -> None:
    found = run(extractor, "Tamsin Vey joined as finance director.\n\nContact | Role\nTamsin Vey | Finance Director")
    assert ("Tamsin Vey", "role", "finance director") in triples(found)
    assert {e.name: e.named for e in found.entities}.get("finance director") is True
