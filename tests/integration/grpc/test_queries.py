"""Read RPCs through a real server and the real stub / Client: Sparql streaming, Explain, Stats, health,
reflection, request ids."""

from __future__ import annotations

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from integration.grpc.service import KEYS, Server, auth
from pyoxigraph import Literal, NamedNode

from hybridkg.client import Client, Rows, Triples
from hybridkg.errors import PermissionDenied
from hybridkg.proto.hybridkg.v1 import knowledge_pb2 as pb
from hybridkg.server.settings import Role

RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
CLIN = "https://hybridkg.dev/ns/clinical#"
P001 = "https://hybridkg.dev/data/clinical/patient/p001"
CLINICAL_DATA = "https://hybridkg.dev/graph/clinical/data"
ANTICOAG = f"<{P001}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{CLIN}PatientOnAnticoagulant> ."


def test_select_streams_in_several_batches_with_typed_terms(service: Server) -> None:
    with service.channel() as channel:
        messages = list(service.stub(channel).Sparql(
            pb.SparqlRequest(query=f"SELECT ?s ?label WHERE {{ ?s <{RDFS_LABEL}> ?label }} ORDER BY ?s"),
            metadata=auth(Role.READER),
        ))
    assert len(messages) >= 3, "batch_rows=50 and more than 100 labels: several messages"
    assert messages[0].kind == pb.QUERY_KIND_SELECT
    assert list(messages[0].variables) == ["s", "label"]
    assert all(not m.variables for m in messages[1:]), "only the first message carries the header"
    rows = [r for m in messages for r in m.rows]
    assert all(len(m.rows) <= 50 for m in messages)
    assert rows[0].values[0].WhichOneof("kind") in ("iri", "blank_node")
    literal = rows[0].values[1].literal
    assert literal.value
    assert literal.datatype


def test_client_select_rows_are_pyoxigraph_terms(service: Server) -> None:
    with Client(service.target, KEYS[Role.READER]) as client:
        rows = client.sparql(f"SELECT ?label ?missing WHERE {{ <{P001}> <{RDFS_LABEL}> ?label "
                             f"OPTIONAL {{ <{P001}> <urn:x:none> ?missing }} }}")
        assert isinstance(rows, Rows)
        assert rows.variables == ("label", "missing")
        result = list(rows)
    assert len(result) == 1
    label, missing = result[0]
    assert isinstance(label, Literal)
    assert label.value
    assert missing is None, "an unbound variable comes back as None"


def test_ask_and_construct(service: Server) -> None:
    with Client(service.target, KEYS[Role.READER]) as client:
        assert client.sparql(f"ASK {{ <{P001}> a <{CLIN}Patient> }}") is True
        assert client.sparql(f"ASK {{ <{P001}> a <{CLIN}Drug> }}") is False
        triples = client.sparql(f"CONSTRUCT {{ <{P001}> ?p ?o }} WHERE {{ <{P001}> ?p ?o }}")
        assert isinstance(triples, Triples)
        got = list(triples)
    assert any(t.predicate == NamedNode(RDFS_LABEL) and isinstance(t.object, Literal) for t in got)
    assert all(t.subject == NamedNode(P001) for t in got)


def test_ask_sends_one_message_with_the_boolean(service: Server) -> None:
    with service.channel() as channel:
        messages = list(service.stub(channel).Sparql(pb.SparqlRequest(query="ASK { ?s ?p ?o }"),
                                                     metadata=auth(Role.READER)))
    assert len(messages) == 1
    assert messages[0].kind == pb.QUERY_KIND_ASK
    assert messages[0].HasField("boolean")
    assert messages[0].boolean is True


def test_inference_defaults_to_on_and_can_be_turned_off(service: Server) -> None:
    query = f"ASK {{ <{P001}> a <{CLIN}PatientOnAnticoagulant> }}"
    with Client(service.target, KEYS[Role.READER]) as client:
        assert client.sparql(query) is True, "the inferred class holds with the closure"
        assert client.sparql(query, inference=False) is False, "asserted triples only"
    with service.channel() as channel:
        unset = list(service.stub(channel).Sparql(pb.SparqlRequest(query=query), metadata=auth(Role.READER)))
    assert unset[0].boolean is True, "an unset `inference` means true"


