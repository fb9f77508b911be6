"""The :class:`~hybridkg.structural.base.GraphStore` over FalkorDB, through the ``falkordb`` client (Redis protocol
over TCP or a unix socket).

:meth:`FalkorDBGraphStore.managed` runs its own server (:class:`~.server.ManagedFalkorDB`) on a data directory;
:meth:`FalkorDBGraphStore.connect` talks to one that is already running. With a managed server, a call that
finds the server gone (process exited, connection refused or reset) restarts it once and runs again: every
statement the protocol methods send is idempotent (MERGE, SET, DELETE by id), and with ``appendfsync always`` a
write that returned is in the append-only file, so nothing acknowledged is lost. A ``query`` statement is run
again the same way, so a write sent through it should be idempotent too (MERGE, not CREATE).

``query`` returns graph values as the protocol's records: nodes as :class:`~hybridkg.structural.base.Node`,
relationships as :class:`~hybridkg.structural.base.Edge` (endpoints by ``id``), paths as ``{"nodes", "edges"}``.
Install ``hiredis``: redis-py then parses replies several times faster (neighbourhood of 8 ids on a 100k-node
graph: 1-2 ms instead of 6-8 ms).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import redis
from falkordb import FalkorDB
from falkordb.edge import Edge as FalkorEdge
from falkordb.node import Node as FalkorNode
from falkordb.path import Path as FalkorPath
from redis.backoff import NoBackoff
from redis.retry import Retry

from hybridkg.errors import BackendUnavailable, InvalidInput, InvalidQuery
from hybridkg.structural.base import Edge, Node
from hybridkg.structural.graphstore.cypher import CypherGraphStore, parameter
from hybridkg.structural.graphstore.dialect import FALKORDB, check_name
from hybridkg.structural.graphstore.server import ManagedFalkorDB
from hybridkg.structural.settings import GraphConfig

T = TypeVar("T")
_DOWN = (redis.ConnectionError, redis.TimeoutError)


class FalkorDBGraphStore(CypherGraphStore):
    """One FalkorDB graph (a Redis key); close it to release the connection (and stop a managed server)."""

    def __init__(
        self,
        *,
        graph_name: str = "hybridkg",
        host: str = "127.0.0.1",
        port: int = 6379,
        unix_socket: str | Path | None = None,
        password: str | None = None,
        server: ManagedFalkorDB | None = None,
        owns_server: bool = False,
    ) -> None:
        super().__init__(FALKORDB)
        if not isinstance(graph_name, str) or not graph_name:
            raise InvalidInput("the FalkorDB graph name must be a non-empty string")
        self._graph_name = graph_name
        self._host, self._port, self._socket, self._password = host, port, unix_socket, password
        self._server = server
        self._owns_server = owns_server
        self._lock = threading.Lock()
        self._db: FalkorDB | None = None
        self._call(self._connect)
        self.ensure_indexes()

    @classmethod
    def managed(cls, path: str | Path, config: GraphConfig | None = None) -> FalkorDBGraphStore:
        """A store over its own FalkorDB server with data in ``path``; closing the store stops the server."""
        config = config or GraphConfig()
        server = ManagedFalkorDB(path, config).start()
        try:
            return cls(graph_name=config.graph_name, server=server, owns_server=True)
        except BaseException:
            server.stop()
            raise

    @classmethod
    def connect(
        cls,
        host: str = "127.0.0.1",
        port: int = 6379,
        *,
        graph_name: str = "hybridkg",
        unix_socket: str | Path | None = None,
        password: str | None = None,
    ) -> FalkorDBGraphStore:
        """A store over a FalkorDB server that is already running (hybridkg neither starts nor restarts it)."""
        return cls(graph_name=graph_name, host=host, port=port, unix_socket=unix_socket, password=password)

    @property
    def server(self) -> ManagedFalkorDB | None:
        return self._server

    @property
    def graph_name(self) -> str:
        return self._graph_name

    def __enter__(self) -> FalkorDBGraphStore:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        db, self._db = self._db, None
        if db is not None:
            with contextlib.suppress(redis.RedisError, OSError):
                db.connection.close()
        if self._owns_server and self._server is not None:
            self._server.stop()

    # ------------------------------------------------------------------------------------------ connection

    def _where(self) -> str:
        if self._server is not None:
            return self._server.address
        return f"unix:{self._socket}" if self._socket is not None else f"{self._host}:{self._port}"

    def _connect(self) -> None:
        old, self._db = self._db, None
        if old is not None:
            with contextlib.suppress(redis.RedisError, OSError):
                old.connection.close()
        once = Retry(NoBackoff(), 0)
        if self._server is not None and self._server.unix_socket is None:
            self._db = FalkorDB(host=self._server.host, port=self._server.port, retry=once, socket_connect_timeout=5)
        elif self._server is not None or self._socket is not None:
            sock = self._server.unix_socket if self._server is not None else self._socket
            self._db = FalkorDB(unix_socket_path=str(sock), password=self._password, retry=once)
        else:
            self._db = FalkorDB(
                host=self._host, port=self._port, password=self._password, retry=once, socket_connect_timeout=5
            )

    def _graph(self) -> Any:
        if self._db is None:
            raise BackendUnavailable(f"the FalkorDB store at {self._where()} is closed")
        return self._db.select_graph(self._graph_name)

    def _call(self, fn: Callable[[], T]) -> T:
        """``fn()``; if the managed server is gone, restart it once and run ``fn()`` again."""
        try:
            return fn()
        except _DOWN as e:
            if self._server is None:
                raise BackendUnavailable(
                    f"FalkorDB at {self._where()} is unreachable ({e}); start the server or check host and port"
                ) from e
            self._recover()
        try:
            return fn()
        except _DOWN as e:
            raise BackendUnavailable(
                f"the FalkorDB server for {self._server.data_dir} did not come back after a restart ({e}); "
                f"see {self._server.log_file}"
            ) from e

    def _recover(self) -> None:
        assert self._server is not None
        with self._lock:
            if not (self._server.alive() and self._server.ping()):
                self._server.restart()
            self._connect()

    # ------------------------------------------------------------------------------------------ statements

    def _run(self, cypher: str, params: Mapping[str, Any] | None = None, *, write: bool = False) -> list[list[Any]]:
        args = dict(params) if params else None
        try:
            if write:
                return list(self._call(lambda: self._graph().query(cypher, args).result_set))
            return list(self._call(lambda: self._graph().ro_query(cypher, args).result_set))
        except redis.ResponseError as e:
            raise InvalidInput(f"FalkorDB rejected a statement: {e}") from e

    def _run_ddl(self, ddl: str) -> None:
        try:
            self._run(ddl, write=True)
        except InvalidInput as e:
            if "already indexed" not in str(e):
                raise

    def query(self, cypher: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        if not isinstance(cypher, str) or not cypher.strip():
            raise InvalidQuery("the Cypher statement is empty")
        args = {check_name("parameter name", k): parameter(v) for k, v in (params or {}).items()} or None
        try:
            res = self._call(lambda: self._graph().query(cypher, args))
        except redis.ResponseError as e:
            raise InvalidQuery(f"FalkorDB rejected the query: {e}") from e
        columns = [str(h[1]) for h in res.header]
        ids: dict[int, str] = {}
        wanted: set[int] = set()
        for row in res.result_set:
            for value in row:
                _scan(value, ids, wanted)
        if wanted - ids.keys():
            ids.update(self.ids_of_keys(sorted(wanted - ids.keys())))
        return [{c: _plain(v, ids) for c, v in zip(columns, row, strict=True)} for row in res.result_set]


_SCALARS = (str, int, float, bool, type(None))


def _scan(value: Any, ids: dict[int, str], wanted: set[int]) -> None:
    """Note the ids of the nodes in ``value`` and the node keys its relationships point at."""
    if type(value) in _SCALARS:
        return
    if isinstance(value, FalkorNode):
        ids[value.id] = str(value.properties.get("id", ""))
    elif isinstance(value, FalkorEdge):
        wanted.update(k for k in (value.src_node, value.dest_node) if isinstance(k, int))
    elif isinstance(value, FalkorPath):
        for item in (*value.nodes(), *value.edges()):
            _scan(item, ids, wanted)
    elif isinstance(value, dict):
        for item in value.values():
            _scan(item, ids, wanted)
    elif isinstance(value, list):
        for item in value:
            _scan(item, ids, wanted)


def _plain(value: Any, ids: Mapping[int, str]) -> Any:
    if type(value) in _SCALARS:
        return value
    if isinstance(value, FalkorNode):
        props = dict(value.properties)
        return Node(str(props.get("id", "")), value.labels[0] if value.labels else "", props)
    if isinstance(value, FalkorEdge):
        props = dict(value.properties)
        src, dst = ids.get(value.src_node, ""), ids.get(value.dest_node, "")
        return Edge(str(props.get("id", "")), str(value.relation), src, dst, props)
    if isinstance(value, FalkorPath):
        return {"nodes": [_plain(n, ids) for n in value.nodes()], "edges": [_plain(e, ids) for e in value.edges()]}
    if isinstance(value, dict):
        return {str(k): _plain(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, ids) for v in value]
    return value
