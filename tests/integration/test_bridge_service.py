"""The bridge inside the running service (issue 11 §1, "Sync"): a real gRPC server over a Runtime on the managed
FalkorDB; its start-up sync brings each domain's bridge graph in line, then every committed write and retraction
made through gRPC flows into the domain's graph and the whole store's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.falkor import short_tmp

from hybridkg.client import Client
from hybridkg.semantic.settings import StoreBackend
from hybridkg.server.config import Settings
from hybridkg.server.runtime import Runtime
from hybridkg.server.serve import BackgroundService
from hybridkg.structural.settings import EmbedderKind, ExtractorKind, GraphBackend, VectorBackend

CRM = "https://hybridkg.dev/ns/crm#"
DATA = "https://hybridkg.dev/graph/crm/data"
ACME = "https://hybridkg.dev/data/crm/company/acme-test"
HELIOS = "https://hybridkg.dev/data/crm/company/helios-solar"
NODE = "MATCH (n:Resource {uri: $uri}) RETURN labels(n) AS labels, properties(n) AS props"
INSERT = f"""PREFIX crm: <{CRM}> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
INSERT DATA {{ GRAPH <{DATA}> {{ <{ACME}> a crm:Company ; rdfs:label "Acme Test" }} }}"""
DELETE = f"""PREFIX crm: <{CRM}> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
DELETE DATA {{ GRAPH <{DATA}> {{ <{ACME}> a crm:Company ; rdfs:label "Acme Test" }} }}"""


def settings_in(path: Path) -> Settings:
    s = Settings()
    s.store.backend = StoreBackend.MEMORY
    s.structural.path = path / "s"
    s.structural.graph.backend = GraphBackend.FALKORDB
    s.structural.embedder.kind = EmbedderKind.HASH
    s.structural.extractor.kind = ExtractorKind.RULES
    s.structural.vectors.backend = VectorBackend.EXACT
    return s


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Runtime, BackgroundService]]:
    with short_tmp() as path:
        runtime = Runtime(settings_in(path))
        runtime.kb.ensure_domain("crm", with_demo_data=True)  # written before the service (as by a CLI command)
        try:
            with BackgroundService(runtime, bridge=True) as service:
                yield runtime, service
        finally:
            runtime.close()


def node(runtime: Runtime, domain: str | None, uri: str) -> list[dict[str, object]]:
    return runtime.bridge(domain).graph.query(NODE, {"uri": uri})


def test_the_start_up_sync_brings_what_was_written_before_into_every_scope(
    served: tuple[Runtime, BackgroundService],
) -> None:
    runtime, _ = served
    thread = runtime._bridge_thread
    assert thread is not None
    thread.join(60)
    assert not thread.is_alive()
    for domain in ("crm", None):
        [helios] = node(runtime, domain, HELIOS)
        assert "Customer" in helios["labels"]
    assert node(runtime, "clinical", HELIOS) == []  # another domain's graph
    assert runtime.bridge("crm").sync().changed == 0  # already in line


def test_a_write_through_grpc_appears_and_its_retraction_removes_it(served: tuple[Runtime, BackgroundService]) -> None:
    runtime, service = served
    with Client(service.endpoints.grpc, timeout=60) as client:
        added = client.update(INSERT)
        assert added["asserted_added"] == 2
        for domain in ("crm", None):
            [acme] = node(runtime, domain, ACME)
            assert "Company" in acme["labels"]
            assert "Party" in acme["labels"]  # inferred (crm:Company rdfs:subClassOf crm:Party): exposure inferred
            assert acme["props"]["label"] == "Acme Test"
        removed = client.update(DELETE)
        assert removed["asserted_removed"] == 2
        for domain in ("crm", None):
            assert node(runtime, domain, ACME) == []
    assert runtime.bridge("crm").sync().changed == 0  # the incremental path left nothing for a full sync to mend
