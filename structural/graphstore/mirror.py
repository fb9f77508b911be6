"""A GraphStore decorator that keeps an in-process mirror of what retrieval reads on every query.

The primary store (FalkorDB, Neo4j) stays the source of truth and receives every write first. Entities,
the feedback ``Meta`` node and ``RELATED`` relationships are also kept in an :class:`InMemoryGraphStore`,
loaded from the primary on the first read and updated by every write that passes through this object, so
the per-query ego-network expansion, hydration and feedback-epoch reads cost no round trip. Chunks and
documents are read from the primary (one call per query).

Coherence: the embedded FalkorDB has exactly one owner process (a lock file guards its directory), and all
its writes go through the structural layer, so the mirror cannot go stale there. With a Neo4j server shared
by several writers, turn the mirror off (``structural.graph.mirror: false``) or call :meth:`invalidate`.
Writes sent as raw Cypher through :meth:`query` are not mirrored either; call :meth:`invalidate` after them.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from hybridkg.structural.base import ENTITY, RELATED, Edge, EdgeRow, GraphStore, Node, Subgraph
from hybridkg.structural.graphstore.dialect import VECTOR_PROPERTY, check_name
from hybridkg.structural.graphstore.limits import incident_lists
from hybridkg.structural.graphstore.memory import InMemoryGraphStore

META = "Meta"
MIRRORED_LABELS = frozenset({ENTITY, META})
MIRRORED_TYPES = frozenset({RELATED})
SCAN_NODES = "MATCH (n:{label}) RETURN n {{.*, {hidden}: null}} AS props"
SCAN_EDGES = (
    "MATCH (a:{src})-[r:{rel_type}]->(b:{dst}) RETURN a.id AS src, b.id AS dst, r {{.*, {hidden}: null}} AS props"
)


class MirroredGraphStore:
    """``primary`` with an in-process mirror of entities, ``Meta`` and ``RELATED`` (see the module docstring)."""

    def __init__(self, primary: GraphStore) -> None:
        self.primary = primary
        self._mirror: InMemoryGraphStore | None = None
        self._lock = threading.RLock()

    # ------------------------------------------------------------------------------------------ mirror

    def invalidate(self) -> None:
        """Drop the mirror; the next read reloads it from the primary."""
        with self._lock:
            self._mirror = None

    def warm(self) -> None:
        """Load the mirror now (otherwise the first read does)."""
        self._loaded()

    def _loaded(self) -> InMemoryGraphStore:
        with self._lock:
            if self._mirror is None:
                mirror = InMemoryGraphStore()
                for label in sorted(MIRRORED_LABELS):
                    rows = self.primary.query(SCAN_NODES.format(label=label, hidden=VECTOR_PROPERTY))
                    mirror.load(label, (r["props"] for r in rows))
                for rel_type in sorted(MIRRORED_TYPES):
                    rows = self.primary.query(
                        SCAN_EDGES.format(src=ENTITY, dst=ENTITY, rel_type=rel_type, hidden=VECTOR_PROPERTY)
                    )
                    mirror.load_edges(rel_type, ((str(r["props"]["id"]), r["src"], r["dst"], r["props"]) for r in rows))
                self._mirror = mirror
            return self._mirror

    def _serves(self, label: str, depth: int, rel_types: Sequence[str] | None) -> bool:
        if label not in MIRRORED_LABELS:
            return False
        return depth == 0 or (rel_types is not None and set(rel_types) <= MIRRORED_TYPES)

    # ------------------------------------------------------------------------------------------ GraphStore

    def query(self, cypher: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        return self.primary.query(cypher, params)

    def upsert_nodes(self, label: str, rows: Sequence[Mapping[str, Any]]) -> None:
        with self._lock:
            self.primary.upsert_nodes(label, rows)
            if self._mirror is not None and label in MIRRORED_LABELS:
                self._mirror.upsert_nodes(label, rows)

    def upsert_edges(self, rel_type: str, rows: Sequence[EdgeRow]) -> None:
        with self._lock:
            self.primary.upsert_edges(rel_type, rows)
            if self._mirror is not None and rel_type in MIRRORED_TYPES:
                self._mirror.upsert_edges(rel_type, rows)

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
        if self._serves(label, depth, rel_types):
            return self._loaded().neighbourhood(label, ids, depth, rel_types, props, limit, order_by)
        return self.primary.neighbourhood(label, ids, depth, rel_types, props, limit, order_by)

    # ------------------------------------------------------------------------------------------ SharedRecords

    def shared_nodes(self, label: str, ids: Sequence[str]) -> dict[str, Node]:
        if label in MIRRORED_LABELS:
            return self._loaded().shared_nodes(label, ids)
        return self.primary.neighbourhood(label, ids, depth=0).nodes

    def shared_ids(self, label: str) -> list[str]:
        if label in MIRRORED_LABELS:
            return self._loaded().shared_ids(label)
        return [str(r["id"]) for r in self.primary.query(f"MATCH (n:{check_name('label', label)}) RETURN n.id AS id")]

    def shared_edges(self, rel_type: str, ids: Sequence[str]) -> dict[str, Edge]:
        if rel_type in MIRRORED_TYPES:
            return self._loaded().shared_edges(rel_type, ids)
        return {e.id: e for e in self.primary.edges(rel_type, ids)}

    def incident(
        self, label: str, ids: Sequence[str], rel_type: str, limit: int | None = None, order_by: str | None = None
    ) -> dict[str, list[tuple[Edge, str]]]:
        if label in MIRRORED_LABELS and rel_type in MIRRORED_TYPES:
            return self._loaded().incident(label, ids, rel_type, limit, order_by)
        found = incident_lists(self.primary, label, ids, rel_type, None, limit, order_by)
        return {k: [(e, n.id) for e, n in v] for k, v in found.items()}

    def edges(self, rel_type: str, ids: Sequence[str]) -> list[Edge]:
        if rel_type in MIRRORED_TYPES:
            return self._loaded().edges(rel_type, ids)
        return self.primary.edges(rel_type, ids)

    def delete(self, label_or_type: str, ids: Sequence[str], *, edges: bool = False) -> None:
        with self._lock:
            self.primary.delete(label_or_type, ids, edges=edges)
            if self._mirror is None:
                return
            if (edges and label_or_type in MIRRORED_TYPES) or (not edges and label_or_type in MIRRORED_LABELS):
                self._mirror.delete(label_or_type, ids, edges=edges)

    def close(self) -> None:
        self._mirror = None
        self.primary.close()
