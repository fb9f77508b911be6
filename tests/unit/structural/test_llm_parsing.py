"""Reading extraction replies the way models really write them."""

from __future__ import annotations

import json

import pytest

from hybridkg.structural.base import ExtractedEntity, ExtractedRelation, Extraction
from hybridkg.structural.extract.llm import merge_extractions
from hybridkg.structural.extract.parsing import loads_lenient, parse_extraction
from hybridkg.structural.extract.prompts import extraction_messages

CLEAN = {
    "entities": [
        {"name": "Aspirin", "type": "drug", "description": "A pain reliever."},
        {"name": "headache", "type": "disease", "description": "Head pain."},
    ],
    "relations": [
        {"source": "Aspirin", "target": "headache", "type": "Relieves", "keywords": ["pain", "relief"],
         "description": "Aspirin relieves headaches.", "strength": 9},
    ],
}


def names(found: Extraction | None) -> list[str]:
    assert found is not None
    return [e.name for e in found.entities]


def test_clean_json() -> None:
    found = parse_extraction(json.dumps(CLEAN))
    assert found is not None
    assert found.entities[0] == ExtractedEntity("Aspirin", "drug", "A pain reliever.")
    assert found.relations == [
        ExtractedRelation("Aspirin", "headache", "relieves", ("pain", "relief"), "Aspirin relieves headaches.", 9.0)
    ]


def test_code_fence_after_prose_and_a_think_block() -> None:
    reply = "<think>Let me find {entities}.</think>Sure! Here you go:\n```json\n" + json.dumps(CLEAN) + "\n```\nDone."
    assert names(parse_extraction(reply)) == ["Aspirin", "headache"]


def test_trailing_commas_single_quotes_bare_keys_and_comments() -> None:
    reply = """{entities: [{'name': 'Alzheimer's disease', 'type': 'disease',}, // the main one
                          {"name": "donepezil", "type": "drug", "description": None,},],
                'relations': [{'source': 'donepezil', 'target': "Alzheimer's disease", 'strength': '7',}],}"""
    found = parse_extraction(reply)
    assert names(found) == ["Alzheimer's disease", "donepezil"]
    assert found is not None
    assert found.relations[0].dst == "Alzheimer's disease"
    assert found.relations[0].weight == 7.0
    assert found.relations[0].type == "related_to"


def test_unescaped_quotes_inside_a_string() -> None:
    reply = '{"entities": [{"name": "Aspirin", "description": "the so-called "wonder drug" of its time"}]}'
    found = parse_extraction(reply)
    assert found is not None
    assert found.entities[0].description == 'the so-called "wonder drug" of its time'


def test_truncated_output_keeps_the_complete_records() -> None:
    full = json.dumps(CLEAN | {"entities": [*CLEAN["entities"], {"name": "fever", "type": "disease"}]})
    cut = full[: full.index('"fever"') + 4]
    found = parse_extraction(cut)
    assert names(found) == ["Aspirin", "headache"]

    cut_in_relations = full[: full.index('"Aspirin relieves')]
    found = parse_extraction(cut_in_relations)
    assert names(found) == ["Aspirin", "headache", "fever"]
    assert found is not None
    assert found.relations == []


def test_lightrag_tuple_records() -> None:
    reply = (
        '("entity"<|>"ASPIRIN"<|>"drug"<|>"A pain reliever.")##\n'
        '("entity"<|>"HEADACHE"<|>"disease"<|>"Head pain.")##\n'
        '("relationship"<|>"ASPIRIN"<|>"HEADACHE"<|>"Aspirin relieves headaches."<|>"pain relief, analgesia"<|>8)##\n'
        '("content_keywords"<|>"pain, drugs")<|COMPLETE|>'
    )
    found = parse_extraction(reply)
    assert names(found) == ["ASPIRIN", "HEADACHE"]
    assert found is not None
    rel = found.relations[0]
    assert (rel.src, rel.dst, rel.weight) == ("ASPIRIN", "HEADACHE", 8.0)
    assert rel.keywords == ("pain relief", "analgesia")
    assert rel.description == "Aspirin relieves headaches."


