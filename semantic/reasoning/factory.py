"""Build the configured OWL 2 RL engine (engines are imported only when chosen)."""

from __future__ import annotations

from hybridkg.errors import InvalidInput
from hybridkg.semantic.base import Reasoner, ReasonerEngine


def make_reasoner(engine: ReasonerEngine | str = ReasonerEngine.REASONABLE) -> Reasoner:
    """The reasoner for ``engine``: ``reasonable`` (default, fast) or ``owlrl`` (reference)."""
    try:
        choice = ReasonerEngine(engine)
    except ValueError as e:
        accepted = ", ".join(repr(str(m)) for m in ReasonerEngine)
        raise InvalidInput(f"unknown reasoner engine {engine!r}; accepted: {accepted}") from e
    match choice:
        case ReasonerEngine.REASONABLE:
            from hybridkg.semantic.reasoning.reasonable_engine import ReasonableReasoner

            return ReasonableReasoner()
        case ReasonerEngine.OWLRL:
            from hybridkg.semantic.reasoning.owlrl_engine import OwlrlReasoner

            return OwlrlReasoner()
