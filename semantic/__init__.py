"""Semantic layer: RDF store, OWL 2 RL reasoning with explanations, SHACL-gated writes.

The front door is :class:`KnowledgeBase` (write = parse -> SHACL gate -> store -> closure delta ->
listeners); the backends behind it are built from their settings sections by the factories here.
"""

from hybridkg.semantic.base import (
    INFERRED_GRAPH,
    ChangeListener,
    ChangeSet,
    Explanation,
    InferenceDelta,
    QueryResult,
    Reasoner,
    ReasoningSession,
    Severity,
    ShapeValidator,
    TripleStore,
    ValidationReport,
    ValidationResult,
)
from hybridkg.semantic.domains import Domain, DomainMode, DomainPolicy
from hybridkg.semantic.kb import KnowledgeBase, LoadResult, ReasonResult
from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.settings import (
    DomainsConfig,
    ReasonerEngine,
    ReasoningConfig,
    StoreBackend,
    StoreConfig,
    ValidationConfig,
    ValidatorEngine,
)
from hybridkg.semantic.store.factory import make_store
from hybridkg.semantic.validation.factory import make_validator

__all__ = [
    "INFERRED_GRAPH",
    "ChangeListener",
    "ChangeSet",
    "Domain",
    "DomainMode",
    "DomainPolicy",
    "DomainsConfig",
    "Explanation",
    "InferenceDelta",
    "KnowledgeBase",
    "LoadResult",
    "QueryResult",
    "ReasonResult",
    "Reasoner",
    "ReasonerEngine",
    "ReasoningConfig",
    "ReasoningSession",
    "Severity",
    "ShapeValidator",
    "StoreBackend",
    "StoreConfig",
    "TripleStore",
    "ValidationConfig",
    "ValidationReport",
    "ValidationResult",
    "ValidatorEngine",
    "make_reasoner",
    "make_store",
    "make_validator",
]
