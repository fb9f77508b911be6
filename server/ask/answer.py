"""The answer to a question: the one shape the CLI's ``ask --json`` and gRPC's ``AskResponse`` share."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Route(StrEnum):
    STRICT = "strict"  # through the reasoner, with the SPARQL it ran and proofs, or abstain
    FUZZY = "fuzzy"  # graph + vector retrieval


@dataclass(frozen=True)
class AnswerItem:
    value: str  # IRI of a resource, lexical form of a literal, "true"/"false", or the number counted
    label: str = ""
    score: float = 1.0

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "label": self.label, "score": self.score}


@dataclass
class AskAnswer:
    question: str
    route: Route
    domain: str | None
    abstained: bool
    reason: str = ""
    answers: list[AnswerItem] = field(default_factory=list)
    sparql: str = ""
    explanations: list[dict[str, Any]] = field(default_factory=list)  # trees as `explain` prints them
    evidence: dict[str, Any] = field(default_factory=dict)
    took_ms: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "route": self.route.value,
            "domain": self.domain,
            "abstained": self.abstained,
            "reason": self.reason,
            "answers": [a.to_json() for a in self.answers],
            "sparql": self.sparql,
            "explanations": self.explanations,
            "evidence": self.evidence,
            "took_ms": round(self.took_ms, 3),
        }