def test_dataset_default_and_named_graphs(service: Server) -> None:
    with Client(service.target, KEYS[Role.READER]) as client:
        rows = list(client.sparql("SELECT (COUNT(*) AS ?n) WHERE { ?s a <https://hybridkg.dev/ns/crm#Company> }",
                                  default_graph_uri=[CLINICAL_DATA], inference=False))
        assert rows[0][0] == Literal("0", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#integer"))
        graphs = {r[0] for r in client.sparql("SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }",
                                              named_graph_uri=[CLINICAL_DATA])}
    assert graphs == {NamedNode(CLINICAL_DATA)}


def test_explain_returns_the_derivation_tree(service: Server) -> None:
    with Client(service.target, KEYS[Role.READER]) as client:
        tree = client.explain(ANTICOAG)
    assert tree["status"] == "inferred"
    assert tree["rule"] == "cax-sco"

    def leaves(node: dict) -> list[dict]:
        return [node] if node["status"] != "inferred" else [x for p in node["premises"] for x in leaves(p)]

    assert all(leaf["status"] == "asserted" for leaf in leaves(tree)), "the proof ends in asserted triples"
    with service.channel() as channel:
        raw = service.stub(channel).Explain(pb.ExplainRequest(triple=ANTICOAG), metadata=auth(Role.READER))
    assert raw.explanation.rule == "cax-sco"
    assert raw.explanation.premises


def test_stats_for_admin(service: Server) -> None:
    with Client(service.target, KEYS[Role.ADMIN]) as client:
        stats = client.stats()
    assert stats["sizes"]["asserted_triples"] > 1000
    assert stats["sizes"]["inferred_triples"] > 0
    assert stats["domains"] == {"clinical": "strict", "crm": "fuzzy"}
    assert stats["reasoner"]


def test_request_id_in_trailing_metadata_chosen_or_fresh(service: Server) -> None:
    with service.channel() as channel:
        stub = service.stub(channel)
        _, call = stub.Stats.with_call(pb.StatsRequest(), metadata=(*auth(Role.ADMIN), ("x-request-id", "my-id-42")))
        assert dict(call.trailing_metadata())["x-request-id"] == "my-id-42"
        _, call = stub.Stats.with_call(pb.StatsRequest(), metadata=auth(Role.ADMIN))
        fresh = dict(call.trailing_metadata())["x-request-id"]
        assert len(fresh) == 16
        with pytest.raises(grpc.RpcError) as failed:
            stub.Stats(pb.StatsRequest(), metadata=(("x-request-id", "failing-call"),))
    assert failed.value.code() is grpc.StatusCode.UNAUTHENTICATED
    assert dict(failed.value.trailing_metadata())["x-request-id"] == "failing-call"


def test_health_serving_without_a_key(service: Server) -> None:
    with service.channel() as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        for name in ("", "hybridkg.v1.KnowledgeService"):
            status = stub.Check(health_pb2.HealthCheckRequest(service=name)).status
            assert status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_the_services_and_describes_them(service: Server) -> None:
    with service.channel() as channel:
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        requests = [
            reflection_pb2.ServerReflectionRequest(list_services=""),
            reflection_pb2.ServerReflectionRequest(file_containing_symbol="hybridkg.v1.KnowledgeService"),
        ]
        listed, described = list(stub.ServerReflectionInfo(iter(requests)))
    names = {s.name for s in listed.list_services_response.service}
    assert {"hybridkg.v1.KnowledgeService", "grpc.health.v1.Health",
            "grpc.reflection.v1alpha.ServerReflection"} <= names
    assert described.file_descriptor_response.file_descriptor_proto, "grpcurl can fetch the schema"


def test_metrics_count_calls_by_method_and_code(service: Server) -> None:
    def count(code: str) -> float:
        value = service.runtime.metrics.registry.get_sample_value(
            "hybridkg_requests_total", {"api": "grpc", "method": "Stats", "route": "-", "code": code})
        return value or 0.0

    ok, denied = count("OK"), count("PERMISSION_DENIED")
    with Client(service.target, KEYS[Role.ADMIN]) as admin, Client(service.target, KEYS[Role.READER]) as reader:
        admin.stats()
        with pytest.raises(PermissionDenied):
            reader.stats()
    assert count("OK") == ok + 1
    assert count("PERMISSION_DENIED") == denied + 1
