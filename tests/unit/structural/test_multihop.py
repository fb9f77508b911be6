"""The reader's second hop: answers whose sentence names a bridge entity, not the question's own (hops.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any

import pytest
from support.structural_fakes import TableEmbedder, add_chunks, add_entities, add_relations, cos_vector, index_of, unit

from hybridkg.structural.base import CHUNK, ENTITY, Node
from hybridkg.structural.graphstore.memory import InMemoryGraphStore
from hybridkg.structural.retrieval import LinkedEntity, Retriever
from hybridkg.structural.retrieval.answers import ahead_of_bridges
from hybridkg.structural.retrieval.ego import GraphCache
from hybridkg.structural.retrieval.hops import BridgeChunks, bridges_of, read_hops
from hybridkg.structural.retrieval.reader import Reading, read
from hybridkg.structural.settings import FeedbackConfig, RetrievalConfig

# a port authority, the firm that repairs its cranes, and that firm's people: the trust's chunk never names them
QUAY = (
    "The Harbour Trust keeps twelve cranes on the east quay. Calder Works repairs the cranes of the Harbour Trust "
    "under a five-year contract. The trust's chair is Rosa Quill."
)
CALDER = (
    "Calder Works was founded in Wexley in 1988 by Tom Reed. Its finance director, Ines Marlow, joined from a "
    "shipping bank."
)


def _entity(id_: str, name: str, **props: Any) -> Node:
    return Node(id_, ENTITY, {"name": name, **props})


ENTITIES = {
    e.id: e
    for e in [
        _entity("trust", "Harbour Trust"),
        _entity("calder", "Calder Works"),
        _entity("rosa", "Rosa Quill"),
        _entity("tom", "Tom Reed"),
        _entity("ines", "Ines Marlow"),
        _entity("wexley", "Wexley"),
    ]
}
QUAY_CHUNK = Node("a1", CHUNK, {"text": QUAY, "entity_ids": ["trust", "calder", "rosa"]})
CALDER_CHUNK = Node("b1", CHUNK, {"text": CALDER, "entity_ids": ["calder", "tom", "ines", "wexley"]})


def _link(query: str, mention: str, id_: str) -> LinkedEntity:
    start = query.index(mention)
    return LinkedEntity(id_, mention, mention, start, start + len(mention))


class Fetcher:
    """A fetch that serves the Calder chunk and records what it was asked for."""

    def __init__(self) -> None:
        self.asked: list[list[str]] = []

    def __call__(self, bridges: Sequence[str], have: AbstractSet[str]) -> tuple[list[Node], Mapping[str, Node]]:
        self.asked.append(list(bridges))
        if "calder" not in bridges or "b1" in have:
            return [], {}
        return [CALDER_CHUNK], {i: ENTITIES[i] for i in ("calder", "tom", "ines", "wexley")}


DIRECTOR = "Who is the finance director of the firm that repairs the Harbour Trust's cranes?"


def test_the_second_hop_reaches_the_answer_the_bridge_sentence_names() -> None:
    linked = [_link(DIRECTOR, "Harbour Trust", "trust")]
    assert "ines" not in read(DIRECTOR, linked, [QUAY_CHUNK], ENTITIES)  # one hop: her chunk is never read
    fetch = Fetcher()
    got = read_hops(DIRECTOR, linked, [QUAY_CHUNK], ENTITIES, fetch, hops=1)
    assert fetch.asked == [["calder"]]  # the firm the first hop found leaves "finance director" unexplained
    assert got.scores["ines"] > got.scores["calder"]  # the chain explains the whole question
    assert got.bridged == {"ines": ("calder",)}
    assert "tom" not in got.scores
    assert "wexley" not in got.scores
    assert read_hops(DIRECTOR, linked, [QUAY_CHUNK], ENTITIES, Fetcher(), hops=0).scores == read(
        DIRECTOR, linked, [QUAY_CHUNK], ENTITIES
    )


def test_the_hop_reads_on_with_the_terms_the_first_hop_left() -> None:
    q = "Who founded the firm that repairs the Harbour Trust's cranes?"
    got = read_hops(q, [_link(q, "Harbour Trust", "trust")], [QUAY_CHUNK], ENTITIES, Fetcher(), hops=1)
    assert max(got.scores, key=lambda i: got.scores[i]) == "tom"
    assert "ines" not in got.scores  # her sentence says nothing of a founder


def test_a_question_one_sentence_answers_is_read_once() -> None:
    q = "Who repairs the Harbour Trust's cranes?"
    linked = [_link(q, "Harbour Trust", "trust")]
    fetch = Fetcher()
    got = read_hops(q, linked, [QUAY_CHUNK], ENTITIES, fetch, hops=1)
    assert fetch.asked == []
    assert got.scores == read(q, linked, [QUAY_CHUNK], ENTITIES)
    assert got.bridged == {}


def test_the_words_naming_the_answer_kind_need_no_second_hop() -> None:
    q = "Which firm repairs the Harbour Trust's cranes?"
    linked = [_link(q, "Harbour Trust", "trust")]
    fetch = Fetcher()
    read_hops(q, linked, [QUAY_CHUNK], ENTITIES, fetch, hops=1, described=["firm"])
    assert fetch.asked == []  # "firm" describes the answer; "repairs" and "cranes" are explained
    read_hops(q, linked, [QUAY_CHUNK], ENTITIES, fetch, hops=1)
    assert fetch.asked == [["calder"]]  # without it, "firm" counts as unexplained


def test_bridges_are_the_best_of_each_distinct_explanation() -> None:
    xy, z = frozenset({"x", "y"}), frozenset({"z"})
    frontier = {i: Reading(0.5, 1.0, xy) for i in "abcd"} | {"e": Reading(0.3, 1.0, z), "f": Reading(0.2, 1.0, z)}
    frontier["all"] = Reading(0.9, 1.0, frozenset("xyzw"))
    everything = frozenset("xyzw")
    # a reading explaining everything is an answer, not a bridge; ties of one explanation are capped at BRIDGES
    assert bridges_of(frontier, everything, set()) == ["a", "b", "c", "e"]
    assert bridges_of(frontier, everything, {"a", "e"}) == ["b", "c", "d", "f"]


def test_an_answer_reached_through_a_bridge_moves_just_ahead_of_it() -> None:
    assert ahead_of_bridges(["x", "bridge", "y", "answer"], {"answer": ("bridge",)}) == ["x", "answer", "bridge", "y"]
    assert ahead_of_bridges(["answer", "bridge"], {"answer": ("bridge",)}) == ["answer", "bridge"]
    assert ahead_of_bridges(["b2", "b1", "a"], {"a": ("b1", "b2"), "gone": ("b1",)}) == ["a", "b2", "b1"]


def _store() -> InMemoryGraphStore:
    g = InMemoryGraphStore()
    add_entities(
        g,
        [
            {"id": "trust", "name": "Harbour Trust", "type": "organization", "source_chunks": ["a1"]},
            {"id": "calder", "name": "Calder Works", "type": "organization", "source_chunks": ["a1", "b1"]},
            {"id": "rosa", "name": "Rosa Quill", "type": "person", "source_chunks": ["a1"]},
            {"id": "tom", "name": "Tom Reed", "type": "person", "source_chunks": ["b1"]},
            {"id": "ines", "name": "Ines Marlow", "type": "person", "source_chunks": ["b1"]},
            {"id": "wexley", "name": "Wexley", "type": "location", "source_chunks": ["b1"]},
        ],
        domain="port",
    )
    add_chunks(
        g,
        [
            {"id": "a1", "text": QUAY, "entity_ids": ["trust", "calder", "rosa"]},
            {"id": "b1", "text": CALDER, "entity_ids": ["calder", "tom", "ines", "wexley"]},
        ],
        "port",
    )
    return g


def test_bridge_chunks_fetches_the_chunks_not_read_and_their_entities() -> None:
    g = _store()
    cache = GraphCache(g, 0, 0.0, "port")

    def fetch_chunks(c: GraphCache, ids: Sequence[str]) -> list[Node]:
        nodes = g.neighbourhood(CHUNK, ids, depth=0).nodes
        return [nodes[i] for i in ids if i in nodes]

    chunks, entities = BridgeChunks(cache, fetch_chunks, pool=5)(["calder"], {"a1"})
    assert [c.id for c in chunks] == ["b1"]
    assert set(entities) == {"calder", "tom", "ines", "wexley"}
    assert BridgeChunks(cache, fetch_chunks, pool=0)(["calder"], {"a1"}) == ([], {})
    other = GraphCache(g, 0, 0.0, "elsewhere")
    assert BridgeChunks(other, fetch_chunks, pool=5)(["calder"], {"a1"})[1] == {}  # entities of another domain


@pytest.fixture
def retriever() -> Retriever:
    """The trust and its repairer are related in the graph; nothing relates the trust to the repairer's people,
    and the vectors prefer the trust's own chair."""
    g = _store()
    repairs = {"type": "repairs", "description": "Calder Works repairs the cranes of the Harbour Trust"}
    add_relations(g, [("r1", "calder", "trust", repairs)], "port")
    vectors = {
        "trust": cos_vector({0: 0.9}, free=3),
        "rosa": cos_vector({0: 0.7}, free=4),
        "calder": cos_vector({0: 0.5}, free=5),
        "tom": cos_vector({0: 0.3}, free=6),
        "wexley": cos_vector({0: 0.3}, free=7),
        "ines": cos_vector({0: 0.2}, free=8),
    }
    chunks = {"a1": cos_vector({0: 0.7}, free=9), "b1": cos_vector({0: 0.4}, free=10)}
    one_hop = "Who repairs the Harbour Trust's cranes?"
    return Retriever(
        g,
        index_of(vectors),
        index_of({}),
        index_of(chunks),
        TableEmbedder({DIRECTOR: unit(0), one_hop: unit(0)}),
        RetrievalConfig(k=2),
        FeedbackConfig(),
    )


