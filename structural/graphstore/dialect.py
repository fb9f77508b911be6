"""What differs between the openCypher of FalkorDB and of Neo4j 5: one small :class:`CypherDialect` per backend.

The graph stores share their statement templates (``graphstore/cypher.py``); a dialect supplies the pieces
that are not standard Cypher: how a node's internal key is read (``id(n)`` vs ``elementId(n)``), the DDL of
the ``id`` indexes, and the vector index (DDL, the query procedure and what its score means):

* FalkorDB: ``CREATE VECTOR INDEX FOR (e:Entity) ON (e.embedding) OPTIONS {dimension, similarityFunction, M,
  efConstruction, efRuntime}``; vectors are ``vecf32([...])`` values; ``db.idx.vector.queryNodes(label,
  attribute, k, vecf32($v))`` yields a cosine *distance* (1 - cos).
* Neo4j 5: ``CREATE VECTOR INDEX name ... OPTIONS {indexConfig: {`vector.dimensions`, ...}}``; vectors are
  lists of floats; ``db.index.vector.queryNodes(name, k, $v)`` yields a similarity (1 + cos) / 2 and takes no
  query-time beam width, so the index asks for ``max(k, ef)`` candidates and keeps the best ``k`` (as it does
  on FalkorDB when the index was built with a smaller ``efRuntime``: rebuilding an index is asynchronous).

Labels and relationship types cannot be query parameters: every name spliced into a statement passes
:func:`check_name` first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from hybridkg.errors import InvalidInput

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
VECTOR_PROPERTY = "embedding"


def check_name(kind: str, value: object) -> str:
    """``value`` if it is a valid label, relationship type or property key; :class:`InvalidInput` otherwise."""
    if not isinstance(value, str) or not NAME.match(value):
        raise InvalidInput(f"{kind} {value!r} is not a valid name (expected ^[A-Za-z_][A-Za-z0-9_]*$)")
    return value


def node_row_id(row: object) -> str:
    """The id of a node row for ``upsert_nodes``: the row must be a mapping with a non-empty string ``id``."""
    if not isinstance(row, Mapping):
        raise InvalidInput(f"a node row must be a mapping, got {type(row).__name__}")
    id_ = row.get("id")
    if not isinstance(id_, str) or not id_:
        raise InvalidInput(f"a node row needs a non-empty string 'id', got {id_!r}")
    return id_


def id_list(ids: Sequence[str]) -> list[str]:
    """``ids`` without repeats, in order; :class:`InvalidInput` for one bare string or a non-string id."""
    if isinstance(ids, str):
        raise InvalidInput("ids must be a sequence of strings, not one string")
    out = list(dict.fromkeys(ids))
    if not all(isinstance(i, str) for i in out):
        raise InvalidInput("ids must be strings")
    return out



def _target(target: str, relationship: bool) -> str:
    return check_name("relationship type" if relationship else "label", target)


def _pattern(target: str, relationship: bool) -> str:
    target = _target(target, relationship)
    return f"()-[e:{target}]-()" if relationship else f"(e:{target})"


def _procedure(relationship: bool) -> tuple[str, str]:
    return ("queryRelationships", "relationship") if relationship else ("queryNodes", "node")


class CypherDialect:
    """The backend-specific fragments of the Cypher that the graph stores and the native vector index send."""

    name = "cypher"
    node_key = "id"  # function giving a node's internal key, seekable as ``WHERE key(n) = $k``

    def id_index(self, label: str) -> str:
        raise NotImplementedError

    def rel_id_index(self, rel_type: str) -> str:
        raise NotImplementedError

    def vector_value(self, expr: str) -> str:
        """The expression that stores the list ``expr`` as a vector property."""
        return expr

    def create_vector_index(
        self, target: str, *, relationship: bool, dim: int, m: int, ef_construction: int, ef_runtime: int
    ) -> str:
        raise NotImplementedError

    def list_vector_indexes(self) -> str:
        """A statement whose rows :meth:`vector_index_options` reads."""
        raise NotImplementedError

    def vector_index_options(
        self, rows: list[dict[str, Any]], target: str, *, relationship: bool
    ) -> tuple[int, int | None] | None:
        """``(dimension, efRuntime)`` of the existing vector index on ``target`` (efRuntime ``None`` where the
        backend has none), or ``None`` when there is no such index."""
        raise NotImplementedError

    def vector_query(self, target: str, *, relationship: bool) -> str:
        """The ids and raw scores of the top ``$k`` vectors for the query vector ``$v``."""
        raise NotImplementedError

    def candidates(self, k: int, ef_search: int, index_ef: int | None) -> int:
        """How many hits to ask the vector procedure for, to answer top ``k`` with beam width ``ef_search`` from
        an index built with query-time beam width ``index_ef`` (``None``: the backend has none)."""
        return k if index_ef is not None and index_ef >= ef_search else max(k, ef_search)

    def cosine(self, score: float) -> float:
        """The cosine similarity that a vector procedure's score stands for."""
        raise NotImplementedError


