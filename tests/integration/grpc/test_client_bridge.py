"""``hybridkg.client.Client.cypher`` and ``.translate`` (issue 11 §5) against a real server over a runtime whose bridge
graphs live on the structural layer's managed FalkorDB (brought up as ``test_bridge_rpc.py`` does): rows in the JSON
shapes ``hybridkg cypher`` prints, the object ``hybridkg translate --json`` prints, Python parameters, and each
refusal raised as the server's :mod:`hybridkg.errors` class."""

from __future__ import annotations

import datetime as dt
import time
from collections import Counter
from typing import Any

import pytest
from integration.grpc.service import BRIDGE_BATCH_ROWS, KEYS, Server

from hybridkg import errors
from hybridkg.bridge.queries import Language, names_of_sync, run_cypher, translate
from hybridkg.client import Client, CypherResult, Rows
from hybridkg.server.settings import Role

CRM = "https://hybridkg.dev/ns/crm#"
#: Every kind of value, over more rows than one message holds.
EVERY_KIND = (
    "MATCH p = (x:Contact)-[r:worksFor]->(c:Company) "
    "RETURN x, r, p, {city: c.city, tags: [1, 2.5, true, null]} AS m, c.uri AS uri, 0.0 / 0.0 AS nan, "
    "1.0 / 0.0 AS inf ORDER BY x.uri"
)


def _client(server: Server, role: Role = Role.READER) -> Client:
    return Client(server.target, KEYS[role])


def _cli_json(server: Server, query: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """What ``hybridkg cypher --domain crm`` prints for ``query``, computed in-process on the same graph."""
    return run_cypher(server.runtime.bridge("crm").graph, query, params).to_json()


def _sparql_values(client: Client, query: str) -> Counter[tuple[Any, ...]]:
    rows = client.sparql(query)
    assert isinstance(rows, Rows)
    return Counter(tuple(None if t is None else t.value for t in row) for row in rows)


def test_cypher_rows_are_the_json_hybridkg_cypher_prints(bridged: Server) -> None:
    with _client(bridged) as client:
        result = client.cypher(EVERY_KIND, domain="crm")
        assert isinstance(result, CypherResult)
        assert result.columns == ("x", "r", "p", "m", "uri", "nan", "inf")
        got = result.to_json()
    assert got == _cli_json(bridged, EVERY_KIND)
    assert len(got["rows"]) > BRIDGE_BATCH_ROWS  # the rows came in more than one message
    for x, r, p, m, uri, nan, inf in got["rows"]:
        assert (x["element"], r["element"], p["element"]) == ("node", "relationship", "path")
        assert "Contact" in x["labels"]
        assert (r["type"], r["start"]) == ("worksFor", x["id"])
        assert [n["id"] for n in p["nodes"]] == [x["id"], r["end"]]
        assert p["relationships"] == [r]
        assert p["nodes"][1]["properties"]["uri"] == uri
        assert m["tags"] == [1, 2.5, True, None]
        assert (nan, inf) == ("NaN", "Infinity")  # as JSON cannot hold them


def test_rows_stream_and_closing_cancels(bridged: Server) -> None:
    with _client(bridged) as client:
        with client.cypher("UNWIND range(1, 20) AS i RETURN i, toFloat(i) / 2 AS half", domain="crm") as result:
            rows = iter(result)
            assert next(rows) == [1, 0.5]
            assert next(rows) == [2, 1.0]
        with pytest.raises(errors.Cancelled):  # closing cancelled the call: no further rows arrive
            list(rows)
        assert list(client.cypher("RETURN 1 AS one", domain="crm")) == [[1]]  # the client keeps serving


def test_python_parameters_travel_typed(bridged: Server) -> None:
    query = ("MATCH (c:Company) WHERE c.city IN $cities AND $opts.keep RETURN c.city AS city, $opts.n + 1 AS n, "
             "$nothing IS NULL AS none ORDER BY city LIMIT $limit")
    params: dict[str, Any] = {"cities": ("Porto", "Seville", "Atlantis"), "opts": {"keep": True, "n": 2.5},
                              "nothing": None, "limit": 2}
    with _client(bridged) as client:
        rows = list(client.cypher(query, domain="crm", params=params))
    assert rows == _cli_json(bridged, query, {**params, "cities": list(params["cities"])})["rows"]
    assert rows == [["Porto", 3.5, True], ["Seville", 3.5, True]]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"when": dt.date(2026, 1, 1)}, "parameter when is a date"),
        ({"xs": [1, {"deep": object()}]}, "parameter xs[1].deep is a object"),
        ({"n": 1 << 64}, "does not fit in 64 bits"),
        ({"m": {1: "one"}}, "map keys are strings"),
    ],
)
def test_parameters_that_are_not_cypher_values_are_refused_before_sending(
        bridged: Server, params: dict[str, Any], message: str) -> None:
    with _client(bridged) as client, pytest.raises(errors.InvalidInput) as info:
        client.cypher("RETURN 1", domain="crm", params=params)
    assert message in str(info.value)


