"""Structural layer: property graph, vectors and LightRAG-style retrieval.

The front door is :class:`StructuralKB` (documents -> chunks -> extraction -> merge with provenance;
retrieval; feedback), opened from its settings section with ``open_structural_kb(config, path)``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

#: Where each public name lives: imported on first use, so that importing a module of this package (its
#: settings, say, as the CLI does for every command) does not import the whole layer (numpy and the rest).
_LAZY = {
    'Edge': 'hybridkg.structural.base',
    'Embedder': 'hybridkg.structural.base',
    'ExtractedEntity': 'hybridkg.structural.base',
    'ExtractedRelation': 'hybridkg.structural.base',
    'Extraction': 'hybridkg.structural.base',
    'Extractor': 'hybridkg.structural.base',
    'GraphStore': 'hybridkg.structural.base',
    'KnownEntity': 'hybridkg.structural.base',
    'Node': 'hybridkg.structural.base',
    'VectorHit': 'hybridkg.structural.base',
    'VectorIndex': 'hybridkg.structural.base',
    'make_embedder': 'hybridkg.structural.embedding.factory',
    'make_extractor': 'hybridkg.structural.factory',
    'open_structural_kb': 'hybridkg.structural.factory',
    'FeedbackResult': 'hybridkg.structural.feedback',
    'make_graph_store': 'hybridkg.structural.graphstore.factory',
    'DocumentChange': 'hybridkg.structural.knowledge',
    'StructuralKB': 'hybridkg.structural.knowledge',
    'known_from_rows': 'hybridkg.structural.knowledge',
    'ContextChunk': 'hybridkg.structural.retrieval',
    'RetrievalResult': 'hybridkg.structural.retrieval',
    'ScoredEntity': 'hybridkg.structural.retrieval',
    'ScoredRelation': 'hybridkg.structural.retrieval',
    'ChunkingConfig': 'hybridkg.structural.settings',
    'EmbedderConfig': 'hybridkg.structural.settings',
    'EmbedderKind': 'hybridkg.structural.settings',
    'ExtractorConfig': 'hybridkg.structural.settings',
    'ExtractorKind': 'hybridkg.structural.settings',
    'FeedbackConfig': 'hybridkg.structural.settings',
    'GraphBackend': 'hybridkg.structural.settings',
    'GraphConfig': 'hybridkg.structural.settings',
    'Mode': 'hybridkg.structural.settings',
    'RetrievalConfig': 'hybridkg.structural.settings',
    'StructuralConfig': 'hybridkg.structural.settings',
    'VectorBackend': 'hybridkg.structural.settings',
    'VectorConfig': 'hybridkg.structural.settings',
    'make_vector_index': 'hybridkg.structural.vectors.factory',
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value

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
