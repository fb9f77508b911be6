"""Sparql with encoding TEXT (TSV / N-Triples lines written by the store): the same answers as typed rows, the
same limits, the same deadlines."""

from __future__ import annotations

import time

import grpc
import pytest
from integration.grpc.service import KEYS, Server, auth
from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from hybridkg.client import Client
from hybridkg.errors import ResultTooLarge
from hybridkg.proto.hybridkg.v1 import knowledge_pb2 as pb
from hybridkg.server.settings import Role

TRICKY = """
PREFIX ex: <urn:text:>
INSERT DATA { GRAPH <urn:text:g> {
  ex:a ex:says "tab\\there, newline\\nhere, \\"quotes\\", back\\\\slash, é 𝄞"@en-GB .
  ex:a ex:count 42 . ex:a ex:ratio 1.5 . ex:a ex:big "1e3"^^<http://www.w3.org/2001/XMLSchema#double> .
  ex:a ex:flag true . ex:a ex:odd "x"^^ex:dt . ex:a ex:empty "" .
  ex:a ex:knows _:someone . _:someone ex:says "hi" .
} }
"""

QUERIES = [
    "SELECT ?p ?o WHERE { GRAPH <urn:text:g> { <urn:text:a> ?p ?o } } ORDER BY ?p ?o",
    "SELECT ?s ?o ?none WHERE { GRAPH <urn:text:g> { ?s <urn:text:says> ?o OPTIONAL { ?s <urn:x:no> ?none } } }",
    "SELECT * WHERE { }",
    "SELECT ?x WHERE { ?x <urn:x:nothing> ?y }",
    "SELECT ?t WHERE { GRAPH <urn:text:g> { ?s <urn:text:count> ?o } BIND(<<( ?s <urn:text:count> ?o )>> AS ?t) }",
    "CONSTRUCT { ?s ?p ?o } WHERE { GRAPH <urn:text:g> { ?s ?p ?o } }",
]


@pytest.fixture(scope="module")
def tricky(service: Server) -> Server:
    with Client(service.target, KEYS[Role.WRITER]) as client:
        client.update(TRICKY)
    return service


def _normalise(items: list[object]) -> list[object]:
    """Blank node labels are the server's choice; compare everything else exactly."""
    def term(t: object) -> object:
        if isinstance(t, BlankNode):
            return "_:b"
        if isinstance(t, Triple):
            return (term(t.subject), t.predicate, term(t.object))
        return t
    return sorted((tuple(term(v) for v in row) if isinstance(row, tuple) else term(row) for row in items), key=repr)


@pytest.mark.parametrize("query", QUERIES)
def test_text_and_rows_give_the_same_terms(tricky: Server, query: str) -> None:
    with Client(tricky.target, KEYS[Role.READER]) as client:
        text = client.sparql(query, text=True)
        rows = client.sparql(query, text=False)
        got_text, got_rows = list(text), list(rows)  # type: ignore[call-overload]
    assert _normalise(got_text) == _normalise(got_rows)
    if "says" in query:
        assert Literal('tab\there, newline\nhere, "quotes", back\\slash, é 𝄞', language="en-GB") in {
            r[1] for r in got_text}
    if query.startswith("SELECT * WHERE { }"):
        assert got_text == [()]


def test_text_messages_hold_whole_lines_and_the_header_once(tricky: Server) -> None:
    request = pb.SparqlRequest(query="SELECT ?s ?p ?o WHERE { ?s ?p ?o }", encoding=pb.RESULT_ENCODING_TEXT)
    with tricky.channel() as channel:
        messages = list(tricky.stub(channel).Sparql(request, metadata=auth(Role.READER)))
    assert list(messages[0].variables) == ["s", "p", "o"]
    assert messages[0].text.startswith(b"?s\t?p\t?o\n")
    assert all(m.text.endswith(b"\n") and not m.rows for m in messages)
    lines = b"".join(m.text for m in messages).count(b"\n") - 1
    with Client(tricky.target, KEYS[Role.READER]) as client:
        assert lines == len(list(client.sparql("SELECT ?s ?p ?o WHERE { ?s ?p ?o }", text=False)))  # type: ignore[arg-type]


def test_row_cap_and_large_rows_hold_for_text(tight: Server) -> None:
    with Client(tight.target, KEYS[Role.READER], timeout=10) as client:
        with pytest.raises(ResultTooLarge, match="server.max_result_rows"):
            list(client.sparql("SELECT * WHERE { ?s ?p ?o }"))  # type: ignore[call-overload]
        assert len(list(client.sparql("SELECT * WHERE { ?s ?p ?o } LIMIT 100"))) == 100  # type: ignore[arg-type]
        expand = ('BIND("' + "x" * 100 + '" AS ?a) BIND(CONCAT(?a,?a,?a,?a,?a,?a,?a,?a,?a,?a) AS ?b) '
                  "BIND(CONCAT(?b,?b,?b,?b,?b,?b,?b,?b,?b,?b) AS ?c) BIND(CONCAT(?c,?c,?c,?c) AS ?d)")
        with pytest.raises(ResultTooLarge, match="server.max_message_bytes"):
            list(client.sparql(f"SELECT ?d WHERE {{ {expand} }}"))  # type: ignore[call-overload]
        rows = list(client.sparql(f"SELECT ?s ?b WHERE {{ ?s ?p ?o {expand} }} LIMIT 90"))  # type: ignore[call-overload]
        assert len(rows) == 90
        assert all(r[1].value == "x" * 1000 for r in rows)


def test_text_query_is_stopped_at_the_deadline_and_cancel(single_worker: Server) -> None:
    cross = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
    request = pb.SparqlRequest(query=cross, encoding=pb.RESULT_ENCODING_TEXT)
    start = time.monotonic()
    with single_worker.channel() as channel, pytest.raises(grpc.RpcError) as failed:
        for _ in single_worker.stub(channel).Sparql(request, timeout=1.0, metadata=auth(Role.READER)):
            pass
    assert failed.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
    assert time.monotonic() - start < 3.0
    with single_worker.channel() as channel:
        call = single_worker.stub(channel).Sparql(request, metadata=auth(Role.READER))
        assert next(call).text
        call.cancel()
    with Client(single_worker.target, KEYS[Role.READER], timeout=5) as client:
        start = time.monotonic()
        assert len(list(client.sparql("SELECT * WHERE { ?s ?p ?o } LIMIT 10"))) == 10  # type: ignore[arg-type]
        assert time.monotonic() - start < 2.0, "the only worker is free again"


def test_a_named_node_value_is_typed(tricky: Server) -> None:
    with Client(tricky.target, KEYS[Role.READER]) as client:
        rows = list(client.sparql("SELECT ?o WHERE { <urn:text:a> <urn:text:knows> ?x . ?x <urn:text:says> ?o }"))  # type: ignore[call-overload]
        assert rows == [(Literal("hi"),)]
        rows = list(client.sparql("SELECT ?p WHERE { GRAPH <urn:text:g> { <urn:text:a> ?p 42 } }"))  # type: ignore[call-overload]
        assert rows == [(NamedNode("urn:text:count"),)]
