"""The CLI contract, exercised through the installed `hybridkg` executable in subprocesses."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import shutil
import socket
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
    assert "the same as the SPARQL engine's: True" in out  # the bridge: SPARQL answered through its Cypher


def _count(store: Path) -> int:
    """Asserted triples in the default data graph."""
    count = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH <urn:hybridkg:graph:default> { ?s ?p ?o } }"
    out = hybridkg("sparql", "--store", store, count)
    return int(json.loads(out.stdout)["results"]["bindings"][0]["n"]["value"])


def test_load_compressed_files(tmp_path: Path) -> None:
    nt_gz = tmp_path / "data.nt.gz"
    nt_gz.write_bytes(gzip.compress(DATA.encode()))
    ttl_bz2 = tmp_path / "onto.ttl.bz2"
    ttl_bz2.write_bytes(bz2.compress(ONTOLOGY.encode()))
    store = tmp_path / "store"
    summary = json.loads(hybridkg("load", "--store", store, "--graph", EX + "g", "--json", ttl_bz2, nt_gz).stdout)
    assert [f["format"] for f in summary["files"]] == ["Turtle", "N-Triples"]
    assert [f["parsed"] for f in summary["files"]] == [2, 3]
    assert summary["triples_asserted"] == 5
    assert summary["triples_inferred"] >= 2
    res = json.loads(hybridkg("sparql", "--store", store, f"ASK {{ <{EX}rex> a <{EX}Animal> }}").stdout)
    assert res["boolean"] is True

    renamed = tmp_path / "data.bin"  # compression found by its magic bytes, format given by --format
    renamed.write_bytes(gzip.compress(f"<{EX}x> <{EX}p> <{EX}y> .\n".encode()))
    summary = json.loads(hybridkg("load", "--store", store, "--format", "nt", "--json", renamed).stdout)
    assert summary["triples_asserted"] == 1


def test_corrupt_or_oversized_compressed_files_store_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = tmp_path / "store"
    (tmp_path / "seed.nt").write_text(DATA)
    hybridkg("load", "--store", store, tmp_path / "seed.nt")
    packed = gzip.compress((f"<{EX}n> <{EX}p> <{EX}m> .\n" * 5_000).encode() + DATA.encode())
    truncated = tmp_path / "cut.nt.gz"
    truncated.write_bytes(packed[: len(packed) - 20])
    proc = hybridkg("load", "--store", store, truncated, check=False)
    assert proc.returncode == 2
    assert "cut.nt.gz is not a valid gzip stream" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert _count(store) == 3

    line = f"<{EX}s> <{EX}p> <{EX}o> .\n".encode()
    bomb = tmp_path / "bomb.nt.xz"
    bomb.write_bytes(lzma.compress(line * 400_000))  # ~10 MB of N-Triples in a few KB
    assert bomb.stat().st_size < 100_000
    monkeypatch.setenv("HYBRIDKG_STORE__MAX_INPUT_BYTES", "1000000")
    proc = hybridkg("load", "--store", store, bomb, check=False)
    assert proc.returncode == 2
    assert "bomb.nt.xz decompresses to more than the configured limit of 1,000,000 bytes" in proc.stderr
    assert "store.max_input_bytes" in proc.stderr
    assert _count(store) == 3


def test_paths_users_get_wrong_are_errors_with_exit_2(tmp_path: Path) -> None:
    store = tmp_path / "store"
    good = tmp_path / "good.nt"
    good.write_text(DATA)
    folder = tmp_path / "folder"
    folder.mkdir()
    cases = [
        (("load", "--store", store, folder), "folder is a directory, not a file"),
        (("load", "--store", store, good, tmp_path / "missing.nt"), "no such file"),
        (("load", "--store", store, good, tmp_path / "notes.txt"), "cannot tell the RDF format"),
        (("sparql", "--store", store, f"@{folder}"), "is a directory, not a query file"),
        (("sparql", "--store", store, f"@{tmp_path / 'missing.rq'}"), "no such query file"),
        (("validate", "--shapes", folder, good), "is a directory, not a shapes file"),
        (("validate", "--shapes", good, folder), "folder is a directory"),
    ]
    (tmp_path / "notes.txt").write_text("hello")
    for args, message in cases:
        proc = hybridkg(*args, check=False)
        assert proc.returncode == 2, (args, proc.stderr)
        assert message in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
    assert not store.exists() or _count(store) == 0, "a bad file in the list stops the load before any file"

    query = tmp_path / "latin1.rq"
    query.write_bytes("SELECT * WHERE { ?s ?p \"caf\u00e9\" }".encode("latin-1"))
    proc = hybridkg("sparql", "--store", store, f"@{query}", check=False)
    assert proc.returncode == 2
    assert "latin1.rq is not UTF-8 text" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_parse_error_in_a_later_file_says_what_was_loaded(tmp_path: Path) -> None:
    store = tmp_path / "store"
    good = tmp_path / "good.nt"
    good.write_text(DATA)
    bad = tmp_path / "bad.nt"
    bad.write_text(f'<{EX}x> <{EX}p> "unterminated .\n')
    proc = hybridkg("load", "--store", store, good, bad, check=False)
    assert proc.returncode == 2
    assert "N-Triples parse error at line 1" in proc.stderr
    assert f"(in {bad})" in proc.stderr
    assert "good.nt was loaded before it; " in proc.stderr
    assert _count(store) == 3


def test_a_file_that_cannot_be_opened_is_an_error_with_exit_2(tmp_path: Path) -> None:
    sock = tmp_path / "sock.nt"  # a unix socket: it exists, but open() fails even for root
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(sock))
        for args, message in [
            (("load", "--store", tmp_path / "store", sock), "cannot read"),
            (("sparql", "--store", tmp_path / "store", f"@{sock}"), "cannot read query file"),
            (("validate", "--shapes", sock, sock), "cannot read"),
        ]:
            proc = hybridkg(*args, check=False)
            assert proc.returncode == 2, (args, proc.stderr)
            assert f"{message} {sock}: No such device or address" in proc.stderr
            assert "Traceback" not in proc.stderr


def test_a_closed_stdout_is_not_a_traceback(loaded_store: Path) -> None:
    exe = shutil.which("hybridkg", path=str(Path(sys.executable).parent)) or "hybridkg"
    proc = subprocess.Popen(
        [exe, "sparql", "--store", str(loaded_store), "SELECT * WHERE { ?s ?p ?o }"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None
    assert proc.stderr is not None
    proc.stdout.close()  # like `| head` exiting before the output is written
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 2
    assert "Traceback" not in err


def test_an_unexpected_exception_still_exits_2_with_its_traceback(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from hybridkg.server import cli

    def broken(args: object) -> int:
        raise ValueError("boom")

    monkeypatch.setitem(cli.COMMANDS, "reason", broken)
    assert cli.main(["reason"]) == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert "Traceback" in err
    assert "error: internal error (ValueError: boom); this is a bug in hybridkg" in err


def test_structural_commands_check_their_files_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    big = tmp_path / "big.txt"
    big.write_text("word " * 3_000)
    latin1 = tmp_path / "scores.json"
    latin1.write_bytes('{"caf\u00e9": 1}'.encode("latin-1"))
    monkeypatch.setenv("HYBRIDKG_STRUCTURAL__CHUNKING__MAX_DOCUMENT_BYTES", "10000")
    store = tmp_path / "store"
    for args, message in [
        (("docs", "add", "--store", store, "--domain", "crm", folder),
         "folder is a directory with no text, Markdown or HTML file in it"),
        (("docs", "add", "--store", store, "--domain", "crm", big),
         "big.txt is 15,000 bytes; the limit is 10,000 bytes (structural.chunking.max_document_bytes)"),
        (("feedback", "--store", store, "--from", latin1), "scores.json is not UTF-8 text"),
        (("feedback", "--store", store, "--from", folder), "folder is a directory, not a feedback file"),
    ]:
        proc = hybridkg(*args, check=False)
        assert proc.returncode == 2, (args, proc.stderr)
        assert message in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
    assert not store.exists(), "nothing was opened"
