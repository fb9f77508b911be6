"""A BridgeSync that follows the knowledge base while a full sync runs: the writer does not wait for the sync, and
its change is in the graph when the sync returns (``BridgeSync.__call__`` holds it back, ``sync`` applies it)."""

from __future__ import annotations

import threading

from support.falkor import falkordb_server, fresh_graph, short_tmp

from hybridkg.bridge.policy import scope_of
from hybridkg.bridge.sync import BridgeSync
from hybridkg.semantic.settings import StoreBackend
from hybridkg.server.app import open_knowledge_base
from hybridkg.server.config import Settings

ACME = "https://hybridkg.dev/data/crm/company/acme-follow"
INSERT = f"""INSERT DATA {{ GRAPH <https://hybridkg.dev/graph/crm/data> {{
  <{ACME}> a <https://hybridkg.dev/ns/crm#Company> ; <http://www.w3.org/2000/01/rdf-schema#label> "Acme" }} }}"""


def test_a_write_during_a_full_sync_does_not_wait_and_is_applied_after_it() -> None:
    settings = Settings()
    settings.store.backend = StoreBackend.MEMORY
    kb = open_knowledge_base(settings)
    kb.ensure_domain("crm", with_demo_data=True)
    with short_tmp() as path, falkordb_server(path) as server:
        sync = BridgeSync(kb.store, fresh_graph(server), scope_of(kb.policy, None, "crm"), batch_size=10)
        stop = sync.attach(kb)
        in_sync, written = threading.Event(), threading.Event()
        blocked: list[int] = []

        def progress(done: int) -> None:
            in_sync.set()
            if not written.wait(10):  # the write below never came back: it waited for this sync
                blocked.append(done)

        runner = threading.Thread(target=sync.sync, args=(progress,))
        runner.start()
        try:
            assert in_sync.wait(30)
            kb.update(INSERT)  # the listener runs here, on this thread, while the sync is under way
            written.set()
        finally:
            written.set()
            runner.join(60)
        assert not blocked
        rows = sync.graph.query("MATCH (n:Resource {uri: $u}) RETURN labels(n) AS l", {"u": ACME})
        assert len(rows) == 1
        assert "Company" in rows[0]["l"]
        assert sync.sync().changed == 0
        stop()
        sync.close()
    kb.close()
