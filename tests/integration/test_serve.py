"""``hybridkg serve`` as a user runs it: a real process, its ready lines, real clients, clean stop on signals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import httpx
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

REPO = Path(__file__).resolve().parents[2]
CLINICAL = REPO / "ontology" / "clinical"


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["HYBRIDKG_STRUCTURAL__EMBEDDER__KIND"] = "hash"  # no model load: this test is about the process
    return env


def _start(*args: str) -> tuple[subprocess.Popen[str], dict[str, str]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "hybridkg.server.cli", "serve", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(), cwd=REPO,
    )
    ready: dict[str, str] = {}
    deadline = time.monotonic() + 120
    assert proc.stdout is not None
    while time.monotonic() < deadline and len(ready) < 2:
        line = proc.stdout.readline()
        if not line:
            break
        key, sep, value = line.strip().partition(": ")
        if sep and key in ("grpc", "http"):
            ready[key] = value
    if len(ready) < 2:
        proc.kill()
        _, err = proc.communicate(timeout=30)
        pytest.fail(f"serve did not print its addresses; stderr:\n{err}")
    return proc, ready


def _stop(proc: subprocess.Popen[str], sig: int = signal.SIGTERM) -> tuple[int, str]:
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    return proc.returncode, err


def _health(target: str) -> int:
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = stub.Check(health_pb2.HealthCheckRequest(service="hybridkg.v1.KnowledgeService"), timeout=30)
        return int(reply.status)


@pytest.mark.slow
def test_serve_a_store_prints_addresses_answers_and_stops_cleanly(tmp_path: Path) -> None:
    store = tmp_path / "kb"
    load = subprocess.run(
        [sys.executable, "-m", "hybridkg.server.cli", "load", f"--store={store}", "--domain", "clinical",
         str(CLINICAL / "data.ttl")], capture_output=True, text=True, env=_env(), cwd=REPO,
    )
    assert load.returncode == 0, load.stderr
    proc, ready = _start(f"--store={store}", "--grpc", "127.0.0.1:0", "--http", "127.0.0.1:0")
    try:
        host, _, port = ready["grpc"].rpartition(":")
        assert host == "127.0.0.1"
        assert int(port) > 0
        assert ready["http"].startswith("http://127.0.0.1:")
        assert _health(ready["grpc"]) == health_pb2.HealthCheckResponse.SERVING
        r = httpx.get(f"{ready['http']}/sparql", params={"query": "ASK { ?s a ?c }"},
                      headers={"accept": "application/sparql-results+json"}, timeout=30)
        assert r.status_code == 200
        assert r.json()["boolean"] is True
    finally:
        code, err = _stop(proc)
    assert code == 0, err
    # the store was closed: another process can open it and sees the data
    again = subprocess.run(
        [sys.executable, "-m", "hybridkg.server.cli", "sparql", f"--store={store}",
         "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"], capture_output=True, text=True, env=_env(), cwd=REPO,
    )
    assert again.returncode == 0, again.stderr
    n = int(json.loads(again.stdout)["results"]["bindings"][0]["n"]["value"])
    assert n > 100


@pytest.mark.slow
def test_serve_without_a_store_serves_the_demo_and_stops_on_sigint() -> None:
    proc, ready = _start("--grpc", "127.0.0.1:0", "--http", "127.0.0.1:0")
    try:
        page = httpx.get(ready["http"] + "/", timeout=30)
        assert page.status_code == 200
        assert "yasgui" in page.text.lower()
        r = httpx.get(f"{ready['http']}/sparql", timeout=30, params={
            "query": "SELECT ?p WHERE { ?p a <https://hybridkg.dev/ns/clinical#CardiovascularRiskPatient> }"})
        assert r.status_code == 200
        assert r.json()["results"]["bindings"]
    finally:
        code, err = _stop(proc, signal.SIGINT)
    assert code == 0, err


def test_serve_refuses_a_public_address_without_keys(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "hybridkg.server.cli", "serve", f"--store={tmp_path / 'kb'}",
         "--grpc", "0.0.0.0:0", "--http", "127.0.0.1:0"],
        capture_output=True, text=True, env=_env(), cwd=REPO, timeout=120,
    )
    assert run.returncode == 2
    assert "without API keys" in run.stderr
    assert "server.auth.keys" in run.stderr


def test_serve_rejects_a_malformed_address(tmp_path: Path) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "hybridkg.server.cli", "serve", f"--store={tmp_path / 'kb'}", "--grpc", "nonsense"],
        capture_output=True, text=True, env=_env(), cwd=REPO, timeout=60,
    )
    assert run.returncode == 2
    assert "--grpc" in run.stderr
    assert "HOST:PORT" in run.stderr


def test_keys_new_prints_a_key_whose_digest_is_the_config_line() -> None:
    import hashlib

    import yaml

    run = subprocess.run([sys.executable, "-m", "hybridkg.server.cli", "keys", "new", "--role", "writer",
                          "--name", "etl"], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    key = lines[0].removeprefix("key: ")
    entry = yaml.safe_load(lines[-1].strip())[0]
    assert entry == {"name": "etl", "sha256": hashlib.sha256(key.encode()).hexdigest(), "role": "writer"}
