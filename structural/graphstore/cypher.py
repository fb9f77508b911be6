"""The :class:`~hybridkg.structural.base.GraphStore` protocol over openCypher, shared by FalkorDB and Neo4j.

Every statement is a named template below; values travel as parameters, and the only names spliced into the
text (labels, relationship types) pass :func:`~.dialect.check_name`. A backend subclass supplies one primitive,
:meth:`CypherGraphStore._run` (rows of plain values), plus ``query``/``close``; the dialect supplies the
non-standard fragments.

Semantics, identical to the in-memory store: rows are merged by id (duplicates within a call are folded in
order), a ``None`` property removes the property, a relationship whose endpoints do not both exist fails the
whole call before anything is written, a relationship id given new endpoints is moved, and node ids are unique
across the labels this store indexes. The vector property of the native index (``embedding``) is left out of
what ``neighbourhood`` and ``edges`` return: it is large, and read only through the vector index.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from hybridkg.errors import InvalidInput
from hybridkg.structural.base import CHUNK, DOCUMENT, ENTITY, MENTIONS, RELATED, Edge, EdgeRow, Node, Subgraph
from hybridkg.structural.graphstore.dialect import VECTOR_PROPERTY, CypherDialect, check_name, id_list, node_row_id
from hybridkg.structural.graphstore.limits import cap_per_node, check_limit

META = "Meta"
INDEXED_LABELS = (ENTITY, CHUNK, DOCUMENT, META)
INDEXED_TYPES = (MENTIONS, RELATED)
BATCH = 5_000

UPSERT_NODES = "UNWIND $rows AS r MERGE (n:{label} {{id: r.id}}) SET n += r.props"
PRESENT_NODES = "UNWIND $ids AS i MATCH (n:{label} {{id: i}}) RETURN DISTINCT n.id"
MISSING_NODES = "UNWIND $ids AS i OPTIONAL MATCH (n:{label} {{id: i}}) WITH i, count(n) AS c WHERE c = 0 RETURN i"
EDGE_ENDPOINTS = "UNWIND $ids AS i MATCH (a)-[r:{rel_type} {{id: i}}]->(b) RETURN i, a.id, b.id"
UPSERT_EDGES = (
    "UNWIND $rows AS row MATCH (a:{src_label} {{id: row.src}}) MATCH (b:{dst_label} {{id: row.dst}}) "
    "MERGE (a)-[r:{rel_type} {{id: row.id}}]->(b) SET r += row.props"
)
DELETE_NODES = "UNWIND $ids AS i MATCH (n:{label} {{id: i}}) DETACH DELETE n"
DELETE_EDGES = "UNWIND $ids AS i MATCH ()-[r:{rel_type} {{id: i}}]->() DELETE r"
EDGES_BY_ID = (
    "UNWIND $ids AS i MATCH (a)-[r:{rel_type} {{id: i}}]->(b) RETURN type(r), a.id, b.id, r {{.*, {hidden}: null}}"
)
NODE_IDS_BY_KEY = "UNWIND $keys AS k MATCH (n) WHERE {key}(n) = k RETURN k, n.id"
NODES_BY_ID = "MATCH (x:{label}) WHERE x.id IN $ids RETURN {key}(x), labels(x), x {{{proj}}}"
_LEVEL_RETURN = (
    "RETURN [x IN ns | [{key}(x), labels(x), x {{{proj}}}]], "
    "[r IN es | [type(r), startNode(r).id, endNode(r).id, r {{{proj}}}]]"
)
EXPAND_SEEDS = (
    "MATCH (n:{label}) WHERE n.id IN $ids OPTIONAL MATCH (n)-[e{types}]-(m) "
    "WITH collect(DISTINCT n) + collect(DISTINCT m) AS ns, collect(DISTINCT e) AS es " + _LEVEL_RETURN
)
EXPAND_KEYS = (
    "UNWIND $keys AS k MATCH (n) WHERE {key}(n) = k OPTIONAL MATCH (n)-[e{types}]-(m) "
    "WITH collect(DISTINCT m) AS ns, collect(DISTINCT e) AS es " + _LEVEL_RETURN
)

T = TypeVar("T")
_PRIMITIVES = (bool, int, float, str)


def batches(items: Sequence[T], size: int = BATCH) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def _scalar(key: str, value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidInput(f"property {key!r} is {value}; graph properties must be finite numbers")
    if isinstance(value, _PRIMITIVES):
        return value
    raise InvalidInput(
        f"property {key!r} has a value of type {type(value).__name__}; "
        "a graph property is a string, number, boolean or a list of those"
    )


def property_value(key: str, value: Any) -> Any:
    """``value`` as a Cypher property value (``None`` stays: it removes the property)."""
    if value is None:
        return None
    if isinstance(value, list | tuple):
        return [_scalar(key, v) for v in value]
    return _scalar(key, value)


def properties(props: Mapping[str, Any], *, skip: str = "id") -> dict[str, Any]:
    return {check_name("property key", k): property_value(k, v) for k, v in props.items() if k != skip}


def parameter(value: Any) -> Any:
    """A query parameter as plain Python: numpy values become lists and scalars, maps and lists recurse."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidInput(f"query parameter value {value} is not a finite number")
    if isinstance(value, Mapping):
        return {str(k): parameter(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [parameter(v) for v in value]
    return value


@dataclass(slots=True)
class _PendingEdge:
    src: str
    dst: str
    src_label: str
    dst_label: str
    props: dict[str, Any]


def _clean(props: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in props.items() if v is not None}


class CypherGraphStore(ABC):
    """The protocol's template methods over a backend that runs parameterised Cypher."""

    dialect: CypherDialect
    batch_size = BATCH

    def __init__(self, dialect: CypherDialect) -> None:
        self.dialect = dialect
        self._labels: set[str] = set()
        self._types: set[str] = set()

    # ------------------------------------------------------------------------------------------ backend

    @abstractmethod
    def _run(self, cypher: str, params: Mapping[str, Any] | None = None, *, write: bool = False) -> list[list[Any]]:
        """Run one statement of this module; rows are lists of plain values (maps as dicts)."""

    @abstractmethod
    def _run_ddl(self, ddl: str) -> None:
        """Run an index or constraint statement; one that already exists is not an error."""

    @abstractmethod
    def query(self, cypher: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]: ...

    def rows(self, cypher: str, params: Mapping[str, Any] | None = None, *, write: bool = False) -> list[list[Any]]:
        """Run one of hybridkg's own statements (plain values in and out, no graph objects, no conversion)."""
        return self._run(cypher, params, write=write)

    @abstractmethod
    def close(self) -> None: ...

    # ------------------------------------------------------------------------------------------ schema

    def ensure_indexes(self, labels: Sequence[str] = INDEXED_LABELS, rel_types: Sequence[str] = INDEXED_TYPES) -> None:
        """Index ``id`` of the labels and relationship types (idempotent)."""
        for label in labels:
            if label not in self._labels:
                self._run_ddl(self.dialect.id_index(label))
                self._labels.add(label)
        for rel_type in rel_types:
            if rel_type not in self._types:
                self._run_ddl(self.dialect.rel_id_index(rel_type))
                self._types.add(rel_type)

    # ------------------------------------------------------------------------------------------ writes

    def upsert_nodes(self, label: str, rows: Sequence[Mapping[str, Any]]) -> None:
        label = check_name("label", label)
        merged: dict[str, dict[str, Any]] = {}
        for row in rows:
            merged.setdefault(node_row_id(row), {}).update(properties(row))
        if not merged:
            return
        self.ensure_indexes([label], ())
        ids = list(merged)
        for other in sorted(self._labels - {label}):
            for batch in batches(ids, self.batch_size):
                clash = self._run(PRESENT_NODES.format(label=other), {"ids": list(batch)})
                if clash:
                    raise InvalidInput(f"node {clash[0][0]!r} already exists as :{other}, not :{label}")
        statement = UPSERT_NODES.format(label=label)
        for batch in batches(ids, self.batch_size):
            self._run(statement, {"rows": [{"id": i, "props": merged[i]} for i in batch]}, write=True)

    def upsert_edges(self, rel_type: str, rows: Sequence[EdgeRow]) -> None:
        rel_type = check_name("relationship type", rel_type)
        pending: dict[str, _PendingEdge] = {}
        for row in rows:
            if not isinstance(row, EdgeRow):
                raise InvalidInput(f"a relationship row must be an EdgeRow, got {type(row).__name__}")
            if not isinstance(row.id, str) or not row.id:
                raise InvalidInput(f"a relationship row needs a non-empty string id, got {row.id!r}")
            if not (isinstance(row.src, str) and isinstance(row.dst, str)):
                raise InvalidInput(f"relationship {row.id!r} needs string endpoint ids")
            src_label, dst_label = check_name("label", row.src_label), check_name("label", row.dst_label)
            props = properties(row.props)
            cur = pending.get(row.id)
            if cur is None:
                pending[row.id] = _PendingEdge(row.src, row.dst, src_label, dst_label, props)
            else:
                cur.src, cur.dst, cur.src_label, cur.dst_label = row.src, row.dst, src_label, dst_label
                cur.props.update(props)
        if not pending:
            return
        self._check_endpoints(rel_type, pending)
        self.ensure_indexes((), [rel_type])
        ids = list(pending)
        moved: list[str] = []
        for batch in batches(ids, self.batch_size):
            for id_, src, dst in self._run(EDGE_ENDPOINTS.format(rel_type=rel_type), {"ids": list(batch)}):
                if (src, dst) != (pending[id_].src, pending[id_].dst):
                    moved.append(id_)
        if moved:
            for edge in self.edges(rel_type, moved):
                kept = {k: v for k, v in edge.props.items() if k != "id"}
                pending[edge.id].props = {**kept, **pending[edge.id].props}
            self.delete(rel_type, moved, edges=True)
        groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for id_, e in pending.items():
            item = {"id": id_, "src": e.src, "dst": e.dst, "props": e.props}
            groups.setdefault((e.src_label, e.dst_label), []).append(item)
        for (src_label, dst_label), group in groups.items():
            statement = UPSERT_EDGES.format(src_label=src_label, dst_label=dst_label, rel_type=rel_type)
            for chunk in batches(group, self.batch_size):
                self._run(statement, {"rows": list(chunk)}, write=True)

    def _check_endpoints(self, rel_type: str, pending: Mapping[str, _PendingEdge]) -> None:
        wanted: dict[str, dict[str, None]] = {}
        for e in pending.values():
            wanted.setdefault(e.src_label, {})[e.src] = None
            wanted.setdefault(e.dst_label, {})[e.dst] = None
        missing: list[str] = []
        for label, ids in wanted.items():
            for batch in batches(list(ids), self.batch_size):
                rows = self._run(MISSING_NODES.format(label=label), {"ids": list(batch)})
                missing.extend(f"(:{label} {{id: {r[0]!r}}})" for r in rows)
        if missing:
            shown = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
            raise InvalidInput(
                f"{rel_type} relationships need existing endpoints; missing: {shown}; nothing was written"
            )

    def delete(self, label_or_type: str, ids: Sequence[str], *, edges: bool = False) -> None:
        name = check_name("relationship type" if edges else "label", label_or_type)
        statement = DELETE_EDGES.format(rel_type=name) if edges else DELETE_NODES.format(label=name)
        for batch in batches(id_list(ids), self.batch_size):
            self._run(statement, {"ids": list(batch)}, write=True)

    # ------------------------------------------------------------------------------------------ reads

    def neighbourhood(
        self,
        label: str,
        ids: Sequence[str],
        depth: int = 1,
        rel_types: Sequence[str] | None = None,
        props: Sequence[str] | None = None,
        limit: int | None = None,
        order_by: str | None = None,
    ) -> Subgraph:
        label = check_name("label", label)
        check_limit(limit, order_by, depth)
        if props is None:
            proj = f".*, {VECTOR_PROPERTY}: null"
        else:
            keys = ["id", *props, *([order_by] if limit is not None and order_by else [])]
            proj = ", ".join(f".{check_name('property', p)}" for p in dict.fromkeys(keys))
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
            raise InvalidInput(f"depth must be a non-negative integer, got {depth!r}")
        types = "" if rel_types is None else ":" + "|".join(check_name("relationship type", t) for t in rel_types)
        wanted = id_list(ids)
        sub = Subgraph()
        if not wanted:
            return sub
        names = {"label": label, "key": self.dialect.node_key, "proj": proj, "types": types}
        if depth == 0 or types == ":":
            statement = NODES_BY_ID.format(**names)
            for batch in batches(wanted, self.batch_size):
                for key, labels, values in self._run(statement, {"ids": list(batch)}):
                    self._add_node(sub, key, labels, values)
            return sub
        edges: dict[tuple[str, str], Edge] = {}
        seeds = set(wanted)
        level = self._run(EXPAND_SEEDS.format(**names), {"ids": wanted})
        frontier: list[Any] = []
        for step in range(1, depth + 1):
            node_rows, edge_rows = level[0] if level else ([], [])
            for key, labels, values in node_rows:
                id_ = self._add_node(sub, key, labels, values)
                if id_ is not None and not (step == 1 and id_ in seeds and labels and labels[0] == label):
                    frontier.append(key)
            for type_, src, dst, values in edge_rows:
                if src is not None and dst is not None and values.get("id") is not None:
                    edges.setdefault((type_, values["id"]), Edge(values["id"], type_, src, dst, _clean(values)))
            if step == depth or not frontier:
                break
            level = self._run(EXPAND_KEYS.format(**names), {"keys": frontier})
            frontier = []
        sub.edges = list(edges.values())
        return sub if limit is None else cap_per_node(sub, wanted, limit, order_by)

    @staticmethod
    def _add_node(sub: Subgraph, key: Any, labels: Sequence[str], props: Mapping[str, Any]) -> str | None:
        id_ = props.get("id")
        if not isinstance(id_, str) or id_ in sub.nodes:
            return None
        sub.nodes[id_] = Node(id_, labels[0] if labels else "", _clean(props))
        return id_

    def ids_of_keys(self, keys: Sequence[Any]) -> dict[Any, str]:
        """The ``id`` property of the nodes with these internal keys (for relationships a query returned)."""
        statement = NODE_IDS_BY_KEY.format(key=self.dialect.node_key)
        out: dict[Any, str] = {}
        for batch in batches(keys, self.batch_size):
            out.update((k, str(i)) for k, i in self._run(statement, {"keys": list(batch)}) if i is not None)
        return out

    def edges(self, rel_type: str, ids: Sequence[str]) -> list[Edge]:
        rel_type = check_name("relationship type", rel_type)
        statement = EDGES_BY_ID.format(rel_type=rel_type, hidden=VECTOR_PROPERTY)
        out: list[Edge] = []
        for batch in batches(id_list(ids), self.batch_size):
            for type_, src, dst, props in self._run(statement, {"ids": list(batch)}):
                out.append(Edge(props["id"], type_, src, dst, _clean(props)))
        return out
