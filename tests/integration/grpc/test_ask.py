"""Ask over gRPC: the answer mirrors ``hybridkg ask --json`` (section 4 of issue 9) field for field."""

from __future__ import annotations

import pytest
from google.protobuf import json_format
from integration.grpc.service import KEYS, Server, auth

from hybridkg.client import Client
from hybridkg.errors import InvalidInput
from hybridkg.proto.hybridkg.v1 import knowledge_pb2 as pb
from hybridkg.server.settings import Role

FIELDS = {"question", "route", "domain", "abstained", "reason", "answers", "sparql", "explanations", "evidence",
          "took_ms"}


def test_strict_question_answered_with_sparql_and_the_json_shape(service: Server) -> None:
    with Client(service.target, KEYS[Role.READER]) as client:
        answer = client.ask("Which patients are on an anticoagulant?", domain="clinical")
    assert set(answer) == FIELDS
    assert answer["route"] == "strict"
    assert answer["domain"] == "clinical"
    assert answer["abstained"] is False
    assert answer["sparql"]
    assert "https://hybridkg.dev/data/clinical/patient/p001" in {a["value"] for a in answer["answers"]}
    assert all({"value", "label", "score"} == set(a) for a in answer["answers"])


def test_ask_response_fields_on_the_wire(service: Server) -> None:
    with service.channel() as channel:
        request = pb.AskRequest(question="Which patients are on an anticoagulant?", domain="clinical")
        reply = service.stub(channel).Ask(request, metadata=auth(Role.READER))
    data = json_format.MessageToDict(reply, preserving_proto_field_name=True)
    assert data["route"] == "strict"
    assert reply.took_ms > 0


def test_fuzzy_question_routes_to_retrieval(service: Server) -> None:
    with Client(service.target, KEYS[Role.READER]) as client:
        answer = client.ask("What did Helios Solar Iberia say about the pilot?", domain="crm", mode="local", top_k=3)
    assert answer["route"] == "fuzzy"
    assert answer["domain"] == "crm"
    assert len(answer["answers"]) <= 3


def test_empty_question_is_invalid_argument(service: Server) -> None:
    with Client(service.target, KEYS[Role.READER]) as client, pytest.raises(InvalidInput, match="empty"):
        client.ask("   ")
