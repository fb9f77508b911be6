"""Build the configured OWL 2 RL engine (engines are imported only when chosen)."""

from __future__ import annotations

from typing import assert_never

from hybridkg.semantic.base import Reasoner
from hybridkg.semantic.settings import ReasonerEngine, ReasoningConfig


def make_reasoner(config: ReasoningConfig) -> Reasoner:
    """The reasoner ``config.engine`` names: ``reasonable`` (default, fast) or ``owlrl`` (reference)."""
    match config.engine:
        case ReasonerEngine.REASONABLE:
            from hybridkg.semantic.reasoning.reasonable_engine import ReasonableReasoner

            return ReasonableReasoner()
        case ReasonerEngine.OWLRL:
            from hybridkg.semantic.reasoning.owlrl_engine import OwlrlReasoner

            return OwlrlReasoner()
        case ReasonerEngine.DUCKDB:
            from hybridkg.semantic.reasoning.duckdb_engine import DuckDBReasoner

            return DuckDBReasoner(store_blank_node_types=config.store_blank_node_types)
        case _:
            assert_never(config.engine)
