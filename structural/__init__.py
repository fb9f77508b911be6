"""Structural layer: property graph, vectors and LightRAG-style retrieval.

The front door is :class:`StructuralKB` (documents -> chunks -> extraction -> merge with provenance;
retrieval; feedback), opened from its settings section with ``open_structural_kb(config, path)``.
"""

from hybridkg.structural.base import (
    Edge,
    Embedder,
    ExtractedEntity,
    ExtractedRelation,
    Extraction,
    Extractor,
    GraphStore,
    KnownEntity,
    Node,
    VectorHit,
    VectorIndex,
)
from hybridkg.structural.embedding.factory import make_embedder
from hybridkg.structural.factory import make_extractor, open_structural_kb
from hybridkg.structural.feedback import FeedbackResult
from hybridkg.structural.graphstore.factory import make_graph_store
from hybridkg.structural.knowledge import DocumentChange, StructuralKB, known_from_rows
from hybridkg.structural.retrieval import ContextChunk, RetrievalResult, ScoredEntity, ScoredRelation
from hybridkg.structural.settings import (
    ChunkingConfig,
    EmbedderConfig,
    EmbedderKind,
    ExtractorConfig,
    ExtractorKind,
    FeedbackConfig,
    GraphBackend,
    GraphConfig,
    Mode,
    RetrievalConfig,
    StructuralConfig,
    VectorBackend,
    VectorConfig,
)
from hybridkg.structural.vectors.factory import make_vector_index

__all__ = [
    "ChunkingConfig",
    "ContextChunk",
    "DocumentChange",
    "Edge",
    "Embedder",
    "EmbedderConfig",
    "EmbedderKind",
    "ExtractedEntity",
    "ExtractedRelation",
    "Extraction",
    "Extractor",
    "ExtractorConfig",
    "ExtractorKind",
    "FeedbackConfig",
    "FeedbackResult",
    "GraphBackend",
    "GraphConfig",
    "GraphStore",
    "KnownEntity",
    "Mode",
    "Node",
    "RetrievalConfig",
    "RetrievalResult",
    "ScoredEntity",
    "ScoredRelation",
    "StructuralConfig",
    "StructuralKB",
    "VectorBackend",
    "VectorConfig",
    "VectorHit",
    "VectorIndex",
    "known_from_rows",
    "make_embedder",
    "make_extractor",
    "make_graph_store",
    "make_vector_index",
    "open_structural_kb",
]
