"""/update (SPARQL 1.1 Update through the SHACL gate) through httpx, SPARQLWrapper and rdflib's
SPARQLUpdateStore."""

from __future__ import annotations

from pathlib import Path

import httpx
import rdflib
from rdflib.plugins.stores.sparqlstore import SPARQLUpdateStore
from SPARQLWrapper import POST, SPARQLWrapper

CLINICAL_DATA = "https://hybridkg.dev/graph/clinical/data"
BAD_PRESCRIPTION = Path(__file__).resolve().parents[3] / "ontology" / "clinical" / "examples" / "bad-prescription.ttl"
NOTES = "https://example.org/graph/notes"
INSERT = f'INSERT DATA {{ GRAPH <{NOTES}> {{ <https://example.org/a> <https://example.org/says> "hello" }} }}'
ASK_HELLO = f'ASK {{ GRAPH <{NOTES}> {{ <https://example.org/a> <https://example.org/says> "hello" }} }}'


def ask(url: str, query: str) -> bool:
    r = httpx.get(url + "/sparql", params={"query": query})
    assert r.status_code == 200, r.text
    return bool(r.json()["boolean"])


def test_update_form_and_direct(fresh):
    r = httpx.post(fresh.url + "/update", data={"update": INSERT})
    assert r.status_code == 200, r.text
    assert r.json()["asserted_added"] == 1
    assert ask(fresh.url, ASK_HELLO)
    r = httpx.post(fresh.url + "/update", content=f"CLEAR GRAPH <{NOTES}>",
                   headers={"content-type": "application/sparql-update"})
    assert r.status_code == 200, r.text
    assert r.json()["asserted_removed"] == 1
    assert not ask(fresh.url, ASK_HELLO)


def test_bad_updates_are_400_and_the_server_keeps_serving(fresh):
    r = httpx.post(fresh.url + "/update", data={"update": "INSERT DATA { <a> }"})
    assert r.status_code == 400
    assert "error" in r.text.lower()
    assert httpx.post(fresh.url + "/update", data={}).status_code == 400
    assert httpx.post(fresh.url + "/update", content=b"x", headers={"content-type": "text/plain"}).status_code == 400
    assert httpx.get(fresh.url + "/update").status_code == 405
    assert httpx.post(fresh.url + "/update", data={"update": INSERT}).status_code == 200


def test_shacl_rejection_is_422_with_the_report(fresh):
    body = BAD_PRESCRIPTION.read_text()
    prefixes = "".join(line.replace("@prefix", "PREFIX").rstrip(" .") + "\n"
                       for line in body.splitlines() if line.startswith("@prefix"))
    triples = "\n".join(line for line in body.splitlines() if not line.startswith(("@prefix", "#")))
    update = f"{prefixes}INSERT DATA {{ GRAPH <{CLINICAL_DATA}> {{ {triples} }} }}"
    r = httpx.post(fresh.url + "/update", data={"update": update})
    assert r.status_code == 422, r.text
    report = r.json()["report"]
    assert report["conforms"] is False
    assert any("bad-0001" in res["focus"] for res in report["results"])
    assert not ask(fresh.url, "ASK { <https://hybridkg.dev/data/clinical/prescription/bad-0001> ?p ?o }")


def test_sparqlwrapper_update(fresh):
    sw = SPARQLWrapper(fresh.url + "/sparql", updateEndpoint=fresh.url + "/update")
    sw.setMethod(POST)
    sw.setQuery(INSERT)
    result = sw.query()
    assert result.response.status == 200
    assert ask(fresh.url, ASK_HELLO)


def test_rdflib_sparqlupdatestore_through_the_graph_api(fresh):
    store = SPARQLUpdateStore(fresh.url + "/sparql", fresh.url + "/update")
    graph = rdflib.Graph(store, identifier=rdflib.URIRef(NOTES))
    subject = rdflib.URIRef("https://example.org/b")
    graph.add((subject, rdflib.URIRef("https://example.org/says"), rdflib.Literal("hi", lang="en")))
    assert ask(fresh.url, f'ASK {{ GRAPH <{NOTES}> {{ <{subject}> ?p "hi"@en }} }}')
    assert set(graph.objects(subject, rdflib.URIRef("https://example.org/says"))) == {rdflib.Literal("hi", lang="en")}
    graph.update(f"DELETE WHERE {{ <{subject}> ?p ?o }}")  # rdflib wraps it in GRAPH <NOTES> { }
    assert not ask(fresh.url, f"ASK {{ GRAPH <{NOTES}> {{ <{subject}> ?p ?o }} }}")
