"""The reader: candidate answers from the sentences of the chunks retrieval touched (term overlap x topic presence)."""

from __future__ import annotations

from typing import Any

import pytest
from support.structural_fakes import TableEmbedder, add_chunks, add_entities, cos_vector, index_of, unit

from hybridkg.structural.base import CHUNK, ENTITY, Node
from hybridkg.structural.graphstore.memory import InMemoryGraphStore
from hybridkg.structural.retrieval import LinkedEntity, Retriever
from hybridkg.structural.retrieval.reader import (
    PREVIOUS,
    SAME_CHUNK,
    SAME_DOCUMENT,
    question_terms,
    read,
    readable,
    rrf,
    stem,
)
from hybridkg.structural.settings import FeedbackConfig, RetrievalConfig

TEXT = (
    "Orrin Foods is a grocer based in Tallow. It was founded in 2011 by Mira Castell, who still chairs\n"
    "the board. Its auditor is Pell & Vane.\n\nThe warehouse lease was signed by Jonas Wick."
)


def _link(query: str, mention: str, id_: str) -> LinkedEntity:
    start = query.index(mention)
    return LinkedEntity(id_, mention, mention, start, start + len(mention))


def _entity(id_: str, name: str, **props: Any) -> Node:
    return Node(id_, ENTITY, {"name": name, **props})


ENTITIES = {
    e.id: e
    for e in [
        _entity("orrin", "Orrin Foods", aliases=["Orrin"]),
        _entity("tallow", "Tallow"),
        _entity("mira", "Mira Castell"),
        _entity("pell", "Pell & Vane"),
        _entity("jonas", "Jonas Wick"),
        _entity("board", "board", named=False),
    ]
}
CHUNK_NODE = Node("c1", CHUNK, {"text": TEXT, "entity_ids": list(ENTITIES)})


def test_question_terms_are_stems_of_content_words_outside_the_linked_names() -> None:
    q = "Who founded Orrin Foods in 2011?"
    assert question_terms(q, [_link(q, "Orrin Foods", "orrin")]) == ["found"]
    assert question_terms("Which auditors check the grocer?", []) == ["audit", "check", "groce"]
    assert stem("Founder") == stem("founded") == "found"


def test_the_sentence_that_shares_the_question_terms_and_follows_the_subject_wins() -> None:
    q = "Who founded Orrin Foods?"
    scores = read(q, [_link(q, "Orrin Foods", "orrin")], [CHUNK_NODE], ENTITIES)
    assert "orrin" not in scores  # the question's own entity is not an answer
    assert "board" not in scores  # a common noun phrase is not a candidate
    # Mira: "founded" matches, Orrin is named in the sentence before ("It ...")
    assert scores["mira"] == pytest.approx(PREVIOUS * 1.0)
    # Tallow (Orrin's own sentence) and Pell & Vane (same chunk): their sentences share no question term
    assert set(scores) == {"mira"}
    assert max(scores, key=lambda i: scores[i]) == "mira"


def test_presence_is_graded_by_distance_from_the_subject() -> None:
    q = "Who audits Orrin Foods?"
    scores = read(q, [_link(q, "Orrin Foods", "orrin")], [CHUNK_NODE], ENTITIES)
    # "Its auditor is Pell & Vane.": two sentences after Orrin's, so only the chunk is shared
    assert scores == {"pell": pytest.approx(SAME_CHUNK * 1.0)}


def test_names_are_found_across_a_hard_line_break() -> None:
    text = "The audit of the accounts of Orrin was led by Mira\nCastell last spring."
    q = "Who led the Orrin audit?"
    chunk = Node("c2", CHUNK, {"text": text, "entity_ids": ["orrin", "mira"]})
    scores = read(q, [_link(q, "Orrin", "orrin")], [chunk], ENTITIES)
    assert scores["mira"] == pytest.approx(1.0)  # "led", "audit" both match, Orrin in the sentence


def test_without_the_linked_entity_in_the_chunk_nothing_is_read() -> None:
    q = "Who founded Halden Mills?"
    other = Node("c3", CHUNK, {"text": "Mira Castell founded a bakery.", "entity_ids": ["mira"]})
    assert read(q, [_link(q, "Halden Mills", "halden")], [other], ENTITIES) == {}
    # with nothing linked every sentence is on topic and term overlap decides
    plain = read("who founded a bakery", [], [other, CHUNK_NODE], ENTITIES)
    assert plain["mira"] == pytest.approx(1.0)
    assert "jonas" not in plain