def test_newer_lightrag_delimiter() -> None:
    reply = (
        "entity<|#|>Aspirin<|#|>drug<|#|>A pain reliever.\n"
        "relation<|#|>Aspirin<|#|>fever<|#|>antipyretic<|#|>Lowers fever."
    )
    found = parse_extraction(reply)
    assert names(found) == ["Aspirin"]
    assert found is not None
    assert found.relations[0].keywords == ("antipyretic",)
    assert found.relations[0].description == "Lowers fever."


def test_a_bare_list_of_records_and_alternative_keys() -> None:
    reply = json.dumps(
        [
            {"entity_name": "Bayer", "entity_type": "organization"},
            {"src_id": "Bayer", "tgt_id": "Aspirin", "relationship": "sells", "weight": 3,
             "relationship_keywords": "sales; marketing"},
        ]
    )
    found = parse_extraction(reply)
    assert names(found) == ["Bayer"]
    assert found is not None
    assert found.relations[0].type == "sells"
    assert found.relations[0].keywords == ("sales", "marketing")


def test_empty_answers_are_empty_not_errors() -> None:
    assert parse_extraction('{"entities": [], "relations": []}') == Extraction()
    assert parse_extraction("{}") == Extraction()


@pytest.mark.parametrize("reply", ["", "   ", "I cannot help with that.", "[1, 2, 3]", '{"answer": 42}', "{{{"])
def test_replies_without_an_extraction(reply: str) -> None:
    assert parse_extraction(reply) is None


def test_loads_lenient_python_literals() -> None:
    assert loads_lenient("x = {'a': True, 'b': None, 'c': [1, 2.5, -3e2,],}") == {"a": True, "b": None,
                                                                                 "c": [1, 2.5, -300.0]}
    with pytest.raises(ValueError, match="no JSON"):
        loads_lenient("nothing here")


def test_merge_dedupes_by_normalised_name_and_keeps_the_specific_type() -> None:
    first = Extraction(
        [ExtractedEntity("Aspirin", "concept", "A drug."), ExtractedEntity("fever")],
        [ExtractedRelation("Aspirin", "fever", "treats", ("fever",), "Aspirin treats fever.", 5)],
    )
    second = Extraction(
        [ExtractedEntity("the aspirin", "drug", "Cheap. A drug.")],
        [ExtractedRelation("aspirin", "Fever", "treats", ("antipyretic",), "It lowers fever.", 8),
         ExtractedRelation("Aspirin", "Reye syndrome", "causes", (), "", 2),
         ExtractedRelation("Aspirin", "ASPIRIN", "is", (), "", 1)],
    )
    merged = merge_extractions([first, second], ["Drug"])
    by_name = {e.name: e for e in merged.entities}
    assert set(by_name) == {"Aspirin", "fever", "Reye syndrome"}
    assert by_name["Aspirin"].type == "Drug"
    assert by_name["Aspirin"].description == "A drug. Cheap."
    assert by_name["Reye syndrome"].type == "concept"
    treats = next(r for r in merged.relations if r.type == "treats")
    assert (treats.src, treats.dst, treats.weight) == ("Aspirin", "fever", 8)
    assert treats.keywords == ("fever", "antipyretic")
    assert treats.description == "Aspirin treats fever. It lowers fever."
    assert len(merged.relations) == 2


def test_prompt_lists_the_entity_types_and_holds_the_text_verbatim() -> None:
    text = "Braces {like} these and $dollars stay."
    messages = extraction_messages(text, ["Drug", "Disease"])
    assert "[Drug, Disease]" in messages[1]["content"]
    assert text in messages[1]["content"]
    default = extraction_messages("x", [])
    assert "organization, person, location, event, concept" in default[1]["content"]
