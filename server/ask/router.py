"""Domain routing: link the question's mentions against every domain's lexicon and pick the domain.

1. Exact and normalised links (labels, alt labels, class and property labels; case, plurals, punctuation,
   word order) against each candidate domain's lexicon, no model needed.
2. Embedding links are added when the structural layer is already open (its embedder costs nothing more) or
   when nothing linked lexically anywhere (then it is worth loading the model): ``embedder`` is asked for
   only in those cases.
3. A domain's score is the sum, over the question spans it links, of the span's best mention score times
   the span's word count: how much of the question the domain explains, and how surely.
4. The best domain wins unless another comes within ``ask.ambiguity_margin`` of it: then the question is
   ambiguous and the answer abstains, naming the candidates. No link anywhere: the caller decides (fuzzy
   retrieval over every fuzzy domain, flagged low-confidence, or abstain); never a strict domain.

A ``domain`` hint narrows the candidates to that domain (an unknown name is :class:`NotFound` naming the
known ones); the hinted domain is chosen even when nothing links, and its own route decides.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from hybridkg.semantic.domains import Domain
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.qa.lexicon import Mention, TextEmbedder
from hybridkg.semantic.qa.text import tokenize
from hybridkg.server.ask.lexicons import LexiconCache
from hybridkg.server.ask.settings import AskConfig


class Outcome(StrEnum):
    CHOSEN = "chosen"  # one domain
    AMBIGUOUS = "ambiguous"  # several domains link (nearly) equally well
    UNLINKED = "unlinked"  # nothing in the question links to any candidate domain


@dataclass(frozen=True)
class DomainLinks:
    domain: Domain
    mentions: tuple[Mention, ...]
    score: float

    def to_json(self) -> dict[str, object]:
        return {
            "domain": self.domain.name,
            "mode": self.domain.mode.value,
            "score": round(self.score, 4),
            "mentions": [
                {"text": m.text, "iri": m.iri, "kind": m.kind, "label": m.label, "score": round(m.score, 4)}
                for m in self.mentions
            ],
        }


@dataclass(frozen=True)
class RouteDecision:
    outcome: Outcome
    domain: Domain | None = None
    candidates: tuple[DomainLinks, ...] = ()  # every domain with a link, best first
    embedding: bool = False  # embedding similarity was used
    hinted: bool = False
    reason: str = ""
    tied: tuple[str, ...] = field(default=())  # the ambiguous domains' names

    @property
    def chosen(self) -> DomainLinks | None:
        return next((c for c in self.candidates if self.domain and c.domain.name == self.domain.name), None)

    def to_json(self) -> dict[str, object]:
        return {
            "outcome": self.outcome.value,
            "domain": self.domain.name if self.domain else None,
            "hinted": self.hinted,
            "embedding": self.embedding,
            "candidates": [c.to_json() for c in self.candidates],
        }


def span_score(question: str, mentions: Sequence[Mention]) -> float:
    """Sum over linked spans of (best mention score x words in the span)."""
    best: dict[tuple[int, int], float] = {}
    for m in mentions:
        best[(m.start, m.end)] = max(best.get((m.start, m.end), 0.0), m.score)
    return sum(score * max(1, len(tokenize(question[s:e]))) for (s, e), score in best.items())


class Router:
    def __init__(self, kb: KnowledgeBase, lexicons: LexiconCache, config: AskConfig) -> None:
        self._kb = kb
        self._lexicons = lexicons
        self._config = config

    def candidates(self, hint: str | None) -> list[Domain]:
        if hint:
            return [self._kb.policy.get(hint)]
        return list(self._kb.policy.domains.values())

    def _link(self, question: str, domains: Sequence[Domain], embedder: TextEmbedder | None) -> list[DomainLinks]:
        out = []
        for dom in domains:
            mentions = self._lexicons.lexicon(dom.name, embedder).link(question, min_score=self._config.link_min_score)
            if mentions:
                out.append(DomainLinks(dom, tuple(mentions), span_score(question, mentions)))
        out.sort(key=lambda c: (-c.score, c.domain.name))
        return out

    def route(
        self,
        question: str,
        *,
        hint: str | None = None,
        embedder: Callable[[bool], TextEmbedder | None] | None = None,
    ) -> RouteDecision:
        """Pick the domain for ``question``. ``embedder(needed)`` returns the structural embedder: when
        ``needed`` is False only if it is already loaded, when True loading it if need be (or None)."""
        domains = self.candidates(hint)
        linked = self._link(question, domains, None)
        used_embedding = False
        if embedder is not None and self._config.embedding_links:
            # a hinted strict domain never loads the model: a strict question never opens the structural layer
            model = embedder(not linked and not (hint and domains[0].strict))
            if model is not None:
                linked = self._link(question, domains, model)
                used_embedding = True
        if hint:
            dom = domains[0]
            return RouteDecision(Outcome.CHOSEN, dom, tuple(linked), used_embedding, hinted=True,
                                 reason=f"the request named domain {dom.name!r}")
        if not linked:
            return RouteDecision(Outcome.UNLINKED, None, (), used_embedding,
                                 reason="no part of the question links to a label of any domain")
        best = linked[0]
        tied = [c for c in linked if c.score >= best.score * (1 - self._config.ambiguity_margin)]
        if len(tied) > 1:
            names = ", ".join(f"{c.domain.name} ({c.domain.mode.value}, score {c.score:.2f})" for c in tied)
            return RouteDecision(
                Outcome.AMBIGUOUS, None, tuple(linked), used_embedding,
                reason=f"the question links equally well to several domains: {names}; ask again naming one "
                "(the `domain` field or --domain)",
                tied=tuple(c.domain.name for c in tied),
            )
        runner = f"; next: {linked[1].domain.name} ({linked[1].score:.2f})" if len(linked) > 1 else ""
        return RouteDecision(Outcome.CHOSEN, best.domain, tuple(linked), used_embedding,
                             reason=f"linked best to {best.domain.name} (score {best.score:.2f}{runner})")
