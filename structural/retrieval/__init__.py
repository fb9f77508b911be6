"""Retrieval of the structural layer: vector seeds, a gated ego network, propagation, fusion and compression.

See :mod:`.engine` for the modes and ``docs/retrieval.md`` for the formulas.
"""

from hybridkg.structural.retrieval.engine import Retriever
from hybridkg.structural.retrieval.results import (
    ContextChunk,
    LinkedEntity,
    RetrievalResult,
    ScoredEntity,
    ScoredRelation,
)

__all__ = ["ContextChunk", "LinkedEntity", "RetrievalResult", "Retriever", "ScoredEntity", "ScoredRelation"]
