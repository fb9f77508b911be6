"""The :class:`~hybridkg.structural.base.GraphStore` over FalkorDB, through redis-py (the Redis protocol over a unix
socket or TCP, with a password when the server asks for one) and FalkorDB's compact replies (:mod:`.falkordb_reply`).

:meth:`FalkorDBGraphStore.managed` runs its own server (:class:`~.server.ManagedFalkorDB`) on a data directory
and connects through its socket (or port) with its password; :meth:`FalkorDBGraphStore.connect` talks to one that
is already running. With a managed server, a call that finds the server gone (process exited, connection refused
or reset) restarts it, and with ``appendfsync always`` a write that returned is in the append-only file, so
nothing acknowledged is lost. Then the call runs again only when that cannot apply anything twice:

* a read (``GRAPH.RO_QUERY``) always;
* a write (``GRAPH.QUERY``: the upserts, deletes and index DDL) only when it failed before any of it left for the
  server (the connection was refused). A write that was sent and then lost its connection may or may not have
  been applied: it raises :class:`~hybridkg.errors.BackendUnavailable` saying so, and the caller checks and
  repeats it.

A ``query`` statement is sent as ``GRAPH.RO_QUERY`` first, so a read is retried like any read; one that FalkorDB
refuses there because it writes (it executes nothing then) is sent again as ``GRAPH.QUERY``, a write.

``query`` returns graph values as the protocol's records: nodes as :class:`~hybridkg.structural.base.Node`,
relationships as :class:`~hybridkg.structural.base.Edge` (endpoints by ``id``), paths as ``{"nodes", "edges"}``.
Install ``hiredis``: redis-py then parses replies several times faster (neighbourhood of 8 ids on a 100k-node
graph: 1-2 ms instead of 6-8 ms).

The query path is one round trip: the statement with its parameters in a ``CYPHER`` header, decoded from the
compact reply in one pass. The names behind the reply's label, relationship type and property key numbers (the
graph's schema) are read once and kept with their version; every statement carries that version, and the server
refuses one whose version is stale before running anything, so the store reads the schema again and resends.
(The ``falkordb`` client read the schema with two or three procedure calls in every query that returned a node.)
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

import redis
from falkordb.helpers import stringify_param_value
from redis.backoff import NoBackoff
from redis.connection import AbstractConnection
from redis.retry import Retry

from hybridkg.errors import BackendUnavailable, DeadlineExceeded, InvalidInput, InvalidQuery, NotFound
from hybridkg.structural.base import Edge, GraphNode, GraphPath, GraphRelationship, Node, ReadResult
from hybridkg.structural.graphstore.cypher import CypherGraphStore, parameter
from hybridkg.structural.graphstore.dialect import FALKORDB, check_name
from hybridkg.structural.graphstore.falkordb_reply import (
    SCHEMA_QUERY,
    Decoder,
    RawEdge,
    RawNode,
    RawPath,
    Schema,
    check,
    mismatch,
)
from hybridkg.structural.graphstore.server import ManagedFalkorDB
from hybridkg.structural.settings import GraphConfig

T = TypeVar("T")
_DOWN = (redis.ConnectionError, redis.TimeoutError)
# GRAPH.RO_QUERY refusals after which the statement runs as GRAPH.QUERY: it writes, or the graph key is missing
_NOT_READ_ONLY = ("executed only on read-only queries", "graph operation on empty key")
_SENT = threading.local()  # .flag: a command of the current call left for the server (see _MarksSends)
_READ, _WRITE = "GRAPH.RO_QUERY", "GRAPH.QUERY"
_STATS = threading.local()  # .last: the statistics of the last reply in this thread
_SERVER_TIME = "Query internal execution time:"

if TYPE_CHECKING:
    _Connection = AbstractConnection
else:
    _Connection = object


class _MarksSends(_Connection):
    """Sets ``_SENT.flag`` in the calling thread before a command goes to the socket, after the connection (if
    it had to be made) is up: a call that fails with the flag unset never reached the server. The handshake of a
    new connection (AUTH, HELLO, CLIENT SETINFO) does not count."""

    _handshaking = False

    def on_connect_check_health(self, check_health: bool = True) -> None:
        self._handshaking = True
        try:
            super().on_connect_check_health(check_health=check_health)
        finally:
            self._handshaking = False

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        if not self._handshaking:
            if not self._sock:
                self.connect_check_health(check_health=False)
            _SENT.flag = True
        super().send_packed_command(command, check_health=check_health)


class _TcpConnection(_MarksSends, redis.Connection):
    pass


class _UnixConnection(_MarksSends, redis.UnixDomainSocketConnection):
    pass


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
        self._db: redis.Redis | None = None
        self._schema: Schema | None = None  # read when a reply first holds a node or relationship
        self._call(self._connect, retry=True)
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
                db.connection_pool.disconnect()
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
                old.connection_pool.disconnect()
        server = self._server
        sock = server.unix_socket if server is not None else self._socket
        common: dict[str, Any] = {
            "password": server.password if server is not None else self._password,
            "retry": Retry(NoBackoff(), 0),
            "socket_connect_timeout": 5,
            "decode_responses": True,
        }
        if sock is not None:
            pool = redis.ConnectionPool(connection_class=_UnixConnection, path=str(sock), **common)
        else:
            host, port = (server.host, server.port) if server is not None else (self._host, self._port)
            pool = redis.ConnectionPool(connection_class=_TcpConnection, host=host, port=port, **common)
        db = redis.Redis(connection_pool=pool)
        try:
            db.ping()
        except BaseException:
            pool.disconnect()
            raise
        self._db = db

    def _client(self) -> redis.Redis:
        if self._db is None:
            raise BackendUnavailable(f"the FalkorDB store at {self._where()} is closed")
        return self._db

    def _call(self, fn: Callable[[], T], *, retry: bool) -> T:
        """``fn()``; if the managed server is gone, restart it and run ``fn()`` once more when ``retry`` (``fn``
        only reads) or when nothing of ``fn`` reached the server. A write that may have reached it is not run
        again: :class:`BackendUnavailable` says so."""
        _SENT.flag = False
        try:
            return fn()
        except _DOWN as e:
            sent = bool(_SENT.flag)
            if self._server is None:
                if sent and not retry:
                    raise BackendUnavailable(
                        f"the connection to FalkorDB at {self._where()} broke during a write ({e}); it may or may not "
                        "have been applied: check the data and repeat the write if it is missing"
                    ) from e
                raise BackendUnavailable(
                    f"FalkorDB at {self._where()} is unreachable ({e}); start the server or check host and port"
                ) from e
            self._recover()
            if sent and not retry:
                raise BackendUnavailable(
                    f"the FalkorDB server for {self._server.data_dir} went away during a write ({e}). It has been "
                    "restarted with every acknowledged write, but this one may or may not have been applied: check "
                    "the data and repeat the write if it is missing (the store's upserts and deletes are safe to "
                    f"repeat). Why the server went away: see {self._server.log_file}"
                ) from e
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

    def _send(self, command: str, cypher: str, args: Mapping[str, Any] | None, timeout_ms: int | None) -> list[Any]:
        """One statement's compact reply, resent when the server's schema version moved on (it ran nothing then)."""
        text = _header(args) + cypher
        extra: list[Any] = ["--compact"] if timeout_ms is None else ["--compact", "timeout", timeout_ms]
        for _ in range(5):
            schema = self._schema
            version = [] if schema is None else ["version", schema.version]
            reply = self._client().execute_command(command, self._graph_name, text, *extra, *version)
            moved = mismatch(reply)
            if moved is None:
                _STATS.last = check(reply)[-1]
                return reply
            self._schema = self._read_schema(moved)
        raise BackendUnavailable(f"the schema of the FalkorDB graph {self._graph_name} kept changing under a query")

    def server_ms(self) -> float | None:
        """FalkorDB's own time for the last statement this thread ran (its reply's "internal execution time": parse,
        plan and execute, without the socket and the decoding), in milliseconds."""
        for line in getattr(_STATS, "last", ()):
            if isinstance(line, str) and line.startswith(_SERVER_TIME):
                return float(line[len(_SERVER_TIME) :].split()[0])
        return None

    def _read_schema(self, version: int | None = None) -> Schema:
        """The graph's schema at its current version (``version``: the server's, when a refusal just said it)."""
        guess = 0 if version is None else version
        for _ in range(5):
            reply = self._client().execute_command(_READ, self._graph_name, SCHEMA_QUERY, "--compact", "version", guess)
            moved = mismatch(reply)
            if moved is None:
                return Schema.of(guess, check(reply))
            guess = moved
        raise BackendUnavailable(f"the schema of the FalkorDB graph {self._graph_name} kept changing")

    def _schema_now(self) -> Schema:
        if self._schema is None:
            self._schema = self._call(self._read_schema, retry=True)
        return self._schema

    def _schema_again(self) -> Schema:
        self._schema = self._call(self._read_schema, retry=True)
        return self._schema

    def _execute(
        self, cypher: str, args: Mapping[str, Any] | None, *, write: bool, timeout_ms: int | None = None
    ) -> tuple[list[Any], Decoder]:
        """The statement's compact reply, and a decoder for it."""
        command = _WRITE if write else _READ
        reply = self._call(lambda: self._send(command, cypher, args, timeout_ms), retry=not write)
        return reply, Decoder(self._schema_now, self._schema_again)

    def _run(self, cypher: str, params: Mapping[str, Any] | None = None, *, write: bool = False) -> list[list[Any]]:
        try:
            reply, decoder = self._execute(cypher, params, write=write)
        except redis.ResponseError as e:
            raise InvalidInput(f"FalkorDB rejected a statement: {e}") from e
        rows = decoder.rows(reply)
        return self._records(rows) if decoder.entities else rows

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
            try:
                reply, decoder = self._execute(cypher, args, write=False)
            except redis.ResponseError as e:
                if not any(refusal in str(e) for refusal in _NOT_READ_ONLY):
                    raise
                reply, decoder = self._execute(cypher, args, write=True)
        except redis.ResponseError as e:
            raise InvalidQuery(f"FalkorDB rejected the query: {e}") from e
        rows = decoder.dicts(reply)
        if not decoder.entities:
            return rows
        columns = decoder.columns(reply)
        return [dict(zip(columns, row, strict=True)) for row in self._records(decoder.rows(reply))]

    def _records(self, rows: list[list[Any]]) -> list[list[Any]]:
        """Rows with raw nodes and relationships as :class:`Node` and :class:`Edge` (endpoints by ``id``)."""
        ids: dict[int, str] = {}
        wanted: set[int] = set()
        for row in rows:
            for value in row:
                _scan(value, ids, wanted)
        if wanted - ids.keys():
            ids.update(self.ids_of_keys(sorted(wanted - ids.keys())))
        return [[_plain(v, ids) for v in row] for row in rows]

    def read_query(
        self, cypher: str, params: Mapping[str, Any] | None = None, *, timeout_s: float | None = None
    ) -> ReadResult:
        """``cypher`` as ``GRAPH.RO_QUERY`` only (:class:`~hybridkg.structural.base.ReadOnlyGraph`): FalkorDB refuses
        a statement that writes and runs none of it, and it is never sent again as a write (unlike :meth:`query`).
        ``timeout_s`` is FalkorDB's own query timeout (whole milliseconds, at least 1)."""
        if not isinstance(cypher, str) or not cypher.strip():
            raise InvalidQuery("the Cypher statement is empty")
        args = {check_name("parameter name", k): parameter(v) for k, v in (params or {}).items()} or None
        timeout = None if timeout_s is None else max(1, int(timeout_s * 1000))
        try:
            reply, decoder = self._execute(cypher, args, write=False, timeout_ms=timeout)
        except redis.ResponseError as e:
            text = str(e)
            if "empty key" in text:
                raise NotFound(f"the graph {self._graph_name} does not exist: nothing was ever written to it") from e
            if "timed out" in text.lower():
                raise DeadlineExceeded(f"FalkorDB stopped the query at its timeout ({timeout} ms)") from e
            if "read-only" in text:
                raise InvalidQuery(f"the query writes, and only reads are allowed here (FalkorDB: {text})") from e
            raise InvalidQuery(f"FalkorDB rejected the query: {text}") from e
        rows = decoder.rows(reply)
        if decoder.entities:
            rows = [[_graph_value(v) for v in row] for row in rows]
        return ReadResult(tuple(decoder.columns(reply)), rows)


