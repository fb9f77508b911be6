"""/sparql through real clients (SPARQLWrapper, rdflib's SPARQLStore, httpx) against a real server."""

from __future__ import annotations

import csv
import io
import json
import time

import httpx
import pytest
import rdflib
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from SPARQLWrapper import CSV, GET, JSON, JSONLD, N3, POST, POSTDIRECTLY, RDFXML, TSV, TURTLE, XML, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import QueryBadFormed

CLIN = "https://hybridkg.dev/ns/clinical#"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
P001 = "https://hybridkg.dev/data/clinical/patient/p001"
CLINICAL_DATA = "https://hybridkg.dev/graph/clinical/data"
CRM_DATA = "https://hybridkg.dev/graph/crm/data"

# CardiovascularRiskPatient is never asserted: the reasoner derives it
AT_RISK = f"SELECT ?p WHERE {{ ?p a <{CLIN}CardiovascularRiskPatient> }} ORDER BY ?p"
LABEL_OF_P001 = f"SELECT ?label WHERE {{ <{P001}> <{RDFS_LABEL}> ?label }}"
CONSTRUCT_P001 = f"CONSTRUCT {{ <{P001}> ?p ?o }} WHERE {{ <{P001}> ?p ?o }}"
AT_RISK_PATIENTS = {
    "https://hybridkg.dev/data/clinical/ehr/patient-1001", "https://hybridkg.dev/data/clinical/lab/subject-L77",
    P001, "https://hybridkg.dev/data/clinical/patient/p004", "https://hybridkg.dev/data/clinical/patient/p006",
}


def wrapper(url: str, query: str, fmt: str, method: str = GET) -> SPARQLWrapper:
    sw = SPARQLWrapper(url + "/sparql")
    sw.setQuery(query)
    sw.setReturnFormat(fmt)
    if method == POSTDIRECTLY:
        sw.setMethod(POST)
        sw.setRequestMethod(POSTDIRECTLY)
    else:
        sw.setMethod(method)
    return sw


# --------------------------------------------------------------------------- SPARQLWrapper


@pytest.mark.parametrize("method", [GET, POST, POSTDIRECTLY])
def test_sparqlwrapper_select_json_with_inference(shared, method):
    result = wrapper(shared.url, AT_RISK, JSON, method).queryAndConvert()
    assert result["head"]["vars"] == ["p"]
    assert {b["p"]["value"] for b in result["results"]["bindings"]} == AT_RISK_PATIENTS


def test_sparqlwrapper_select_xml(shared):
    doc = wrapper(shared.url, LABEL_OF_P001, XML).queryAndConvert()
    literals = doc.getElementsByTagName("literal")
    assert [n.firstChild.data for n in literals] == ["Alice Moreno"]
    assert literals[0].getAttribute("xml:lang") == "en"


def test_sparqlwrapper_select_csv_and_tsv(shared):
    text = wrapper(shared.url, LABEL_OF_P001, CSV).queryAndConvert().decode()
    assert list(csv.reader(io.StringIO(text))) == [["label"], ["Alice Moreno"]]
    assert "\r\n" in text  # SPARQL CSV lines end in CRLF
    text = wrapper(shared.url, LABEL_OF_P001, TSV).queryAndConvert().decode()
    assert text.splitlines() == ["?label", '"Alice Moreno"@en']


def test_sparqlwrapper_ask(shared):
    assert wrapper(shared.url, f"ASK {{ <{P001}> a <{CLIN}CardiovascularRiskPatient> }}", JSON
                   ).queryAndConvert()["boolean"] is True
    doc = wrapper(shared.url, f"ASK {{ <{P001}> a <{CLIN}Nothing> }}", XML).queryAndConvert()
    assert doc.getElementsByTagName("boolean")[0].firstChild.data == "false"


@pytest.mark.parametrize("fmt", [XML, RDFXML, TURTLE, N3, JSONLD])
def test_sparqlwrapper_construct(shared, fmt):
    result = wrapper(shared.url, CONSTRUCT_P001, fmt).queryAndConvert()
    graph = rdflib.Graph().parse(data=result, format="turtle") if isinstance(result, bytes) else result
    assert (rdflib.URIRef(P001), rdflib.URIRef(RDFS_LABEL), rdflib.Literal("Alice Moreno", lang="en")) in graph
    assert (rdflib.URIRef(P001), rdflib.RDF.type, rdflib.URIRef(CLIN + "CardiovascularRiskPatient")) in graph


