"""The reader's placement within a sentence (structural/retrieval/reader.py): of the entities one sentence names,
the one the parse attaches nearest to the question's terms keeps the sentence's score."""

from __future__ import annotations

from typing import Any

import pytest
from support.extraction import tokens

from hybridkg.structural.base import CHUNK, ENTITY, Node
from hybridkg.structural.retrieval import LinkedEntity
from hybridkg.structural.retrieval.reader import PLACEMENT_WEIGHT, PREVIOUS, closeness, read
from hybridkg.structural.syntax import decode, encode

# two sentences, whitespace-tokenised; heads are token indexes into the whole chunk
TEXT = (
    "Pembury Foods runs on Invoxa . "
    "The outage was escalated by Bryony Kettering after invoices from the Grimsholt plant stopped ."
)
HEADS = [
    1, 2, 2, 2, 3, 2,  # Pembury Foods runs on Invoxa .
    7, 9, 9, 9, 9, 12, 10, 19, 19, 14, 18, 18, 15, 9, 9,
    # The(6) outage(7) was(8) escalated(9) by(10) Bryony(11) Kettering(12) after(13) invoices(14) from(15)
    # the(16) Grimsholt(17) plant(18) stopped(19) .(20)
]
ADP = frozenset({3, 10, 15})


def _entity(id_: str, name: str, **props: Any) -> Node:
    return Node(id_, ENTITY, {"name": name, **props})


ENTITIES = {
    e.id: e
    for e in [
        _entity("pembury", "Pembury Foods"),
        _entity("invoxa", "Invoxa"),
        _entity("bryony", "Bryony Kettering"),
        _entity("grimsholt", "Grimsholt"),
    ]
}


def chunk(syntax: str) -> Node:
    return Node("c1", CHUNK, {"text": TEXT, "entity_ids": list(ENTITIES), "syntax": syntax})


def _link(query: str, mention: str, id_: str) -> LinkedEntity:
    start = query.index(mention)
    return LinkedEntity(id_, mention, mention, start, start + len(mention))


QUESTION = "Who escalated the outage at Pembury Foods?"
LINKED = [_link(QUESTION, "Pembury Foods", "pembury")]


def test_without_a_parse_every_entity_of_the_sentence_scores_alike() -> None:
    scores = read(QUESTION, LINKED, [chunk("")], ENTITIES)
    assert scores["bryony"] == scores["grimsholt"] == pytest.approx(PREVIOUS)


def test_with_the_parse_the_entity_attached_to_the_question_terms_ranks_first() -> None:
    syntax = encode(tokens(TEXT, HEADS, ADP))
    scores = read(QUESTION, LINKED, [chunk(syntax)], ENTITIES)
    assert scores["bryony"] > scores["grimsholt"]
    # Bryony: "escalated" one collapsed edge away (by), "outage" two -> the sentence's score times
    # (1 - w + w * closeness); nothing scores above the sentence's own score
    p = decode(syntax)
    assert p is not None
    assert p.distance(12, 9) == 1
    assert p.distance(12, 7) == 2
    assert scores["bryony"] < PREVIOUS
    assert scores["bryony"] > PREVIOUS * (1 - PLACEMENT_WEIGHT + PLACEMENT_WEIGHT * 0.5)
    assert scores["grimsholt"] >= PREVIOUS * (1 - PLACEMENT_WEIGHT)


def test_closeness_weights_anchors_and_counts_the_mentions_own_tokens_as_adjacent() -> None:
    p = decode(encode(tokens(TEXT, HEADS, ADP)))
    assert p is not None
    assert closeness(p, 12, [(9, 1.0)], frozenset()) == 1.0
    assert closeness(p, 12, [(9, 1.0), (7, 1.0)], frozenset()) == pytest.approx((1 + 1 / 2) / 2)
    assert closeness(p, 12, [(9, 3.0), (7, 1.0)], frozenset()) == pytest.approx((3 + 1 / 2) / 4)
    assert closeness(p, 12, [(11, 1.0)], frozenset({11, 12})) == 1.0
    assert closeness(p, 12, [(4, 1.0)], frozenset()) == 0.0  # another sentence's tree


def test_a_question_word_matches_an_inflection_of_the_lemma_the_parse_gives() -> None:
    from hybridkg.structural.retrieval.reader import inflected, stem

    assert stem("makes") in inflected("make")
    assert stem("making") in inflected("make")
    assert stem("maker") in inflected("make")
    assert stem("sells") in inflected("sell")
    assert stem("stopped") in inflected("stop")
    assert stem("supplies") in inflected("supply")
    text = "Waypoint Pro is the suite made by Veltrane Systems ."
    heads = [1, 2, 2, 4, 2, 4, 5, 8, 6, 2]  # Waypoint Pro is the suite made by Veltrane Systems .
    entities = {"wp": _entity("wp", "Waypoint Pro"), "vs": _entity("vs", "Veltrane Systems")}
    q = "Who makes Waypoint Pro?"
    linked = [_link(q, "Waypoint Pro", "wp")]

    def node(syntax: str) -> Node:
        return Node("c9", CHUNK, {"text": text, "entity_ids": ["wp", "vs"], "syntax": syntax})

    assert read(q, linked, [node("")], entities) == {}  # "makes" is not "made" without the lemma
    parsed = encode(tokens(text, heads, frozenset({6}), {2: "be", 5: "make"}))
    assert read(q, linked, [node(parsed)], entities) == {"vs": pytest.approx(1.0)}
