"""Attention feedback: (1 + score) on leaving edges, the clip band, lazy decay, validation, and 10,000 noisy calls."""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
import pytest
from support.structural_fakes import TableEmbedder, add_entities, add_relations, index_of

from hybridkg.errors import InvalidInput, NotFound
from hybridkg.structural.base import RELATED
from hybridkg.structural.feedback import FeedbackLoop, effective_attention, read_epoch
from hybridkg.structural.graphstore.memory import InMemoryGraphStore
from hybridkg.structural.retrieval import Retriever
from hybridkg.structural.settings import FeedbackConfig, RetrievalConfig

CFG = FeedbackConfig()
STAR = {"r1": ("n", "x1"), "r2": ("n", "x2"), "r3": ("y", "n"), "r4": ("x1", "x2")}


@pytest.fixture
def graph() -> InMemoryGraphStore:
    g = InMemoryGraphStore()
    add_entities(g, [{"id": f"ent:{x}", "name": x} for x in ("n", "x1", "x2", "y")])
    add_relations(g, [(f"rel:{r}", f"ent:{s}", f"ent:{d}", {"w_struct": 1.0}) for r, (s, d) in STAR.items()])
    return g


def props(graph: InMemoryGraphStore) -> dict[str, dict[str, Any]]:
    return {e.id.removeprefix("rel:"): e.props for e in graph.edges(RELATED, [f"rel:{r}" for r in STAR])}


def test_feedback_multiplies_only_the_edges_leaving_the_node(graph: InMemoryGraphStore) -> None:
    result = FeedbackLoop(graph, CFG).apply({"ent:n": 0.5})
    assert (result.epoch, result.edges_updated, result.nodes) == (1, 2, 1)
    after = props(graph)
    assert after["r1"]["w_attn"] == after["r2"]["w_attn"] == pytest.approx(1.5)
    assert after["r1"]["attn_epoch"] == after["r2"]["attn_epoch"] == 1
    assert "w_attn" not in after["r3"]
    assert "w_attn" not in after["r4"]
    assert read_epoch(graph) == 1


SYMMETRIC = {  # stored with the smaller id as source: "a" < "m" < "z"
    "s_src": ("a", "m", "co_occurs"),
    "s_dst": ("m", "z", "related_to"),
    "d_in": ("a", "m", "works_for"),
    "d_out": ("m", "z", "works_for"),
}


@pytest.fixture
def mixed() -> InMemoryGraphStore:
    g = InMemoryGraphStore()
    add_entities(g, [{"id": f"ent:{x}", "name": x} for x in ("a", "m", "z")])
    add_relations(g, [(f"rel:{r}", f"ent:{s}", f"ent:{d}", {"type": t}) for r, (s, d, t) in SYMMETRIC.items()])
    return g


def attention(graph: InMemoryGraphStore) -> dict[str, float]:
    edges = graph.edges(RELATED, [f"rel:{r}" for r in SYMMETRIC])
    return {e.id.removeprefix("rel:"): e.props.get("w_attn", 1.0) for e in edges}


@pytest.mark.parametrize(
    ("node", "expected"),
    [
        # "m" is the stored target of s_src and the stored source of s_dst: both symmetric edges move; of the
        # directed ones only the edge leaving it
        ("m", {"s_src": 1.5, "s_dst": 1.5, "d_in": 1.0, "d_out": 1.5}),
        ("a", {"s_src": 1.5, "s_dst": 1.0, "d_in": 1.5, "d_out": 1.0}),  # a stored source only
        ("z", {"s_src": 1.0, "s_dst": 1.5, "d_in": 1.0, "d_out": 1.0}),  # a stored target only
    ],
)
def test_feedback_reaches_symmetric_edges_at_either_stored_end(
    mixed: InMemoryGraphStore, node: str, expected: dict[str, float]
) -> None:
    result = FeedbackLoop(mixed, CFG).apply({f"ent:{node}": 0.5})
    assert attention(mixed) == pytest.approx(expected)
    assert result.edges_updated == sum(1 for w in expected.values() if w != 1.0)


