"""API keys and roles over gRPC: `authorization: Bearer KEY` metadata; health and reflection need no key."""

from __future__ import annotations

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from integration.grpc.service import KEYS, Server, auth

from hybridkg.client import Client
from hybridkg.errors import PermissionDenied, Unauthenticated
from hybridkg.proto.hybridkg.v1 import knowledge_pb2 as pb
from hybridkg.server.settings import Role

ASK_ANY = pb.SparqlRequest(query="ASK { ?s ?p ?o }")


def _sparql_code(server: Server, metadata: tuple[tuple[str, str], ...]) -> grpc.StatusCode:
    with server.channel() as channel, pytest.raises(grpc.RpcError) as failed:
        list(server.stub(channel).Sparql(ASK_ANY, metadata=metadata))
    return failed.value.code()


@pytest.mark.parametrize("metadata", [
    (),
    (("authorization", "Bearer not-a-key"),),
    (("authorization", f"Basic {KEYS[Role.ADMIN]}"),),
    (("authorization", "Bearer"),),
], ids=["missing", "unknown key", "wrong scheme", "no key after Bearer"])
def test_missing_or_bad_key_is_unauthenticated(service: Server, metadata: tuple[tuple[str, str], ...]) -> None:
    assert _sparql_code(service, metadata) is grpc.StatusCode.UNAUTHENTICATED
    with service.channel() as channel:
        assert list(service.stub(channel).Sparql(ASK_ANY, metadata=auth(Role.READER)))[0].boolean is True


def test_client_raises_unauthenticated_with_the_server_message(service: Server) -> None:
    with Client(service.target, "wrong") as client, pytest.raises(Unauthenticated, match="unknown API key"):
        client.sparql("ASK { ?s ?p ?o }")


def test_reader_may_query_but_not_write(service: Server) -> None:
    with Client(service.target, KEYS[Role.READER]) as reader:
        assert reader.sparql("ASK { ?s ?p ?o }") is True
        with pytest.raises(PermissionDenied, match="writer"):
            reader.update("INSERT DATA { <urn:a> <urn:b> <urn:c> }")
        with pytest.raises(PermissionDenied, match="writer"):
            reader.ingest(b"<urn:a> <urn:b> <urn:c> .", format="ntriples")
        with pytest.raises(PermissionDenied, match="writer"):
            reader.feedback({"x": 1.0})
        with pytest.raises(PermissionDenied, match="admin"):
            reader.stats()


def test_reader_update_is_permission_denied_on_the_wire(service: Server) -> None:
    with service.channel() as channel, pytest.raises(grpc.RpcError) as failed:
        service.stub(channel).Update(pb.UpdateRequest(update="INSERT DATA { <urn:a> <urn:b> <urn:c> }"),
                                     metadata=auth(Role.READER))
    assert failed.value.code() is grpc.StatusCode.PERMISSION_DENIED


def test_writer_may_ingest_but_not_read_stats(service: Server) -> None:
    with Client(service.target, KEYS[Role.WRITER]) as writer:
        report = writer.ingest(b"<urn:auth:a> <urn:auth:b> <urn:auth:c> .", format="ntriples", graph="urn:auth:g")
        assert report["triples_asserted"] == 1
        with pytest.raises(PermissionDenied, match="admin"):
            writer.stats()
    with Client(service.target, KEYS[Role.ADMIN]) as admin:
        assert admin.stats()["sizes"]["asserted_triples"] > 0


def test_health_needs_no_key_even_when_keys_are_configured(service: Server) -> None:
    with service.channel() as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
    assert reply.status == health_pb2.HealthCheckResponse.SERVING
