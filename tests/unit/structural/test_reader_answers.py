"""The subject rule of the items' order (answers.py): what a question says beyond the names it links."""

from __future__ import annotations

from hybridkg.structural.retrieval import LinkedEntity
from hybridkg.structural.retrieval.answers import answer_order, asks_beyond_names


def _link(query: str, mention: str, id_: str) -> LinkedEntity:
    start = query.index(mention)
    return LinkedEntity(id_, mention, mention, start, start + len(mention))


def test_a_light_verb_is_a_relation_the_question_asks_about() -> None:
    for q in ("Who makes Ledgerline?", "Who took over Ledgerline?", "Which firm uses Ledgerline?"):
        assert asks_beyond_names(q, [_link(q, "Ledgerline", "l")]), q
    for q in ("Who is Ledgerline?", "What was Ledgerline?", "Ledgerline?"):
        assert not asks_beyond_names(q, [_link(q, "Ledgerline", "l")]), q


def test_the_subject_of_who_makes_follows_the_other_candidates() -> None:
    q = "Who makes Ledgerline?"
    ids = ["l", "maker", "city"]
    assert [ids[p] for p in answer_order(range(3), ids, q, [_link(q, "Ledgerline", "l")], 3)] == ["maker", "city", "l"]
