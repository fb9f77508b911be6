"""Shared fixtures (a real `oxigraph serve` process) and the skip ledger of support.prerequisites: a missing
prerequisite skips a test, but under CI (CI=true or CI=1) it fails, and so does the session if any test other
than the Neo4j ones ends skipped."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.prerequisites import SkipLedger, missing


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(SkipLedger(), "hybridkg-skip-ledger")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _oxigraph_binary() -> str:
    exe = shutil.which("oxigraph") or str(Path(sys.executable).parent / "oxigraph")
    if not Path(exe).exists():
        missing(
            f"the `oxigraph` server binary (looked on PATH and at {exe})",
            "install the PyPI package oxigraph into the test venv (`.venv/bin/pip install oxigraph`)",
        )
    return exe


@pytest.fixture
def oxigraph_server(tmp_path: Path) -> Iterator[str]:
    """A real `oxigraph serve` on 127.0.0.1, stopped after the test; yields its base URL."""
    port = _free_port()
    proc = subprocess.Popen(
        [_oxigraph_binary(), "serve", "--location", str(tmp_path / "oxi"), "--bind", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        try:
            with urllib.request.urlopen(f"{base}/query?query=ASK%7B%7D", timeout=1):
                break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                err = proc.stderr.read().decode() if proc.stderr else ""
                pytest.fail(f"oxigraph serve did not start: {err}")
            time.sleep(0.1)
    try:
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