def test_sparqlwrapper_bad_query_reports_the_parser_message(shared):
    with pytest.raises(QueryBadFormed) as raised:
        wrapper(shared.url, "SELECT ?x WHERE { ?x ?y }", JSON).queryAndConvert()
    assert "error at 1:" in str(raised.value)


# --------------------------------------------------------------------------- rdflib SPARQLStore


def test_rdflib_sparqlstore_select_ask_construct(shared):
    graph = rdflib.Graph(SPARQLStore(shared.url + "/sparql"))
    rows = list(graph.query(AT_RISK))
    assert {str(r[0]) for r in rows} == AT_RISK_PATIENTS
    assert graph.query(f"ASK {{ <{P001}> <{RDFS_LABEL}> ?l }}").askAnswer is True
    constructed = graph.query(CONSTRUCT_P001).graph
    assert (rdflib.URIRef(P001), rdflib.URIRef(RDFS_LABEL), rdflib.Literal("Alice Moreno", lang="en")) in constructed
    # the Graph API on top of the store sends SPARQL too
    labels = set(graph.objects(rdflib.URIRef(P001), rdflib.URIRef(RDFS_LABEL)))
    assert labels == {rdflib.Literal("Alice Moreno", lang="en")}


# --------------------------------------------------------------------------- httpx: negotiation


@pytest.mark.parametrize(("accept", "expected"), [
    ("application/sparql-results+json", "application/sparql-results+json"),
    ("application/json", "application/sparql-results+json"),
    ("application/sparql-results+xml", "application/sparql-results+xml"),
    ("text/csv", "text/csv; charset=utf-8"),
    ("text/tab-separated-values", "text/tab-separated-values; charset=utf-8"),
    ("text/html;q=0.9, text/csv;q=0.5, application/sparql-results+xml;q=0.8", "application/sparql-results+xml"),
    ("*/*", "application/sparql-results+json"),
    ("text/*", "text/csv; charset=utf-8"),
    (None, "application/sparql-results+json"),
])
def test_select_content_negotiation(shared, accept, expected):
    headers = {"accept": accept} if accept else {}
    r = httpx.get(shared.url + "/sparql", params={"query": LABEL_OF_P001}, headers=headers)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == expected
    assert "Alice Moreno" in r.text


@pytest.mark.parametrize(("accept", "expected", "rdflib_format"), [
    ("text/turtle", "text/turtle; charset=utf-8", "turtle"),
    ("application/n-triples", "application/n-triples; charset=utf-8", "nt"),
    ("application/ld+json", "application/ld+json", "json-ld"),
    ("application/rdf+xml", "application/rdf+xml", "xml"),
    (None, "text/turtle; charset=utf-8", "turtle"),
])
def test_graph_content_negotiation(shared, accept, expected, rdflib_format):
    headers = {"accept": accept} if accept else {}
    r = httpx.post(shared.url + "/sparql", data={"query": CONSTRUCT_P001}, headers=headers)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == expected
    graph = rdflib.Graph().parse(data=r.content, format=rdflib_format)
    assert (rdflib.URIRef(P001), rdflib.URIRef(RDFS_LABEL), rdflib.Literal("Alice Moreno", lang="en")) in graph


def test_format_parameter_overrides_accept(shared):
    r = httpx.get(shared.url + "/sparql", params={"query": LABEL_OF_P001, "format": "tsv"},
                  headers={"accept": "application/sparql-results+json"})
    assert r.headers["content-type"].startswith("text/tab-separated-values")
    r = httpx.get(shared.url + "/sparql", params={"query": CONSTRUCT_P001, "format": "ntriples"})
    assert r.headers["content-type"].startswith("application/n-triples")


def test_nothing_acceptable_is_406_and_names_the_offers(shared):
    r = httpx.get(shared.url + "/sparql", params={"query": LABEL_OF_P001}, headers={"accept": "image/png"})
    assert r.status_code == 406
    assert "application/sparql-results+json" in r.text
    r = httpx.get(shared.url + "/sparql", params={"query": CONSTRUCT_P001},
                  headers={"accept": "application/sparql-results+json"})
    assert r.status_code == 406
    assert "text/turtle" in r.text
    r = httpx.get(shared.url + "/sparql", params={"query": LABEL_OF_P001, "format": "turtle"})
    assert r.status_code == 406


