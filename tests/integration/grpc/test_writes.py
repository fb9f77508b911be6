"""Writes over gRPC: Ingest (RDF in chunks, text documents), Update, Validate, Retrieve + Feedback on what was
ingested, and readers running while a write commits (they see the state before or after, never half)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from integration.grpc.service import KEYS, Server

from hybridkg.client import Client
from hybridkg.errors import InvalidQuery, ShapeViolation
from hybridkg.server.settings import Role

ONTOLOGY = Path(__file__).resolve().parents[3] / "ontology"
NEW_PATIENT = ONTOLOGY / "clinical" / "examples" / "new-patient.ttl"
BAD_PRESCRIPTION = ONTOLOGY / "clinical" / "examples" / "bad-prescription.ttl"
CRM_DOCS = ONTOLOGY / "crm" / "docs"


def test_ingest_rdf_in_many_chunks(service: Server) -> None:
    data = b"".join(b"<urn:chunks:s%d> <urn:chunks:p> \"value %d\" .\n" % (i, i) for i in range(500))
    with Client(service.target, KEYS[Role.WRITER]) as client:
        report = client.ingest(data, format="ntriples", graph="urn:chunks:g", chunk_size=1000)
        assert report["kind"] == "rdf"
        assert report["graph"] == "urn:chunks:g"
        assert report["triples_asserted"] == 500
        rows = list(client.sparql("SELECT (COUNT(*) AS ?n) WHERE { GRAPH <urn:chunks:g> { ?s ?p ?o } }"))
    assert rows[0][0].value == "500", "chunks split mid-line were joined in order"


def test_ingest_valid_clinical_file_reports_inferences(service: Server) -> None:
    with Client(service.target, KEYS[Role.WRITER]) as client:
        report = client.ingest(NEW_PATIENT, domain="clinical")
    assert report["domain"] == "clinical"
    assert report["format"] == "Turtle"
    assert report["triples_asserted"] > 0
    assert report["triples_inferred"] > 0
    assert report["shacl"]["conforms"] is True


def test_text_document_then_retrieve_and_feedback(service: Server) -> None:
    with Client(service.target, KEYS[Role.WRITER]) as client:
        for path in sorted(CRM_DOCS.iterdir()):
            report = client.ingest(path, domain="crm")
            assert report["kind"] == "document"
            assert report["documents_added"] == 1
            assert report["chunks_added"] >= 1
        result = client.retrieve("Helios Solar Iberia pilot", mode="local", top_k=5, domain="crm")
        assert result["mode"] == "local"
        assert result["items"], "the documents' entities are found"
        assert len(result["items"]) <= 5
        naive = client.retrieve("renewal pushback", mode="naive", top_k=3)
        assert naive["chunks"]
        assert naive["chunks"][0]["doc"]
        fb = client.feedback({result["items"][0]["id"]: 1.0})
    assert fb["epoch"] >= 1


def test_update_through_the_shacl_gate(service: Server) -> None:
    with Client(service.target, KEYS[Role.WRITER]) as client:
        change = client.update("INSERT DATA { GRAPH <urn:update:g> { <urn:update:a> <urn:update:b> \"c\" } }")
        assert change["asserted_added"] == 1
        assert client.sparql("ASK { GRAPH <urn:update:g> { <urn:update:a> <urn:update:b> \"c\" } }") is True
        with pytest.raises(ShapeViolation) as rejected:
            client.update(
                "PREFIX clin: <https://hybridkg.dev/ns/clinical#> "
                "INSERT DATA { GRAPH <https://hybridkg.dev/graph/clinical/data> { "
                "<https://hybridkg.dev/data/clinical/prescription/upd-1> a clin:Prescription ; "
                "clin:prescribedTo <https://hybridkg.dev/data/clinical/patient/p002> } }"
            )
        assert rejected.value.report is not None
        assert rejected.value.report.violations
        assert client.sparql("ASK { <https://hybridkg.dev/data/clinical/prescription/upd-1> ?p ?o }") is False
        with pytest.raises(InvalidQuery):
            client.update("INSERT DATTA { <urn:a> <urn:b> <urn:c> }")


def test_validate_is_a_dry_run(tight: Server) -> None:
    # on a server where new-patient.ttl was never loaded (validating it again after a load reports a second dose)
    with Client(tight.target, KEYS[Role.READER]) as client:
        bad = client.validate(BAD_PRESCRIPTION.read_bytes(), domain="clinical", format="turtle")
        assert bad.conforms is False
        assert {v.focus.rsplit("/", 1)[-1].rstrip(">") for v in bad.violations} >= {"bad-0001", "bad-0002"}
        good = client.validate(NEW_PATIENT.read_bytes(), domain="clinical", format="turtle")
        assert good.conforms is True
        assert client.sparql("ASK { <https://hybridkg.dev/data/clinical/prescription/bad-0001> ?p ?o }") is False


def test_readers_during_a_write_see_before_or_after_never_between(service: Server) -> None:
    count = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH <urn:concurrent:g> { ?s ?p ?o } }"
    data = b"".join(b"<urn:concurrent:s%d> <urn:concurrent:p> <urn:concurrent:o%d> .\n" % (i, i) for i in range(20000))
    seen: list[int] = []
    errors: list[BaseException] = []
    done = threading.Event()

    def read() -> None:
        try:
            with Client(service.target, KEYS[Role.READER], timeout=30) as client:
                while not done.is_set():
                    seen.append(int(list(client.sparql(count))[0][0].value))  # type: ignore[arg-type,union-attr]
        except BaseException as e:
            errors.append(e)

    readers = [threading.Thread(target=read) for _ in range(4)]
    for r in readers:
        r.start()
    try:
        with Client(service.target, KEYS[Role.WRITER], timeout=60) as client:
            report = client.ingest(data, format="ntriples", graph="urn:concurrent:g")
    finally:
        done.set()
        for r in readers:
            r.join(30)
    assert not errors
    assert report["triples_asserted"] == 20000
    assert seen, "the readers ran while the write was in flight"
    assert set(seen) <= {0, 20000}, f"a reader saw a half-written graph: {sorted(set(seen))}"
