"""Retrieval on a hand-built graph with known answers: alpha, G_q, beta (closed form), fusion, compression, modes.

The graph (stored directions; ``w`` is ``w_struct``; the feedback epoch is 10 and r3 carries ``w_attn = 1.5``
from epoch 4, so its weight is ``1 + 0.5 * 0.99 ** 6``)::

    a -r1(2)-> d        e -r2(1)-> a        d -r3(1, attn)-> f     e -r4(1)-> g      b -r5(1)-> h
    b -r6(0.2)-> k      c -r7(1)-> i        f -r8(1)-> j           k -r9(1)-> l      h -r10(1)-> m
    h -r11(1)-> k       f -r12(1)-> g       d -r13(1.6)-> g        h -r14(0.5)-> n

The local query is axis 0 and cos(a) = 0.9, cos(b) = 0.5, cos(c) = 0.1, cos(d) = 0.05, cos(m) = -0.2, every
other entity 0; k = 3 seeds (a, b, c). The gate is the propagation's iterate after as many steps as levels,
over G_q as grown so far, divided by its maximum; with p0 = (0.9, 0.5, 0.1) / 1.5 and lambda = 0.5:
level 0 gives a 1, b 5/9, c 1/9 (below theta = 0.15: not expanded); level 1 gives s_1(a) = 0.3 (the maximum),
s_1(d) = 0.5 * 2/3 * 0.6 = 0.2, so gate(d) = 2/3, gate(e) = 1/3, gate(h) = 0.5 * (1/1.2) * (1/3) / 0.3,
gate(k) = 0.5 * (0.2/1.2) * (1/3) / 0.3 < theta (a leaf); level 2 expands d, e, h. Never reached: i (c not
expanded), l (k gated), j (depth 3). Query entity linking is off here (``tests/unit/structural/test_linking.py``).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from support.structural_fakes import (
    TableEmbedder,
    add_chunks,
    add_entities,
    add_relations,
    cos_vector,
    index_of,
    unit,
)

from hybridkg.errors import InvalidInput
from hybridkg.structural.base import RELATED, EdgeRow
from hybridkg.structural.feedback import FEEDBACK_META_ID, META
from hybridkg.structural.graphstore.memory import InMemoryGraphStore
from hybridkg.structural.retrieval import Retriever
from hybridkg.structural.retrieval.ego import EgoNetwork, GraphCache, build_ego
from hybridkg.structural.retrieval.propagate import damped_scores, normalised
from hybridkg.structural.settings import FeedbackConfig, Mode, RetrievalConfig

W_R3 = 1.0 + 0.5 * 0.99**6
LOCAL_Q = "tell me about the turing story"
GLOBAL_Q = "who worked with rejewski in poland"
NAMES = {
    "a": "Turing", "b": "Enigma", "c": "Colossus", "d": "Bletchley Park", "e": "Cambridge", "f": "Hut 8",
    "g": "King's College", "h": "Rejewski", "i": "Flowers", "j": "Banburismus", "k": "Bomba", "l": "Zygalski",
    "m": "Poland", "n": "Warsaw",
}  # fmt: skip
EDGES = {
    "r1": ("a", "d", 2.0), "r2": ("e", "a", 1.0), "r3": ("d", "f", 1.0), "r4": ("e", "g", 1.0),
    "r5": ("b", "h", 1.0), "r6": ("b", "k", 0.2), "r7": ("c", "i", 1.0), "r8": ("f", "j", 1.0),
    "r9": ("k", "l", 1.0), "r10": ("h", "m", 1.0), "r11": ("h", "k", 1.0), "r12": ("f", "g", 1.0),
    "r13": ("d", "g", 1.6), "r14": ("h", "n", 0.5),
}  # fmt: skip
COS = {"a": 0.9, "b": 0.5, "c": 0.1}
OFF_SEED_COS = {"d": 0.05, "m": -0.2}  # not seeds (k = 3), still scored: alpha(d) = 0.05, alpha(m) = 0
CHUNKS = {
    "c1": ("doc:1", "Turing worked at Bletchley Park on the Enigma cipher.", ["a", "d", "b"]),
    "c2": ("doc:1", "Rejewski in Poland built the Bomba before the war.", ["h", "m", "k"]),
    "c3": ("doc:2", "Cambridge and King's College shaped the young Turing.", ["e", "g", "a"]),
    "c4": ("doc:2", "Colossus was built later by Flowers.", ["c", "i"]),
}
GQ_DEPTH2 = {"a", "b", "c", "d", "e", "h", "k", "f", "g", "m", "n"}
GQ_DEPTH2_EDGES = {"r1", "r2", "r3", "r4", "r5", "r6", "r10", "r11", "r13", "r14"}


def ent(x: str) -> str:
    return f"ent:{x}"


def rel(r: str) -> str:
    return f"rel:{r}"


def chunk(c: str) -> str:
    return f"chunk:{c}"


@pytest.fixture
def kb() -> SimpleNamespace:
    graph = InMemoryGraphStore()
    sources: dict[str, list[str]] = {x: [] for x in NAMES}
    for c, (_, _, mentioned) in CHUNKS.items():
        for x in mentioned:
            sources[x].append(chunk(c))
    add_entities(
        graph,
        [
            {"id": ent(x), "name": n, "type": "thing", "description": f"{n} of the story", "source_chunks": sources[x]}
            for x, n in NAMES.items()
        ],
    )
    rows = []
    for r, (s, d, w) in EDGES.items():
        props: dict[str, Any] = {"w_struct": w, "type": "linked", "description": f"{NAMES[s]} and {NAMES[d]}"}
        if r == "r3":
            props |= {"w_attn": 1.5, "attn_epoch": 4}
        rows.append((rel(r), ent(s), ent(d), props))
    add_relations(graph, rows)
    add_chunks(
        graph,
        [
            {"id": chunk(c), "doc": doc, "text": t, "entity_ids": [ent(x) for x in m]}
            for c, (doc, t, m) in CHUNKS.items()
        ],
    )
    graph.upsert_nodes(META, [{"id": FEEDBACK_META_ID, "epoch": 10}])
    free = iter(range(4, 16))
    cosines = COS | OFF_SEED_COS
    entity_vectors = {
        ent(x): cos_vector({0: cosines.get(x, 0.0)}, free=next(free) if x in cosines else 3) for x in NAMES
    }
    relation_vectors = {rel(r): unit(3) for r in EDGES}
    relation_vectors[rel("r10")] = cos_vector({1: 0.8}, free=2)
    relation_vectors[rel("r3")] = cos_vector({1: 0.5}, free=3)
    chunk_cos = {"c1": 0.8, "c2": 0.3, "c3": 0.6, "c4": 0.0}
    chunk_vectors = {chunk(c): cos_vector({0: v}, free=5 + i) for i, (c, v) in enumerate(chunk_cos.items())}
    embedder = TableEmbedder(
        {
            LOCAL_Q: unit(0),
            "turing": unit(0),
            "how is turing related to enigma": unit(0),
            "turing via": unit(0),
            GLOBAL_Q: unit(1),
        }
    )
    indexes = index_of(entity_vectors), index_of(relation_vectors), index_of(chunk_vectors)

    def retriever(count_tokens: Any = None, **overrides: Any) -> Retriever:
        config = RetrievalConfig(**{"k": 3, "link_entities": False, **overrides})
        return Retriever(graph, *indexes, embedder, config, FeedbackConfig(), count_tokens=count_tokens)

    return SimpleNamespace(graph=graph, indexes=indexes, embedder=embedder, retriever=retriever)


def by_id(result: Any) -> dict[str, Any]:
    return {e.id: e for e in result.items}


def closed_form(graph: InMemoryGraphStore, nodes: list[str], edge_ids: list[str], p0: np.ndarray) -> np.ndarray:
    """s* = (1 - lambda) (I - lambda P^T)^-1 p0 with P from the stored weights (a node without edges: a zero row)."""
    lam = RetrievalConfig().damping
    index = {n: i for i, n in enumerate(nodes)}
    w = np.zeros((len(nodes), len(nodes)))
    for e in graph.edges(RELATED, edge_ids):
        weight = e.props["w_struct"] * (W_R3 if e.id == rel("r3") else 1.0)
        w[index[e.src], index[e.dst]] += weight
        w[index[e.dst], index[e.src]] += weight
    strength = w.sum(axis=1, keepdims=True)
    p = np.divide(w, strength, out=np.zeros_like(w), where=strength > 0)
    return (1 - lam) * np.linalg.solve(np.eye(len(nodes)) - lam * p.T, p0)


# --------------------------------------------------------------------------------------------- vector level


def test_alpha_is_the_clipped_cosine_of_every_node_of_g_q(kb: SimpleNamespace) -> None:
    result = kb.retriever().retrieve(LOCAL_Q, mode="local", top_k=1000)
    alpha = {i: e.alpha for i, e in by_id(result).items()}
    expected = {ent(x): max(c, 0.0) for x, c in (COS | OFF_SEED_COS).items()}
    assert {ent("d"), ent("m")} <= set(alpha)  # reached through the graph, not seeds
    assert alpha == pytest.approx({i: expected.get(i, 0.0) for i in alpha}, abs=1e-6)
    assert kb.embedder.calls == 1
    assert result.embed_ms >= 0.0


def test_an_entity_without_a_stored_vector_has_alpha_zero(kb: SimpleNamespace) -> None:
    kb.indexes[0].remove([ent("d")])
    alpha = {i: e.alpha for i, e in by_id(kb.retriever().retrieve(LOCAL_Q, mode="local", top_k=1000)).items()}
    assert alpha[ent("d")] == 0.0
    assert alpha[ent("a")] == pytest.approx(0.9, abs=1e-6)


def test_alpha_is_one_batched_vector_fetch_per_query(kb: SimpleNamespace) -> None:
    calls: list[list[str]] = []
    index = kb.indexes[0]
    get = index.get

    def counting(ids: Any) -> Any:
        calls.append(list(ids))
        return get(ids)

    index.get = counting
    result = kb.retriever().retrieve(LOCAL_Q, mode="hybrid", top_k=1000)
    assert set(calls[0]) | {ent(x) for x in COS} >= set(result.subgraph_nodes)
    # at most one more: the cosines of items only the reader found, which are outside the subgraph
    assert len(calls) <= 2
    assert all(i not in result.subgraph_nodes for call in calls[1:] for i in call)


def test_a_precomputed_query_vector_skips_the_embedder(kb: SimpleNamespace) -> None:
    result = kb.retriever().retrieve("anything at all here", mode="local", query_vector=unit(0).tolist())
    assert kb.embedder.calls == 0
    assert result.embed_ms == 0.0
    assert result.items[0].id == ent("a")


def test_vector_ids_the_graph_no_longer_holds_are_dropped(kb: SimpleNamespace) -> None:
    kb.graph.delete("Entity", [ent("b")])
    result = kb.retriever().retrieve(LOCAL_Q, mode="local", top_k=1000)
    assert ent("b") not in result.subgraph_nodes
    assert ent("h") not in result.subgraph_nodes


# --------------------------------------------------------------------------------------------- ego network


@pytest.mark.parametrize(
    ("overrides", "nodes", "edges"),
    [
        ({}, GQ_DEPTH2, GQ_DEPTH2_EDGES),
        ({"d_max": 1}, {"a", "b", "c", "d", "e", "h", "k"}, {"r1", "r2", "r5", "r6"}),
        ({"theta": 0.6}, {"a", "b", "c", "d", "e", "f", "g"}, {"r1", "r2", "r3", "r13"}),
        ({"max_ego_nodes": 10}, GQ_DEPTH2 - {"n"}, GQ_DEPTH2_EDGES - {"r14"}),
    ],
    ids=["depth-2", "depth-1", "theta-0.6", "cap-10"],
)
def test_ego_network_membership(
    kb: SimpleNamespace, overrides: dict[str, Any], nodes: set[str], edges: set[str]
) -> None:
    result = kb.retriever(**overrides).retrieve(LOCAL_Q, mode="local")
    assert set(result.subgraph_nodes) == {ent(x) for x in nodes}
    assert set(result.subgraph_edges) == {rel(r) for r in edges}


def test_gate_scores_are_the_propagations_normalised_damped_scores(kb: SimpleNamespace) -> None:
    seeds = {ent(x): c for x, c in COS.items()}
    config = RetrievalConfig(k=3)

    def grown(d_max: int) -> EgoNetwork:
        return build_ego(GraphCache(kb.graph, epoch=10, decay=0.01, domain=None), seeds, config.model_copy(
            update={"d_max": d_max}
        ))

    def steps(ego: EgoNetwork, n: int) -> dict[str, float]:
        weight = np.array([seeds.get(i, 0.0) for i in ego.ids])
        s, _ = damped_scores(ego.size, ego.src, ego.dst, ego.weights, weight, config.damping, 0.0, n)
        return dict(zip(ego.ids, normalised(s).tolist(), strict=True))

    one, two = grown(1), grown(2)
    level1 = set(one.ids) - set(seeds)
    level2 = set(two.ids) - set(one.ids)
    assert level1 == {ent(x) for x in "dehk"}
    assert level2 == {ent(x) for x in "fgmn"}
    # the gate of a node admitted at level l is its propagation score after l steps over G_q grown to level l
    assert {i: one.provisional[i] for i in level1} == pytest.approx({i: steps(one, 1)[i] for i in level1})
    assert {i: two.provisional[i] for i in level2} == pytest.approx({i: steps(two, 2)[i] for i in level2})
    assert {i: two.provisional[i] for i in seeds} == pytest.approx({i: c / 0.9 for i, c in seeds.items()})
    # and by hand
    gate_h = 0.5 * (1 / 1.2) * (1 / 3) / 0.3
    expected = {"d": 2 / 3, "e": 1 / 3, "h": gate_h, "k": 0.5 * (0.2 / 1.2) * (1 / 3) / 0.3}
    assert {i: one.provisional[i] for i in level1} == pytest.approx({ent(x): p for x, p in expected.items()})
    assert two.provisional[ent("k")] < config.theta <= two.provisional[ent("h")]


# --------------------------------------------------------------------------------------------- propagation


@pytest.mark.parametrize("epsilon", [1e-3, 1e-12])
def test_beta_is_the_closed_form_fixpoint(kb: SimpleNamespace, epsilon: float) -> None:
    result = kb.retriever(epsilon=epsilon).retrieve(LOCAL_Q, mode="local", top_k=1000)
    nodes = result.subgraph_nodes
    seeds = {ent(x) for x in COS}  # local mode: a seed's weight is its alpha
    p0 = np.array([by_id(result)[n].alpha if n in seeds else 0.0 for n in nodes])
    s_star = closed_form(kb.graph, nodes, result.subgraph_edges, p0 / p0.sum())
    expected = s_star / s_star.max()
    lam = RetrievalConfig().damping
    s_error = lam / (1 - lam) * epsilon  # ||s_t - s*||_1 bound when ||s_t - s_(t-1)||_1 < epsilon
    tolerance = 2 * s_error / (s_star.max() - s_error)  # carried through beta = s / max(s)
    beta = np.array([by_id(result)[n].beta for n in nodes])
    assert np.abs(beta - expected).max() <= tolerance
    assert 1 <= result.iterations <= RetrievalConfig().max_iterations
    assert max(beta) == pytest.approx(1.0)


# --------------------------------------------------------------------------------------------- fusion


@pytest.mark.parametrize(
    ("query", "a"),
    [
        (LOCAL_Q, 0.6),  # six words, no cue
        ("turing", 0.8),  # short
        ("how is turing related to enigma", 0.4),  # relational cue
        ("turing via", 0.4),  # short and relational: relational wins
    ],
)
def test_fusion_weight_follows_the_query_rule(kb: SimpleNamespace, query: str, a: float) -> None:
    result = kb.retriever().retrieve(query, mode="local", top_k=1000)
    for e in result.items:
        assert e.score == pytest.approx(a * e.alpha + (1 - a) * e.beta)
    # the items follow the score when nothing else orders them (no answer type, no reading of the chunks)
    plain = kb.retriever(read_chunks=False).retrieve(query, mode="local", top_k=1000)
    assert [e.score for e in plain.items] == sorted((e.score for e in plain.items), reverse=True)


def test_an_explicit_alpha_weight_wins(kb: SimpleNamespace) -> None:
    result = kb.retriever().retrieve("turing", mode="local", alpha_weight=0.25, top_k=1000)
    for e in result.items:
        assert e.score == pytest.approx(0.25 * e.alpha + 0.75 * e.beta)


# --------------------------------------------------------------------------------------------- compression


def test_compression_keeps_top_k_of_each_kind_with_citations(kb: SimpleNamespace) -> None:
    result = kb.retriever().retrieve(LOCAL_Q, mode="local", top_k=2)
    assert len(result.items) == len(result.relations) == 2
    assert len(result.chunks) == 2
    lines = result.context.splitlines()
    assert lines[0] == "## Entities"
    assert sum(line.startswith("[E:ent:") for line in lines) == 2
    assert sum(line.startswith("[R:rel:") for line in lines) == 2
    assert sum(line.startswith("[C:chunk:") for line in lines) == 2
    assert result.chunks[0].id == chunk("c1")  # cites the most top entities and shares the query's word
    assert f"[C:{chunk('c1')}] {CHUNKS['c1'][1]}" in lines


@pytest.mark.parametrize("budget", [32, 60])
def test_context_respects_the_token_budget(kb: SimpleNamespace, budget: int) -> None:
    full = kb.retriever().retrieve(LOCAL_Q, mode="local")
    assert full.context_tokens > budget
    result = kb.retriever(token_budget=budget).retrieve(LOCAL_Q, mode="local")
    assert 0 < result.context_tokens <= budget
    assert result.context_tokens == len(result.context.split())


def test_context_uses_the_callers_token_counter(kb: SimpleNamespace) -> None:
    result = kb.retriever(count_tokens=len, token_budget=200).retrieve(LOCAL_Q, mode="local")
    assert 0 < len(result.context) == result.context_tokens <= 200


# --------------------------------------------------------------------------------------------- modes


def test_global_mode_seeds_the_relation_endpoints_and_leads_with_relations(kb: SimpleNamespace) -> None:
    result = kb.retriever().retrieve(GLOBAL_Q, mode=Mode.GLOBAL, top_k=1000)
    found = by_id(result)
    # the endpoints of the hits r10 (0.8) and r3 (0.5) are the seeds, weighted by their hit's score; alpha is
    # each entity's own cosine (the global query is axis 1: 0 for every entity)
    assert all(e.alpha == pytest.approx(0.0, abs=1e-6) for e in found.values())
    assert {ent(x) for x in "hmdf"} <= set(found)
    assert found[ent("h")].beta > found[ent("d")].beta
    assert max(found[ent(x)].beta for x in "hm") == pytest.approx(1.0)
    assert result.relations[0].id == rel("r10")
    assert (result.relations[0].src_name, result.relations[0].dst_name) == ("Rejewski", "Poland")
    assert result.context.splitlines()[0] == "## Relations"


def test_hybrid_is_local_and_global_merged_by_max(kb: SimpleNamespace) -> None:
    q = unit(0) + unit(1)
    r = kb.retriever()
    runs = {m: r.retrieve(LOCAL_Q, mode=m, top_k=1000, query_vector=q) for m in ("local", "global", "hybrid")}
    local, glob, hybrid = (by_id(runs[m]) for m in ("local", "global", "hybrid"))
    assert set(hybrid) == set(local) | set(glob)
    for i, e in hybrid.items():
        assert e.score == pytest.approx(max(x[i].score for x in (local, glob) if i in x))
    assert set(runs["hybrid"].subgraph_edges) == set(runs["local"].subgraph_edges) | set(runs["global"].subgraph_edges)


def test_naive_mode_is_the_chunk_index_alone(kb: SimpleNamespace) -> None:
    result = kb.retriever().retrieve(LOCAL_Q, mode="naive", top_k=3)
    assert [c.id for c in result.chunks] == [chunk("c1"), chunk("c3"), chunk("c2")]
    assert [c.score for c in result.chunks] == pytest.approx([0.8, 0.6, 0.3], abs=1e-6)
    assert result.items == []
    assert result.relations == []
    assert result.subgraph_nodes == []
    assert result.context.splitlines()[0] == "## Sources"


def test_mix_mode_adds_the_naive_chunks_to_hybrid(kb: SimpleNamespace) -> None:
    r = kb.retriever()
    mix = r.retrieve(LOCAL_Q, mode="mix", top_k=1000)
    hybrid = r.retrieve(LOCAL_Q, mode="hybrid", top_k=1000)
    assert [e.id for e in mix.items] == [e.id for e in hybrid.items]
    assert {c.id for c in mix.chunks} == {chunk(c) for c in CHUNKS}
    c1 = {c.id: c.score for c in mix.chunks}[chunk("c1")]
    assert c1 >= 0.8 - 1e-6


def test_domain_filter_keeps_only_that_domain(kb: SimpleNamespace) -> None:
    add_entities(kb.graph, [{"id": "ent:x", "name": "Other Turing", "source_chunks": ["chunk:x"]}], domain="other")
    add_relations(kb.graph, [("rel:x", "ent:x", ent("a"), {})], domain="other")
    add_chunks(kb.graph, [{"id": "chunk:x", "doc": "doc:x", "text": "Other Turing text"}], domain="other")
    kb.indexes[0].upsert(["ent:x"], cos_vector({0: 0.95}, free=15)[None, :])
    kb.indexes[2].upsert(["chunk:x"], cos_vector({0: 0.99}, free=15)[None, :])
    unfiltered = kb.retriever().retrieve(LOCAL_Q, mode="mix", top_k=1000)
    assert "ent:x" in unfiltered.subgraph_nodes
    assert "chunk:x" in {c.id for c in unfiltered.chunks}
    assert "rel:x" in unfiltered.subgraph_edges
    result = kb.retriever().retrieve(LOCAL_Q, mode="mix", top_k=1000, domain="main")
    assert "ent:x" not in result.subgraph_nodes
    assert "rel:x" not in result.subgraph_edges
    assert "chunk:x" not in {c.id for c in result.chunks}
    assert set(result.subgraph_nodes) == {ent(x) for x in GQ_DEPTH2}
    assert kb.retriever().retrieve(LOCAL_Q, mode="mix", domain="nowhere").items == []


def test_to_json_carries_the_documented_keys(kb: SimpleNamespace) -> None:
    data = kb.retriever().retrieve(LOCAL_Q, mode="mix", top_k=2).to_json()
    assert data["mode"] == "mix"
    assert set(data["items"][0]) >= {"id", "name", "score", "alpha", "beta"}
    assert set(data["chunks"][0]) >= {"id", "doc", "text"}
    assert data["relations"]
    assert isinstance(data["took_ms"], float)


# --------------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("query", "kwargs", "message"),
    [
        ("", {}, "empty"),
        ("   ", {}, "empty"),
        (LOCAL_Q, {"mode": "fancy"}, "local, global, hybrid, naive, mix"),
        (LOCAL_Q, {"top_k": 0}, "top_k"),
        (LOCAL_Q, {"top_k": -3}, "top_k"),
        (LOCAL_Q, {"top_k": 1001}, "top_k"),
        (LOCAL_Q, {"alpha_weight": 1.5}, "alpha_weight"),
        (LOCAL_Q, {"domain": ""}, "domain"),
        (LOCAL_Q, {"query_vector": [1.0, 0.0]}, "dimension"),
    ],
)
def test_bad_input_is_rejected_before_any_work(
    kb: SimpleNamespace, query: str, kwargs: dict[str, Any], message: str
) -> None:
    before = kb.graph.edges(RELATED, [rel(r) for r in EDGES])
    with pytest.raises(InvalidInput, match=message):
        kb.retriever().retrieve(query, **kwargs)
    assert kb.graph.edges(RELATED, [rel(r) for r in EDGES]) == before
    assert kb.embedder.calls == 0


def test_indexes_of_another_dimension_are_rejected(kb: SimpleNamespace) -> None:
    entities, relations, _ = kb.indexes
    with pytest.raises(InvalidInput, match="chunks"):
        Retriever(kb.graph, entities, relations, index_of({}, 8), kb.embedder, RetrievalConfig(), FeedbackConfig())


def test_a_hub_contributes_only_its_heaviest_edges() -> None:
    graph = InMemoryGraphStore()
    add_entities(graph, [{"id": "hub", "name": "Hub"}, *({"id": f"n{i}", "name": f"N{i}"} for i in range(10))])
    add_relations(graph, [(f"r{i}", "hub", f"n{i}", {"w_struct": float(i + 1)}) for i in range(10)])
    capped = build_ego(GraphCache(graph, epoch=0, decay=0.0, domain=None, fanout=3), {"hub": 0.9}, RetrievalConfig())
    assert set(capped.ids) == {"hub", "n9", "n8", "n7"}
    assert {e.id for e in capped.edges} == {"r9", "r8", "r7"}
    full = build_ego(GraphCache(graph, epoch=0, decay=0.0, domain=None), {"hub": 0.9}, RetrievalConfig())
    assert len(full.ids) == 11


class ProtocolOnly:
    """The same graph seen through the GraphStore protocol alone (no shared records): the path remote stores take."""

    def __init__(self, inner: InMemoryGraphStore) -> None:
        self.query, self.upsert_nodes, self.upsert_edges = inner.query, inner.upsert_nodes, inner.upsert_edges
        self.neighbourhood, self.edges, self.delete, self.close = (
            inner.neighbourhood,
            inner.edges,
            inner.delete,
            inner.close,
        )


def outcome(result: Any) -> tuple[Any, ...]:
    return (
        [(e.id, round(e.score, 12), round(e.alpha, 12), round(e.beta, 12)) for e in result.items],
        [(r.id, round(r.score, 12), r.src_name, r.dst_name, r.description) for r in result.relations],
        [c.id for c in result.chunks],
        result.subgraph_nodes,
        result.subgraph_edges,
        result.context,
    )


@pytest.mark.parametrize("mode", ["local", "global", "hybrid", "mix"])
@pytest.mark.parametrize("domain", [None, "main"])
def test_shared_records_and_the_plain_protocol_give_the_same_answer(
    kb: SimpleNamespace, mode: str, domain: str | None
) -> None:
    add_entities(kb.graph, [{"id": "ent:x", "name": "Other Turing", "source_chunks": ["chunk:x"]}], domain="other")
    add_relations(kb.graph, [("rel:x", "ent:x", ent("a"), {"w_struct": 5.0})], domain="other")
    config = RetrievalConfig(k=3)
    plain = Retriever(ProtocolOnly(kb.graph), *kb.indexes, kb.embedder, config, FeedbackConfig())  # type: ignore[arg-type]
    shared = kb.retriever()
    answers = {q: outcome(shared.retrieve(q, mode=mode, domain=domain)) for q in (LOCAL_Q, GLOBAL_Q)}
    assert any(a[0] for a in answers.values())
    if mode != "global":
        assert ("ent:x" in answers[LOCAL_Q][3]) == (domain is None)
    for query, answer in answers.items():
        assert answer == outcome(plain.retrieve(query, mode=mode, domain=domain))
    assert plain.prepare() == 0


def test_prepared_adjacency_answers_like_a_cold_one_and_follows_writes(kb: SimpleNamespace) -> None:
    prepared = kb.retriever()
    assert prepared.prepare() == len(NAMES)
    for mode in ("local", "global", "hybrid"):
        assert outcome(prepared.retrieve(LOCAL_Q, mode=mode)) == outcome(kb.retriever().retrieve(LOCAL_Q, mode=mode))
    before = outcome(prepared.retrieve(LOCAL_Q, mode="local"))
    src, dst, _ = EDGES["r1"]
    kb.graph.upsert_edges(RELATED, [EdgeRow(rel("r1"), ent(src), ent(dst), "Entity", "Entity", {"w_struct": 40.0})])
    after = outcome(prepared.retrieve(LOCAL_Q, mode="local"))
    assert after == outcome(kb.retriever().retrieve(LOCAL_Q, mode="local"))
    assert after != before
