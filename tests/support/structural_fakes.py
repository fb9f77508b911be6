"""Fakes and builders for structural-layer unit tests: a table embedder and graph/vector builders.

Vectors are built from cosines: ``cos_vector({0: 0.9}, free=3)`` is ``0.9 e0 + sqrt(1 - 0.81) e3``, so its cosine
with the unit query ``e0`` is exactly 0.9 (up to float32).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from hybridkg.structural.base import CHUNK, ENTITY, RELATED, EdgeRow, Extraction, KnownEntity, Vector
from hybridkg.structural.embedding.hashing import HashEmbedder
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


class RecordingEmbedder:
    """An embedder (feature hashing, 64 dimensions) that records every text it is asked for."""

    def __init__(self) -> None:
        self.inner = HashEmbedder(64)
        self.calls: list[list[str]] = []

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> Vector:
        self.calls.append(list(texts))
        return self.inner.embed(texts)

    def texts(self) -> list[str]:
        return [t for call in self.calls for t in call]


class ScriptedExtractor:
    """Extracts what a table says for a text (an Extractor, BatchExtractor and NameLearner)."""

    def __init__(self, table: Mapping[str, Extraction]) -> None:
        self.table = table
        self.learned: list[KnownEntity] = []
        self.batches = 0

    def extract(self, text: str, *, entity_types: Sequence[str] = ()) -> Extraction:
        return self.table.get(text.strip(), Extraction())

    def extract_batch(self, texts: Sequence[str], *, entity_types: Sequence[str] = ()) -> list[Extraction]:
        self.batches += 1
        return [self.extract(t) for t in texts]

    def learn(self, entities: Sequence[KnownEntity]) -> None:
        self.learned.extend(entities)