def test_a_symmetric_edge_between_two_scored_nodes_takes_both_factors(mixed: InMemoryGraphStore) -> None:
    FeedbackLoop(mixed, CFG).apply({"ent:a": 0.5, "ent:m": -0.5})
    after = attention(mixed)
    assert after["s_src"] == pytest.approx(1.5 * 0.5)
    assert after["d_in"] == pytest.approx(1.5)  # directed: only its source's score


def test_weights_are_clipped_to_the_band(graph: InMemoryGraphStore) -> None:
    loop = FeedbackLoop(graph, CFG)
    loop.apply({"ent:n": 9.0})
    assert props(graph)["r1"]["w_attn"] == CFG.w_max
    for _ in range(3):
        loop.apply({"ent:n": -0.9})
    assert props(graph)["r1"]["w_attn"] == CFG.w_min


def test_decay_is_lazy_and_pulls_toward_one(graph: InMemoryGraphStore) -> None:
    loop = FeedbackLoop(graph, CFG)
    loop.apply({"ent:n": 1.0})
    assert loop.decay(10).epoch == 11
    stored = props(graph)["r1"]
    assert (stored["w_attn"], stored["attn_epoch"]) == (2.0, 1)
    assert effective_attention(stored, 11, CFG.decay) == pytest.approx(1 + 0.99**10)
    assert effective_attention(stored, 10_000, CFG.decay) == pytest.approx(1.0)
    loop.apply({"ent:n": 0.0})
    assert props(graph)["r1"]["w_attn"] == pytest.approx(1 + 0.99**11)
    low = {"w_attn": 0.25, "attn_epoch": 0}
    assert effective_attention(low, 5, CFG.decay) == pytest.approx(1 - 0.75 * 0.99**5)


def test_unknown_nodes_are_not_found_and_nothing_changes(graph: InMemoryGraphStore) -> None:
    before = props(graph)
    with pytest.raises(NotFound, match="ent:ghost"):
        FeedbackLoop(graph, CFG).apply({"ent:n": 0.5, "ent:ghost": 0.1})
    assert props(graph) == before
    assert read_epoch(graph) == 0


@pytest.mark.parametrize("score", [math.nan, math.inf, -math.inf, -1.0, -1.5, 10.5, -10.5, "0.5", True, None])
def test_bad_scores_are_invalid_and_nothing_changes(graph: InMemoryGraphStore, score: Any) -> None:
    before = props(graph)
    with pytest.raises(InvalidInput):
        FeedbackLoop(graph, CFG).apply({"ent:n": score})
    assert props(graph) == before
    assert read_epoch(graph) == 0


def test_scores_at_the_edges_of_the_range_are_accepted(graph: InMemoryGraphStore) -> None:
    loop = FeedbackLoop(graph, CFG)
    assert loop.apply({"ent:n": CFG.max_score}).edges_updated == 2
    assert loop.apply({"ent:n": -0.99, "ent:y": np.float32(0.5)}).edges_updated == 3


@pytest.mark.parametrize("steps", [0, -1, 1.5, True])
def test_decay_needs_a_positive_step_count(graph: InMemoryGraphStore, steps: Any) -> None:
    with pytest.raises(InvalidInput):
        FeedbackLoop(graph, CFG).decay(steps)
    assert read_epoch(graph) == 0


# --------------------------------------------------------------------------------------------- stability


N_NODES, DIM = 40, 16


