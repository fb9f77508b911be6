"""An in-process :class:`~hybridkg.structural.base.GraphStore` over dicts, for unit tests and throwaway runs.

It keeps the protocol's semantics exactly: nodes and relationships merge by id and a ``None`` property value
removes the property; a relationship whose endpoint is missing is an error and nothing of the batch is written;
``neighbourhood`` walks any direction up to a depth; deleting a node detaches its relationships. Labels,
relationship types and property keys must be identifiers (``^[A-Za-z_][A-Za-z0-9_]*$``) and property values
primitives or lists of primitives, as in Cypher. It does not run Cypher: :meth:`InMemoryGraphStore.query` raises
:class:`~hybridkg.errors.Unsupported`.

Records are immutable: a write replaces a node's or relationship's record, never changes it. That lets the
store hand out its records without copying (:class:`~hybridkg.structural.base.SharedRecords`, the retrieval hot
path) and memoise per node its relationships sorted for ``limit``/``order_by``; a write drops only the memos of
the nodes it touches. Writers take a lock; readers do not (a reader sees each record before or after a write).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from hybridkg.errors import InvalidInput, Unsupported
from hybridkg.structural.base import Edge, EdgeRow, Node, Subgraph
from hybridkg.structural.graphstore.dialect import check_name, id_list, node_row_id
from hybridkg.structural.graphstore.limits import check_limit, order_value

_PRIMITIVES = (bool, int, float, str)


def _value(key: str, value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, _PRIMITIVES):
        return value
    if isinstance(value, list | tuple):
        items = [v.item() if isinstance(v, np.generic) else v for v in value]
        if all(isinstance(v, _PRIMITIVES) for v in items):
            return items
    raise InvalidInput(
        f"property {key!r} has a value of type {type(value).__name__}; "
        "a graph property is a string, number, boolean or a list of those"
    )


def _props(props: Mapping[str, Any], *, skip: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in props.items():
        if key == skip:
            continue
        out[check_name("property key", key)] = _value(key, value)
    return out


def _merged(current: Mapping[str, Any], changes: Mapping[str, Any], id_: str) -> dict[str, Any]:
    target = dict(current)
    for key, value in changes.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = value
    target["id"] = id_
    return target


def _copy_value(value: Any) -> Any:
    return list(value) if isinstance(value, list) else value


def _keep(props: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(["id", *(check_name("property", p) for p in props)]))


def _copy(props: dict[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, list) else v for k, v in props.items()}


AdjacencyKey = tuple[tuple[str, ...] | None, str | None, int | None]


class InMemoryGraphStore:
    """A property graph in dicts: O(1) lookups by id, adjacency kept per node (see the module docstring).

    Unprojected reads return copies; projected reads (``props=[...]``) and the
    :class:`~hybridkg.structural.base.SharedRecords` reads return shared records: treat them as read-only."""

    def __init__(self) -> None:
        self._nodes: dict[str, Node] = {}
        self._edges: dict[str, dict[str, Edge]] = {}
        self._adjacent: dict[str, dict[tuple[str, str], None]] = {}
        # node id -> (types, order_by, limit) -> [(relationship, other end)], sorted; dropped when its edges change
        self._sorted: dict[str, dict[AdjacencyKey, list[tuple[Edge, str]]]] = {}
        # (kind, id, kept properties) -> (the record projected, the projection); stale once the record is replaced
        self._projected: dict[tuple[str, str, tuple[str, ...]], tuple[Any, Any]] = {}
        self._lock = threading.RLock()

    def query(self, cypher: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        raise Unsupported("the in-memory graph store does not run Cypher; use falkordb or neo4j")

    def upsert_nodes(self, label: str, rows: Sequence[Mapping[str, Any]]) -> None:
        check_name("label", label)
        with self._lock:
            checked: list[tuple[str, dict[str, Any]]] = []
            for row in rows:
                id_ = node_row_id(row)
                existing = self._nodes.get(id_)
                if existing is not None and existing.label != label:
                    raise InvalidInput(f"node {id_!r} already exists as :{existing.label}, not :{label}")
                checked.append((id_, _props(row, skip="id")))
            for id_, props in checked:
                current = self._nodes.get(id_)
                if current is None:
                    self._adjacent[id_] = {}
                self._nodes[id_] = Node(id_, label, _merged(current.props if current else {}, props, id_))
            self._trim_projections()

    def upsert_edges(self, rel_type: str, rows: Sequence[EdgeRow]) -> None:
        check_name("relationship type", rel_type)
        with self._lock:
            checked: list[tuple[EdgeRow, dict[str, Any]]] = []
            missing: list[str] = []
            for row in rows:
                if not isinstance(row, EdgeRow):
                    raise InvalidInput(f"a relationship row must be an EdgeRow, got {type(row).__name__}")
                if not isinstance(row.id, str) or not row.id:
                    raise InvalidInput(f"a relationship row needs a non-empty string id, got {row.id!r}")
                for end, label in ((row.src, row.src_label), (row.dst, row.dst_label)):
                    check_name("label", label)
                    node = self._nodes.get(end)
                    if node is None or node.label != label:
                        missing.append(f"(:{label} {{id: {end!r}}})")
                checked.append((row, _props(row.props, skip="id")))
            if missing:
                shown = ", ".join(dict.fromkeys(missing))
                raise InvalidInput(
                    f"{rel_type} relationships need existing endpoints; missing: {shown}; nothing was written"
                )
            table = self._edges.setdefault(rel_type, {})
            for row, props in checked:
                current = table.get(row.id)
                if current is not None and (current.src, current.dst) != (row.src, row.dst):
                    self._detach(current)
                    current_props: Mapping[str, Any] = current.props
                    current = None
                else:
                    current_props = current.props if current is not None else {}
                edge = Edge(row.id, rel_type, row.src, row.dst, _merged(current_props, props, row.id))
                table[row.id] = edge
                if current is None:
                    self._attach(edge)
                else:
                    self._sorted.pop(edge.src, None)
                    self._sorted.pop(edge.dst, None)
            self._trim_projections()

    def load(self, label: str, rows: Iterable[Mapping[str, Any]]) -> None:
        """Add nodes read back from another store (every row a mapping with a string ``id`` and valid
        properties), without the checks of :meth:`upsert_nodes`: filling a mirror from its primary."""
        check_name("label", label)
        with self._lock:
            nodes, adjacent = self._nodes, self._adjacent
            for row in rows:
                id_ = str(row["id"])
                props = {k: v for k, v in row.items() if v is not None}
                props["id"] = id_
                current = nodes.get(id_)
                if current is None:
                    adjacent[id_] = {}
                elif current.label != label:
                    raise InvalidInput(f"node {id_!r} already exists as :{current.label}, not :{label}")
                nodes[id_] = Node(id_, label, props)

    def load_edges(self, rel_type: str, rows: Iterable[tuple[str, str, str, Mapping[str, Any]]]) -> None:
        """Add relationships ``(id, src, dst, props)`` read back from another store, without the checks of
        :meth:`upsert_edges` (both ends must be loaded already)."""
        check_name("relationship type", rel_type)
        with self._lock:
            table = self._edges.setdefault(rel_type, {})
            for id_, src, dst, row in rows:
                if src not in self._nodes or dst not in self._nodes:
                    raise InvalidInput(f"{rel_type} relationship {id_!r} has an end that is not loaded")
                props = {k: v for k, v in row.items() if v is not None}
                props["id"] = id_
                current = table.get(id_)
                if current is not None:
                    self._detach(current)
                edge = Edge(id_, rel_type, src, dst, props)
                table[id_] = edge
                self._attach(edge)

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
        check_name("label", label)
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
            raise InvalidInput(f"depth must be a non-negative integer, got {depth!r}")
        types = None if rel_types is None else tuple(sorted({check_name("relationship type", t) for t in rel_types}))
        check_limit(limit, order_by, depth)
        nodes = self._nodes
        frontier = [i for i in id_list(ids) if (rec := nodes.get(i)) is not None and rec.label == label]
        seen = dict.fromkeys(frontier)
        traversed: dict[tuple[str, str], Edge] = {}
        edge: Edge | None
        if limit is not None:
            for node in frontier:
                for edge, other in self._sorted_adjacency(node, types, order_by, limit):
                    traversed[(edge.type, edge.id)] = edge
                    seen.setdefault(other, None)
            depth = 0
        for _ in range(depth):
            reached: list[str] = []
            for node in frontier:
                for key in list(self._adjacent.get(node, ())):
                    if types is not None and key[0] not in types:
                        continue
                    edge = self._edges[key[0]].get(key[1])
                    if edge is None:
                        continue
                    traversed[key] = edge
                    other = edge.dst if edge.src == node else edge.src
                    if other not in seen:
                        seen[other] = None
                        reached.append(other)
            frontier = reached
        reached_nodes = {i: n for i in seen if (n := nodes.get(i)) is not None}
        if props is None:
            return Subgraph(
                nodes={i: Node(i, n.label, _copy(n.props)) for i, n in reached_nodes.items()},
                edges=[Edge(e.id, e.type, e.src, e.dst, _copy(e.props)) for e in traversed.values()],
            )
        keep = _keep(props)
        return Subgraph(
            nodes={i: self._project("n", n, keep) for i, n in reached_nodes.items()},
            edges=[self._project("e", e, keep) for e in traversed.values()],
        )

    def edges(self, rel_type: str, ids: Sequence[str]) -> list[Edge]:
        table = self._edges.get(check_name("relationship type", rel_type), {})
        return [Edge(e.id, e.type, e.src, e.dst, _copy(e.props)) for i in id_list(ids) if (e := table.get(i))]

    def delete(self, label_or_type: str, ids: Sequence[str], *, edges: bool = False) -> None:
        check_name("relationship type" if edges else "label", label_or_type)
        wanted = id_list(ids)
        with self._lock:
            if edges:
                table = self._edges.get(label_or_type, {})
                for id_ in wanted:
                    edge = table.pop(id_, None)
                    if edge is not None:
                        self._detach(edge)
                return
            for id_ in wanted:
                node = self._nodes.get(id_)
                if node is None or node.label != label_or_type:
                    continue
                for type_, edge_id in list(self._adjacent[id_]):
                    self._detach(self._edges[type_].pop(edge_id))
                del self._nodes[id_], self._adjacent[id_]
                self._sorted.pop(id_, None)

    def close(self) -> None:
        return None

    # ------------------------------------------------------------------------------------------ SharedRecords

    def shared_nodes(self, label: str, ids: Sequence[str]) -> dict[str, Node]:
        check_name("label", label)
        nodes = self._nodes
        return {i: n for i in id_list(ids) if (n := nodes.get(i)) is not None and n.label == label}

    def shared_ids(self, label: str) -> list[str]:
        check_name("label", label)
        return [i for i, n in list(self._nodes.items()) if n.label == label]

    def shared_edges(self, rel_type: str, ids: Sequence[str]) -> dict[str, Edge]:
        table = self._edges.get(check_name("relationship type", rel_type), {})
        return {i: e for i in id_list(ids) if (e := table.get(i)) is not None}

    def incident(
        self, label: str, ids: Sequence[str], rel_type: str, limit: int | None = None, order_by: str | None = None
    ) -> dict[str, list[tuple[Edge, str]]]:
        check_name("label", label)
        types = (check_name("relationship type", rel_type),)
        check_limit(limit, order_by, 1)
        nodes = self._nodes
        return {
            node: self._sorted_adjacency(node, types, order_by, limit)
            for node in id_list(ids)
            if (rec := nodes.get(node)) is not None and rec.label == label
        }

    # ------------------------------------------------------------------------------------------ internals

    def _sorted_adjacency(
        self, node: str, types: tuple[str, ...] | None, order_by: str | None, limit: int | None = None
    ) -> list[tuple[Edge, str]]:
        """``node``'s relationships of ``types`` with their other end, highest ``order_by`` first (ties by
        id), the first ``limit``; memoised (the same list object) until a write touches ``node``'s
        relationships."""
        key = (types, order_by, limit)
        memo = self._sorted.get(node)
        cached = memo.get(key) if memo is not None else None
        if cached is not None:
            return cached
        with self._lock:  # a writer must not drop the memo between our read of the adjacency and our store
            memo = self._sorted.setdefault(node, {})
            cached = memo.get(key)
            if cached is None:
                edges = self._edges
                pairs = [
                    (e, e.dst if e.src == node else e.src)
                    for t, i in self._adjacent.get(node, ())
                    if (types is None or t in types) and (e := edges[t].get(i)) is not None
                ]
                pairs.sort(key=lambda p: (-order_value(p[0].props, order_by), p[0].id))
                cached = memo[key] = pairs[:limit] if limit is not None else pairs
            return cached

    def _project(self, kind: str, record: Any, keep: tuple[str, ...]) -> Any:
        key = (kind, record.id, keep)
        entry = self._projected.get(key)
        if entry is not None and entry[0] is record:
            return entry[1]
        values = record.props
        kept = {k: _copy_value(values[k]) for k in keep if k in values}
        projected = (
            Node(record.id, record.label, kept)
            if kind == "n"
            else Edge(record.id, record.type, record.src, record.dst, kept)
        )
        self._projected[key] = (record, projected)
        return projected

    def _trim_projections(self) -> None:
        """Projections of replaced records are dropped when the memo outgrows the graph."""
        if len(self._projected) > 4 * (len(self._nodes) + sum(len(t) for t in self._edges.values())) + 4096:
            self._projected.clear()

    def _attach(self, edge: Edge) -> None:
        key = (edge.type, edge.id)
        self._adjacent[edge.src][key] = None
        self._adjacent[edge.dst][key] = None
        self._sorted.pop(edge.src, None)
        self._sorted.pop(edge.dst, None)

    def _detach(self, edge: Edge) -> None:
        for end in (edge.src, edge.dst):
            adjacent = self._adjacent.get(end)
            if adjacent is not None:
                adjacent.pop((edge.type, edge.id), None)
            self._sorted.pop(end, None)