@pytest.mark.parametrize(
    ("query", "domain", "error", "message"),
    [
        ("MATCH (n:Company) SET n.city = 'x' RETURN n", "crm", errors.Unsupported, "SET is a write"),
        ("MATCH (n:Company RETURN n", "crm", errors.InvalidQuery, "line 1, column"),
        ("UNWIND range(1, 1000) AS x RETURN x", "crm", errors.ResultTooLarge, "server.max_result_rows"),
        ("MATCH (n) RETURN count(n)", None, errors.PermissionDenied, "admin"),
        ("MATCH (n) RETURN count(n)", "nope", errors.NotFound, "nope"),
    ],
)
def test_cypher_errors_raise_the_servers_class(bridged: Server, query: str, domain: str | None,
                                               error: type[errors.HybridKGError], message: str) -> None:
    with _client(bridged) as client:
        with pytest.raises(error) as info:
            client.cypher(query, domain=domain)
        assert message in str(info.value)
        assert client.cypher("MATCH (n:Company) WHERE n.city = 'x' RETURN count(n)", domain="crm").to_json() == {
            "columns": ["count(n)"], "rows": [[0]]}


def test_the_whole_stores_graph_with_the_admin_key(bridged: Server) -> None:
    count = "MATCH (n:Resource) RETURN count(n) AS n"
    with _client(bridged, Role.ADMIN) as admin, _client(bridged) as reader:
        [[whole]] = list(admin.cypher(count))
        [[crm]] = list(reader.cypher(count, domain="crm"))
    assert whole > crm > 0  # the whole store holds clinical too


def test_a_deadline_raises_deadline_exceeded_and_the_query_stops(bridged: Server) -> None:
    # a cartesian product FalkorDB's timeout can stop (a huge range() is built whole before any check)
    start = time.monotonic()
    with _client(bridged) as client:
        with pytest.raises(errors.DeadlineExceeded):
            client.cypher("MATCH (a), (b), (c), (d), (e) RETURN count(*)", domain="crm", timeout=0.5)
        assert list(client.cypher("RETURN 1 AS one", domain="crm")) == [[1]]
    assert time.monotonic() - start < 3


def test_translate_to_cypher_is_the_cli_json_and_runs_with_its_params(bridged: Server) -> None:
    query = f'SELECT ?c ?city WHERE {{ ?c a <{CRM}Company> ; <{CRM}city> ?city FILTER(?city != "Porto") }}'
    with _client(bridged) as client:
        t = client.translate(query, to="cypher", domain="crm")
        assert t == translate(query, Language.CYPHER, names_of_sync(bridged.runtime.bridge("crm"))).to_json()
        assert (t["to"], t["columns"], t["kind"], "guards" in t) == ("cypher", ["c", "city"], "select", False)
        assert "Porto" in t["params"].values()
        rows = Counter(tuple(r) for r in client.cypher(t["query"], domain="crm", params=t["params"]))
        expected = _sparql_values(client, query)
    assert len(expected) >= 2
    assert rows == expected


def test_translate_to_sparql_is_the_cli_json_and_answers_like_the_cypher(bridged: Server) -> None:
    cypher = ("MATCH (c:Company)-[:subsidiaryOf]->(p:Company) WHERE p.city <> $city "
              "RETURN c.uri AS c, p.city AS city")
    params = {"city": "Porto"}
    with _client(bridged) as client:
        t = client.translate(cypher, to="sparql", domain="crm", params=params)
        names = names_of_sync(bridged.runtime.bridge("crm"))
        assert t == translate(cypher, Language.SPARQL, names, params).to_json()
        assert (t["to"], t["columns"]) == ("sparql", ["c", "city"])
        assert t["guards"]
        for guard in t["guards"]:
            assert client.sparql(guard) is False
        rows = Counter(tuple(r) for r in client.cypher(cypher, domain="crm", params=params))
        assert rows
        assert rows == _sparql_values(client, t["query"])


@pytest.mark.parametrize(
    ("query", "to", "domain", "error", "message"),
    [
        ("SELECT ?s WHERE { SERVICE <http://x.example/> { ?s a ?c } }", "cypher", "crm", errors.Unsupported,
         "Service"),
        ("CREATE (n:Company)", "sparql", "crm", errors.Unsupported, "CREATE"),
        ("SELEC ?s", "cypher", "crm", errors.InvalidQuery, "line 1"),
        ("SELECT ?s WHERE { ?s a ?c }", "gremlin", "crm", errors.InvalidInput, "'gremlin'"),
        ("SELECT ?s WHERE { ?s a ?c }", "cypher", None, errors.PermissionDenied, "admin"),
        ("SELECT * { ?s a ?c }", "cypher", "nope", errors.NotFound, "nope"),
    ],
)
def test_translate_errors_raise_the_servers_class(bridged: Server, query: str, to: str, domain: str | None,
                                                  error: type[errors.HybridKGError], message: str) -> None:
    with _client(bridged) as client, pytest.raises(error) as info:
        client.translate(query, to=to, domain=domain)
    assert message in str(info.value)

