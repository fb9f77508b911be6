"""Fixtures of the gRPC integration tests: real servers on 127.0.0.1 port 0 (see service.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from integration.grpc.service import (
    BRIDGE_BATCH_ROWS,
    LoopThread,
    Pki,
    Server,
    demo_runtime,
    openssl,
    settings_for,
)
from support.falkor import short_tmp

from hybridkg.server.grpc_api import start_grpc
from hybridkg.server.runtime import Runtime
from hybridkg.structural.settings import GraphBackend


@pytest.fixture(scope="session")
def loop_thread() -> Iterator[LoopThread]:
    lt = LoopThread()
    yield lt
    lt.close()


@pytest.fixture(scope="session")
def start_server(loop_thread: LoopThread) -> Iterator[Callable[[Runtime], Server]]:
    """Start a gRPC server over a runtime; every server (and runtime) is stopped at the end of the session."""
    started: list[Server] = []

    def start(runtime: Runtime, address: str = "127.0.0.1:0") -> Server:
        server, port = loop_thread.run(start_grpc(runtime, address))
        started.append(Server(runtime, f"127.0.0.1:{port}", server))
        return started[-1]

    yield start
    for s in started:
        loop_thread.run(s.server.stop(1))
        s.runtime.close()


@pytest.fixture(scope="session")
def service(tmp_path_factory: pytest.TempPathFactory, start_server: Callable[[Runtime], Server]) -> Server:
    """The shared server: API keys for each role, both demo domains loaded."""
    settings = settings_for(tmp_path_factory.mktemp("grpc-main"))
    settings.server.batch_rows = 50
    return start_server(demo_runtime(settings))


# ---------------------------------------------------------------------------------------------- TLS


@pytest.fixture(scope="session")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    """A throwaway CA, a server certificate for 127.0.0.1/localhost and a client certificate (openssl CLI)."""
    d = tmp_path_factory.mktemp("pki")
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=hybridkg test CA",
             "-keyout", "ca.key", "-out", "ca.pem", cwd=d)
    exts = (("server", "subjectAltName=IP:127.0.0.1,DNS:localhost"), ("client", "extendedKeyUsage=clientAuth"))
    for name, ext in exts:
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN=hybridkg test {name}",
                 "-keyout", f"{name}.key", "-out", f"{name}.csr", cwd=d)
        (d / f"{name}.ext").write_text(ext + "\n")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                 "-days", "2", "-extfile", f"{name}.ext", "-out", f"{name}.pem", cwd=d)
    return Pki(d / "ca.pem", d / "server.pem", d / "server.key", d / "client.pem", d / "client.key")


@pytest.fixture(scope="session")
def tight(tmp_path_factory: pytest.TempPathFactory, start_server: Callable[[Runtime], Server]) -> Server:
    """A server with small limits: 100 result rows, 100 kB uploads, 32 KiB messages."""
    settings = settings_for(tmp_path_factory.mktemp("grpc-tight"))
    settings.server.max_result_rows = 100
    settings.server.max_message_bytes = 32 << 10
    settings.store.max_input_bytes = 100_000
    return start_server(demo_runtime(settings))


@pytest.fixture(scope="session")
def single_worker(tmp_path_factory: pytest.TempPathFactory, start_server: Callable[[Runtime], Server]) -> Server:
    """A server with ONE worker and no practical row cap: a query still running would block every other."""
    settings = settings_for(tmp_path_factory.mktemp("grpc-one-worker"))
    settings.server.workers = 1
    settings.server.max_result_rows = 10**12
    return start_server(demo_runtime(settings))


@pytest.fixture(scope="module")
def bridged(loop_thread: LoopThread, start_server: Callable[[Runtime], Server]) -> Iterator[Server]:
    """A server whose runtime has the demo domains synced into the whole store's and crm's bridge graphs (on the
    structural layer's managed FalkorDB), stopped with the module."""
    with short_tmp() as path:
        settings = settings_for(path)
        settings.structural.graph.backend = GraphBackend.FALKORDB
        settings.server.batch_rows = BRIDGE_BATCH_ROWS
        settings.server.max_result_rows = 300
        runtime = demo_runtime(settings)
        runtime.bridge(None).sync()
        runtime.bridge("crm").sync()
        server = start_server(runtime)
        try:
            yield server
        finally:
            loop_thread.run(server.server.stop(1))
            runtime.close()
