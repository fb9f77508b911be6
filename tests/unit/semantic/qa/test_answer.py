"""The strict answerer on the library domain: direction from domain/range and word order, owl:sameAs
individuals once, proofs for inferred answers, and the reason given when it abstains."""

from __future__ import annotations

import pytest

from hybridkg.semantic import KnowledgeBase
from hybridkg.semantic.qa import Lexicon
from hybridkg.semantic.qa.answer import StrictAnswerer

LIB = "http://example.org/library#"
ID = "http://example.org/library/id/"


@pytest.fixture(scope="module")
def answerer(library_kb: KnowledgeBase) -> StrictAnswerer:
    return StrictAnswerer(library_kb, "library", Lexicon.build(library_kb, "library"))


def _values(answerer: StrictAnswerer, question: str) -> list[str]:
    result = answerer.answer(question)
    assert not result.abstained, result.reason
    return [a.value for a in result.answers]


def test_direction_from_domain_and_range(answerer: StrictAnswerer) -> None:
    # "wrote" goes Author -> Work; the book is written after the verb but is its object
    assert _values(answerer, "Who wrote A Wizard of Earthsea?") == [ID + "le-guin"]
    result = answerer.answer("Who wrote A Wizard of Earthsea?")
    assert f"?x <{LIB}wrote> <{ID}earthsea> ." in result.sparql  # the property named, in its direction


def test_inverse_property_gives_the_same_triples(answerer: StrictAnswerer) -> None:
    # "written by" is owl:inverseOf "wrote": one reading, answered from the inverse closure
    assert _values(answerer, "Which books are written by Ursula K. Le Guin?") == [ID + "dispossessed", ID + "earthsea"]


def test_same_as_individuals_appear_once(answerer: StrictAnswerer) -> None:
    # b:ulg owl:sameAs b:le-guin: the canonical one is the smallest IRI among those with an asserted label
    assert _values(answerer, "Who wrote The Dispossessed?") == [ID + "le-guin"]
    assert _values(answerer, "Which books are written by U. K. Le Guin?") == [ID + "dispossessed", ID + "earthsea"]
    assert _values(answerer, "How many authors are there?") == ["1"]


def test_labels_and_scores_of_answers(answerer: StrictAnswerer) -> None:
    result = answerer.answer("Who wrote The Dispossessed?")
    [item] = result.answers
    assert item.label == "Ursula K. Le Guin"
    assert 0 < item.score <= 1
    assert result.confidence == item.score


def test_inferred_answers_carry_their_derivation(answerer: StrictAnswerer) -> None:
    result = answerer.answer("Which books are written by Ursula K. Le Guin?")
    assert result.explanations, "writtenBy is only inferred (prp-inv)"
    assert all(e["status"] == "inferred" for e in result.explanations)
    assert {e["rule"] for e in result.explanations} <= {"prp-inv1", "prp-inv2"}


def test_where_and_attribute(answerer: StrictAnswerer) -> None:
    assert _values(answerer, "Where is St. Mary's Library located?") == [ID + "portland"]
    assert _values(answerer, "What is the number of pages of The Dispossessed?") == ["387"]
    assert _values(answerer, "Is The Dispossessed a work?") == ["true"]  # subclass
    assert _values(answerer, "Is Portland a book?") == ["false"]


@pytest.mark.parametrize(
    ("question", "reason"),
    [
        ("Who wrote Moby Dick?", "unknown entity"),
        ("Which is the longest book?", "'longest'"),
        ("Should I read The Dispossessed?", "'Should'"),
        ("What time is it?", "nothing in the question links"),
        ("Which books did Ursula K. Le Guin write?", "words not linked"),  # "write": no label says it
        ("Where is A Wizard of Earthsea held?", "no property matches"),  # a library branch is not a place noun
    ],
)
def test_abstention_reasons(answerer: StrictAnswerer, question: str, reason: str) -> None:
    result = answerer.answer(question)
    assert result.abstained
    assert reason in result.reason
    assert result.answers == []
