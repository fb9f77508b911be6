"""Fusion of the vector level (alpha) and the graph level (beta) into one score per entity and per relation.

For an entity ``v`` of G_q: ``score(v) = a * alpha(v) + (1 - a) * beta(v)`` (``alpha = 0`` off the seeds).
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

from ..base import Edge
from ..settings import RetrievalConfig
from .ego import EgoNetwork
from .propagate import propagate

FloatArray = npt.NDArray[np.float64]
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
    ego: EgoNetwork, seeds: Mapping[str, float], relation_alpha: Mapping[str, float], a: float, config: RetrievalConfig
) -> GraphRun:
    alpha = np.fromiter((seeds.get(i, 0.0) for i in ego.ids), dtype=np.float64, count=ego.size)
    beta, iterations = propagate(ego, alpha, config.damping, config.epsilon, config.max_iterations)
    score = a * alpha + (1.0 - a) * beta
    rel_alpha = (alpha[ego.src] + alpha[ego.dst]) / 2.0
    for i, edge in enumerate(ego.edges):
        hit = relation_alpha.get(edge.id)
        if hit is not None:
            rel_alpha[i] = hit
    relation_score = a * rel_alpha + (1.0 - a) * (beta[ego.src] + beta[ego.dst]) / 2.0
    return GraphRun(ego, alpha, beta, score, relation_score, iterations)


@dataclass(slots=True)
class Evidence:
    """The merged outcome of a query's graph runs, keyed by id."""

    entities: dict[str, tuple[float, float, float]]  # id -> (score, alpha, beta)
    relations: dict[str, tuple[float, Edge]]  # id -> (score, edge)
    iterations: int

    def ranked_entities(self) -> list[str]:
        return sorted(self.entities, key=lambda i: (-self.entities[i][0], i))

    def ranked_relations(self) -> list[str]:
        return sorted(self.relations, key=lambda i: (-self.relations[i][0], i))


def merge_runs(runs: Sequence[GraphRun]) -> Evidence:
    """Union of the runs; an entity or relation found by several keeps its highest-scoring entry."""
    entities: dict[str, tuple[float, float, float]] = {}
    relations: dict[str, tuple[float, Edge]] = {}
    for run in runs:
        scores, alphas, betas = run.score.tolist(), run.alpha.tolist(), run.beta.tolist()
        for i, id_ in enumerate(run.ego.ids):
            old = entities.get(id_)
            if old is None or scores[i] > old[0]:
                entities[id_] = (scores[i], alphas[i], betas[i])
        for edge, score in zip(run.ego.edges, run.relation_score.tolist(), strict=True):
            old_rel = relations.get(edge.id)
            if old_rel is None or score > old_rel[0]:
                relations[edge.id] = (score, edge)
    return Evidence(entities, relations, max((r.iterations for r in runs), default=0))
