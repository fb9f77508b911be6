"""`hybridkg bridge sync|export` through the installed executable, on the embedded store and managed FalkorDB."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pyoxigraph import RdfFormat, parse
from rdflib import Graph
from rdflib.compare import isomorphic

ONTOLOGY = Path(__file__).resolve().parents[2] / "ontology"
EXTRA = """
@prefix ex: <http://example.org/> .
ex:rex a ex:Dog ; ex:name "Rex", "Rexy"@en ; ex:friend [ ex:name "anon" ] .
"""


def hybridkg(
    *args: str | Path, check: bool = True, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("hybridkg", path=str(Path(sys.executable).parent)) or "hybridkg"
    proc = subprocess.run([exe, *map(str, args)], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def _graph(text: str, fmt: str) -> Graph:
    return Graph().parse(data=text, format=fmt)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    store = tmp_path / "s"
    hybridkg("load", "--store", store, "--domain", "crm", ONTOLOGY / "crm" / "data.ttl")
    (tmp_path / "extra.ttl").write_text(EXTRA, encoding="utf-8")
    hybridkg("load", "--store", store, "--graph", "http://example.org/g", tmp_path / "extra.ttl")
    return store


def test_sync_then_export_gives_the_store_back_and_a_second_sync_changes_nothing(store: Path) -> None:
    first = json.loads(hybridkg("bridge", "sync", "--store", store).stdout)
    assert first["graph"] == "hybridkg_bridge"
    assert first["inferred"] is True
    assert first["changed"] == first["subjects"] > 0
    again = json.loads(hybridkg("bridge", "sync", "--store", store).stdout)
    assert (again["changed"], again["relationships_added"], again["nodes_deleted"]) == (0, 0, 0)

    exported = hybridkg("bridge", "export", "--store", store).stdout
    everything = hybridkg("sparql", "--store", store,
                          "CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } }").stdout
    assert exported.splitlines() == sorted(exported.splitlines())
    assert len(exported.splitlines()) == first["triples"]
    assert isomorphic(_graph(exported, "nt"), _graph(everything, "nt"))

    ttl = hybridkg("bridge", "export", "--store", store, "--format", "ttl").stdout
    assert "@prefix crm: <https://hybridkg.dev/ns/crm#>" in ttl
    assert isomorphic(_graph(ttl, "turtle"), _graph(exported, "nt"))


def test_domain_sync_asserted_only(store: Path) -> None:
    out = json.loads(hybridkg("bridge", "sync", "--store", store, "--domain", "crm", "--exposure", "asserted").stdout)
    assert (out["graph"], out["domain"], out["inferred"]) == ("hybridkg_bridge_crm", "crm", False)
    exported = hybridkg("bridge", "export", "--store", store, "--domain", "crm").stdout
    crm = {str(q.triple) + " ." for name in ("ontology.ttl", "data.ttl")
           for q in parse(path=str(ONTOLOGY / "crm" / name), format=RdfFormat.TURTLE)}
    assert "http://example.org/" not in exported
    assert len(exported.splitlines()) == len(crm) == out["triples"]
    # the whole store's graph is another one, still empty
    whole = hybridkg("bridge", "export", "--store", store)
    assert whole.stdout == ""
    assert "bridge sync" in whole.stderr


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (("sync", "--domain", "nope"), {}, "unknown domain 'nope'"),
        (("export", "--domain", "nope"), {}, "known domains: clinical, crm"),
        (("sync",), {"HYBRIDKG_STRUCTURAL__GRAPH__BACKEND": "memory"}, "set it to falkordb"),
    ],
)
def test_errors_exit_2_saying_what_to_do(store: Path, args: tuple[str, ...], env: dict[str, str], message: str) -> None:
    proc = hybridkg("bridge", *args, "--store", store, check=False, env=env)
    assert proc.returncode == 2
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
