"""The Graph Store HTTP Protocol at /rdf-graphs, over httpx against a real server."""

from __future__ import annotations

from pathlib import Path

import httpx
import rdflib

GSP = "/rdf-graphs"
CLINICAL_DATA = "https://hybridkg.dev/graph/clinical/data"
CRM_DATA = "https://hybridkg.dev/graph/crm/data"
INFERRED = "urn:hybridkg:graph:inferred"
BAD_PRESCRIPTION = Path(__file__).resolve().parents[3] / "ontology" / "clinical" / "examples" / "bad-prescription.ttl"
NEW = "https://example.org/graph/notes"
TTL = b"<https://example.org/a> <https://example.org/says> \"hello\" .\n"
TTL2 = b"<https://example.org/b> <https://example.org/says> \"bye\" .\n"


def graph_of(r: httpx.Response, fmt: str = "turtle") -> rdflib.Graph:
    return rdflib.Graph().parse(data=r.content, format=fmt)


def test_get_a_graph_in_each_format(shared):
    for accept, fmt in (("text/turtle", "turtle"), ("application/n-triples", "nt"),
                        ("application/ld+json", "json-ld"), ("application/rdf+xml", "xml")):
        r = httpx.get(shared.url + GSP, params={"graph": CRM_DATA}, headers={"accept": accept})
        assert r.status_code == 200, r.text
        assert r.headers["content-type"].startswith(accept)
        assert len(graph_of(r, fmt)) == 194
    head = httpx.head(shared.url + GSP, params={"graph": CRM_DATA})
    assert head.status_code == 200
    assert head.content == b""
    assert int(head.headers["content-length"]) > 0


def test_missing_graph_is_404_and_bad_names_are_400(shared):
    for method in ("GET", "HEAD"):
        assert httpx.request(method, shared.url + GSP, params={"graph": NEW}).status_code == 404
    assert httpx.get(shared.url + GSP).status_code == 400
    assert httpx.get(shared.url + GSP, params={"graph": CRM_DATA, "default": ""}).status_code == 400
    assert httpx.get(shared.url + GSP, params={"graph": "no iri"}).status_code == 400
    assert httpx.get(shared.url + GSP, params={"graph": CRM_DATA}, headers={"accept": "image/png"}).status_code == 406


def test_put_post_get_delete_round_trip(fresh):
    url = fresh.url + GSP
    r = httpx.put(url, params={"graph": NEW}, content=TTL, headers={"content-type": "text/turtle"})
    assert r.status_code == 201, r.text
    assert r.json()["asserted_added"] == 1
    assert r.headers["location"].endswith("graph=https%3A%2F%2Fexample.org%2Fgraph%2Fnotes")
    r = httpx.post(url, params={"graph": NEW}, content=TTL2, headers={"content-type": "application/n-triples"})
    assert r.status_code == 200, r.text
    assert len(graph_of(httpx.get(url, params={"graph": NEW}))) == 2
    r = httpx.put(url, params={"graph": NEW}, content=TTL2, headers={"content-type": "text/turtle"})
    assert r.status_code == 200
    assert r.json()["asserted_removed"] == 1
    got = graph_of(httpx.get(url, params={"graph": NEW}))
    assert set(got.objects()) == {rdflib.Literal("bye")}
    # the query endpoint sees the same graph
    r = httpx.get(fresh.url + "/sparql", params={"query": f"ASK {{ GRAPH <{NEW}> {{ ?s ?p \"bye\" }} }}"})
    assert r.json()["boolean"] is True
    assert httpx.delete(url, params={"graph": NEW}).status_code == 200
    assert httpx.get(url, params={"graph": NEW}).status_code == 404
    assert httpx.delete(url, params={"graph": NEW}).status_code == 404


def test_default_is_the_default_data_graph(fresh):
    url = fresh.url + GSP
    r = httpx.get(url, params={"default": ""})
    assert r.status_code == 200
    assert len(graph_of(r)) == 0
    r = httpx.post(url + "?default", content=TTL, headers={"content-type": "text/turtle"})
    assert r.status_code in (200, 201), r.text
    assert r.json()["graph"] == "urn:hybridkg:graph:default"
    assert len(graph_of(httpx.get(url + "?default"))) == 1
    q = "ASK { GRAPH <urn:hybridkg:graph:default> { <https://example.org/a> ?p ?o } }"
    assert httpx.get(fresh.url + "/sparql", params={"query": q}).json()["boolean"] is True


def test_post_to_the_store_creates_a_graph(fresh):
    r = httpx.post(fresh.url + GSP, content=TTL, headers={"content-type": "text/turtle"})
    assert r.status_code == 201, r.text
    assert r.json()["graph"].startswith("urn:uuid:")
    created = httpx.get(fresh.url + r.headers["location"])
    assert created.status_code == 200
    assert len(graph_of(created)) == 1


def test_strict_domain_write_is_422_with_the_shacl_report(fresh):
    url = fresh.url + GSP
    before = httpx.get(url, params={"graph": CLINICAL_DATA}, headers={"accept": "application/n-triples"}).content
    r = httpx.post(url, params={"graph": CLINICAL_DATA}, content=BAD_PRESCRIPTION.read_bytes(),
                   headers={"content-type": "text/turtle"})
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["report"]["conforms"] is False
    constraints = {res["constraint"].rsplit("#", 1)[-1] for res in body["report"]["results"]}
    assert {"MinCountConstraintComponent", "MinExclusiveConstraintComponent"} <= constraints
    assert any("bad-0002" in res["focus"] for res in body["report"]["results"])
    after = httpx.get(url, params={"graph": CLINICAL_DATA}, headers={"accept": "application/n-triples"}).content
    assert len(after.splitlines()) == len(before.splitlines())  # nothing stored
    r = httpx.put(url, params={"graph": CLINICAL_DATA}, content=BAD_PRESCRIPTION.read_bytes(),
                  headers={"content-type": "text/turtle"})
    assert r.status_code == 422


def test_writes_to_the_inferred_graph_are_refused(fresh):
    url = fresh.url + GSP
    for method in ("PUT", "POST", "DELETE"):
        r = httpx.request(method, url, params={"graph": INFERRED}, content=TTL, headers={"content-type": "text/turtle"})
        assert r.status_code == 400
        assert "cannot be written" in r.text
    assert httpx.get(url, params={"graph": INFERRED}).status_code == 200


def test_bad_bodies_are_refused_and_the_server_keeps_serving(fresh):
    url = fresh.url + GSP
    r = httpx.put(url, params={"graph": NEW}, content=b"<a> <b> .", headers={"content-type": "text/turtle"})
    assert r.status_code == 400
    assert "parse error" in r.text
    r = httpx.put(url, params={"graph": NEW}, content=TTL, headers={"content-type": "application/trig"})
    assert r.status_code == 415  # a dataset format where a graph is expected: Unsupported Media Type
    assert "text/turtle" in r.text
    r = httpx.put(url, params={"graph": NEW}, content=TTL)
    assert r.status_code == 415  # no Content-Type: the format is unknown
    assert httpx.get(url, params={"graph": NEW}).status_code == 404
    assert httpx.get(url, params={"graph": CRM_DATA}).status_code == 200
