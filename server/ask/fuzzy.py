"""The fuzzy route: graph + vector retrieval over one or more fuzzy domains, as ranked answers with evidence.

Answers are the retrieved entities, best first: ``value`` is the IRI of the knowledge-base resource the
entity was linked to when it has one (the offline extractor links labels the semantic layer knows), else
the structural entity id (``ent:...``). ``evidence`` holds the relations and chunks the retrieval used, with
ids, text snippets and provenance (document, chunk index, domain), so a caller can check every answer.
With an LLM configured, ``evidence.generated`` adds a written answer citing the ids it used.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from hybridkg.errors import HybridKGError
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.server.ask.answer import AnswerItem
from hybridkg.server.ask.llm import AskLLM, generate_answer
from hybridkg.server.ask.sameas import merge_same_as
from hybridkg.structural.base import CHUNK, ENTITY
from hybridkg.structural.knowledge import StructuralKB
from hybridkg.structural.retrieval.results import ContextChunk, ScoredEntity, ScoredRelation
from hybridkg.structural.settings import Mode

log = logging.getLogger(__name__)

#: Characters of a chunk's text kept in the evidence.
SNIPPET_CHARS = 400


@dataclass
class FuzzyResult:
    answers: list[AnswerItem]
    evidence: dict[str, Any] = field(default_factory=dict)


def _snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _props(skb: StructuralKB, label: str, ids: Sequence[str], props: Sequence[str]) -> dict[str, dict[str, Any]]:
    if not ids:
        return {}
    nodes = skb.graph.neighbourhood(label, list(ids), depth=0, props=list(props)).nodes
    return {node_id: dict(node.props) for node_id, node in nodes.items()}


def _merge_best(rows: Sequence[Any], top_k: int) -> list[Any]:
    """Rows of several retrievals (one per domain) by id, the best score kept, best first."""
    best: dict[str, Any] = {}
    for row in rows:
        if row.id not in best or row.score > best[row.id].score:
            best[row.id] = row
    return sorted(best.values(), key=lambda r: (-r.score, r.id))[:top_k]


def _merge_ranked(results: Sequence[Sequence[ScoredEntity]], top_k: int) -> list[ScoredEntity]:
    """Entity items of several retrievals (one per domain) by id, in the order each retrieval ranked them:
    by rank, then score (retrieval puts the entities a question names after its candidate answers, whatever
    their scores); an entity found by several keeps its best rank."""
    best: dict[str, tuple[int, ScoredEntity]] = {}
    for items in results:
        for rank, row in enumerate(items):
            prior = best.get(row.id)
            if prior is None or (rank, -row.score) < (prior[0], -prior[1].score):
                best[row.id] = (rank, row)
    ordered = sorted(best.values(), key=lambda x: (x[0], -x[1].score, x[1].id))
    return [row for _, row in ordered][:top_k]


def retrieve(
    skb: StructuralKB,
    kb: KnowledgeBase,
    question: str,
    *,
    domains: Sequence[str],
    mode: Mode,
    top_k: int,
    llm: AskLLM | None = None,
    max_context_chars: int = 12_000,
) -> FuzzyResult:
    """Retrieval over ``domains`` (the query embedded once), merged (entities by rank, the rest by score), as
    answers and evidence."""
    vector = skb.embedder.embed([question])[0]
    ranked: list[list[ScoredEntity]] = []
    relations: list[ScoredRelation] = []
    chunks: list[ContextChunk] = []
    contexts: list[str] = []
    for domain in domains:
        result = skb.retrieve(question, mode=mode, top_k=top_k, domain=domain, query_vector=vector)
        ranked.append(result.items)
        relations.extend(result.relations)
        chunks.extend(result.chunks)
        if result.context:
            contexts.append(result.context)
    entities = _merge_ranked(ranked, top_k)
    relations = _merge_best(relations, top_k)
    chunks = _merge_best(chunks, top_k)

    entity_props = _props(skb, ENTITY, [e.id for e in entities], ("iri", "domain"))
    chunk_props = _props(skb, CHUNK, [c.id for c in chunks], ("doc", "domain", "index"))
    iri_of = {e.id: str(entity_props.get(e.id, {}).get("iri") or "") for e in entities}
    answers = merge_same_as(
        kb, [AnswerItem(value=iri_of[e.id] or e.id, label=e.name, score=round(float(e.score), 6)) for e in entities]
    )
    evidence: dict[str, Any] = {
        "mode": str(mode),
        "domains": list(domains),
        "entities": [
            {"id": e.id, "iri": iri_of[e.id] or None, "name": e.name, "type": e.type,
             "domain": entity_props.get(e.id, {}).get("domain"), "score": round(float(e.score), 6)}
            for e in entities
        ],
        "relations": [
            {"id": r.id, "src": r.src, "dst": r.dst, "src_name": r.src_name, "dst_name": r.dst_name,
             "type": r.type, "description": _snippet(r.description), "score": round(float(r.score), 6)}
            for r in relations
        ],
        "chunks": [
            {"id": c.id, "text": _snippet(c.text), "score": round(float(c.score), 6),
             "provenance": {"doc": c.doc, "index": chunk_props.get(c.id, {}).get("index"),
                            "domain": chunk_props.get(c.id, {}).get("domain")}}
            for c in chunks
        ],
    }
    if llm is not None:
        evidence["generated"] = _generated(llm, question, evidence, max_context_chars)
    return FuzzyResult(answers, evidence)


def _generated(llm: AskLLM, question: str, evidence: dict[str, Any], max_chars: int) -> dict[str, Any]:
    """A written answer from the evidence, or the reason there is none (the ranked answers stand either way)."""
    if not (evidence["entities"] or evidence["relations"] or evidence["chunks"]):
        return {"text": "", "citations": [], "model": llm.model, "error": "nothing was retrieved to answer from"}
    try:
        generated = generate_answer(llm, question, evidence, max_chars=max_chars)
    except HybridKGError as e:
        log.warning("the LLM answer for %r failed: %s", question, e)
        return {"text": "", "citations": [], "model": llm.model, "error": str(e)}
    return generated.to_json()
