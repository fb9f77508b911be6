"""Answer ranking of retrieval's items: the expected answer type of a question, and the question's subject last."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from support.structural_fakes import TableEmbedder, add_entities, add_relations, cos_vector, index_of, unit

from hybridkg.structural.graphstore.memory import InMemoryGraphStore
from hybridkg.structural.retrieval import LinkedEntity, Retriever
from hybridkg.structural.retrieval.answers import (
    TypeMatcher,
    answer_order,
    asks_beyond_names,
    expected_type,
    typed_scores,
)
from hybridkg.structural.settings import FeedbackConfig, RetrievalConfig


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Who founded Corvid Labs?", "person or organization"),
        ("whose drones inspect the blades", "person or organization"),
        ("Where is Corvid Labs based?", "location or place"),
        ("When did Corvid Labs open its office?", "date or time"),
        ("Which dispatch tool does Corvid want to retire?", "dispatch tool"),
        ("In which town is the plant?", "town"),
        ("what cloud provider hosts the billing platform", "cloud provider hosts"),  # at most three words
        ("What is Corvid's largest customer?", None),  # "what is": the question does not name a kind
        ("Corvid Labs headquarters", None),
        ("", None),
    ],
)
def test_the_expected_type_comes_from_the_wh_phrase(question: str, kind: str | None) -> None:
    assert expected_type(question) == kind


def _link(query: str, mention: str, id_: str = "ent:x") -> LinkedEntity:
    start = query.index(mention)
    return LinkedEntity(id_, mention, mention, start, start + len(mention))


@pytest.mark.parametrize(
    ("query", "mention", "beyond"),
    [
        ("Who is Dana Reyes?", "Dana Reyes", False),
        ("dana reyes", "dana reyes", False),
        ("Where is Corvid Labs headquartered?", "Corvid Labs", True),
        ("Who is the CTO of Corvid Labs?", "Corvid Labs", True),
        ("Corvid Labs in 2020", "Corvid Labs", False),  # a number says nothing more
    ],
)
def test_a_query_asks_beyond_its_names_when_a_content_word_is_left(query: str, mention: str, beyond: bool) -> None:
    assert asks_beyond_names(query, [_link(query, mention)]) is beyond


def test_the_entities_a_question_names_follow_the_others_and_stay_among_the_items() -> None:
    ids = ["a", "named", "b", "c", "d"]
    order = [1, 0, 2, 3, 4]  # the named entity scores best
    q = "Who is the CTO of Named?"
    linked = [_link(q, "Named", "named")]
    assert answer_order(order, ids, q, linked, 3) == [0, 2, 1]
    assert answer_order(order, ids, q, linked, 10) == [0, 2, 3, 4, 1]
    assert answer_order(order, ids, "Named", [_link("Named", "Named", "named")], 3) == [1, 0, 2]
    assert answer_order(order, ids, q, [], 2) == [1, 0]


def test_typed_scores_keep_half_for_an_incompatible_type() -> None:
    assert typed_scores([1.0, 0.8, 0.6], [0.0, 1.0, 0.5]) == pytest.approx([0.5, 0.8, 0.45])
    assert typed_scores([1.0], [0.0], weight=1.0) == [0.0]


def test_type_compatibility_is_relative_to_the_best_and_memoised() -> None:
    embedder = TableEmbedder(
        {
            "person or organization": unit(0),
            "person": cos_vector({0: 0.8}, free=1),
            "location": cos_vector({0: 0.2}, free=2),
            "concept": cos_vector({0: -0.5}, free=3),
        }
    )
    matcher = TypeMatcher(embedder)
    assert matcher.compat("person or organization", ["person", "location", "", "concept"]) == pytest.approx(
        [1.0, 0.25, 0.0, 0.0]
    )
    calls = embedder.calls
    matcher.compat("person or organization", ["location", "person"])
    assert embedder.calls == calls  # every text seen before: no embedding
    assert matcher.compat("person or organization", ["concept"]) == [0.0]


QUERY = "Who is the chief technology officer of Corvid Labs?"


@pytest.fixture
def company() -> Any:
    """Corvid Labs with two neighbours: its city (a location whose vector resembles the query most) and its
    CTO (a person). Without answer typing the city ranks first; the company itself scores best of all."""
    g = InMemoryGraphStore()
    add_entities(
        g,
        [
            {"id": "ent:corvid", "name": "Corvid Labs", "type": "organization"},
            {"id": "ent:lisbon", "name": "Lisbon", "type": "location"},
            {"id": "ent:dana", "name": "Dana Reyes", "type": "person"},
        ],
        domain="crm",
    )
    add_relations(
        g,
        [
            ("rel:1", "ent:corvid", "ent:lisbon", {"type": "headquartered_in", "w_struct": 1.0}),
            ("rel:2", "ent:dana", "ent:corvid", {"type": "chief_technology_officer_of", "w_struct": 1.0}),
        ],
        domain="crm",
    )
    vectors = {
        "ent:corvid": cos_vector({0: 0.9}, free=3),
        "ent:lisbon": cos_vector({0: 0.5}, free=4),
        "ent:dana": cos_vector({0: 0.4}, free=5),
    }
    table = {
        QUERY: unit(0),
        "Where is Corvid Labs?": unit(0),
        "person or organization": unit(1),
        "location or place": unit(2),
        "person": cos_vector({1: 0.9}, free=6),
        "organization": cos_vector({1: 0.6}, free=7),
        "location": cos_vector({2: 0.9}, free=8),
    }

    def retriever(**overrides: Any) -> Retriever:
        config = RetrievalConfig(**{"k": 3, **overrides})
        return Retriever(
            g, index_of(vectors), index_of({}), index_of({}), TableEmbedder(table), config, FeedbackConfig()
        )

    return retriever


def test_the_person_answers_who_the_company_is_the_subject(company: Any) -> None:
    result = company().retrieve(QUERY, mode="local", domain="crm", top_k=3)
    assert [e.id for e in result.linked] == ["ent:corvid"]
    assert [e.id for e in result.items] == ["ent:dana", "ent:lisbon", "ent:corvid"]
    scores = {e.id: e.score for e in result.items}
    assert scores["ent:corvid"] > scores["ent:lisbon"] > scores["ent:dana"]  # the reported scores are fusion's
    assert np.isfinite(list(scores.values())).all()


def test_without_linking_the_order_is_the_typed_score(company: Any) -> None:
    result = company(link_entities=False).retrieve(QUERY, mode="local", domain="crm", top_k=3)
    assert result.linked == []
    assert result.items[0].id == "ent:corvid"  # an organization fits "who" too, and it scores best


def test_where_prefers_the_location(company: Any) -> None:
    # nothing but "where is" besides the name: the company keeps its place by score, the location leads by type
    result = company().retrieve("Where is Corvid Labs?", mode="local", domain="crm", top_k=3)
    assert [e.id for e in result.items] == ["ent:lisbon", "ent:corvid", "ent:dana"]
