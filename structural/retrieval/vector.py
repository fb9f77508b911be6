"""Vector level: the query vector and what the three vector indexes give for it.

* local: the top ``k`` entities by cosine are the seeds, ``alpha(s) = max(cos(q, s), 0)`` (hits with
  ``cos <= 0`` are not seeds);
* global: the top ``k`` relations by cosine; their endpoints are the seeds, an endpoint's alpha being the best
  score of the relations it ends;
* naive: the top chunks by cosine;
* every node of G_q: ``alpha(v) = max(cos(q, v), 0)`` from the stored entity vectors, fetched in one batch
  (:func:`entity_alpha`); an entity without a stored vector has alpha 0.

With a domain, each search asks for ``4 *`` as many hits and keeps those whose node (relation) has that
``domain`` property; ids the graph no longer holds are dropped.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from hybridkg.errors import InvalidInput
from hybridkg.structural.base import CHUNK, Edge, Embedder, GraphStore, Node, Vector, VectorIndex
from hybridkg.structural.retrieval.ego import GraphCache

OVERSAMPLE = 4


def embed_query(embedder: Embedder, query: str, given: Any, dim: int) -> tuple[Vector, float]:
    """``(unit query vector, embedding milliseconds)``; ``given`` skips the embedder."""
    start = time.perf_counter()
    if given is None:
        raw = embedder.embed([query])
    else:
        try:
            raw = np.asarray(given, dtype=np.float32)
        except (TypeError, ValueError) as e:
            raise InvalidInput(f"query_vector is not a vector of numbers: {e}") from e
    vector = raw[0] if raw.ndim == 2 and raw.shape[0] == 1 else raw
    if vector.ndim != 1 or vector.shape[0] != dim:
        raise InvalidInput(f"the query vector has shape {tuple(raw.shape)}; the indexes hold dimension {dim}")
    norm = float(np.linalg.norm(vector)) if np.isfinite(vector).all() else float("nan")
    if not norm > 0:
        raise InvalidInput("the query vector must be finite and not all zeros")
    elapsed = (time.perf_counter() - start) * 1000.0 if given is None else 0.0
    return (vector / norm).astype(np.float32), elapsed


def _oversampled(k: int, domain: str | None) -> int:
    return k * OVERSAMPLE if domain is not None else k


def entity_seeds(index: VectorIndex, cache: GraphCache, q: Vector, k: int) -> dict[str, float]:
    """Seed id -> alpha."""
    if len(index) == 0:
        return {}
    hits = [h for h in index.search(q, _oversampled(k, cache.domain)) if h.score > 0]
    if cache.domain is not None:
        cache.fetch(h.id for h in hits)
        hits = [h for h in hits if cache.entity(h.id) is not None]
    return {h.id: float(h.score) for h in hits[:k]}


def entity_alpha(index: VectorIndex, q: Vector, ids: Sequence[str]) -> dict[str, float]:
    """``max(cos(q, v), 0)`` for each of ``ids`` the index holds a vector for (one ``get`` call)."""
    if not ids or len(index) == 0:
        return {}
    found, matrix = index.get(ids)
    if not found:
        return {}
    cos = np.maximum(matrix.astype(np.float64, copy=False) @ q.astype(np.float64), 0.0)
    return dict(zip(found, cos.tolist(), strict=True))


def relation_seeds(
    index: VectorIndex, cache: GraphCache, q: Vector, k: int
) -> tuple[dict[str, float], dict[str, float], list[Edge]]:
    """``(seed id -> alpha, relation id -> score, the relations)`` of the top ``k`` relation hits."""
    if len(index) == 0:
        return {}, {}, []
    hits = [h for h in index.search(q, _oversampled(k, cache.domain)) if h.score > 0]
    found = cache.relations([h.id for h in hits])
    kept = [(h.score, found[h.id]) for h in hits if h.id in found and cache.in_domain(found[h.id].props)][:k]
    seeds: dict[str, float] = {}
    for score, edge in kept:
        for end in (edge.src, edge.dst):
            seeds[end] = max(seeds.get(end, 0.0), float(score))
    return seeds, {e.id: float(s) for s, e in kept}, [e for _, e in kept]


def chunk_hits(
    index: VectorIndex, graph: GraphStore, q: Vector, k: int, domain: str | None
) -> list[tuple[Node, float]]:
    """The top ``k`` chunks with their cosine (clipped at 0), best first."""
    if len(index) == 0:
        return []
    hits = index.search(q, _oversampled(k, domain))
    nodes = graph.neighbourhood(CHUNK, [h.id for h in hits], depth=0).nodes
    out: list[tuple[Node, float]] = []
    for h in hits:
        node = nodes.get(h.id)
        if node is not None and node.label == CHUNK and (domain is None or node.props.get("domain") == domain):
            out.append((node, max(float(h.score), 0.0)))
    return out[:k]