# --------------------------------------------------------------------------- httpx: protocol


def test_bad_query_is_400_with_the_parser_message_and_the_server_keeps_serving(shared):
    r = httpx.get(shared.url + "/sparql", params={"query": "SELECT ?x WHERE { ?x ?y }"})
    assert r.status_code == 400
    assert "SPARQL syntax error" in r.text
    assert "error at 1:" in r.text
    assert r.headers["x-request-id"]
    r = httpx.get(shared.url + "/sparql", params={"query": LABEL_OF_P001})
    assert r.status_code == 200


@pytest.mark.parametrize(("request_kwargs", "message"), [
    ({"method": "GET", "params": {}}, "no query"),
    ({"method": "GET", "params": [("query", "ASK {}"), ("query", "ASK {}")]}, "given 2 times"),
    ({"method": "POST", "content": b"ASK {}", "headers": {"content-type": "text/plain"}}, "application/sparql-query"),
    ({"method": "POST", "content": b"\xff\xfe", "headers": {"content-type": "application/sparql-query"}}, "UTF-8"),
    ({"method": "GET", "params": {"query": "ASK {}", "infer": "maybe"}}, "true or false"),
    ({"method": "GET", "params": {"query": "ASK {}", "default-graph-uri": "not an iri"}}, "not an IRI"),
    ({"method": "GET", "params": {"query": "   "}}, "empty"),
])
def test_malformed_requests_are_400(shared, request_kwargs, message):
    kwargs = dict(request_kwargs)
    r = httpx.request(kwargs.pop("method"), shared.url + "/sparql", **kwargs)
    assert r.status_code == 400, r.text
    assert message in r.text
    assert httpx.get(shared.url + "/sparql", params={"query": "ASK {}"}).status_code == 200


def test_body_above_the_cap_is_413(make_server):
    server = make_server(max_message_bytes=4096)
    query = "ASK { } #" + "x" * 5000
    r = httpx.post(server.url + "/sparql", content=query, headers={"content-type": "application/sparql-query"})
    assert r.status_code == 413
    assert "server.max_message_bytes" in r.text

    def chunks():  # no Content-Length: the cap is counted while reading
        yield query.encode()

    r = httpx.post(server.url + "/sparql", content=chunks(), headers={"content-type": "application/sparql-query"})
    assert r.status_code == 413
    assert httpx.get(server.url + "/sparql", params={"query": "ASK {}"}).status_code == 200


def test_infer_false_hides_inferred_triples(shared):
    def patients(**params):
        r = httpx.get(shared.url + "/sparql", params={"query": AT_RISK, **params})
        assert r.status_code == 200, r.text
        return {b["p"]["value"] for b in r.json()["results"]["bindings"]}

    assert patients() == AT_RISK_PATIENTS
    assert patients(infer="true") == AT_RISK_PATIENTS
    assert patients(infer="false") == set()


def test_dataset_parameters(shared):
    count = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"

    def number(params):
        r = httpx.get(shared.url + "/sparql", params=params)
        assert r.status_code == 200, r.text
        return int(r.json()["results"]["bindings"][0]["n"]["value"])

    crm_only = number([("query", count), ("default-graph-uri", CRM_DATA), ("infer", "false")])
    assert crm_only == 194
    both = number([("query", count), ("default-graph-uri", CRM_DATA), ("default-graph-uri", CLINICAL_DATA),
                   ("infer", "false")])
    assert both == 194 + 308
    assert number([("query", count), ("default-graph-uri", CRM_DATA)]) > crm_only  # plus the inferred graph
    graphs = "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }"
    r = httpx.get(shared.url + "/sparql", params=[("query", graphs), ("named-graph-uri", CRM_DATA)])
    assert [b["g"]["value"] for b in r.json()["results"]["bindings"]] == [CRM_DATA]
    r = httpx.post(shared.url + "/sparql", data={"query": graphs, "named-graph-uri": [CLINICAL_DATA]})
    assert [b["g"]["value"] for b in r.json()["results"]["bindings"]] == [CLINICAL_DATA]
    r = httpx.get(shared.url + "/sparql", params=[("query", count), ("default-graph-uri", "urn:no:such:graph")])
    assert r.status_code == 404  # as over gRPC: a dataset naming a graph the store lacks is NOT_FOUND
    assert "urn:no:such:graph" in r.text