def _header(args: Mapping[str, Any] | None) -> str:
    """The ``CYPHER name=value ...`` header that carries a statement's parameters."""
    if not args:
        return ""
    return "CYPHER " + " ".join(f"{k}={stringify_param_value(v)}" for k, v in args.items()) + " "


_SCALARS = (str, int, float, bool, type(None))


def _scan(value: Any, ids: dict[int, str], wanted: set[int]) -> None:
    """Note the ids of the nodes in ``value`` and the node keys its relationships point at."""
    if type(value) in _SCALARS:
        return
    if isinstance(value, RawNode):
        ids[value.id] = str(value.props.get("id", ""))
    elif isinstance(value, RawEdge):
        wanted.update((value.src, value.dst))
    elif isinstance(value, RawPath):
        for item in (*value.nodes, *value.edges):
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
    if isinstance(value, RawNode):
        return Node(str(value.props.get("id", "")), value.labels[0] if value.labels else "", value.props)
    if isinstance(value, RawEdge):
        src, dst = ids.get(value.src, ""), ids.get(value.dst, "")
        return Edge(str(value.props.get("id", "")), value.type, src, dst, value.props)
    if isinstance(value, RawPath):
        return {"nodes": [_plain(n, ids) for n in value.nodes], "edges": [_plain(e, ids) for e in value.edges]}
    if isinstance(value, dict):
        return {str(k): _plain(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, ids) for v in value]
    return value


def _graph_value(value: Any) -> Any:
    """A reply value with graph objects as :class:`GraphNode`, :class:`GraphRelationship`, :class:`GraphPath`."""
    if type(value) in _SCALARS:
        return value
    if isinstance(value, RawNode):
        return GraphNode(str(value.id), value.labels, value.props)
    if isinstance(value, RawEdge):
        return GraphRelationship(str(value.id), value.type, str(value.src), str(value.dst), value.props)
    if isinstance(value, RawPath):
        return GraphPath(tuple(_graph_value(n) for n in value.nodes), tuple(_graph_value(e) for e in value.edges))
    if isinstance(value, dict):
        return {str(k): _graph_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_graph_value(v) for v in value]
    return value