def test_rrf_sums_reciprocal_ranks() -> None:
    fused = rrf([["a", "b"], ["b", "c"]], k=1.0)
    assert fused == pytest.approx({"a": 1 / 2, "b": 1 / 3 + 1 / 2, "c": 1 / 3})


QUERY = "Who founded Orrin Foods?"


@pytest.fixture
def retriever() -> Retriever:
    """Orrin Foods and the people of its chunk, no relation between them: only the text says who founded it."""
    g = InMemoryGraphStore()
    add_entities(
        g,
        [
            {"id": "orrin", "name": "Orrin Foods", "type": "organization", "source_chunks": ["c1"]},
            {"id": "tallow", "name": "Tallow", "type": "location", "source_chunks": ["c1"]},
            {"id": "mira", "name": "Mira Castell", "type": "person", "source_chunks": ["c1"]},
            {"id": "pell", "name": "Pell & Vane", "type": "organization", "source_chunks": ["c1"]},
            {"id": "jonas", "name": "Jonas Wick", "type": "person", "source_chunks": ["c1"]},
        ],
        domain="crm",
    )
    add_chunks(g, [{"id": "c1", "text": TEXT, "entity_ids": ["orrin", "tallow", "mira", "pell", "jonas"]}], "crm")
    vectors = {  # the vectors alone prefer the company and the city; Mira is least like the query
        "orrin": cos_vector({0: 0.9}, free=3),
        "tallow": cos_vector({0: 0.6}, free=4),
        "jonas": cos_vector({0: 0.5}, free=5),
        "pell": cos_vector({0: 0.45}, free=6),
        "mira": cos_vector({0: 0.3}, free=7),
    }
    chunk_vectors = {"c1": cos_vector({0: 0.7}, free=8)}
    config = RetrievalConfig(k=2)
    return Retriever(
        g,
        index_of(vectors),
        index_of({}),
        index_of(chunk_vectors),
        TableEmbedder({QUERY: unit(0)}),
        config,
        FeedbackConfig(),
    )


def test_the_reader_finds_an_answer_no_relation_states(retriever: Retriever) -> None:
    result = retriever.retrieve(QUERY, mode="local", domain="crm", top_k=3)
    assert [e.id for e in result.linked] == ["orrin"]
    ids = [e.id for e in result.items]
    assert "mira" in ids  # no edge and no vector seed reach her: only the text says she founded it
    assert ids.index("mira") < ids.index("orrin")
    mira = result.items[ids.index("mira")]
    assert mira.score == 0.0  # no graph evidence
    assert mira.alpha == pytest.approx(0.3, abs=1e-5)  # its own cosine
    assert "Mira Castell" in result.context


def test_reading_respects_the_domain(retriever: Retriever) -> None:
    assert retriever.retrieve(QUERY, mode="local", domain="other", top_k=3).items == []


def test_a_question_linking_two_entities_and_no_other_term_reads_the_sentences_naming_both() -> None:
    text = "Mira Castell, head of audit at Orrin Foods, signed the accounts. Jonas Wick joined Orrin Foods in May."
    chunk = Node("c4", CHUNK, {"text": text, "entity_ids": ["orrin", "mira", "jonas", "role"]})
    entities = {**ENTITIES, "role": _entity("role", "head of audit")}
    q = "Who is the head of audit at Orrin Foods?"
    linked = [_link(q, "head of audit", "role"), _link(q, "Orrin Foods", "orrin")]
    assert question_terms(q, linked) == []  # every content word is inside a linked mention
    scores = read(q, linked, [chunk], entities)
    assert scores["mira"] == pytest.approx(1.0)  # named with both
    assert scores["jonas"] == pytest.approx((1.0 + PREVIOUS) / 2)  # the role is in the sentence before
    one = "Who is Orrin Foods?"
    assert read(one, [_link(one, "Orrin Foods", "orrin")], [chunk], entities) == {}  # one name, nothing more


