"""The :class:`~hybridkg.structural.base.GraphStore` over an existing Neo4j 5 server, through the official ``neo4j``
driver (Bolt).

It sends the same statement templates as the FalkorDB store (``graphstore/cypher.py``) with the Neo4j dialect:
``elementId`` keys, uniqueness constraints on ``id`` per label, range indexes on relationship ``id``. The native
vector index on relationships and the HNSW options it sets need Neo4j 5.18 or later. hybridkg
neither starts nor restarts a Neo4j server: a lost connection is a :class:`~hybridkg.errors.BackendUnavailable`
(the driver itself retries transient failures).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import TracebackType
from typing import Any, LiteralString, cast

import neo4j
from neo4j import exceptions as neo4j_errors
from neo4j import graph as neo4j_graph

from hybridkg.errors import BackendUnavailable, InvalidInput, InvalidQuery
from hybridkg.structural.base import Edge, Node
from hybridkg.structural.graphstore.cypher import CypherGraphStore, parameter
from hybridkg.structural.graphstore.dialect import NEO4J, check_name

_DOWN = (neo4j_errors.ServiceUnavailable, neo4j_errors.SessionExpired, neo4j_errors.AuthError)


class Neo4jGraphStore(CypherGraphStore):
    """One Neo4j database (the server's default unless ``database`` is given)."""

    def __init__(
        self,
        uri: str,
        auth: tuple[str, str] | None = None,
        *,
        database: str | None = None,
        connection_timeout_s: float = 10.0,
    ) -> None:
        super().__init__(NEO4J)
        self._uri = uri
        self._database = database
        try:
            self._driver = neo4j.GraphDatabase.driver(uri, auth=auth, connection_timeout=connection_timeout_s)
        except (neo4j_errors.ConfigurationError, ValueError) as e:
            raise InvalidInput(f"bad Neo4j URI {uri!r}: {e}") from e
        try:
            self._driver.verify_connectivity()
            self.ensure_indexes()
        except _DOWN as e:
            self._driver.close()
            raise BackendUnavailable(
                f"Neo4j at {uri} is unavailable ({e}); check that the server runs, the URI and the credentials"
            ) from e
        except BaseException:
            self._driver.close()
            raise

    def __enter__(self) -> Neo4jGraphStore:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self._driver.close()

    def _execute(self, cypher: str, params: Mapping[str, Any] | None, *, write: bool) -> neo4j.EagerResult:
        routing = neo4j.RoutingControl.WRITE if write else neo4j.RoutingControl.READ
        try:
            return self._driver.execute_query(
                cast(LiteralString, cypher), dict(params or {}), routing_=routing, database_=self._database
            )
        except _DOWN as e:
            raise BackendUnavailable(
                f"Neo4j at {self._uri} is unavailable ({e}); check that the server runs, the URI and the credentials"
            ) from e

    def _run(self, cypher: str, params: Mapping[str, Any] | None = None, *, write: bool = False) -> list[list[Any]]:
        try:
            result = self._execute(cypher, params, write=write)
        except neo4j_errors.Neo4jError as e:
            raise InvalidInput(f"Neo4j rejected a statement: {e.message or e}") from e
        return [list(record.values()) for record in result.records]

    def _run_ddl(self, ddl: str) -> None:
        self._run(ddl, write=True)

    def query(self, cypher: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        if not isinstance(cypher, str) or not cypher.strip():
            raise InvalidQuery("the Cypher statement is empty")
        args = {check_name("parameter name", k): parameter(v) for k, v in (params or {}).items()}
        try:
            result = self._execute(cypher, args, write=True)
        except neo4j_errors.Neo4jError as e:
            raise InvalidQuery(f"Neo4j rejected the query: {e.message or e}") from e
        ids: dict[str, str] = {}
        wanted: set[str] = set()
        for record in result.records:
            for value in record.values():
                _scan(value, ids, wanted)
        if wanted - ids.keys():
            ids.update(self.ids_of_keys(sorted(wanted - ids.keys())))
        return [{k: _plain(v, ids) for k, v in record.items()} for record in result.records]


def _scan(value: Any, ids: dict[str, str], wanted: set[str]) -> None:
    """Note the ids of the nodes in ``value`` and the element ids its relationships point at."""
    if isinstance(value, neo4j_graph.Node):
        if "id" in value:
            ids[value.element_id] = str(value["id"])
    elif isinstance(value, neo4j_graph.Relationship):
        wanted.update(n.element_id for n in (value.start_node, value.end_node) if n is not None)
    elif isinstance(value, neo4j_graph.Path):
        for item in (*value.nodes, *value.relationships):
            _scan(item, ids, wanted)
    elif isinstance(value, dict):
        for item in value.values():
            _scan(item, ids, wanted)
    elif isinstance(value, list):
        for item in value:
            _scan(item, ids, wanted)


def _plain(value: Any, ids: Mapping[str, str]) -> Any:
    if isinstance(value, neo4j_graph.Node):
        props = {k: _plain(v, ids) for k, v in value.items()}
        return Node(str(props.get("id", "")), min(value.labels, default=""), props)
    if isinstance(value, neo4j_graph.Relationship):
        props = {k: _plain(v, ids) for k, v in value.items()}
        ends = [ids.get(n.element_id, "") if n is not None else "" for n in (value.start_node, value.end_node)]
        return Edge(str(props.get("id", "")), str(value.type), ends[0], ends[1], props)
    if isinstance(value, neo4j_graph.Path):
        return {
            "nodes": [_plain(n, ids) for n in value.nodes],
            "edges": [_plain(r, ids) for r in value.relationships],
        }
    if isinstance(value, dict):
        return {str(k): _plain(v, ids) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, ids) for v in value]
    to_native = getattr(value, "to_native", None)
    return to_native() if callable(to_native) else value
