"""Malformed inputs of every kind, each answered with its status and details while the server keeps serving."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from integration.grpc.service import KEYS, Server, auth

from hybridkg.client import Client
from hybridkg.errors import (
    InputTooLarge,
    InvalidInput,
    InvalidQuery,
    NotFound,
    ParseError,
    ResultTooLarge,
    ShapeViolation,
)
from hybridkg.proto.hybridkg.v1 import knowledge_pb2 as pb
from hybridkg.proto.hybridkg.v1 import rdf_pb2
from hybridkg.server.settings import Role

ONTOLOGY = Path(__file__).resolve().parents[3] / "ontology"
BAD_PRESCRIPTION = ONTOLOGY / "clinical" / "examples" / "bad-prescription.ttl"
BROKEN_TURTLE = b"@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\nex:d ex:e \"unterminated .\n"


def still_serving(server: Server) -> None:
    with Client(server.target, KEYS[Role.READER], timeout=10) as client:
        assert client.sparql("ASK { ?s ?p ?o }") is True


def details(error: grpc.RpcError) -> list:
    status = rpc_status.from_call(error)
    assert status is not None, "errors carry a google.rpc.Status"
    out = []
    for packed in status.details:
        for cls in (rdf_pb2.ValidationReport, rdf_pb2.ParseErrorDetail, error_details_pb2.ErrorInfo):
            if packed.Is(cls.DESCRIPTOR):
                msg = cls()
                packed.Unpack(msg)
                out.append(msg)
    return out


def _ingest(server: Server, data: bytes, role: Role = Role.WRITER, chunk: int = 4096,
            **meta: str) -> pb.IngestResponse:
    def requests() -> Iterator[pb.IngestRequest]:
        for i in range(0, len(data), chunk):
            part = data[i:i + chunk]
            yield pb.IngestRequest(metadata=pb.IngestMetadata(**meta), chunk=part) if i == 0 else \
                pb.IngestRequest(chunk=part)

    with server.channel() as channel:
        return server.stub(channel).Ingest(requests(), metadata=auth(role))


def test_broken_turtle_is_invalid_argument_with_line_and_column(service: Server) -> None:
    with pytest.raises(grpc.RpcError) as failed:
        _ingest(service, BROKEN_TURTLE, format="turtle", graph="urn:errors:broken")
    assert failed.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    parse = next(d for d in details(failed.value) if isinstance(d, rdf_pb2.ParseErrorDetail))
    assert parse.format == "Turtle"
    assert parse.line == 3
    assert parse.HasField("column")
    info = next(d for d in details(failed.value) if isinstance(d, error_details_pb2.ErrorInfo))
    assert info.reason == "ParseError"
    with Client(service.target, KEYS[Role.WRITER]) as client, pytest.raises(ParseError) as raised:
        client.ingest(BROKEN_TURTLE, format="turtle", graph="urn:errors:broken")
    assert raised.value.line == 3
    assert "line 3" in str(raised.value)
    with Client(service.target, KEYS[Role.READER]) as client:
        assert client.sparql("ASK { GRAPH <urn:errors:broken> { ?s ?p ?o } }") is False, "nothing was stored"
    still_serving(service)


@pytest.mark.parametrize("query", [
    "SELEC ?x WHERE { ?x ?p ?o }",
    "SELECT ?x WHERE { ?x ?p }",
    "ASK { ?s <not an iri> ?o }",
    "",
])
def test_sparql_syntax_errors_are_invalid_argument(service: Server, query: str) -> None:
    with service.channel() as channel, pytest.raises(grpc.RpcError) as failed:
        list(service.stub(channel).Sparql(pb.SparqlRequest(query=query), metadata=auth(Role.READER)))
    assert failed.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert failed.value.details()
    still_serving(service)


def test_sparql_syntax_error_through_the_client(service: Server) -> None:
    with Client(service.target, KEYS[Role.READER]) as client, pytest.raises(InvalidQuery, match="syntax error"):
        client.sparql("SELEC ?x")
    still_serving(service)


def test_unknown_domain_is_not_found(service: Server) -> None:
    with Client(service.target, KEYS[Role.WRITER]) as client:
        with pytest.raises(NotFound, match="unknown domain 'astronomy'"):
            client.ingest(b"<urn:a> <urn:b> <urn:c> .", format="ntriples", domain="astronomy")
        with pytest.raises(NotFound, match="astronomy"):
            client.retrieve("solar panels", domain="astronomy")
    still_serving(service)


def test_unknown_graph_in_the_dataset_is_not_found(service: Server) -> None:
    with Client(service.target, KEYS[Role.READER]) as client:
        with pytest.raises(NotFound, match="urn:no:such:graph"):
            client.sparql("SELECT * WHERE { ?s ?p ?o }", default_graph_uri=["urn:no:such:graph"])
        with pytest.raises(NotFound, match="urn:no:such:graph"):
            client.sparql("SELECT * WHERE { GRAPH ?g { ?s ?p ?o } }", named_graph_uri=["urn:no:such:graph"])
    still_serving(service)


def test_shacl_violation_is_failed_precondition_with_the_report(service: Server) -> None:
    with pytest.raises(grpc.RpcError) as failed:
        _ingest(service, BAD_PRESCRIPTION.read_bytes(), domain="clinical", name=BAD_PRESCRIPTION.name)
    assert failed.value.code() is grpc.StatusCode.FAILED_PRECONDITION
    report = next(d for d in details(failed.value) if isinstance(d, rdf_pb2.ValidationReport))
    assert not report.conforms
    constraints = {(r.focus.rsplit("/", 1)[-1].rstrip(">"), r.constraint.rsplit("#", 1)[-1]) for r in report.results}
    assert {("bad-0001", "MinCountConstraintComponent"), ("bad-0002", "MinExclusiveConstraintComponent"),
            ("bad-0003", "NotConstraintComponent"), ("bad-0004", "ClassConstraintComponent"),
            ("bad-0004", "MinCountConstraintComponent")} <= constraints
    assert all(r.severity == "Violation" and r.message for r in report.results)
    with Client(service.target, KEYS[Role.WRITER]) as client, pytest.raises(ShapeViolation) as raised:
        client.ingest(BAD_PRESCRIPTION, domain="clinical")
    assert raised.value.report is not None
    assert len(raised.value.report.violations) == len(report.results)
    with Client(service.target, KEYS[Role.READER]) as client:
        assert client.sparql(
            "ASK { <https://hybridkg.dev/data/clinical/prescription/bad-0001> ?p ?o }") is False, "nothing stored"
    still_serving(service)


@pytest.mark.parametrize(("field", "value", "match"), [
    ("top_k", -1, "top_k"),
    ("top_k", 0, "top_k"),
    ("mode", "sideways", "unknown retrieval mode"),
])
def test_invalid_field_values_are_invalid_argument(service: Server, field: str, value: object, match: str) -> None:
    with Client(service.target, KEYS[Role.READER]) as client:
        with pytest.raises(InvalidInput, match=match):
            client.retrieve("solar", **{field: value})
        with pytest.raises(InvalidInput, match=match):
            client.ask("Which patients take warfarin?", **{field: value})
    still_serving(service)


@pytest.mark.parametrize("triple", ["", "<urn:a> <urn:b>", "not a triple at all"])
def test_malformed_explain_is_invalid_argument(service: Server, triple: str) -> None:
    with Client(service.target, KEYS[Role.READER]) as client, pytest.raises(InvalidInput):
        client.explain(triple)
    still_serving(service)


def test_ingest_stream_shapes(service: Server) -> None:
    with service.channel() as channel:
        stub = service.stub(channel)
        with pytest.raises(grpc.RpcError) as late_metadata:
            stub.Ingest(iter([pb.IngestRequest(chunk=b"<urn:a> <urn:b> <urn:c> ."),
                              pb.IngestRequest(metadata=pb.IngestMetadata(format="ntriples"))]),
                        metadata=auth(Role.WRITER))
        assert late_metadata.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        assert "first message" in late_metadata.value.details()
        with pytest.raises(grpc.RpcError) as empty:
            stub.Ingest(iter([pb.IngestRequest(metadata=pb.IngestMetadata(format="ntriples"))]),
                        metadata=auth(Role.WRITER))
        assert empty.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        with pytest.raises(grpc.RpcError) as no_format:
            stub.Ingest(iter([pb.IngestRequest(chunk=b"<urn:a> <urn:b> <urn:c> .")]), metadata=auth(Role.WRITER))
        assert no_format.value.code() is grpc.StatusCode.INVALID_ARGUMENT
        with pytest.raises(grpc.RpcError) as bad_format:
            stub.Ingest(iter([pb.IngestRequest(metadata=pb.IngestMetadata(format="excel"), chunk=b"x")]),
                        metadata=auth(Role.WRITER))
        assert bad_format.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    still_serving(service)


def test_upload_above_store_limit_across_chunks_is_resource_exhausted(tight: Server) -> None:
    big = b"".join(b"<urn:big:s%d> <urn:big:p> \"%d\" .\n" % (i, i) for i in range(4000))
    assert len(big) > 100_000
    with pytest.raises(grpc.RpcError) as failed:
        _ingest(tight, big, chunk=16 << 10, format="ntriples", graph="urn:big:g")
    assert failed.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    assert "store.max_input_bytes" in failed.value.details()
    with Client(tight.target, KEYS[Role.WRITER], timeout=10) as client:
        with pytest.raises(InputTooLarge):
            client.ingest(big, format="ntriples", graph="urn:big:g", chunk_size=16 << 10)
        assert client.sparql("ASK { GRAPH <urn:big:g> { ?s ?p ?o } }") is False, "nothing was written"
        small = client.ingest(big[:50_000].rsplit(b"\n", 1)[0] + b"\n", format="ntriples", graph="urn:big:g",
                              chunk_size=16 << 10)
        assert small["triples_asserted"] > 1000
    still_serving(tight)


def test_message_above_max_message_bytes_is_resource_exhausted(tight: Server) -> None:
    with tight.channel() as channel, pytest.raises(grpc.RpcError) as failed:
        tight.stub(channel).Validate(pb.ValidateRequest(data=b"#" * (40 << 10), domain="clinical"),
                                     metadata=auth(Role.READER))
    assert failed.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
    still_serving(tight)


def test_row_cap_is_resource_exhausted(tight: Server) -> None:
    with Client(tight.target, KEYS[Role.READER], timeout=10) as client:
        with pytest.raises(ResultTooLarge, match="server.max_result_rows"):
            list(client.sparql("SELECT * WHERE { ?s ?p ?o }"))
        assert len(list(client.sparql("SELECT * WHERE { ?s ?p ?o } LIMIT 100"))) == 100, "up to the cap is fine"
    still_serving(tight)


_X100 = '"' + "x" * 100 + '"'
_EXPAND = (f"BIND({_X100} AS ?a) BIND(CONCAT(?a,?a,?a,?a,?a,?a,?a,?a,?a,?a) AS ?b) "
           "BIND(CONCAT(?b,?b,?b,?b,?b,?b,?b,?b,?b,?b) AS ?c) BIND(CONCAT(?c,?c,?c,?c) AS ?d)")


def test_a_large_batch_is_split_into_messages_under_the_limit(tight: Server) -> None:
    """90 rows of ~1 kB exceed one 32 KiB message: they come in several, each under the limit, none lost."""
    query = f"SELECT ?s ?b WHERE {{ ?s ?p ?o {_EXPAND} }} LIMIT 90"
    with tight.channel() as channel:
        messages = list(tight.stub(channel).Sparql(pb.SparqlRequest(query=query), metadata=auth(Role.READER)))
    assert len(messages) >= 3
    assert all(m.ByteSize() <= 32 << 10 for m in messages)
    assert list(messages[0].variables) == ["s", "b"]
    rows = [r for m in messages for r in m.rows]
    assert len(rows) == 90
    assert all(r.values[1].literal.value == "x" * 1000 for r in rows)
    still_serving(tight)


def test_a_row_above_the_message_limit_is_resource_exhausted(tight: Server) -> None:
    with Client(tight.target, KEYS[Role.READER], timeout=10) as client:
        with pytest.raises(ResultTooLarge, match="server.max_message_bytes"):
            list(client.sparql(f"SELECT ?d WHERE {{ {_EXPAND} }}"))
        assert len(list(client.sparql(f"SELECT ?c WHERE {{ {_EXPAND} }}"))) == 1, "10 kB rows still go"
    still_serving(tight)
