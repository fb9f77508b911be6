"""The fuzzy evaluation sets (``bench/data/fuzzy_eval``, ours, and ``bench/data/fuzzy_holdout``, written blind to
the code) are well-formed, and the bench scores them as it says.

Fast: reads the files only, builds no store and loads no model.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest

from bench.fuzzy_eval import (
    DATA,
    WHERE,
    GoldDoc,
    Question,
    Tally,
    documents,
    hit_rank,
    judge_relations,
    load_gold,
    load_questions,
    where_answer,
)

HOLDOUT = DATA.parent / "fuzzy_holdout"
HOLDOUT2 = DATA.parent / "fuzzy_holdout2"
SETS = [
    pytest.param(DATA, id="fuzzy_eval"),
    pytest.param(HOLDOUT, id="fuzzy_holdout"),
    pytest.param(HOLDOUT2, id="fuzzy_holdout2"),
]


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def plain_text(path: Path) -> str:
    raw = path.read_text(encoding="utf-8")
    if path.suffix == ".html":
        parser = _Text()
        parser.feed(raw)
        raw = " ".join(parser.parts)
    return " ".join(html.unescape(raw).split())


@pytest.fixture(scope="module", params=SETS)
def data(request: pytest.FixtureRequest) -> Path:
    return Path(request.param)


@pytest.fixture(scope="module")
def texts(data: Path) -> dict[str, str]:
    return {p.name: plain_text(p) for p in documents(data)}


@pytest.fixture(scope="module")
def questions(data: Path) -> list[Question]:
    return load_questions(data)


def test_documents_are_many_short_and_in_three_formats(texts: dict[str, str]) -> None:
    assert len(texts) >= 14
    formats = Counter(Path(name).suffix for name in texts)
    assert set(formats) == {".md", ".txt", ".html"}
    assert min(formats.values()) >= 3
    for name, text in texts.items():
        words = len(re.findall(r"\w+", text))
        assert 80 <= words <= 400, f"{name} has {words} words"


def test_questions_are_enough_unique_and_varied(questions: list[Question]) -> None:
    assert len(questions) >= 55
    assert len({q.id for q in questions}) == len(questions)
    assert len({q.question.casefold() for q in questions}) == len(questions)
    tags = Counter(t for q in questions for t in q.tags)
    assert tags["multi"] >= 5
    assert tags["typo"] >= 3
    assert tags["lower"] >= 3
    for q in questions:
        if "multi" in q.tags:
            assert len(q.docs) >= 2, q.id


def test_every_answer_and_alias_is_in_a_document_of_its_question(
    questions: list[Question], texts: dict[str, str]
) -> None:
    used: set[str] = set()
    for q in questions:
        assert q.docs, q.id
        assert all(d in texts for d in q.docs), q.id
        used.update(q.docs)
        # the answer as the documents spell it (aliases are other spellings accepted, in a document or not)
        for name in (q.answer,):
            assert any(name.casefold() in texts[d].casefold() for d in q.docs), (
                f"{q.id}: {name!r} is in none of {q.docs}"
            )
        # the answer is not given away by the question
        assert q.answer.casefold() not in q.question.casefold(), q.id
    assert used == set(texts), f"documents no question uses: {set(texts) - used}"


def test_relation_gold_is_consistent_with_its_documents(data: Path, texts: dict[str, str]) -> None:
    gold = load_gold(data)
    assert len(gold) >= 4
    for doc, g in gold.items():
        assert doc in texts
        for name, aliases in g.entities.items():
            for spelling in (name, *aliases):
                assert spelling.casefold() in texts[doc].casefold(), f"{doc}: {spelling!r}"
        assert g.relations
        for s, phrase, o in g.relations:
            assert {s, o} <= set(g.entities), (doc, s, o)
            assert s != o, (doc, s)
            assert phrase, (doc, s, o)


def test_hits_count_only_the_top_k_and_accept_normalised_aliases() -> None:
    q = Question("x", "Who?", "Dana Reyes", ("Reyes",), ("d.md",), ())
    assert hit_rank(["The Dana  Reyes", "x"], q.accepted()) == 1
    assert hit_rank(["company", "REYES"], q.accepted()) == 2
    assert hit_rank(["Dana Reyes Foundation", "Dana"], q.accepted()) is None
    t = Tally()
    for r in (1, 3, 6, None):
        t.add(r)
    assert t.hits(1) == 0.25
    assert t.hits(5) == 0.5


def test_relations_are_judged_by_pair_and_untyped_ones_are_left_out() -> None:
    gold = GoldDoc(
        {"Corvid Labs": ("Corvid",), "Dana Reyes": (), "Lisbon": ()},
        (("Dana Reyes", "chief technology officer of", "Corvid Labs"), ("Corvid Labs", "based in", "Lisbon")),
    )
    score = judge_relations(
        gold,
        [
            ("Corvid", "employs", "Dana Reyes"),  # reversed direction, other wording: supported
            ("Dana Reyes", "lives_in", "Lisbon"),  # both gold entities, no gold pair: wrong
            ("Dana Reyes", "co_occurs", "Lisbon"),  # untyped: not counted
            ("Dana Reyes", "role", "chief technology officer"),  # an end outside the gold entities: not judged
        ],
    )
    assert (score.judged, score.supported, score.unjudged) == (2, 1, 1)
    assert score.precision == 0.5
    assert score.recall == 0.5
    assert score.supported_share == pytest.approx(1 / 3)
    assert score.wrong == (("Dana Reyes", "lives_in", "Lisbon"),)


def test_the_sets_live_beside_the_bench() -> None:
    for data in (DATA, HOLDOUT, HOLDOUT2):
        assert (data / "questions.json").is_file()
        assert (data / "relations_gold.json").is_file()
        assert (data / "README.md").is_file() or data == DATA


def test_where_the_answer_was_is_told_by_rank_then_subgraph_then_graph() -> None:
    names = {"e1": frozenset({"dana reyes"}), "e2": frozenset({"corvid labs", "corvid"})}
    accepted = frozenset({"Dana Reyes"})
    assert where_answer(1, [], names, accepted) == WHERE[0]
    assert where_answer(4, [], names, accepted) == WHERE[1]
    assert where_answer(8, [], names, accepted) == WHERE[2]
    assert where_answer(None, ["e2", "e1"], names, accepted) == WHERE[3]
    assert where_answer(None, ["e2"], names, accepted) == WHERE[4]
    assert where_answer(None, ["e1"], names, frozenset({"Lisbon"})) == WHERE[5]