def random_kb(seed: int) -> tuple[InMemoryGraphStore, Retriever, dict[str, list[str]], list[np.ndarray]]:
    """A ring of 40 entities plus 60 random chords with random structural weights, and five query vectors."""
    rng = np.random.default_rng(seed)
    graph = InMemoryGraphStore()
    ids = [f"ent:{i}" for i in range(N_NODES)]
    add_entities(graph, [{"id": i, "name": i} for i in ids])
    pairs = [(i, (i + 1) % N_NODES) for i in range(N_NODES)]
    pairs += [(int(a), int(b)) for a, b in rng.integers(0, N_NODES, size=(60, 2)) if a != b]
    rows = [(f"rel:{n}", ids[a], ids[b], {"w_struct": float(rng.uniform(0.5, 2.0))}) for n, (a, b) in enumerate(pairs)]
    add_relations(graph, rows)
    leaving: dict[str, list[str]] = {i: [] for i in ids}
    for rel_id, src, _, _ in rows:
        leaving[src].append(rel_id)
    vectors = rng.normal(size=(N_NODES, DIM)).astype(np.float32)
    retriever = Retriever(
        graph,
        index_of(dict(zip(ids, vectors, strict=True)), DIM),
        index_of({}, DIM),
        index_of({}, DIM),
        TableEmbedder({}, DIM),
        RetrievalConfig(k=4, theta=0.05),
        CFG,
    )
    queries = [rng.normal(size=DIM).astype(np.float32) for _ in range(5)]
    return graph, retriever, leaving, queries


def rankings(
    retriever: Retriever, queries: list[np.ndarray], alpha_weight: float | None = None
) -> list[list[tuple[str, float]]]:
    return [
        [
            (e.id, e.score)
            for e in retriever.retrieve(
                "what is here", mode="local", query_vector=q, top_k=10, alpha_weight=alpha_weight
            ).items
        ]
        for q in queries
    ]


def test_ten_thousand_noisy_feedback_calls_stay_in_band_and_decay_back_to_the_baseline() -> None:
    graph, retriever, leaving, queries = random_kb(seed=7)
    all_edges = [e for edges in leaving.values() for e in edges]
    baseline = rankings(retriever, queries)
    loop = FeedbackLoop(graph, CFG)
    rng = random.Random(11)
    nodes = list(leaving)
    for call in range(10_000):
        scored = {n: rng.uniform(-0.6, 0.6) for n in rng.sample(nodes, rng.randint(1, 3))}
        loop.apply(scored)
        touched = [e for n in scored for e in leaving[n]]
        checked = graph.edges(RELATED, all_edges if call % 1000 == 999 else touched)
        assert all(CFG.w_min <= e.props.get("w_attn", 1.0) <= CFG.w_max for e in checked)
    weights = [e.props.get("w_attn", 1.0) for e in graph.edges(RELATED, all_edges)]
    assert np.mean(np.abs(np.array(weights) - 1.0)) > 0.1  # the noise did move the weights...
    noisy = rankings(retriever, queries)
    assert any([i for i, _ in a] != [i for i, _ in b] for a, b in zip(noisy, baseline, strict=True))  # ...and ranks
    assert read_epoch(graph) == 10_000

    loop.decay(3_000)
    recovered = rankings(retriever, queries)
    for before, after in zip(baseline, recovered, strict=True):
        assert [i for i, _ in after] == [i for i, _ in before]
        assert [s for _, s in after] == pytest.approx([s for _, s in before], abs=1e-9)


def test_sustained_positive_feedback_moves_a_node_up() -> None:
    graph, retriever, _, queries = random_kb(seed=7)
    def fused() -> dict[str, float]:
        result = retriever.retrieve("what is here", mode="local", query_vector=queries[0], top_k=1000)
        return {e.id: e.score for e in result.items}

    before = fused()
    graph_only = [i for i, _ in rankings(retriever, queries[:1], alpha_weight=0.0)[0]]  # ranked by beta alone
    target = graph_only[-1]
    loop = FeedbackLoop(graph, CFG)
    for _ in range(50):
        loop.apply({target: 1.0})
    after = [i for i, _ in rankings(retriever, queries[:1], alpha_weight=0.0)[0]]
    assert target in after
    assert after.index(target) < graph_only.index(target)
    # with the default fusion alpha (its cosine, unchanged by feedback) holds part of the score: it still rises
    assert fused()[target] > before[target]
