"""`hybridkg translate` and `hybridkg cypher` through the installed executable, on the embedded store and its
managed FalkorDB (issue 11 §5): the translations run and answer like the query they translate."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from support.falkor import fresh_graph

from hybridkg.errors import InvalidQuery
from hybridkg.structural.graphstore.server import ManagedFalkorDB

ONTOLOGY = Path(__file__).resolve().parents[2] / "ontology"
CRM = "PREFIX crm: <https://hybridkg.dev/ns/crm#> "


def hybridkg(*args: str | Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("hybridkg", path=str(Path(sys.executable).parent)) or "hybridkg"
    proc = subprocess.run([exe, *map(str, args)], capture_output=True, text=True, timeout=300, env=dict(os.environ))
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("cli-translate") / "s"
    hybridkg("load", "--store", store, "--domain", "crm", ONTOLOGY / "crm" / "data.ttl")
    hybridkg("bridge", "sync", "--store", store)
    return store


def _sparql_rows(store: Path, query: str) -> Counter[tuple[Any, ...]]:
    out = json.loads(hybridkg("sparql", "--store", store, query).stdout)
    names = out["head"]["vars"]
    return Counter(tuple(b.get(v, {}).get("value") for v in names) for b in out["results"]["bindings"])


def test_sparql_to_cypher_prints_runnable_cypher_whose_rows_match_sparql(store: Path) -> None:
    query = CRM + "SELECT ?c ?city WHERE { ?c a crm:Company ; crm:city ?city . FILTER(?city != \"Porto\") }"
    plain = hybridkg("translate", "--to", "cypher", "--store", store, query).stdout
    text, params_line = plain.rstrip("\n").rsplit("\n", 1)
    assert params_line.startswith("// params: ")
    as_json = json.loads(hybridkg("translate", "--to", "cypher", "--json", "--store", store, query).stdout)
    assert as_json["query"] == text
    assert as_json["params"] == json.loads(params_line.removeprefix("// params: "))
    assert "Porto" not in text  # a value travels as a parameter
    assert as_json["columns"] == ["c", "city"]

    args = [f"{k}={json.dumps(v)}" for k, v in as_json["params"].items()]
    ran = json.loads(hybridkg("cypher", "--store", store, "@" + _write(store, "q.cypher", text),
                              *[x for a in args for x in ("--param", a)]).stdout)
    assert ran["columns"] == ["c", "city"]
    expected = _sparql_rows(store, query)
    assert len(expected) > 2
    assert Counter(tuple(r) for r in ran["rows"]) == expected


def test_cypher_to_sparql_prints_sparql_whose_rows_match_cypher(store: Path) -> None:
    cypher = "MATCH (c:Company)-[:subsidiaryOf]->(p:Company) WHERE p.city <> $city RETURN c.uri AS c, p.city AS city"
    out = json.loads(hybridkg("translate", "--to", "sparql", "--json", "--store", store, "--param", 'city="Porto"',
                              cypher).stdout)
    assert out["columns"] == ["c", "city"]
    assert out["guards"]  # city could have several values: the guard says when the translation holds
    for guard in out["guards"]:
        assert json.loads(hybridkg("sparql", "--store", store, guard).stdout)["boolean"] is False
    sparql = _sparql_rows(store, out["query"])
    ran = json.loads(hybridkg("cypher", "--store", store, "--param", 'city="Porto"', cypher).stdout)
    assert ran["columns"] == ["c", "city"]
    assert len(ran["rows"]) > 0
    assert Counter(tuple(r) for r in ran["rows"]) == sparql

    plain = hybridkg("translate", "--to", "sparql", "--store", store, "--param", 'city="Porto"', cypher).stdout
    assert plain.startswith(out["query"].rstrip())
    assert plain.count("# guard (must be false): ASK") == len(out["guards"])


def test_cypher_renders_nodes_relationships_and_paths(store: Path) -> None:
    out = json.loads(hybridkg(
        "cypher", "--store", store,
        "MATCH p = (c:Company)-[r:subsidiaryOf]->(parent) RETURN c, r, p, [c.city] AS l ORDER BY c.uri LIMIT 1",
    ).stdout)
    assert out["columns"] == ["c", "r", "p", "l"]
    [[node, rel, path, cities]] = out["rows"]
    assert node["element"] == "node"
    assert {"Resource", "Company"} <= set(node["labels"])
    assert node["properties"]["uri"].startswith("https://hybridkg.dev/data/crm/company/")
    assert rel["element"] == "relationship"
    assert (rel["type"], rel["start"]) == ("subsidiaryOf", node["id"])
    assert path["element"] == "path"
    assert [n["id"] for n in path["nodes"]] == [node["id"], rel["end"]]
    assert path["relationships"] == [rel]
    assert cities == [node["properties"]["city"]]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("translate", "--to", "cypher", "SELECT ?s WHERE { GRAPH ?g { ?s ?p ?o } }"), "operator Graph"),
        (("translate", "--to", "sparql", "MATCH (n RETURN n"), "line 1, column"),
        (("cypher", "MATCH (n:Company) SET n.city = 'x' RETURN n"), "SET is a write"),
        (("cypher", "--param", "x=nope", "MATCH (n) RETURN n"), "is not JSON"),
        (("cypher", "RETURN 1 / 0 AS x"), "cannot evaluate exactly"),  # how a translation stops: explained
    ],
)
def test_refusals_exit_2_naming_the_problem(store: Path, args: tuple[str, ...], message: str) -> None:
    proc = hybridkg(*args, "--store", store, check=False)
    assert proc.returncode == 2, proc.stdout
    assert message in proc.stderr
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr


def test_the_server_itself_refuses_writes_on_the_read_only_path(falkor: ManagedFalkorDB) -> None:
    """Behind the check before sending (bridge/queries.py), GRAPH.RO_QUERY: a write that got past it would still
    change nothing."""
    graph = fresh_graph(falkor)
    try:
        graph.query("CREATE (:Resource {uri: 'x'})")
        for write in ("CREATE (:Resource {uri: 'y'})", "MATCH (n) SET n.k = 1", "MATCH (n) DETACH DELETE n"):
            with pytest.raises(InvalidQuery, match="only reads"):
                graph.read_query(write)
        assert graph.read_query("MATCH (n:Resource) RETURN n.uri, keys(n)").rows == [["x", ["uri"]]]
    finally:
        graph.close()


def test_an_empty_bridge_graph_says_to_sync_first(store: Path) -> None:
    proc = hybridkg("translate", "--to", "cypher", "--store", store, "--domain", "clinical",
                    "SELECT ?s WHERE { ?s a ?c }", check=False)
    assert proc.returncode == 2
    assert "hybridkg bridge sync" in proc.stderr
    ran = hybridkg("cypher", "--store", store, "--domain", "clinical", "MATCH (n) RETURN n")
    assert json.loads(ran.stdout) == {"columns": ["n"], "rows": []}
    assert "hybridkg bridge sync" in ran.stderr


def _write(store: Path, name: str, text: str) -> str:
    path = store.parent / name
    path.write_text(text, encoding="utf-8")
    return str(path)