def test_reading_needs_a_term_or_two_names_in_different_words() -> None:
    q = "halden foods corvid labs"
    two = [_link(q, "halden foods", "e:h"), _link(q, "corvid labs", "e:c")]
    assert readable(q, two), "two names: a sentence naming both is evidence"
    # one mention linking two entities (a shared short form): alternatives, nothing to read
    alternatives = [_link("Halden", "Halden", "e:h"), _link("Halden", "Halden", "e:m")]
    assert not readable("Halden", alternatives)
    owns = "Who owns Halden?"
    assert readable(owns, [_link(owns, "Halden", "e:h"), _link(owns, "Halden", "e:m")]), "a question term is enough"


def test_the_readers_best_answer_leads_even_when_the_graph_prefers_another() -> None:
    """The vectors and the graph rank Jonas first; the sentence that says what the question asks names Mira."""
    g = InMemoryGraphStore()
    text = "Mira Castell founded Orrin Foods and chairs its board. Jonas Wick chairs the Orrin Foods pension fund."
    add_entities(
        g,
        [
            {"id": "orrin", "name": "Orrin Foods", "type": "organization", "source_chunks": ["c1"]},
            {"id": "mira", "name": "Mira Castell", "type": "person", "source_chunks": ["c1"]},
            {"id": "jonas", "name": "Jonas Wick", "type": "person", "source_chunks": ["c1"]},
            {"id": "pell", "name": "Pell & Vane", "type": "person", "source_chunks": ["c2"]},
        ],
        domain="crm",
    )
    add_chunks(g, [{"id": "c1", "text": text, "entity_ids": ["orrin", "mira", "jonas"]}], "crm")
    query = "Who founded and chairs Orrin Foods?"
    vectors = {
        "orrin": cos_vector({0: 0.9}, free=3),
        "jonas": cos_vector({0: 0.8}, free=4),
        "pell": cos_vector({0: 0.6}, free=6),
        "mira": cos_vector({0: 0.1}, free=5),
    }
    retriever = Retriever(
        g, index_of(vectors), index_of({}), index_of({"c1": cos_vector({0: 0.7}, free=8)}),
        TableEmbedder({query: unit(0)}), RetrievalConfig(k=3), FeedbackConfig(),
    )
    result = retriever.retrieve(query, mode="local", domain="crm", top_k=4)
    by_id = {e.id: e for e in result.items}
    assert by_id["jonas"].score > by_id["pell"].score > by_id["mira"].score  # the graph's order: Jonas, Pell, Mira
    read_scores = read(query, [_link(query, "Orrin Foods", "orrin")], [Node("c1", CHUNK, {"text": text,
                       "entity_ids": ["orrin", "mira", "jonas"]})], {i: _entity(i, n) for i, n in
                       [("orrin", "Orrin Foods"), ("mira", "Mira Castell"), ("jonas", "Jonas Wick")]})
    assert read_scores["mira"] > read_scores["jonas"] > 0  # both read, Mira's sentence says both terms
    # reciprocal rank fusion alone would put Jonas first (1/62 + 1/62 > 1/64 + 1/61)
    assert result.items[0].id == "mira"


def test_a_later_chunk_of_the_topics_document_reads_at_half_the_chunk_presence() -> None:
    first = Node("d1", CHUNK, {"doc": "review", "text": "Account review: Orrin Foods. A customer since 2019.",
                               "entity_ids": ["orrin"]})
    later = Node("d2", CHUNK, {"doc": "review", "text": "Jonas Wick will send the purchase order in May.",
                               "entity_ids": ["jonas"]})
    elsewhere = Node("d3", CHUNK, {"doc": "other", "text": "Mira Castell will send the purchase order in June.",
                                   "entity_ids": ["mira"]})
    q = "Who will send the purchase order for Orrin Foods?"
    scores = read(q, [_link(q, "Orrin Foods", "orrin")], [first, later, elsewhere], ENTITIES)
    assert scores == {"jonas": pytest.approx(SAME_DOCUMENT)}  # another document's chunk says nothing about Orrin
    assert SAME_DOCUMENT == SAME_CHUNK / 2
    # without the first chunk nothing says the later one is about Orrin Foods
    assert read(q, [_link(q, "Orrin Foods", "orrin")], [later, elsewhere], ENTITIES) == {}