class FalkorDBDialect(CypherDialect):
    name = "falkordb"
    node_key = "id"

    def id_index(self, label: str) -> str:
        return f"CREATE INDEX FOR (n:{check_name('label', label)}) ON (n.id)"

    def rel_id_index(self, rel_type: str) -> str:
        return f"CREATE INDEX FOR ()-[r:{check_name('relationship type', rel_type)}]-() ON (r.id)"

    def vector_value(self, expr: str) -> str:
        return f"vecf32({expr})"

    def create_vector_index(
        self, target: str, *, relationship: bool, dim: int, m: int, ef_construction: int, ef_runtime: int
    ) -> str:
        return (
            f"CREATE VECTOR INDEX FOR {_pattern(target, relationship)} ON (e.{VECTOR_PROPERTY}) OPTIONS "
            f"{{dimension: {int(dim)}, similarityFunction: 'cosine', M: {int(m)}, "
            f"efConstruction: {int(ef_construction)}, efRuntime: {int(ef_runtime)}}}"
        )

    def list_vector_indexes(self) -> str:
        return "CALL db.indexes() YIELD label, types, options, entitytype RETURN label, types, options, entitytype"

    def vector_index_options(
        self, rows: list[dict[str, Any]], target: str, *, relationship: bool
    ) -> tuple[int, int | None] | None:
        entity = "RELATIONSHIP" if relationship else "NODE"
        for row in rows:
            types: Mapping[str, Any] = row.get("types") or {}
            if row.get("label") != target or row.get("entitytype") != entity:
                continue
            if "VECTOR" not in (types.get(VECTOR_PROPERTY) or ()):
                continue
            opts: Mapping[str, Any] = (row.get("options") or {}).get(VECTOR_PROPERTY) or {}
            ef = opts.get("efRuntime")
            return int(opts.get("dimension", 0)), None if ef is None else int(ef)
        return None

    def vector_query(self, target: str, *, relationship: bool) -> str:
        proc, var = _procedure(relationship)
        return (
            f"CALL db.idx.vector.{proc}('{_target(target, relationship)}', '{VECTOR_PROPERTY}', $k, vecf32($v)) "
            f"YIELD {var}, score RETURN {var}.id AS id, score"
        )

    def cosine(self, score: float) -> float:
        return 1.0 - score


class Neo4jDialect(CypherDialect):
    name = "neo4j"
    node_key = "elementId"

    def id_index(self, label: str) -> str:
        label = check_name("label", label)
        return f"CREATE CONSTRAINT hkg_{label}_id IF NOT EXISTS FOR (n:{label}) REQUIRE n.id IS UNIQUE"

    def rel_id_index(self, rel_type: str) -> str:
        rel_type = check_name("relationship type", rel_type)
        return f"CREATE INDEX hkg_{rel_type}_id IF NOT EXISTS FOR ()-[r:{rel_type}]-() ON (r.id)"

    @staticmethod
    def vector_index_name(target: str, relationship: bool) -> str:
        return f"hkg_{_target(target, relationship)}_{VECTOR_PROPERTY}"

    def create_vector_index(
        self, target: str, *, relationship: bool, dim: int, m: int, ef_construction: int, ef_runtime: int
    ) -> str:
        return (
            f"CREATE VECTOR INDEX {self.vector_index_name(target, relationship)} IF NOT EXISTS "
            f"FOR {_pattern(target, relationship)} ON (e.{VECTOR_PROPERTY}) OPTIONS {{indexConfig: {{"
            f"`vector.dimensions`: {int(dim)}, `vector.similarity_function`: 'cosine', "
            f"`vector.hnsw.m`: {int(m)}, `vector.hnsw.ef_construction`: {int(ef_construction)}}}}}"
        )

    def list_vector_indexes(self) -> str:
        return "SHOW VECTOR INDEXES YIELD name, options RETURN name, options"

    def vector_index_options(
        self, rows: list[dict[str, Any]], target: str, *, relationship: bool
    ) -> tuple[int, int | None] | None:
        wanted = self.vector_index_name(target, relationship)
        for row in rows:
            if row.get("name") == wanted:
                config: Mapping[str, Any] = (row.get("options") or {}).get("indexConfig") or {}
                return int(config.get("vector.dimensions", 0)), None
        return None

    def vector_query(self, target: str, *, relationship: bool) -> str:
        proc, var = _procedure(relationship)
        return (
            f"CALL db.index.vector.{proc}('{self.vector_index_name(target, relationship)}', $k, $v) "
            f"YIELD {var}, score RETURN {var}.id AS id, score"
        )

    def cosine(self, score: float) -> float:
        return 2.0 * score - 1.0


FALKORDB = FalkorDBDialect()
NEO4J = Neo4jDialect()
