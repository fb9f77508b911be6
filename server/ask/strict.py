"""The strict route: the offline semantic parser (default), or an LLM's SPARQL checked against the schema.

Either way the answer rests on the knowledge base's asserted + inferred triples and carries the SPARQL that
ran; answers resting on an inferred triple carry its derivation tree. Below the parser's confidence, or
when a proposal fails its check under ``sparql_failure: abstain``, the answer abstains and says why. It
never falls back to retrieval.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from hybridkg.errors import HybridKGError
from hybridkg.semantic.base import INFERRED_GRAPH
from hybridkg.semantic.domains import Domain
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.qa.lexicon import Lexicon
from hybridkg.server.ask.answer import AnswerItem
from hybridkg.server.ask.lexicons import LexiconCache
from hybridkg.server.ask.llm import AskLLM, read_sparql, sparql_messages
from hybridkg.server.ask.sameas import merge_same_as
from hybridkg.server.ask.settings import AskConfig, LLMSparqlFailure
from hybridkg.server.ask.sparql_check import CheckResult, Schema, check_query, load_schema

log = logging.getLogger(__name__)

#: Most derivation trees attached to one LLM-run answer (each costs an explain call).
MAX_EXPLANATIONS = 20


@dataclass
class StrictOutcome:
    abstained: bool
    reason: str = ""
    answers: list[AnswerItem] = field(default_factory=list)
    sparql: str = ""
    explanations: list[dict[str, Any]] = field(default_factory=list)
    evidence: dict[str, Any] = field(default_factory=dict)


def _tree(e: Any) -> dict[str, Any]:
    return e.to_json() if hasattr(e, "to_json") else dict(e)


def offline(kb: KnowledgeBase, dom: Domain, lexicon: Lexicon, question: str, config: AskConfig,
            cache: LexiconCache) -> StrictOutcome:
    """The offline semantic parser's answer (``semantic.qa``), one parser per domain and lexicon, cached."""
    from hybridkg.semantic.qa.answer import StrictAnswerer

    key = f"answerer:{id(lexicon)}"
    threshold = {} if config.strict_threshold is None else {"threshold": config.strict_threshold}
    answerer = cache.get(dom.name, key, lambda: StrictAnswerer(kb, dom.name, lexicon, **threshold))
    result = answerer.answer(question)
    answers = [AnswerItem(str(a.value), a.label, float(a.score)) for a in result.answers]
    return StrictOutcome(
        abstained=bool(result.abstained),
        reason=result.reason,
        answers=[] if result.abstained else merge_same_as(kb, answers),
        sparql=result.sparql or "",
        explanations=[_tree(e) for e in result.explanations],
        evidence={"parser": "offline", "confidence": round(float(result.confidence), 4)},
    )


def answer(kb: KnowledgeBase, dom: Domain, lexicon: Lexicon, question: str, config: AskConfig,
           cache: LexiconCache, llm: AskLLM | None) -> StrictOutcome:
    if llm is None or not config.llm.sparql:
        return offline(kb, dom, lexicon, question, config, cache)
    proposal = propose(kb, dom, lexicon, question, cache, llm)
    if proposal.outcome is not None:
        return proposal.outcome
    failure = {"model": llm.model, "sparql": proposal.sparql, "rejected": proposal.problem}
    if config.llm.sparql_failure is LLMSparqlFailure.ABSTAIN:
        return StrictOutcome(True, f"the LLM's SPARQL was not used: {proposal.problem}", sparql=proposal.sparql,
                             evidence={"parser": "llm", "llm": failure})
    fallback = offline(kb, dom, lexicon, question, config, cache)
    fallback.evidence["llm"] = failure
    fallback.evidence["note"] = f"the LLM's SPARQL was not used ({proposal.problem}); the offline parser answered"
    return fallback


@dataclass
class Proposal:
    sparql: str = ""
    problem: str = ""
    outcome: StrictOutcome | None = None  # set when the proposal passed and ran


