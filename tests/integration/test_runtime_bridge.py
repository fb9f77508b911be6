"""``Runtime.bridge``: the bridge's sync per scope, its graph beside the structural layer's on the managed FalkorDB."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pyoxigraph import NamedNode
from support.falkor import short_tmp

from hybridkg.bridge.mapping import RdfMapping
from hybridkg.errors import NotFound, Unsupported
from hybridkg.semantic.settings import StoreBackend
from hybridkg.server.config import Settings
from hybridkg.server.runtime import Runtime
from hybridkg.structural.graphstore.falkordb_store import FalkorDBGraphStore
from hybridkg.structural.settings import EmbedderKind, ExtractorKind, GraphBackend, VectorBackend

CUSTOMER = NamedNode("https://hybridkg.dev/ns/crm#Customer")


def settings_in(path: Path, backend: GraphBackend = GraphBackend.FALKORDB) -> Settings:
    s = Settings()
    s.store.backend = StoreBackend.MEMORY
    s.structural.path = path / "s"
    s.structural.graph.backend = backend
    s.structural.embedder.kind = EmbedderKind.HASH
    s.structural.extractor.kind = ExtractorKind.RULES
    s.structural.vectors.backend = VectorBackend.EXACT
    return s


@pytest.fixture(scope="module")
def runtime() -> Iterator[Runtime]:
    with short_tmp() as path:
        rt = Runtime(settings_in(path))
        rt.kb.ensure_domain("crm", with_demo_data=True)
        try:
            yield rt
        finally:
            rt.close()


def test_one_sync_per_scope_on_the_structural_layers_server(runtime: Runtime) -> None:
    crm = runtime.bridge("crm")
    assert runtime.bridge("crm") is crm
    whole = runtime.bridge()
    assert whole is runtime.bridge(None)
    assert whole is not crm
    assert isinstance(crm.graph, FalkorDBGraphStore)
    assert isinstance(whole.graph, FalkorDBGraphStore)
    assert (crm.graph.graph_name, whole.graph.graph_name) == ("hybridkg_bridge_crm", "hybridkg_bridge")
    structural = runtime.structural().graph
    primary = getattr(structural, "primary", structural)
    assert crm.graph.server is primary.server  # same server, another graph

    assert crm.sync().changed == 0  # bridge() brought it in line, and it follows the store since
    assert RdfMapping(crm.registry).label(CUSTOMER) == "Customer"
    assert crm.scope.shapes is not None
    assert crm.graph.query("MATCH (n:Customer) RETURN count(n) AS c")[0]["c"] > 0
    customers = "MATCH (n:Customer) RETURN count(n) AS c"
    assert whole.graph.query(customers)[0]["c"] == crm.graph.query(customers)[0]["c"]
    assert runtime.bridge("clinical").graph.query(customers)[0]["c"] == 0  # crm's data is not clinical's


def test_an_unknown_domain_is_named(runtime: Runtime) -> None:
    with pytest.raises(NotFound, match="'nope'"):
        runtime.bridge("nope")


def test_off_or_without_falkordb_the_bridge_is_refused_clearly() -> None:
    with short_tmp() as path:
        off = settings_in(path)
        off.bridge.enabled = False
        rt = Runtime(off)
        try:
            with pytest.raises(Unsupported, match="bridge.enabled is false"):
                rt.bridge("crm")
        finally:
            rt.close()
        rt = Runtime(settings_in(path, GraphBackend.MEMORY))
        try:
            with pytest.raises(Unsupported, match="structural.graph.backend is memory"):
                rt.bridge()
            assert not rt.structural_open
        finally:
            rt.close()
