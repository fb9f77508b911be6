"""Ask's optional LLM: a proposed SPARQL query for strict domains, a written answer for fuzzy ones.

The chat client is the structural layer's OpenAI-compatible one (stdlib HTTP, capped responses, errors that
say what to check); Ask only adds its prompts and reads the replies. Nothing here runs unless
``ask.llm.base_url`` and ``ask.llm.model`` are set.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hybridkg.errors import BackendUnavailable, HybridKGError
from hybridkg.server.ask.settings import AskLLMConfig
from hybridkg.structural.extract.llm import LLMExtractor

_THINK = re.compile(r"<think>.*?(</think>|$)", re.S | re.I)
_FENCE = re.compile(r"```[\w-]*[ \t]*\n?(.*?)(```|$)", re.S)
_QUERY_START = re.compile(r"^\s*(PREFIX|BASE|SELECT|ASK)\b", re.I | re.M)

SPARQL_SYSTEM = (
    "You translate questions into one SPARQL 1.1 SELECT or ASK query over an OWL knowledge base whose "
    "inferences are already materialised. Use only the classes and properties listed, with their full IRIs "
    "in angle brackets. Return only the query in a ```sparql code block. If the schema cannot express the "
    "question, return exactly NO_QUERY."
)

ANSWER_SYSTEM = (
    "You answer a question using only the evidence given. Every evidence item has an id in square brackets. "
    'Reply with one JSON object: {"answer": "<a short answer>", "citations": ["<id>", ...]} listing the ids '
    "of the items your answer rests on. If the evidence does not answer the question, say so in `answer` "
    "and cite nothing."
)


class AskLLM:
    """A chat model for Ask (``ask.llm``): one call per proposal or generated answer."""

    def __init__(self, config: AskLLMConfig) -> None:
        if not config.base_url or not config.model:
            raise HybridKGError("ask.llm needs base_url and model")
        self.model = config.model
        self._client = LLMExtractor(
            config.base_url, config.model, config.api_key, timeout_s=config.timeout_s, gleaning=0,
            max_response_bytes=config.max_response_bytes,
        )

    @property
    def endpoint(self) -> str:
        return self._client.endpoint

    def chat(self, messages: Sequence[dict[str, str]]) -> str:
        try:
            return self._client.chat(messages)
        except BackendUnavailable as e:
            # the shared client names the extractor's settings; for Ask the keys live under ask.llm
            raise type(e)(str(e).replace("structural.extractor", "ask.llm")) from e


# ------------------------------------------------------------------------------------------ proposed SPARQL


@dataclass(frozen=True)
class SchemaTerm:
    iri: str
    label: str
    kind: str  # "class" | "object property" | "datatype property" | "property"
    domain: str = ""
    range: str = ""


def sparql_messages(
    question: str, schema: Sequence[SchemaTerm], mentions: Sequence[tuple[str, str]]
) -> list[dict[str, str]]:
    """The prompt: the domain's schema, the resources the question names (label, IRI), the question."""
    lines = []
    for t in schema:
        extra = "".join(f" {k} <{v}>" for k, v in (("domain", t.domain), ("range", t.range)) if v)
        lines.append(f"- {t.kind} <{t.iri}> \"{t.label}\"{extra}")
    named = "\n".join(f'- "{label}" is <{iri}>' for label, iri in mentions) or "- (none linked)"
    user = (
        "Schema:\n" + "\n".join(lines) + "\n\nResources named in the question:\n" + named
        + "\n\nLabels are rdfs:label <http://www.w3.org/2000/01/rdf-schema#label>. Question: " + question
    )
    return [{"role": "system", "content": SPARQL_SYSTEM}, {"role": "user", "content": user}]


def read_sparql(reply: str) -> str | None:
    """The query in a reply (fenced or bare), or None when the model declined (NO_QUERY) or sent none."""
    text = _THINK.sub("", reply).strip()
    if "NO_QUERY" in text:
        return None
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1).strip()
    start = _QUERY_START.search(text)
    return text[start.start():].strip() if start else None


# ------------------------------------------------------------------------------------------ generated answers


@dataclass
class GeneratedAnswer:
    text: str
    citations: list[str] = field(default_factory=list)
    model: str = ""
    unknown_citations: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "citations": self.citations, "model": self.model}
        if self.unknown_citations:
            out["unknown_citations"] = self.unknown_citations
        return out


def _evidence_text(evidence: dict[str, Any], max_chars: int) -> tuple[str, set[str]]:
    lines: list[str] = []
    ids: set[str] = set()
    for e in evidence.get("entities", []):
        lines.append(f"[{e['id']}] entity {e['name']} ({e['type']})")
        ids.add(e["id"])
    for r in evidence.get("relations", []):
        desc = f": {r['description']}" if r.get("description") else ""
        lines.append(f"[{r['id']}] {r['src_name']} -{r['type']}-> {r['dst_name']}{desc}")
        ids.add(r["id"])
    for c in evidence.get("chunks", []):
        lines.append(f"[{c['id']}] text: {c['text']}")
        ids.add(c["id"])
    out: list[str] = []
    size = 0
    for line in lines:
        if size + len(line) > max_chars:
            break
        out.append(line)
        size += len(line) + 1
    shown = {i for i in ids if any(line.startswith(f"[{i}]") for line in out)}
    return "\n".join(out), shown


def _json_object(reply: str) -> dict[str, Any] | None:
    text = _THINK.sub("", reply).strip()
    fenced = _FENCE.search(text)
    candidates = [fenced.group(1)] if fenced else []
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        candidates.append(text[start: end + 1])
    for candidate in candidates:
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, dict):
            return data
    return None


def generate_answer(llm: AskLLM, question: str, evidence: dict[str, Any], *, max_chars: int) -> GeneratedAnswer:
    """Ask the model to answer from ``evidence``; citations outside the evidence shown are reported apart."""
    context, shown = _evidence_text(evidence, max_chars)
    messages = [
        {"role": "system", "content": ANSWER_SYSTEM},
        {"role": "user", "content": f"Evidence:\n{context}\n\nQuestion: {question}"},
    ]
    reply = llm.chat(messages)
    data = _json_object(reply)
    if data is None:  # a plain-prose answer: keep it, with the ids it mentions in brackets
        text = _THINK.sub("", reply).strip()
        cited = list(dict.fromkeys(re.findall(r"\[([^\]\s]+)\]", text)))
    else:
        text = str(data.get("answer") or "").strip()
        raw = data.get("citations") or []
        cited = [str(c).strip().strip("[]") for c in raw] if isinstance(raw, list) else []
    known = [c for c in dict.fromkeys(cited) if c in shown]
    unknown = [c for c in dict.fromkeys(cited) if c not in shown]
    return GeneratedAnswer(text, known, llm.model, unknown)
