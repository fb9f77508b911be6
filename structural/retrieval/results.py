"""Typed results of retrieval: scored entities, relations and chunks, the evidence subgraph and the context."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hybridkg.structural.settings import Mode


@dataclass(frozen=True, slots=True)
class ScoredEntity:
    id: str
    name: str
    type: str
    description: str
    score: float  # fused: a * alpha + (1 - a) * beta
    alpha: float  # vector level: max(cos(q, v), 0) from the entity's stored vector (0 without one)
    beta: float  # graph level: propagated score / its maximum over G_q


@dataclass(frozen=True, slots=True)
class LinkedEntity:
    """An entity the query names: ``query[start:end]`` is ``mention``; ``fuzzy`` when a typo was corrected."""

    id: str
    name: str
    mention: str
    start: int
    end: int
    fuzzy: bool = False


@dataclass(frozen=True, slots=True)
class ScoredRelation:
    id: str
    src: str
    dst: str
    src_name: str
    dst_name: str
    type: str
    keywords: tuple[str, ...]
    description: str
    score: float


@dataclass(frozen=True, slots=True)
class ContextChunk:
    id: str
    doc: str
    text: str
    score: float


@dataclass(slots=True)
class RetrievalResult:
    mode: Mode
    items: list[ScoredEntity] = field(default_factory=list)
    relations: list[ScoredRelation] = field(default_factory=list)
    chunks: list[ContextChunk] = field(default_factory=list)
    subgraph_nodes: list[str] = field(default_factory=list)  # G_q, best first
    subgraph_edges: list[str] = field(default_factory=list)
    context: str = ""
    context_tokens: int = 0
    took_ms: float = 0.0  # whole call, embedding included
    embed_ms: float = 0.0
    iterations: int = 0  # propagation iterations (the largest over the runs of a hybrid query)
    linked: list[LinkedEntity] = field(default_factory=list)  # entities the query names (seeds), in query order

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: ``mode``, ``items``, ``relations``, ``chunks``, ``took_ms`` and the rest."""
        return {
            "mode": str(self.mode),
            "items": [
                {"id": e.id, "name": e.name, "type": e.type, "score": e.score, "alpha": e.alpha, "beta": e.beta}
                for e in self.items
            ],
            "relations": [
                {
                    "id": r.id,
                    "src": r.src,
                    "dst": r.dst,
                    "src_name": r.src_name,
                    "dst_name": r.dst_name,
                    "type": r.type,
                    "keywords": list(r.keywords),
                    "description": r.description,
                    "score": r.score,
                }
                for r in self.relations
            ],
            "chunks": [{"id": c.id, "doc": c.doc, "text": c.text, "score": c.score} for c in self.chunks],
            "took_ms": self.took_ms,
            "embed_ms": self.embed_ms,
            "iterations": self.iterations,
            "linked": [
                {"id": e.id, "name": e.name, "mention": e.mention, "start": e.start, "end": e.end, "fuzzy": e.fuzzy}
                for e in self.linked
            ],
            "subgraph": {"nodes": list(self.subgraph_nodes), "edges": list(self.subgraph_edges)},
            "context": self.context,
            "context_tokens": self.context_tokens,
        }
