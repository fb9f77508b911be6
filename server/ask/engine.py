"""Ask: route a question to a domain, answer it there, return one :class:`AskAnswer`.

* A question that links into a **strict** domain is answered by that domain's semantic parser (or a
  schema-checked LLM proposal) with the SPARQL it ran and derivation trees, or abstains. It is never
  answered by retrieval, and it never opens the structural layer (FalkorDB, the embedding model).
* A question that links into a **fuzzy** domain is answered by retrieval over that domain.
* Two domains linking (nearly) equally well: abstain, naming them.
* Nothing links anywhere: retrieval over every fuzzy domain, flagged ``evidence.low_confidence`` (or abstain
  when ``ask.fuzzy_without_links`` is off, or when no fuzzy domain exists). Never a strict domain.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hybridkg.errors import InvalidInput
from hybridkg.semantic.domains import Domain
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.qa.lexicon import TextEmbedder
from hybridkg.server.ask import fuzzy, strict
from hybridkg.server.ask.answer import AskAnswer, Route
from hybridkg.server.ask.lexicons import LexiconCache
from hybridkg.server.ask.llm import AskLLM
from hybridkg.server.ask.router import Outcome, RouteDecision, Router
from hybridkg.server.ask.settings import AskConfig
from hybridkg.structural.settings import Mode

if TYPE_CHECKING:
    from hybridkg.structural.knowledge import StructuralKB

MAX_TOP_K = 1000


class AskEngine:
    """Question answering over a knowledge base and (opened lazily) its structural layer."""

    def __init__(
        self,
        kb: KnowledgeBase,
        structural: Callable[[], StructuralKB],
        config: AskConfig,
        *,
        structural_open: Callable[[], bool] | None = None,
    ) -> None:
        """``structural`` returns the structural layer, opening it on first call; ``structural_open`` says
        whether it is open already (without it, only the engine's own first call counts)."""
        self.kb = kb
        self.config = config
        self._structural = structural
        self._structural_open = structural_open
        self._opened = threading.Event()
        self.lexicons = LexiconCache(kb)
        self.router = Router(kb, self.lexicons, config)
        self.llm = AskLLM(config.llm) if config.llm.configured else None

    def close(self) -> None:
        self.lexicons.close()

    # ------------------------------------------------------------------ structural layer
    def _skb(self) -> StructuralKB:
        skb = self._structural()
        self._opened.set()
        return skb

    @property
    def structural_open(self) -> bool:
        return self._opened.is_set() or (self._structural_open is not None and self._structural_open())

    def _embedder(self, needed: bool) -> TextEmbedder | None:
        if needed or self.structural_open:
            return self._skb().embedder
        return None

    # ------------------------------------------------------------------ the question
    def _check(self, question: str, mode: str | None, top_k: int | None) -> tuple[str, Mode, int]:
        if not isinstance(question, str) or not question.strip():
            raise InvalidInput("the question is empty")
        if len(question) > self.config.max_question_chars:
            raise InvalidInput(
                f"the question has {len(question)} characters, more than ask.max_question_chars="
                f"{self.config.max_question_chars}"
            )
        if top_k is not None and not 0 < top_k <= MAX_TOP_K:
            raise InvalidInput(f"top_k must be between 1 and {MAX_TOP_K}, not {top_k}")
        if mode:
            try:
                mode_ = Mode(mode.lower())
            except ValueError:
                raise InvalidInput(
                    f"unknown mode {mode!r}; use one of {', '.join(m.value for m in Mode)}"
                ) from None
        else:
            mode_ = self.config.default_mode
        return " ".join(question.split()), mode_, top_k or self.config.top_k

    def ask(self, question: str, domain: str | None = None, mode: str | None = None,
            top_k: int | None = None) -> AskAnswer:
        """Answer ``question``; ``domain`` narrows routing to that domain (NotFound if unknown), ``mode`` and
        ``top_k`` apply to the fuzzy route (defaults ``ask.default_mode``, ``ask.top_k``)."""
        start = time.perf_counter()
        text, mode_, k = self._check(question, mode, top_k)
        decision = self.router.route(text, hint=domain or None, embedder=self._embedder)
        answer = self._answer(question, text, decision, mode_, k)
        answer.evidence.setdefault("routing", decision.to_json())
        answer.took_ms = (time.perf_counter() - start) * 1000.0
        return answer

    def _answer(self, question: str, text: str, decision: RouteDecision, mode: Mode, k: int) -> AskAnswer:
        if decision.outcome is Outcome.CHOSEN and decision.domain is not None:
            dom = decision.domain
            if dom.strict:
                return self._strict(question, text, dom, decision)
            return self._fuzzy(question, text, [dom], mode, k, decision.reason, low_confidence=False)
        if decision.outcome is Outcome.AMBIGUOUS:
            strict_tied = any(self.kb.policy.get(name).strict for name in decision.tied)
            return AskAnswer(question, Route.STRICT if strict_tied else Route.FUZZY, None, True, decision.reason)
        fuzzy_domains = [d for d in self.kb.policy.domains.values() if not d.strict]
        if not fuzzy_domains or not self.config.fuzzy_without_links:
            why = "no fuzzy domain exists" if not fuzzy_domains else "ask.fuzzy_without_links is off"
            return AskAnswer(question, Route.STRICT if not fuzzy_domains else Route.FUZZY, None, True,
                             f"{decision.reason}; {why}, so nothing answers it without a link")
        names = ", ".join(d.name for d in fuzzy_domains)
        reason = f"{decision.reason}; answered by retrieval over the fuzzy domains ({names}), low confidence"
        return self._fuzzy(question, text, fuzzy_domains, mode, k, reason, low_confidence=True)

    def _strict(self, question: str, text: str, dom: Domain, decision: RouteDecision) -> AskAnswer:
        embedder = self._embedder(False) if decision.embedding else None
        lexicon = self.lexicons.lexicon(dom.name, embedder)
        out = strict.answer(self.kb, dom, lexicon, text, self.config, self.lexicons, self.llm)
        reason = out.reason if out.abstained else (out.reason or decision.reason)
        return AskAnswer(
            question, Route.STRICT, dom.name, out.abstained, reason, out.answers, out.sparql, out.explanations,
            out.evidence,
        )

    def _fuzzy(self, question: str, text: str, domains: list[Domain], mode: Mode, k: int, reason: str, *,
               low_confidence: bool) -> AskAnswer:
        llm = self.llm if self.config.llm.generate else None
        result = fuzzy.retrieve(
            self._skb(), self.kb, text, domains=[d.name for d in domains], mode=mode, top_k=k, llm=llm,
            max_context_chars=self.config.llm.max_context_chars,
        )
        evidence: dict[str, Any] = {"low_confidence": low_confidence, **result.evidence}
        abstained = not result.answers
        if abstained:
            reason = f"{reason}; retrieval found nothing"
        return AskAnswer(
            question, Route.FUZZY, domains[0].name if len(domains) == 1 else None, abstained, reason,
            result.answers, "", [], evidence,
        )
