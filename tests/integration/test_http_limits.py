"""HTTP responses are read up to a configured size: a huge or endless body from a SPARQL endpoint is refused
with an error naming the setting to raise, and nothing is stored."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from hybridkg.errors import ResponseTooLarge
from hybridkg.semantic.settings import StoreConfig
from hybridkg.semantic.store.factory import make_store

EX = "http://example.org/"
SPARQL_JSON = "application/sparql-results+json"


def select_results(rows: int) -> bytes:
    """A SPARQL JSON result of ``rows`` bindings of ?g (what the store's graph listing asks for)."""
    bindings = [{"g": {"type": "uri", "value": f"{EX}g{i}"}} for i in range(rows)]
    return json.dumps({"head": {"vars": ["g"]}, "results": {"bindings": bindings}}).encode()


@dataclass
class Endpoint:
    """A fake SPARQL endpoint on 127.0.0.1: answers every POST with ``body`` (endless when None)."""

    body: bytes | None
    updates: list[bytes] = field(default_factory=list)
    url: str = ""

    def __post_init__(self) -> None:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                request = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.headers.get("Content-Type") == "application/sparql-update":
                    owner.updates.append(request)
                    self.send_response(204)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", SPARQL_JSON)
                if owner.body is not None:
                    self.send_header("Content-Length", str(len(owner.body)))
                self.end_headers()
                try:
                    if owner.body is not None:
                        self.wfile.write(owner.body)
                        return
                    self.close_connection = True
                    self.wfile.write(b'{"head": {"vars": ["g"]}, "results": {"bindings": [')
                    while True:  # until the client hangs up
                        self.wfile.write(b'{"g": {"type": "uri", "value": "http://example.org/g"}},' * 1000)
                except OSError:
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/sparql"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.02,), daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


@pytest.fixture
def endpoint(request: pytest.FixtureRequest) -> Iterator[Endpoint]:
    e = Endpoint(request.param)
    try:
        yield e
    finally:
        e.close()


def _store(endpoint: Endpoint, limit: int) -> Any:
    return make_store(StoreConfig(backend="remote", query_url=endpoint.url, max_response_bytes=limit))


@pytest.mark.parametrize("endpoint", [select_results(3)], indirect=True)
def test_a_response_within_the_limit_is_read(endpoint: Endpoint) -> None:
    assert [g.value for g in _store(endpoint, 10_000).graphs()] == [f"{EX}g0", f"{EX}g1", f"{EX}g2"]


@pytest.mark.parametrize("endpoint", [select_results(20_000), None], ids=["large", "endless"], indirect=True)
def test_a_larger_response_is_refused_naming_the_setting(endpoint: Endpoint) -> None:
    with pytest.raises(ResponseTooLarge, match="larger than 100,000 bytes") as info:
        _store(endpoint, 100_000).graphs()
    assert "raise store.max_response_bytes" in str(info.value)
    assert endpoint.url in str(info.value)


@pytest.mark.parametrize("endpoint", [select_results(20_000)], indirect=True)
def test_the_cli_reports_it_with_exit_2_and_stores_nothing(
    endpoint: Endpoint, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data.nt"
    data.write_text(f"<{EX}a> <{EX}p> <{EX}b> .\n")
    monkeypatch.setenv("HYBRIDKG_STORE__BACKEND", "remote")
    monkeypatch.setenv("HYBRIDKG_STORE__QUERY_URL", endpoint.url)
    monkeypatch.setenv("HYBRIDKG_STORE__MAX_RESPONSE_BYTES", "100000")
    exe = shutil.which("hybridkg", path=str(Path(sys.executable).parent)) or "hybridkg"
    proc = subprocess.run([exe, "load", str(data)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr
    assert "larger than 100,000 bytes; raise store.max_response_bytes" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not any(b"INSERT DATA" in u for u in endpoint.updates)

