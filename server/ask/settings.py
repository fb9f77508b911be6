"""The ``ask:`` section of the settings: domain routing and question answering.

Routing links the question's mentions to each domain's lexicon (exact and normalised matches, then, when
allowed, embedding similarity), scores the domains and picks one; strict domains answer through the
offline semantic parser (or a schema-checked LLM proposal), fuzzy domains through retrieval.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator

from hybridkg.structural.settings import DEFAULT_MAX_RESPONSE_BYTES, Mode


class LLMSparqlFailure(StrEnum):
    """What a strict domain does when the LLM's SPARQL fails the schema check (or the call fails)."""

    OFFLINE = "offline"  # answer with the offline parser and say so in the evidence
    ABSTAIN = "abstain"  # abstain, naming what was wrong with the proposal


class AskLLMConfig(BaseModel):
    """An OpenAI-compatible chat API for Ask (same shape as ``structural.extractor``'s LLM settings)."""

    model_config = ConfigDict(extra="forbid")

    base_url: str | None = Field(
        default=None, description="OpenAI-compatible API base URL, e.g. http://localhost:8000/v1; unset: no LLM."
    )
    model: str | None = Field(default=None, description="Chat model name.")
    api_key: str | None = Field(default=None, description="API key (sent as a Bearer token).")
    timeout_s: float = Field(default=60.0, gt=0, description="Timeout of one chat-completions call.")
    max_response_bytes: int = Field(
        default=DEFAULT_MAX_RESPONSE_BYTES,
        gt=0,
        description="Largest chat-completions response read, in bytes; a larger one fails the call.",
    )
    sparql: bool = Field(
        default=False,
        description="Strict domains: let the LLM propose the SPARQL (checked against the domain's schema "
        "before it runs). Off: the offline parser answers alone.",
    )
    sparql_failure: LLMSparqlFailure = Field(
        default=LLMSparqlFailure.OFFLINE,
        description="When the proposed SPARQL fails the check or the call fails: offline (use the offline "
        "parser) or abstain.",
    )
    generate: bool = Field(
        default=True,
        description="Fuzzy domains: write an answer from the retrieved evidence, citing the ids it used "
        "(evidence.generated), when an LLM is configured.",
    )
    max_context_chars: int = Field(
        default=12_000, ge=500, description="Largest evidence text sent to the LLM for a generated answer."
    )

    @property
    def configured(self) -> bool:
        return bool(self.base_url and self.model)

    @model_validator(mode="after")
    def _complete(self) -> AskLLMConfig:
        if bool(self.base_url) != bool(self.model):
            raise ValueError("ask.llm needs both base_url and model (or neither, for no LLM)")
        return self


class AskConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    default_mode: Mode = Field(
        default=Mode.HYBRID, description="Retrieval mode of the fuzzy route when a request names none."
    )
    top_k: int = Field(default=10, ge=1, description="Answers (and evidence items) returned when a request names none.")
    link_min_score: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="Mentions the lexicon links with a lower score are ignored when routing (exact labels "
        "score 1, normal forms a little less, embedding matches their discounted cosine).",
    )
    embedding_links: bool = Field(
        default=True,
        description="Link by embedding similarity when no domain links exactly (this opens the structural "
        "layer and loads its embedding model) or when the structural layer is already open.",
    )
    ambiguity_margin: float = Field(
        default=0.1,
        ge=0,
        lt=1,
        description="Two domains whose link scores are within this fraction of the best are ambiguous: the "
        "answer abstains and names both.",
    )
    strict_threshold: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Strict domains: the semantic parser abstains below this parse confidence (unset: the "
        "parser's own default).",
    )
    fuzzy_without_links: bool = Field(
        default=True,
        description="A question that links into no domain is answered by retrieval over every fuzzy domain "
        "(flagged low-confidence in the evidence); off: it abstains.",
    )
    max_question_chars: int = Field(default=2_000, ge=10, description="Longest question accepted.")
    llm: AskLLMConfig = Field(
        default_factory=lambda: AskLLMConfig(), description="Optional LLM for proposed SPARQL and generated answers."
    )
