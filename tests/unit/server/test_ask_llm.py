"""Ask's optional LLM paths against a real local chat server with canned replies: SPARQL proposed for a strict
domain is checked against its schema before it runs (and refused, with the reason, when it fails), and the
schema check itself; plus sameAs folding of answers."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.chat_server import ChatServer
from unit.server.test_ask_router import two_domain_kb

from hybridkg.semantic import KnowledgeBase
from hybridkg.server.ask.answer import AnswerItem
from hybridkg.server.ask.engine import AskEngine
from hybridkg.server.ask.llm import read_sparql
from hybridkg.server.ask.sameas import merge_same_as
from hybridkg.server.ask.settings import AskConfig, AskLLMConfig, LLMSparqlFailure
from hybridkg.server.ask.sparql_check import check_query, load_schema

LIB = "http://example.org/library#"
ID = "http://example.org/library/id/"
ONTOLOGY_GRAPH = "http://example.org/graph/library/ontology"


@pytest.fixture
def kb(tmp_path: Path) -> KnowledgeBase:
    return two_domain_kb(tmp_path)


def no_structural() -> None:
    raise AssertionError("a strict question must not open the structural layer")


def _engine(kb: KnowledgeBase, url: str, failure: LLMSparqlFailure = LLMSparqlFailure.OFFLINE) -> AskEngine:
    llm = AskLLMConfig(base_url=url, model="test-model", sparql=True, sparql_failure=failure)
    return AskEngine(kb, no_structural, AskConfig(llm=llm))  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------ the schema check


@pytest.mark.parametrize(
    ("query", "problem"),
    [
        (f"SELECT ?b WHERE {{ ?b <{LIB}writtenBy> <{ID}le-guin> }}", None),
        (f"ASK {{ <{ID}earthsea> a <{LIB}Book> }}", None),
        (f"SELECT ?b ?l WHERE {{ ?b a <{LIB}Book> ; <http://www.w3.org/2000/01/rdf-schema#label> ?l }}", None),
        (f"SELECT ?a WHERE {{ ?a <{LIB}wrote>/<{LIB}writtenBy> <{ID}le-guin> }}", None),
        (f"SELECT ?b WHERE {{ ?b <{LIB}publishedBy> ?p }}", f"<{LIB}publishedBy> is not a property"),
        (f"SELECT ?a WHERE {{ ?a <{LIB}wrote>/<{LIB}cites>* ?b }}", f"<{LIB}cites> is not a property"),
        (f"SELECT ?b WHERE {{ ?b a <{LIB}Magazine> }}", f"<{LIB}Magazine> is not a class"),
        ("SELECT ?s ?p ?o WHERE { ?s ?p ?o }", "a variable (?p) in predicate position"),
        (f"SELECT ?b WHERE {{ SERVICE <http://evil.example/sparql> {{ ?b <{LIB}wrote> ?x }} }}", "remote SERVICE"),
        (f"CONSTRUCT {{ ?b <{LIB}wrote> ?x }} WHERE {{ ?b <{LIB}wrote> ?x }}", "not SELECT or ASK"),
        (f"DELETE WHERE {{ ?b <{LIB}wrote> ?x }}", "does not parse as a SPARQL query"),
        ("SELECT ?b WHERE { ?b ", "does not parse as a SPARQL query"),
    ],
)
def test_proposed_sparql_is_checked_against_the_schema(kb: KnowledgeBase, query: str, problem: str | None) -> None:
    result = check_query(query, load_schema(kb, ONTOLOGY_GRAPH))
    if problem is None:
        assert result.ok, result.reason
    else:
        assert not result.ok
        assert problem in result.reason


def test_the_query_is_read_from_fenced_or_bare_replies() -> None:
    q = "SELECT ?x WHERE { ?x a <http://e/C> }"
    assert read_sparql(f"Here it is:\n```sparql\n{q}\n```\nDone.") == q
    assert read_sparql(f"<think>hmm</think>{q}") == q
    assert read_sparql("NO_QUERY") is None
    assert read_sparql("I cannot help with that.") is None


# ------------------------------------------------------------------------------------------ the LLM's SPARQL


def test_a_checked_proposal_runs_and_proves_its_inferred_answers(kb: KnowledgeBase) -> None:
    proposal = f"```sparql\nSELECT ?book WHERE {{ ?book <{LIB}writtenBy> <{ID}le-guin> }}\n```"
    with ChatServer([proposal]) as server:
        engine = _engine(kb, server.url)
        a = engine.ask("Which books were written by Ursula K. Le Guin?")
        prompt = server.requests[0].prompt
    assert (a.route.value, a.domain, a.abstained) == ("strict", "library", False)
    assert sorted(x.value for x in a.answers) == [f"{ID}dispossessed", f"{ID}earthsea"]
    assert {x.label for x in a.answers} == {"The Dispossessed", "A Wizard of Earthsea"}
    assert a.sparql == f"SELECT ?book WHERE {{ ?book <{LIB}writtenBy> <{ID}le-guin> }}"
    assert a.evidence["parser"] == "llm"
    assert a.evidence["llm"]["checked"] is True
    # writtenBy is inferred from wrote (owl:inverseOf): each answer carries its derivation
    assert len(a.explanations) == 2
    assert all(e["status"] == "inferred" and e["rule"] == "prp-inv1" for e in a.explanations)
    assert f"<{LIB}writtenBy>" in prompt, "the schema is sent"
    assert f"<{ID}le-guin>" in prompt, "the linked IRIs are sent"


def test_an_ask_proposal_answers_true_or_false(kb: KnowledgeBase) -> None:
    with ChatServer([f"ASK {{ <{ID}earthsea> <{LIB}writtenBy> <{ID}le-guin> }}"]) as server:
        a = _engine(kb, server.url).ask("Was A Wizard of Earthsea written by Ursula K. Le Guin?")
    assert [x.value for x in a.answers] == ["true"]
    assert not a.abstained


def test_a_proposal_failing_the_check_is_not_run_and_abstains_when_configured(kb: KnowledgeBase) -> None:
    bad = f"SELECT ?b WHERE {{ ?b <{LIB}publishedBy> <{ID}le-guin> }}"
    with ChatServer([bad]) as server:
        a = _engine(kb, server.url, LLMSparqlFailure.ABSTAIN).ask("Which books were written by Ursula K. Le Guin?")
    assert a.abstained
    assert a.route.value == "strict"
    assert a.answers == []
    assert "schema check" in a.reason
    assert f"<{LIB}publishedBy> is not a property" in a.reason
    assert a.evidence["llm"]["rejected"]
    assert a.evidence["llm"]["sparql"] == bad


def test_a_proposal_failing_the_check_falls_back_to_the_offline_parser_and_says_so(kb: KnowledgeBase) -> None:
    with ChatServer([f"SELECT ?s WHERE {{ ?s <{LIB}publishedBy> ?o }}"]) as server:
        a = _engine(kb, server.url).ask("Which books were written by Ursula K. Le Guin?")
    assert a.route.value == "strict"
    assert a.evidence["parser"] == "offline"
    assert "the LLM's SPARQL was not used" in a.evidence["note"]
    assert f"<{LIB}publishedBy>" in a.evidence["llm"]["rejected"]
    assert f"{LIB}publishedBy" not in a.sparql


def test_an_unreachable_llm_falls_back_with_the_reason(kb: KnowledgeBase) -> None:
    from support.chat_server import closed_port

    engine = _engine(kb, f"http://127.0.0.1:{closed_port()}/v1", LLMSparqlFailure.ABSTAIN)
    a = engine.ask("Which books were written by Ursula K. Le Guin?")
    assert a.abstained
    assert "the LLM call failed" in a.reason
    assert "ask.llm.base_url" in a.reason


def test_the_llm_settings_need_both_url_and_model() -> None:
    with pytest.raises(ValueError, match="both base_url and model"):
        AskLLMConfig(base_url="http://localhost:8000/v1")


# ------------------------------------------------------------------------------------------ sameAs


def test_same_as_individuals_fold_into_the_best_ranked_one(kb: KnowledgeBase) -> None:
    items = [AnswerItem(f"{ID}ulg", "U. K. Le Guin", 0.4), AnswerItem(f"{ID}earthsea", "A Wizard of Earthsea", 0.9),
             AnswerItem(f"{ID}le-guin", "Ursula K. Le Guin", 0.8), AnswerItem("42", "", 1.0)]
    out = merge_same_as(kb, items)
    assert [x.value for x in out] == [f"{ID}ulg", f"{ID}earthsea", "42"]
    assert out[0].score == 0.8, "the group keeps its best score"