def propose(kb: KnowledgeBase, dom: Domain, lexicon: Lexicon, question: str, cache: LexiconCache,
            llm: AskLLM) -> Proposal:
    """Ask the LLM for SPARQL, check it against ``dom``'s schema, run it; a Proposal with the problem if not."""
    schema: Schema = cache.get(dom.name, "schema", lambda: load_schema(kb, dom.ontology_graph))
    named = [(m.text, m.iri) for m in lexicon.link(question) if m.kind == "entity"]
    try:
        reply = llm.chat(sparql_messages(question, schema.terms, named))
    except HybridKGError as e:
        log.warning("the LLM's SPARQL proposal for %r failed: %s", question, e)
        return Proposal(problem=f"the LLM call failed ({e})")
    query = read_sparql(reply)
    if query is None:
        return Proposal(problem="the model proposed no query")
    check = check_query(query, schema)
    if not check.ok:
        return Proposal(query, f"the proposed query failed the schema check: {check.reason}")
    try:
        result = kb.query(query)
    except HybridKGError as e:
        return Proposal(query, f"the proposed query failed to run ({e})")
    evidence: dict[str, Any] = {"parser": "llm", "llm": {"model": llm.model, "checked": True}}
    if result.kind == "ask":
        value = "true" if result.boolean else "false"
        return Proposal(query, outcome=StrictOutcome(False, answers=[AnswerItem(value, value, 1.0)], sparql=query,
                                                     evidence=evidence))
    rows = [dict(zip(result.variables, row, strict=True)) for row in result.rows]
    answers = _answers(lexicon, result.variables, result.rows)
    if not answers:
        return Proposal(query, "the proposed query returned no answer")
    return Proposal(query, outcome=StrictOutcome(
        False, answers=merge_same_as(kb, answers), sparql=query,
        explanations=_explanations(kb, check, rows), evidence=evidence,
    ))


def _answers(lexicon: Lexicon, variables: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[AnswerItem]:
    """The first projected variable is the answer; a literal in another column labels it."""
    out: dict[str, AnswerItem] = {}
    for row in rows:
        term = row[0] if row else None
        if term is None or isinstance(term, BlankNode):
            continue
        value = term.value
        label = next((t.value for t in row[1:] if isinstance(t, Literal)), "")
        if not label and isinstance(term, NamedNode):
            label = next(iter(lexicon.labels(value)), "")
        out.setdefault(value, AnswerItem(value, label, 1.0))
    return list(out.values())


def _explanations(kb: KnowledgeBase, check: CheckResult, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Derivation trees of the inferred triples the answer rows rest on (patterns instantiated per row)."""
    from rdflib import Literal as RdfLiteral
    from rdflib import URIRef, Variable

    from hybridkg.semantic.convert import from_rdflib_term

    def term(t: Any, row: dict[str, Any]) -> Any:
        if isinstance(t, Variable):
            return row.get(str(t))
        if isinstance(t, URIRef):
            return NamedNode(str(t))
        if isinstance(t, RdfLiteral):
            return from_rdflib_term(t)
        return None  # blank nodes of a pattern name nothing to explain

    seen: set[Triple] = set()
    trees: list[dict[str, Any]] = []
    for row in rows:
        for s, p, o in check.patterns:
            subj, obj = term(s, row), term(o, row)
            if not isinstance(subj, (NamedNode, BlankNode)) or obj is None:
                continue
            triple = Triple(subj, NamedNode(p), obj)
            if triple in seen:
                continue
            seen.add(triple)
            if next(kb.store.quads(triple.subject, triple.predicate, triple.object, INFERRED_GRAPH), None) is None:
                continue
            if any(q.graph_name != INFERRED_GRAPH for q in kb.store.quads(triple.subject, triple.predicate,
                                                                           triple.object)):
                continue  # also asserted: no derivation needed
            trees.append(kb.explain(triple).to_json())
            if len(trees) >= MAX_EXPLANATIONS:
                return trees
    return trees
