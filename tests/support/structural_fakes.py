"""Fakes and builders for structural-layer unit tests: a table embedder and graph/vector builders.

Vectors are built from cosines: ``cos_vector({0: 0.9}, free=3)`` is ``0.9 e0 + sqrt(1 - 0.81) e3``, so its cosine
with the unit query ``e0`` is exactly 0.9 (up to float32).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from hybridkg.structural.base import CHUNK, ENTITY, RELATED, EdgeRow, Vector
from hybridkg.structural.graphstore.memory import InMemoryGraphStore
from hybridkg.structural.vectors.exact import ExactIndex

DIM = 16


def unit(axis: int, dim: int = DIM) -> Vector:
    v = np.zeros(dim, dtype=np.float32)
    v[axis] = 1.0
    return v


def cos_vector(cosines: Mapping[int, float], free: int, dim: int = DIM) -> Vector:
    """A unit vector with the given components on the query axes and the rest of its length on axis ``free``."""
    v = np.zeros(dim, dtype=np.float64)
    for axis, c in cosines.items():
        v[axis] = c
    rest = 1.0 - float(np.sum(v * v))
    v[free] = np.sqrt(max(rest, 0.0))
    return v.astype(np.float32)


class TableEmbedder:
    """An :class:`~hybridkg.structural.base.Embedder` that knows a fixed table of texts; every other text (entity
    types and expected answer types, compared by retrieval's answer typing) gets one and the same vector on the
    last axis, so answer typing finds every type equally compatible unless a test puts them in the table."""

    def __init__(self, table: Mapping[str, Vector], dim: int = DIM) -> None:
        self._table = {k: np.asarray(v, dtype=np.float32) / np.linalg.norm(v) for k, v in table.items()}
        self._dim = dim
        self.calls = 0

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> Vector:
        self.calls += 1
        other = unit(self._dim - 1, self._dim)
        return np.stack([self._table.get(t, other) for t in texts]).astype(np.float32)


def index_of(vectors: Mapping[str, Vector], dim: int = DIM) -> ExactIndex:
    index = ExactIndex(dim)
    if vectors:
        index.upsert(list(vectors), np.stack(list(vectors.values())))
    return index


def add_entities(graph: InMemoryGraphStore, rows: Iterable[Mapping[str, Any]], domain: str = "main") -> None:
    graph.upsert_nodes(ENTITY, [{"domain": domain, **row} for row in rows])


def add_relations(
    graph: InMemoryGraphStore, rows: Iterable[tuple[str, str, str, Mapping[str, Any]]], domain: str = "main"
) -> None:
    """``rows`` of ``(id, src, dst, props)`` between entities."""
    graph.upsert_edges(
        RELATED, [EdgeRow(i, s, d, ENTITY, ENTITY, {"domain": domain, **props}) for i, s, d, props in rows]
    )


def add_chunks(graph: InMemoryGraphStore, rows: Iterable[Mapping[str, Any]], domain: str = "main") -> None:
    graph.upsert_nodes(CHUNK, [{"domain": domain, **row} for row in rows])
