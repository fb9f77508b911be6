"""An in-process :class:`~hybridkg.structural.base.GraphStore` over dicts, for unit tests and throwaway runs.

It keeps the protocol's semantics exactly: nodes and relationships merge by id and a ``None`` property value
removes the property; a relationship whose endpoint is missing is an error and nothing of the batch is written;
``neighbourhood`` walks any direction up to a depth; deleting a node detaches its relationships. Labels,
relationship types and property keys must be identifiers (``^[A-Za-z_][A-Za-z0-9_]*$``) and property values
primitives or lists of primitives, as in Cypher. It does not run Cypher: :meth:`InMemoryGraphStore.query` raises
:class:`~hybridkg.errors.Unsupported`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...errors import InvalidInput, Unsupported
from ..base import Edge, EdgeRow, Node, Subgraph
from .dialect import check_name, id_list
from .limits import check_limit, sort_key

_PRIMITIVES = (bool, int, float, str)


class _NodeRec:
    __slots__ = ("label", "props")

    def __init__(self, label: str, props: dict[str, Any]) -> None:
        self.label = label
        self.props = props


class _EdgeRec:
    __slots__ = ("type", "id", "src", "dst", "props")

    def __init__(self, type_: str, id_: str, src: str, dst: str, props: dict[str, Any]) -> None:
        self.type = type_
        self.id = id_
        self.src = src
        self.dst = dst
        self.props = props






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


def _merge(target: dict[str, Any], changes: dict[str, Any]) -> None:
    for key, value in changes.items():
        if value is None:
            target.pop(key, None)
        else:
            target[key] = value


def _copy_value(value: Any) -> Any:
    return list(value) if isinstance(value, list) else value


def _copy(props: dict[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, list) else v for k, v in props.items()}


class InMemoryGraphStore:
    """A property graph in dicts: O(1) lookups by id, adjacency kept per node.

    Projected reads (``neighbourhood(..., props=[...])``, the retrieval hot path) are memoised until the next
    write and return shared records: treat their ``props`` as read-only. Unprojected reads return copies."""

    def __init__(self) -> None:
        self._nodes: dict[str, _NodeRec] = {}
        self._edges: dict[str, dict[str, _EdgeRec]] = {}
        self._adjacent: dict[str, dict[tuple[str, str], None]] = {}
        self._projected: dict[Any, Any] = {}

    def query(self, cypher: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        raise Unsupported("the in-memory graph store does not run Cypher; use falkordb or neo4j")

    def upsert_nodes(self, label: str, rows: Sequence[Mapping[str, Any]]) -> None:
        self._projected.clear()
        check_name("label", label)
        checked: list[tuple[str, dict[str, Any]]] = []
        for row in rows:
            if not isinstance(row, Mapping):
                raise InvalidInput(f"a node row must be a mapping, got {type(row).__name__}")
            id_ = row.get("id")
            if not isinstance(id_, str) or not id_:
                raise InvalidInput(f"a node row needs a non-empty string 'id', got {id_!r}")
            existing = self._nodes.get(id_)
            if existing is not None and existing.label != label:
                raise InvalidInput(f"node {id_!r} already exists as :{existing.label}, not :{label}")
            checked.append((id_, _props(row, skip="id")))
        for id_, props in checked:
            rec = self._nodes.get(id_)
            if rec is None:
                rec = self._nodes[id_] = _NodeRec(label, {})
                self._adjacent[id_] = {}
            _merge(rec.props, props)
            rec.props["id"] = id_

    def upsert_edges(self, rel_type: str, rows: Sequence[EdgeRow]) -> None:
        self._projected.clear()
        check_name("relationship type", rel_type)
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
            rec = table.get(row.id)
            if rec is None:
                rec = table[row.id] = _EdgeRec(rel_type, row.id, row.src, row.dst, {})
                self._attach(rec)
            elif (rec.src, rec.dst) != (row.src, row.dst):
                self._detach(rec)
                rec.src, rec.dst = row.src, row.dst
                self._attach(rec)
            _merge(rec.props, props)
            rec.props["id"] = row.id

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
        types = None if rel_types is None else {check_name("relationship type", t) for t in rel_types}
        check_limit(limit, order_by, depth)
        frontier = [i for i in id_list(ids) if (rec := self._nodes.get(i)) is not None and rec.label == label]
        seen = dict.fromkeys(frontier)
        traversed: dict[tuple[str, str], _EdgeRec] = {}
        if limit is not None:
            for node in frontier:
                for key, edge in self._sorted_adjacency(node, types, order_by)[:limit]:
                    traversed[key] = edge
                    other = edge.dst if edge.src == node else edge.src
                    seen.setdefault(other, None)
            depth = 0
        for _ in range(depth):
            reached: list[str] = []
            for node in frontier:
                for key in self._adjacent[node]:
                    if types is not None and key[0] not in types:
                        continue
                    edge = self._edges[key[0]][key[1]]
                    traversed[key] = edge
                    other = edge.dst if edge.src == node else edge.src
                    if other not in seen:
                        seen[other] = None
                        reached.append(other)
            frontier = reached
        if props is None:
            nodes = {i: self._node(i) for i in seen}
            edges = [self._edge(e) for e in traversed.values()]
            return Subgraph(nodes=nodes, edges=edges)
        keep = tuple(dict.fromkeys(["id", *(check_name("property", p) for p in props)]))
        cache = self._projected
        projected_nodes: dict[str, Node] = {}
        for i in seen:
            pnode = cache.get(("n", i, keep))
            if pnode is None:
                nrec = self._nodes[i]
                values = nrec.props
                pnode = Node(i, nrec.label, {k: _copy_value(values[k]) for k in keep if k in values})
                cache[("n", i, keep)] = pnode
            projected_nodes[i] = pnode
        projected_edges: list[Edge] = []
        for e in traversed.values():
            pedge = cache.get(("e", e.type + "\x00" + e.id, keep))
            if pedge is None:
                pedge = Edge(e.id, e.type, e.src, e.dst, {k: _copy_value(e.props[k]) for k in keep if k in e.props})
                cache[("e", e.type + "\x00" + e.id, keep)] = pedge
            projected_edges.append(pedge)
        nodes, edges = projected_nodes, projected_edges
        return Subgraph(nodes=nodes, edges=edges)

    def _sorted_adjacency(
        self, node: str, types: set[str] | None, order_by: str | None
    ) -> list[tuple[tuple[str, str], _EdgeRec]]:
        """``node``'s relationships of ``types``, heaviest ``order_by`` first (memoised until the next write)."""
        memo_key = ("a", node, (tuple(sorted(types)) if types is not None else None, order_by))
        cached: list[tuple[tuple[str, str], _EdgeRec]] | None = self._projected.get(memo_key)
        if cached is None:
            pairs = [
                (key, self._edges[key[0]][key[1]])
                for key in self._adjacent[node]
                if types is None or key[0] in types
            ]
            pairs.sort(key=lambda p: sort_key(Edge(p[1].id, p[1].type, "", "", p[1].props), order_by))
            cached = pairs
            self._projected[memo_key] = cached
        return cached

    def edges(self, rel_type: str, ids: Sequence[str]) -> list[Edge]:
        table = self._edges.get(check_name("relationship type", rel_type), {})
        return [self._edge(table[i]) for i in id_list(ids) if i in table]

    def delete(self, label_or_type: str, ids: Sequence[str], *, edges: bool = False) -> None:
        self._projected.clear()
        check_name("relationship type" if edges else "label", label_or_type)
        wanted = id_list(ids)
        if edges:
            table = self._edges.get(label_or_type, {})
            for id_ in wanted:
                rec = table.pop(id_, None)
                if rec is not None:
                    self._detach(rec)
            return
        for id_ in wanted:
            node = self._nodes.get(id_)
            if node is None or node.label != label_or_type:
                continue
            for type_, edge_id in list(self._adjacent[id_]):
                self._detach(self._edges[type_].pop(edge_id))
            del self._nodes[id_], self._adjacent[id_]

    def close(self) -> None:
        return None

    def _attach(self, rec: _EdgeRec) -> None:
        self._adjacent[rec.src][(rec.type, rec.id)] = None
        self._adjacent[rec.dst][(rec.type, rec.id)] = None

    def _detach(self, rec: _EdgeRec) -> None:
        for end in (rec.src, rec.dst):
            adjacent = self._adjacent.get(end)
            if adjacent is not None:
                adjacent.pop((rec.type, rec.id), None)

    def _node(self, id_: str) -> Node:
        rec = self._nodes[id_]
        return Node(id_, rec.label, _copy(rec.props))

    def _edge(self, rec: _EdgeRec) -> Edge:
        return Edge(rec.id, rec.type, rec.src, rec.dst, _copy(rec.props))
