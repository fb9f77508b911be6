"""Fusion of the vector level (alpha) and the graph level (beta) into one score per entity and per relation.

For an entity ``v`` of G_q: ``score(v) = a * alpha(v) + (1 - a) * beta(v)`` with ``alpha(v) = max(cos(q, v), 0)``
from ``v``'s stored vector, for every node of G_q (0 for an entity without a stored vector); ``beta`` is the
propagation of the seeds' weights (:mod:`.propagate`).
For a relation ``r = (u, v)`` of G_q: ``score(r) = a * alpha(r) + (1 - a) * (beta(u) + beta(v)) / 2`` where
``alpha(r)`` is ``max(cos(q, r), 0)`` when ``r`` is a relation-index hit (global mode) and
``(alpha(u) + alpha(v)) / 2`` otherwise.

The weight ``a`` (:func:`alpha_weight_for`): a caller's explicit weight wins; else a query containing a word of
``relational_cues`` uses ``relational_alpha_weight`` (0.4; the graph matters more), else a query of at most
``short_query_tokens`` words uses ``short_alpha_weight`` (0.8; a name lookup), else ``alpha_weight`` (0.6).
Words are ``\\w+`` runs of the case-folded query.

Hybrid and mix modes run local and global and merge by id, keeping the higher score (:func:`merge_runs`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from hybridkg.structural.base import Edge
from hybridkg.structural.retrieval.ego import EgoNetwork
from hybridkg.structural.retrieval.propagate import propagate
from hybridkg.structural.settings import RetrievalConfig

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]
_WORD = re.compile(r"\w+")


def query_words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def alpha_weight_for(query: str, config: RetrievalConfig, explicit: float | None = None) -> float:
    """The fusion weight ``a`` of alpha for ``query`` (see the module docstring)."""
    if explicit is not None:
        return explicit
    words = query_words(query)
    cues = {c.casefold() for c in config.relational_cues}
    if any(w in cues for w in words):
        return config.relational_alpha_weight
    if len(words) <= config.short_query_tokens:
        return config.short_alpha_weight
    return config.alpha_weight


@dataclass(slots=True)
class GraphRun:
    """One propagation over one G_q: per-node alpha, beta, score and per-edge relation score."""

    ego: EgoNetwork
    alpha: FloatArray
    beta: FloatArray
    score: FloatArray
    relation_score: FloatArray
    iterations: int


def score_run(
    ego: EgoNetwork,
    seeds: Mapping[str, float],
    alpha_of: Mapping[str, float],
    relation_alpha: Mapping[str, float],
    a: float,
    config: RetrievalConfig,
) -> GraphRun:
    """Scores of one G_q: ``seeds`` (id -> seed weight) personalise the propagation; ``alpha_of`` holds
    ``alpha(v)`` for the nodes (missing: 0); ``relation_alpha`` the scores of relation-index hits."""
    weight = np.fromiter((seeds.get(i, 0.0) for i in ego.ids), dtype=np.float64, count=ego.size)
    alpha = np.fromiter((alpha_of.get(i, 0.0) for i in ego.ids), dtype=np.float64, count=ego.size)
    beta, iterations = propagate(ego, weight, config.damping, config.epsilon, config.max_iterations)
    score = a * alpha + (1.0 - a) * beta
    rel_alpha = (alpha[ego.src] + alpha[ego.dst]) / 2.0
    if relation_alpha:
        for i, edge in enumerate(ego.edges):
            hit = relation_alpha.get(edge.id)
            if hit is not None:
                rel_alpha[i] = hit
    relation_score = a * rel_alpha + (1.0 - a) * (beta[ego.src] + beta[ego.dst]) / 2.0
    return GraphRun(ego, alpha, beta, score, relation_score, iterations)


@dataclass(slots=True)
class Evidence:
    """The merged outcome of a query's graph runs: entities and relations as positions into parallel arrays."""

    ids: list[str]  # entity ids
    score: FloatArray
    alpha: FloatArray
    beta: FloatArray
    edges: list[Edge]
    edge_score: FloatArray
    src: IntArray  # positions in ``ids`` of each edge's stored ends
    dst: IntArray
    weights: FloatArray  # w(edge)
    iterations: int

    def entity_order(self) -> IntArray:
        """Entity positions, best score first (ties by id)."""
        return _order(self.score, self.ids)

    def relation_order(self) -> IntArray:
        """Relation positions, best score first (ties by id)."""
        return _order(self.edge_score, [e.id for e in self.edges])

    def centrality(self) -> FloatArray:
        """Each entity's weighted degree over the evidence relations, divided by the largest (0 when none)."""
        n = len(self.ids)
        degree = np.bincount(self.src, weights=self.weights, minlength=n) + np.bincount(
            self.dst, weights=self.weights, minlength=n
        )
        top = float(degree.max()) if n else 0.0
        return degree / top if top > 0 else np.zeros(n)


def _order(score: FloatArray, ids: Sequence[str]) -> IntArray:
    if not ids:
        return np.zeros(0, dtype=np.intp)
    return np.lexsort((np.array(ids), -score))


def merge_runs(runs: Sequence[GraphRun]) -> Evidence:
    """Union of the runs; an entity or relation found by several keeps its highest-scoring entry."""
    iterations = max((r.iterations for r in runs), default=0)
    if len(runs) == 1:
        r, ego = runs[0], runs[0].ego
        return Evidence(
            list(ego.ids), r.score, r.alpha, r.beta, list(ego.edges), r.relation_score, ego.src, ego.dst,
            ego.weights, iterations,
        )
    nodes: dict[str, int] = {}
    edge_at: dict[str, int] = {}
    edges: list[Edge] = []
    placed = []
    for r in runs:
        pos = np.fromiter((nodes.setdefault(i, len(nodes)) for i in r.ego.ids), dtype=np.intp, count=r.ego.size)
        epos = np.fromiter(
            (edge_at.setdefault(e.id, len(edge_at)) for e in r.ego.edges), dtype=np.intp, count=len(r.ego.edges)
        )
        edges.extend(e for e, k in zip(r.ego.edges, epos.tolist(), strict=True) if k >= len(edges))
        placed.append((r, pos, epos))
    n, m = len(nodes), len(edges)
    score, alpha, beta = np.full(n, -np.inf), np.zeros(n), np.zeros(n)
    edge_score = np.full(m, -np.inf)
    src, dst, weights = np.zeros(m, dtype=np.intp), np.zeros(m, dtype=np.intp), np.zeros(m)
    for r, pos, epos in placed:
        better = r.score > score[pos]
        at = pos[better]
        score[at], alpha[at], beta[at] = r.score[better], r.alpha[better], r.beta[better]
        src[epos], dst[epos], weights[epos] = pos[r.ego.src], pos[r.ego.dst], r.ego.weights
        better_edge = r.relation_score > edge_score[epos]
        edge_score[epos[better_edge]] = r.relation_score[better_edge]
    return Evidence(list(nodes), score, alpha, beta, edges, edge_score, src, dst, weights, iterations)
