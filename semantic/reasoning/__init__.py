"""OWL 2 RL engines (reasonable + completion rules, owlrl), sessions and explanations."""

from hybridkg.semantic.reasoning.factory import make_reasoner

__all__ = ["make_reasoner"]
