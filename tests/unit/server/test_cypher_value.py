"""The CypherValue codec shared by the client and the server (hybridkg.proto.cypher_value), both directions."""

from __future__ import annotations

from typing import Any

import pytest

from hybridkg.errors import InvalidInput
from hybridkg.proto import cypher_value as codec
from hybridkg.proto.hybridkg.v1 import knowledge_pb2 as pb
from hybridkg.structural.base import GraphNode, GraphPath, GraphRelationship

NODE = GraphNode("n1", ("Resource", "Company"), {"name": "ACME", "tags": ["a", "b"], "size": 12})
REL = GraphRelationship("r1", "partner", "n1", "n2", {"since": 1999, "weight": 0.5})

PARAMS: list[Any] = [None, True, False, 0, -(1 << 63), (1 << 63) - 1, 2.5, "", "é", [], [1, "a", None, [2.0]],
                     {}, {"a": {"b": [True, None]}}]


@pytest.mark.parametrize("value", PARAMS)
def test_a_parameter_reaches_the_server_as_sent(value: Any) -> None:
    sent = codec.param_messages({"p": value})
    wire = {k: pb.CypherValue.FromString(v.SerializeToString()) for k, v in sent.items()}
    got = codec.param_values(wire)["p"]
    assert got == value
    assert type(got) is type(value)  # True stays a bool, 1 an int


def test_a_tuple_parameter_is_a_list_and_integers_stay_integers() -> None:
    got = codec.param_values(codec.param_messages({"p": (1, 2)}))["p"]
    assert got == [1, 2]
    assert all(type(x) is int for x in got)


@pytest.mark.parametrize(("params", "names"), [
    ({"p": object()}, "Cypher parameter p is a object"),
    ({"p": 1 << 63}, "does not fit in 64 bits"),
    ({"p": [1, {"k": {2}}]}, r"Cypher parameter p\[1\]\.k is a set"),
    ({"p": {1: "x"}}, "map keys are strings"),
    ({1: "x"}, "parameter names are strings"),
])
def test_what_is_not_a_parameter_is_refused_before_sending(params: dict[Any, Any], names: str) -> None:
    with pytest.raises(InvalidInput, match=names):
        codec.param_messages(params)


@pytest.mark.parametrize("value", [NODE, REL, GraphPath((NODE,), (REL,))])
def test_graph_values_are_results_but_not_parameters(value: Any) -> None:
    msg = codec.message(value)
    assert codec.value(pb.CypherValue.FromString(msg.SerializeToString())) == value
    with pytest.raises(InvalidInput, match="parameter q is a (node|relationship|path)"):
        codec.param_values({"q": msg})


def test_result_values_round_trip_and_other_types_travel_as_their_str() -> None:
    row = [None, 1, 1.0, "x", [NODE, {"r": REL}], {1: "key as string"}, 1.5j]
    got = [codec.value(codec.message(v)) for v in row]
    assert got == [None, 1, 1.0, "x", [NODE, {"r": REL}], {"1": "key as string"}, "1.5j"]
    assert type(got[1]) is int
    assert type(got[2]) is float