def test_retrieval_ranks_the_two_hop_answer_first(retriever: Retriever) -> None:
    ids = [e.id for e in retriever.retrieve(DIRECTOR, mode="local", domain="port", top_k=3).items]
    assert ids[0] == "ines"
    assert ids.index("ines") < ids.index("calder")
    retriever._config = retriever._config.model_copy(update={"read_hops": 0})  # the hop off
    assert "ines" not in [e.id for e in retriever.retrieve(DIRECTOR, mode="local", domain="port", top_k=3).items]


def test_retrieval_of_a_one_hop_question_is_unchanged(retriever: Retriever) -> None:
    q = "Who repairs the Harbour Trust's cranes?"
    with_hop = [(e.id, e.score) for e in retriever.retrieve(q, mode="local", domain="port", top_k=3).items]
    retriever._config = retriever._config.model_copy(update={"read_hops": 0})  # the hop off
    without = [(e.id, e.score) for e in retriever.retrieve(q, mode="local", domain="port", top_k=3).items]
    assert with_hop == without
    assert with_hop[0][0] == "calder"


def test_a_chain_does_not_inherit_the_answer_kind_its_bridge_explained() -> None:
    quay = Node("k1", CHUNK, {"text": "The Harbour Trust uses the Tavel crane on the east quay.",
                              "entity_ids": ["trust", "tavel"]})
    lease = Node("k2", CHUNK, {"text": "The Tavel lease was signed by Ana Roth.", "entity_ids": ["tavel", "ana"]})
    entities = {**ENTITIES, "tavel": _entity("tavel", "Tavel"), "ana": _entity("ana", "Ana Roth")}
    q = "Which crane did the Harbour Trust lease?"
    linked = [_link(q, "Harbour Trust", "trust")]
    plain = read_hops(q, linked, [quay, lease], entities, hops=1)
    assert plain.scores["ana"] == pytest.approx(1.0)  # "crane" taken as a fact the bridge's sentence explained
    typed = read_hops(q, linked, [quay, lease], entities, hops=1, described=["crane"])
    # "crane" names the answer's kind: Tavel's sentence says Tavel is one; the chain to Ana explains "lease" only
    assert typed.scores["ana"] < plain.scores["ana"]
    assert typed.scores["tavel"] == pytest.approx(plain.scores["tavel"])