def test_large_results_stream_in_many_batches(make_server):
    server = make_server(batch_rows=7)
    query = "SELECT ?s ?p ?o WHERE { ?s ?p ?o }"
    with httpx.stream("GET", server.url + "/sparql", params={"query": query}) as r:
        assert r.headers.get("transfer-encoding") == "chunked"
        body = b"".join(r.iter_bytes())
    rows = json.loads(body)["results"]["bindings"]
    assert len(rows) == 1041 + 401  # asserted + inferred (without restriction-class types, as test_auth_ops says)
    for accept, fmt in (("application/ld+json", "json-ld"), ("application/rdf+xml", "xml")):
        r = httpx.post(server.url + "/sparql", data={"query": "CONSTRUCT WHERE { ?s ?p ?o }"},
                       headers={"accept": accept})
        graph = rdflib.Graph().parse(data=r.content, format=fmt)
        assert len(graph) > 1000


def test_row_cap_in_the_first_batch_is_a_status(make_server):
    server = make_server(max_result_rows=10, batch_rows=256)
    r = httpx.get(server.url + "/sparql", params={"query": "SELECT * WHERE { ?s ?p ?o }"})
    assert r.status_code == 400
    assert "server.max_result_rows" in r.text
    assert httpx.get(server.url + "/sparql", params={"query": "SELECT * WHERE { ?s ?p ?o } LIMIT 10"}
                     ).status_code == 200


def test_row_cap_after_the_first_batch_cuts_the_body_short(make_server):
    # CSV is written batch by batch (batch_rows=5): the cap trips after the response has started
    server = make_server(max_result_rows=20, batch_rows=5)
    with httpx.stream("GET", server.url + "/sparql", params={"query": "SELECT * WHERE { ?s ?p ?o }"},
                      headers={"accept": "text/csv"}) as r:
        assert r.status_code == 200
        with pytest.raises(httpx.RemoteProtocolError):
            r.read()
    assert httpx.get(server.url + "/sparql", params={"query": "ASK {}"}).status_code == 200


@pytest.mark.parametrize("accept", ["application/sparql-results+json", "application/sparql-results+xml",
                                    "text/tab-separated-values"])
def test_row_cap_before_the_first_piece_gets_its_status(make_server, accept):
    # the store writes JSON, XML and TSV itself, counted as it writes: a cap met in the first piece is a status
    server = make_server(max_result_rows=20, batch_rows=5)
    r = httpx.get(server.url + "/sparql", params={"query": "SELECT * WHERE { ?s ?p ?o }"}, headers={"accept": accept})
    assert r.status_code == 400
    assert "server.max_result_rows" in r.text
    r = httpx.get(server.url + "/sparql", params={"query": "SELECT * WHERE { ?s ?p ?o } LIMIT 20"},
                  headers={"accept": accept})
    assert r.status_code == 200, "up to the cap is fine"


def test_deadline_stops_the_query_and_frees_its_worker(make_server):
    # one worker: if the stopped query kept it, the next request could not run
    server = make_server(workers=1, query_timeout_s=1.0)
    endless = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"  # ~3e9 rows
    start = time.monotonic()
    with httpx.stream("GET", server.url + "/sparql", params={"query": endless}, timeout=30) as r:
        assert r.status_code == 200
        with pytest.raises(httpx.RemoteProtocolError):
            r.read()
    assert time.monotonic() - start < 10
    r = httpx.get(server.url + "/sparql", params={"query": LABEL_OF_P001}, timeout=10)
    assert r.status_code == 200
    assert "Alice Moreno" in r.text


def test_client_going_away_frees_the_worker(make_server):
    server = make_server(workers=1)
    endless = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"
    with httpx.stream("GET", server.url + "/sparql", params={"query": endless}) as r:
        next(r.iter_bytes())
    r = httpx.get(server.url + "/sparql", params={"query": LABEL_OF_P001}, timeout=10)
    assert r.status_code == 200
