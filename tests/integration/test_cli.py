"""The CLI contract, exercised through the installed `hybridkg` executable in subprocesses."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hybridkg.semantic.domains import DomainPolicy

EX = "http://example.org/"
ONTOLOGY = f"""@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
<{EX}Dog> rdfs:subClassOf <{EX}Animal> .
<{EX}partOf> a owl:TransitiveProperty .
"""
RDF_TYPE = "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>"
DATA = f"<{EX}rex> {RDF_TYPE} <{EX}Dog> .\n<{EX}a> <{EX}partOf> <{EX}b> .\n<{EX}b> <{EX}partOf> <{EX}c> .\n"


def hybridkg(*args: str | Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("hybridkg", path=str(Path(sys.executable).parent)) or "hybridkg"
    proc = subprocess.run([exe, *map(str, args)], capture_output=True, text=True, timeout=300)
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


@pytest.fixture
def loaded_store(tmp_path: Path) -> Path:
    (tmp_path / "onto.ttl").write_text(ONTOLOGY)
    (tmp_path / "data.nt").write_text(DATA)
    store = tmp_path / "store"
    out = hybridkg("load", "--store", store, "--graph", EX + "g", "--json", tmp_path / "onto.ttl", tmp_path / "data.nt")
    summary = json.loads(out.stdout)
    assert summary["triples_asserted"] == 5
    assert summary["triples_inferred"] >= 2
    assert summary["seconds"] >= 0
    return store


def test_sparql_json_with_and_without_inference(loaded_store: Path) -> None:
    q = f"SELECT ?x WHERE {{ ?x a <{EX}Animal> }}"
    res = json.loads(hybridkg("sparql", "--store", loaded_store, q).stdout)
    assert res["head"]["vars"] == ["x"]
    assert res["results"]["bindings"] == [{"x": {"type": "uri", "value": EX + "rex"}}]
    res = json.loads(hybridkg("sparql", "--store", loaded_store, "--no-inference", q).stdout)
    assert res["results"]["bindings"] == []


def test_sparql_construct_prints_ntriples_and_reads_query_files(loaded_store: Path, tmp_path: Path) -> None:
    (tmp_path / "q.rq").write_text(f"CONSTRUCT {{ ?a <{EX}within> ?b }} WHERE {{ ?a <{EX}partOf> ?b }}")
    out = hybridkg("sparql", "--store", loaded_store, f"@{tmp_path / 'q.rq'}").stdout
    assert f"<{EX}a> <{EX}within> <{EX}c> .\n" in out
    assert len(out.strip().splitlines()) == 3


def test_explain_prints_derivation_tree(loaded_store: Path) -> None:
    tree = json.loads(hybridkg("explain", "--store", loaded_store, f"<{EX}a> <{EX}partOf> <{EX}c> .").stdout)
    assert tree["triple"] == f"<{EX}a> <{EX}partOf> <{EX}c> ."
    assert tree["status"] == "inferred"
    assert tree["rule"] == "prp-trp"
    assert {p["status"] for p in tree["premises"]} == {"asserted"}
    assert len(tree["premises"]) == 3
    missing = json.loads(hybridkg("explain", "--store", loaded_store, f"<{EX}c> <{EX}partOf> <{EX}a> .").stdout)
    assert missing["status"] == "not_entailed"


def test_reason_with_reference_engine_json(loaded_store: Path) -> None:
    out = json.loads(hybridkg("reason", "--store", loaded_store, "--engine", "owlrl", "--json").stdout)
    assert out["engine"] == "owlrl"
    assert out["asserted"] == 5
    assert out["inferred"] >= 2
    res = json.loads(hybridkg("sparql", "--store", loaded_store, f"ASK {{ <{EX}rex> a <{EX}Animal> }}").stdout)
    assert res["boolean"] is True


def test_errors_go_to_stderr_with_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.ttl"
    bad.write_text(f"<{EX}a> <{EX}p> <{EX}b> .\n<{EX}a> <{EX}p> .\n")
    proc = hybridkg("load", "--store", tmp_path / "s", bad, check=False)
    assert proc.returncode == 2
    assert "Turtle parse error at line 2" in proc.stderr
    assert proc.stdout == ""
    proc = hybridkg("load", "--store", tmp_path / "s", "--format", "csv", bad, check=False)
    assert proc.returncode == 2
    assert "accepted formats" in proc.stderr
    proc = hybridkg("sparql", "--store", tmp_path / "s", "SELECT WHERE {", check=False)
    assert proc.returncode == 2
    assert "SPARQL syntax error" in proc.stderr
    proc = hybridkg("explain", "--store", tmp_path / "s", "not a triple", check=False)
    assert proc.returncode == 2
    assert "N-Triples" in proc.stderr


def test_validate_exit_codes_and_report(tmp_path: Path) -> None:
    clinical = DomainPolicy.load().get("clinical")
    shapes = clinical.path_of(clinical.shapes)
    onto = clinical.path_of(clinical.ontology)
    data = clinical.path_of(clinical.demo_data)
    bad = clinical.path_of(clinical.examples["invalid"])
    ok = hybridkg("validate", "--shapes", shapes, onto, data)
    assert json.loads(ok.stdout) == {"conforms": True, "results": []}
    proc = hybridkg("validate", "--shapes", shapes, onto, data, bad, check=False)
    assert proc.returncode == 1
    report = json.loads(proc.stdout)
    assert report["conforms"] is False
    first = report["results"][0]
    assert set(first) == {"focus", "path", "constraint", "value", "severity", "message"}


def test_strict_domain_load_rejected_by_cli(tmp_path: Path) -> None:
    clinical = DomainPolicy.load().get("clinical")
    store = tmp_path / "s"
    out = hybridkg("load", "--store", store, "--domain", "clinical", "--json", clinical.path_of(clinical.demo_data))
    assert json.loads(out.stdout)["files"][0]["graph"] == clinical.data_graph
    graphs = hybridkg("sparql", "--store", store, "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }").stdout
    assert clinical.ontology_graph in graphs, "the domain's ontology is loaded with its data"
    before = hybridkg("sparql", "--store", store, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }").stdout
    proc = hybridkg("load", "--store", store, "--domain", "clinical", clinical.path_of(clinical.examples["invalid"]),
                    check=False)
    assert proc.returncode == 2
    assert "SHACL violation" in proc.stderr
    assert "MinExclusiveConstraintComponent" in proc.stderr
    after = hybridkg("sparql", "--store", store, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }").stdout
    assert before == after


def test_demo_runs() -> None:
    out = hybridkg("demo").stdout
    assert "rejected bad-prescription.ttl" in out
    assert "accepted new-patient.ttl" in out
    assert "[cls-svf1]" in out
