"""The chunk parse kept for the reader (structural/syntax.py): encoding, decoding, collapsed distances, and the
spaCy extractor's output."""

from __future__ import annotations

import json

import pytest
from support.extraction import tokens

from hybridkg.structural.extract.nlp import SpacyExtractor
from hybridkg.structural.syntax import Parse, decode, encode

# "Halden Foods was acquired by Corvid Group in Lisbon ."
#  0      1     2   3        4  5      6     7  8      9
SENTENCE = "Halden Foods was acquired by Corvid Group in Lisbon ."
HEADS = [1, 3, 3, 3, 3, 6, 4, 3, 7, 3]
ADP = frozenset({4, 7})


def parse() -> Parse:
    p = decode(encode(tokens(SENTENCE, HEADS, ADP, {2: "be", 3: "acquire"})))
    assert p is not None
    return p


def test_round_trip_keeps_offsets_heads_lemmas_and_adpositions() -> None:
    p = parse()
    assert len(p) == 10
    assert SENTENCE[p.starts[3] : p.ends[3]] == "acquired"
    assert p.heads == tuple(HEADS)
    assert p.lemmas[3] == "acquire"
    assert p.lemmas[0] == ""  # a lemma equal to the text is left out
    assert p.kinds == "----a--a--"


def test_distance_collapses_the_adpositions_inside_the_path() -> None:
    p = parse()
    assert p.distance(6, 3) == 1  # acquired -by-> Group: one edge, "by" collapsed
    assert p.distance(8, 3) == 1  # acquired -in-> Lisbon
    assert p.distance(6, 8) == 2  # Group -> acquired <- Lisbon
    assert p.distance(1, 6) == 2  # Foods -> acquired -> Group
    assert p.distance(4, 3) == 1  # an adposition at an end of the path still counts
    assert p.distance(5, 5) == 0


def test_tokens_in_a_span_and_the_span_root() -> None:
    p = parse()
    start = SENTENCE.index("Corvid Group")
    assert list(p.tokens_in(start, start + len("Corvid Group"))) == [5, 6]
    assert p.root_of(start, start + len("Corvid Group")) == 6  # "Group" heads the name
    assert p.root_of(len(SENTENCE), len(SENTENCE) + 5) is None


def test_different_sentences_have_no_distance() -> None:
    text = "Ana left . Bo stayed ."
    p = decode(encode(tokens(text, [1, 1, 1, 4, 4, 4])))
    assert p is not None
    assert p.distance(0, 3) is None
    assert p.distance(0, 2) == 2  # Ana -> left <- .


@pytest.mark.parametrize(
    "value",
    [
        None, "", "not json", "[]", '{"v": 2, "t": [], "l": [], "a": ""}',
        '{"v": 1, "t": [0, 1], "l": [""], "a": "-"}',  # two integers for one token
        '{"v": 1, "t": [0, 1, 5], "l": [""], "a": "-"}',  # head out of range
        '{"v": 1, "t": [0, 1, 0], "l": [""], "a": "x"}',  # unknown kind
        '{"v": 1, "t": [4, 5, 0, 0, 1, 1], "l": ["", ""], "a": "--"}',  # tokens out of order
    ],
)
def test_anything_but_a_well_formed_parse_decodes_to_none(value: object) -> None:
    assert decode(value) is None


def test_no_tokens_encode_to_nothing() -> None:
    assert encode([]) == ""


@pytest.fixture(scope="module")
def extractor() -> SpacyExtractor:
    return SpacyExtractor()


def test_the_spacy_extractor_keeps_each_chunks_parse(extractor: SpacyExtractor) -> None:
    text = "Halden Foods was acquired by Corvid Group.\nIts chief executive, Dana Reyes,\nlives in Lisbon."
    p = decode(extractor.extract(text).syntax)
    assert p is not None
    words = [text[s:e] for s, e in zip(p.starts, p.ends, strict=True)]
    assert {"acquired", "Reyes", "Lisbon"} <= set(words)
    # the chunk's own tokens (spaCy keeps line breaks as tokens)
    assert all(w and (w.strip() == w or not w.strip()) for w in words)
    acquired, group = words.index("acquired"), words.index("Group")
    assert p.lemmas[acquired] == "acquire"
    assert p.kinds[words.index("by")] == "a"
    assert p.distance(group, acquired) == 1
    assert json.loads(extractor.extract(text).syntax)["v"] == 1
