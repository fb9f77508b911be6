"""The bridge's RPCs (issue 11 §5), Cypher and Translate, through the generated stub on a real server over a
runtime whose bridge graphs live on the structural layer's managed FalkorDB: streaming, roles, refusals,
deadlines, the row cap, and translations that answer like the query they translate."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from integration.grpc.service import BRIDGE_BATCH_ROWS, Server, auth

from hybridkg.proto.hybridkg.v1 import knowledge_pb2 as pb
from hybridkg.server.settings import Role

CRM = "https://hybridkg.dev/ns/crm#"
COMPANIES = f"SELECT ?c ?city WHERE {{ ?c a <{CRM}Company> ; <{CRM}city> ?city }}"


def _cypher(server: Server, query: str, role: Role = Role.READER, timeout: float | None = None,
            **request: Any) -> list[pb.CypherResponse]:
    with server.channel() as channel:
        return list(server.stub(channel).Cypher(pb.CypherRequest(query=query, **request), metadata=auth(role),
                                                timeout=timeout))


def _plain(value: pb.CypherValue) -> Any:
    kind = value.WhichOneof("kind")
    if kind is None:
        return None
    if kind == "list":
        return [_plain(v) for v in value.list.values]
    if kind == "node":
        return ("node", tuple(value.node.labels), value.node.properties["uri"].string)
    return getattr(value, kind)


def _rows(messages: list[pb.CypherResponse]) -> list[tuple[Any, ...]]:
    return [tuple(_plain(v) for v in row.values) for m in messages for row in m.rows]


def _sparql(server: Server, query: str) -> Counter[tuple[Any, ...]]:
    with server.channel() as channel:
        messages = list(server.stub(channel).Sparql(pb.SparqlRequest(query=query), metadata=auth(Role.READER)))
    out: Counter[tuple[Any, ...]] = Counter()
    for m in messages:
        for row in m.rows:
            out[tuple(_term(v) for v in row.values)] += 1
    return out


def _term(value: Any) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "iri":
        return value.iri
    if kind == "literal":
        return value.literal.value
    return None if kind is None else str(value)


def _code(call: Callable[[], Any]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details() or ""


def test_cypher_streams_columns_first_then_batches_of_typed_values(bridged: Server) -> None:
    messages = _cypher(bridged, "MATCH (c:Company) RETURN c.uri AS uri, c, c.city AS city, [1, 2.5, true] AS l "
                                "ORDER BY uri", domain="crm")
    assert list(messages[0].columns) == ["uri", "c", "city", "l"]
    assert all(not m.columns for m in messages[1:])
    assert len(messages) >= 2
    assert all(len(m.rows) <= BRIDGE_BATCH_ROWS for m in messages)
    rows = _rows(messages)
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)
    for uri, node, _city, lst in rows:
        assert node[2] == uri
        assert {"Resource", "Company"} <= set(node[1])
        assert lst == [1, 2.5, True]
    assert Counter((r[0], r[2]) for r in rows) == _sparql(bridged, COMPANIES)


def test_parameters_travel_typed(bridged: Server) -> None:
    params = {"n": pb.CypherValue(integer=2), "cities": pb.CypherValue(list=pb.CypherList(values=[
        pb.CypherValue(string="Porto"), pb.CypherValue(string="Seville")]))}
    rows = _rows(_cypher(bridged, "MATCH (c:Company) WHERE c.city IN $cities RETURN c.city AS city ORDER BY city "
                                  "LIMIT $n", domain="crm", params=params))
    assert rows == [("Porto",), ("Seville",)]


def test_the_whole_stores_graph_needs_admin_a_domains_reader(bridged: Server) -> None:
    count = "MATCH (n:Resource) RETURN count(n) AS n"
    code, message = _code(lambda: _cypher(bridged, count))
    assert code is grpc.StatusCode.PERMISSION_DENIED
    assert "admin" in message
    code, _ = _code(lambda: bridged.stub(bridged.channel()).Translate(
        pb.TranslateRequest(query="SELECT ?s WHERE { ?s a ?c }", to=pb.QUERY_LANGUAGE_CYPHER),
        metadata=auth(Role.WRITER)))
    assert code is grpc.StatusCode.PERMISSION_DENIED
    whole = _rows(_cypher(bridged, count, role=Role.ADMIN))[0][0]
    crm = _rows(_cypher(bridged, count, domain="crm"))[0][0]
    assert whole > crm > 0  # the whole store holds clinical too


@pytest.mark.parametrize(
    ("query", "code", "message"),
    [
        ("MATCH (n:Company) SET n.city = 'x' RETURN n", grpc.StatusCode.UNIMPLEMENTED, "SET is a write"),
        ("MATCH (n:Company) DETACH DELETE n", grpc.StatusCode.UNIMPLEMENTED, "DELETE is a write"),
        ("MATCH (n:Company RETURN n", grpc.StatusCode.INVALID_ARGUMENT, "line 1, column"),
        ("UNWIND range(1, 1000) AS x RETURN x", grpc.StatusCode.RESOURCE_EXHAUSTED, "server.max_result_rows"),
        ("MATCH (a:Company) CALL { WITH a MATCH (a)-->(b) CALL { WITH b MATCH (b)-->(c) RETURN c UNION ALL "
         "WITH b MATCH (c)-->(b) RETURN c } RETURN count(c) AS n } RETURN n", grpc.StatusCode.UNIMPLEMENTED,
         "UNION subquery"),
    ],
)
def test_cypher_refusals(bridged: Server, query: str, code: grpc.StatusCode, message: str) -> None:
    got, text = _code(lambda: _cypher(bridged, query, domain="crm"))
    assert (got, message in text) == (code, True), text
    assert _rows(_cypher(bridged, "MATCH (n:Company) WHERE n.city = 'x' RETURN count(n)", domain="crm")) == [(0,)]


def test_a_deadline_stops_a_long_query_and_the_server_keeps_serving(bridged: Server) -> None:
    start = time.monotonic()
    code, _ = _code(lambda: _cypher(bridged, "UNWIND range(1, 200000000) AS x WITH x WHERE x % 7 = 3 RETURN count(x)",
                                    domain="crm", timeout=0.5))
    assert code is grpc.StatusCode.DEADLINE_EXCEEDED
    assert time.monotonic() - start < 5
    assert _rows(_cypher(bridged, "RETURN 1 AS one", domain="crm")) == [(1,)]


def test_translate_to_cypher_runs_with_its_parameters_and_answers_like_sparql(bridged: Server) -> None:
    query = COMPANIES[:-1] + ' FILTER(?city != "Porto") }'
    with bridged.channel() as channel:
        t = bridged.stub(channel).Translate(pb.TranslateRequest(query=query, to=pb.QUERY_LANGUAGE_CYPHER,
                                                                domain="crm"), metadata=auth(Role.READER))
    assert (t.language, list(t.columns), t.kind) == (pb.QUERY_LANGUAGE_CYPHER, ["c", "city"], "select")
    assert "Porto" not in t.query
    assert "Porto" in [v.string for v in t.params.values()]
    rows = _rows(_cypher(bridged, t.query, domain="crm", params=dict(t.params)))
    expected = _sparql(bridged, query)
    assert len(expected) >= 2
    assert Counter(rows) == expected


def test_translate_to_sparql_answers_like_the_cypher(bridged: Server) -> None:
    cypher = "MATCH (c:Company)-[:subsidiaryOf]->(p:Company) WHERE p.city <> $city RETURN c.uri AS c, p.city AS city"
    params = {"city": pb.CypherValue(string="Porto")}
    with bridged.channel() as channel:
        t = bridged.stub(channel).Translate(pb.TranslateRequest(query=cypher, to=pb.QUERY_LANGUAGE_SPARQL,
                                                                domain="crm", params=params),
                                            metadata=auth(Role.READER))
    assert (t.language, list(t.columns)) == (pb.QUERY_LANGUAGE_SPARQL, ["c", "city"])
    assert t.guards
    rows = _rows(_cypher(bridged, cypher, domain="crm", params=params))
    assert rows
    assert Counter(rows) == _sparql(bridged, t.query)


@pytest.mark.parametrize(
    ("request_", "code", "message"),
    [
        (pb.TranslateRequest(query="SELECT ?s WHERE { GRAPH ?g { ?s ?p ?o } }", to=pb.QUERY_LANGUAGE_CYPHER),
         grpc.StatusCode.UNIMPLEMENTED, "operator Graph"),
        (pb.TranslateRequest(query="CREATE (n:Company)", to=pb.QUERY_LANGUAGE_SPARQL),
         grpc.StatusCode.UNIMPLEMENTED, "CREATE"),
        (pb.TranslateRequest(query="SELEC ?s", to=pb.QUERY_LANGUAGE_CYPHER), grpc.StatusCode.INVALID_ARGUMENT,
         "line 1"),
        (pb.TranslateRequest(query="SELECT ?s WHERE { ?s a ?c }"), grpc.StatusCode.INVALID_ARGUMENT, "needs `to`"),
        (pb.TranslateRequest(query="SELECT * { ?s a ?c }", to=pb.QUERY_LANGUAGE_CYPHER, domain="nope"),
         grpc.StatusCode.NOT_FOUND, "nope"),
    ],
)
def test_translate_errors(bridged: Server, request_: pb.TranslateRequest, code: grpc.StatusCode, message: str) -> None:
    with bridged.channel() as channel:
        got, text = _code(lambda: bridged.stub(channel).Translate(request_, metadata=auth(Role.ADMIN)))
    assert (got, message in text) == (code, True), text
