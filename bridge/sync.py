"""Keeping the bridge's property graph in line with the RDF store (issue 11 §1, "Sync"; ``docs/bridge.md`` §1).

:class:`BridgeSync` mirrors one :class:`~hybridkg.bridge.policy.Scope` (the whole store or a domain, asserted or
asserted + inferred) into its own graph of a Cypher :class:`~hybridkg.structural.base.GraphStore` (for FalkorDB the
graph ``hybridkg_bridge``, or ``hybridkg_bridge_<domain>``, on the structural layer's managed server).

**Incrementally.** Subscribed to a :class:`~hybridkg.semantic.kb.KnowledgeBase` (:meth:`BridgeSync.attach`), it gets
every committed :class:`~hybridkg.semantic.base.ChangeSet` and **recomputes the node of every subject the change
touched** from what the store holds *after* the commit: the subject's exposed triples are mapped
(:func:`~hybridkg.bridge.mapping.map_graph`, with the stored name registry, which grows with new names) and its node
is made equal to that: labels added and removed, properties replaced (so removing one value of a list leaves the
others, and a property with one value left becomes a scalar as a fresh mapping would make it), outgoing
relationships added and removed. A node left with nothing (no class label, no property, no relationship either
way) is deleted. Recomputing from the store rather than replaying the change makes the result independent of what
else asserts the same triple (another graph, the closure) and of the order of the change's parts; applying a
change twice changes nothing. The registry node is written *before* the names are used, so the graph never holds a
name the registry lacks.

A listener must not undo a committed write, so a failure (FalkorDB down) is logged by the knowledge base and the
property graph stays behind until the next change of the same subjects or a full sync.

**After a crash** (or a failed listener), :meth:`BridgeSync.sync` (``hybridkg bridge sync``) brings the graph back
in line by a **diff**, not a rebuild: it reads the property graph back as RDF, compares it per subject with the
exposed triples, and recomputes only the subjects that differ, then deletes empty nodes. Why a diff: it is
idempotent like a rebuild, but a graph that is nearly right (the usual case after a crash) costs reads only, the
graph is never empty for its readers meanwhile, and the names given so far are kept (a rebuild could name a
colliding IRI differently, which would break translated queries held by clients).

**Threads.** One :class:`BridgeSync` may be shared: :meth:`~BridgeSync.apply` and :meth:`~BridgeSync.sync` run one
at a time (a change committed during a full sync waits and is then applied to the synced graph), and
:attr:`~BridgeSync.registry` is never changed in place: new names go into a copy that replaces it once stored, so a
registry a reader holds (e.g. in an ``RdfMapping``) stays as it was.

The settings (graph name, exposure) are the settings file's ``bridge:`` section and a domain's ``bridge_exposure``
(see :mod:`.policy`); the service attaches one sync per scope at start-up (``hybridkg.server.runtime``).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pyoxigraph import BlankNode, NamedNode, Triple

from hybridkg.bridge.base import RESOURCE
from hybridkg.bridge.mapping import (
    REGISTRY_LABEL,
    MappedGraph,
    NameRegistry,
    NodeRef,
    map_graph,
    read_graph,
    read_registry,
    to_rdf,
)
from hybridkg.bridge.mapping.model import PropertyValue
from hybridkg.bridge.mapping.names import RegistryRecord
from hybridkg.bridge.mapping.store import UPSERT_EDGES, WRITE_REGISTRY, ensure_indexes
from hybridkg.bridge.policy import Scope, Subject
from hybridkg.semantic.base import ChangeSet, TripleStore
from hybridkg.structural.base import GraphStore
from hybridkg.structural.graphstore.dialect import check_name

if TYPE_CHECKING:
    from hybridkg.semantic.kb import KnowledgeBase

log = logging.getLogger(__name__)

BATCH = 2_000
READ_NODES = "UNWIND $keys AS k MATCH (n:{resource} {{{key}: k}}) RETURN k, labels(n), properties(n)"
READ_OUT = "UNWIND $keys AS k MATCH (n:{resource} {{{key}: k}})-[r]->(m:{resource}) RETURN k, type(r), m.uri, m.bnode"
MERGE_NODES = "UNWIND $keys AS k MERGE (n:{resource} {{{key}: k}})"
SET_PROPS = "UNWIND $rows AS r MATCH (n:{resource} {{{key}: r.k}}) SET n = r.props"
ADD_LABEL = "UNWIND $keys AS k MATCH (n:{resource} {{{key}: k}}) SET n:{label}"
REMOVE_LABEL = "UNWIND $keys AS k MATCH (n:{resource} {{{key}: k}}) REMOVE n:{label}"
DELETE_EDGES = (
    "UNWIND $rows AS r MATCH (a:{resource} {{{src}: r.s}})-[e:{type}]->(b:{resource} {{{dst}: r.d}}) DELETE e"
)
_EMPTY = "size(labels(n)) = 1 AND size(keys(n)) = 1 AND NOT (n)--()"
DELETE_EMPTY = "UNWIND $keys AS k MATCH (n:{resource} {{{key}: k}}) WHERE " + _EMPTY + " DELETE n RETURN count(n) AS c"
DELETE_ALL_EMPTY = "MATCH (n:{resource}) WHERE " + _EMPTY + " DELETE n RETURN count(n) AS c"

Edge = tuple[str, NodeRef]  # (relationship type, target)


@dataclass(slots=True)
class SyncReport:
    """What one change or one full sync did to the property graph."""

    triples: int = 0  # exposed triples of the subjects looked at
    subjects: int = 0  # subjects looked at
    changed: int = 0  # subjects whose node changed
    relationships_added: int = 0
    relationships_removed: int = 0
    nodes_deleted: int = 0
    statements: int = 0
    seconds: float = 0.0

    def add(self, other: SyncReport) -> None:
        for name in ("triples", "subjects", "changed", "relationships_added", "relationships_removed",
                     "nodes_deleted", "statements"):
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["seconds"] = round(self.seconds, 4)
        return out


def _chunks(items: Sequence[Any], size: int) -> Iterable[Sequence[Any]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


def _ref_of(uri: object, bnode: object) -> NodeRef | None:
    if isinstance(uri, str):
        return NodeRef("uri", uri)
    if isinstance(bnode, str):
        return NodeRef("bnode", bnode)
    return None


def _touched(change: ChangeSet, scope: Scope) -> list[Subject]:
    subjects: dict[Subject, None] = {}
    for q in (*change.asserted_added, *change.asserted_removed):
        if scope.asserted(q.graph_name) and isinstance(q.subject, NamedNode | BlankNode):
            subjects[q.subject] = None
    if scope.inferred:
        for t in (*change.inferred_added, *change.inferred_removed):
            if isinstance(t.subject, NamedNode | BlankNode):
                subjects[t.subject] = None
    return list(subjects)


@runtime_checkable
class Closable(Protocol):
    """A graph store holding a connection (FalkorDB, Neo4j)."""

    def close(self) -> None: ...


class BridgeSync:
    """Mirrors ``scope`` of the RDF store ``triples`` into the property graph ``graph`` (see the module doc)."""

    def __init__(self, triples: TripleStore, graph: GraphStore, scope: Scope, *, batch_size: int = BATCH) -> None:
        self.triples = triples
        self.graph = graph
        self.scope = scope
        self.batch_size = batch_size
        self._registry: NameRegistry | None = None
        self._indexed = False
        self._lock = threading.RLock()
        self._hold = threading.Lock()  # guards _held
        self._held: list[ChangeSet] | None = None  # changes that came while a full sync ran, applied after it
        self._synced = False

    # ------------------------------------------------------------------------------------------ entry points

    def attach(self, kb: KnowledgeBase) -> Callable[[], None]:
        """Follow ``kb``'s committed changes; returns the function that stops it."""
        return kb.subscribe(self)

    def close(self) -> None:
        """Close the graph store (a graph opened beside the structural layer's closes its connection only)."""
        with self._lock:
            if isinstance(self.graph, Closable):
                self.graph.close()

    def __call__(self, change: ChangeSet) -> None:
        """The listener: apply ``change`` now, or after the full sync that is running (the committing writer does
        not wait for a full sync; the change is applied, recomputed from the store, when it ends)."""
        with self._hold:
            if self._held is not None:
                self._held.append(change)
                return
        self.apply(change)

    def apply(self, change: ChangeSet) -> SyncReport:
        """Bring the nodes of the subjects ``change`` touched in line with the store (all of them after a bulk
        load, which does not list its triples)."""
        if change.bulk_graphs:
            with self._lock:
                return self._sync(None)
        start = time.perf_counter()
        subjects = _touched(change, self.scope)
        report = SyncReport()
        with self._lock:
            for part in _chunks(subjects, self.batch_size):
                exposed = {s: self.scope.triples_of(self.triples, s) for s in part}
                mapped = self._map(t for ts in exposed.values() for t in ts)
                report.add(self._resync(mapped, part))
                report.triples += sum(len(ts) for ts in exposed.values())
        report.seconds = time.perf_counter() - start
        return report

    def sync(self, progress: Callable[[int], None] | None = None) -> SyncReport:
        """Bring the whole graph in line with the store (idempotent): diff per subject, recompute those that
        differ, delete empty nodes. ``progress`` is called with the number of subjects done after each batch."""
        with self._lock:
            with self._hold:
                self._held = []
            try:
                report = self._sync(progress)
                self._synced = True
            finally:
                held = self._release()
            for change in held:
                report.add(self.apply(change))
            return report

    def catch_up(self, progress: Callable[[int], None] | None = None) -> SyncReport | None:
        """:meth:`sync` once in this object's life: the first caller runs it (a failed one is run again by the next
        caller), later callers wait for it and get ``None``."""
        with self._lock:
            return None if self._synced else self.sync(progress)

    def _release(self) -> list[ChangeSet]:
        """Stop holding changes back; the ones held so far (the caller still holds the lock, so changes arriving
        now wait for it and come after these)."""
        with self._hold:
            held, self._held = self._held or [], None
        return held

    def _sync(self, progress: Callable[[int], None] | None) -> SyncReport:
        start = time.perf_counter()
        wanted: dict[Subject, set[Triple]] = {}
        for t in self.scope.triples(self.triples):
            assert isinstance(t.subject, NamedNode | BlankNode)
            wanted.setdefault(t.subject, set()).add(t)
        have: dict[Subject, set[Triple]] = {}
        for t in to_rdf(read_graph(self.graph)):
            assert isinstance(t.subject, NamedNode | BlankNode)
            have.setdefault(t.subject, set()).add(t)
        differ = [s for s in {**wanted, **have} if wanted.get(s, set()) != have.get(s, set())]
        self._registry = None  # read again: the graph is the truth after a crash
        report = SyncReport(triples=sum(len(ts) for ts in wanted.values()))
        if differ:
            mapped = self._map(t for s in differ for t in wanted.get(s, ()))
            for part in _chunks(differ, self.batch_size):
                report.add(self._resync(mapped, part))
                if progress is not None:
                    progress(len(part))
        rows = self.graph.query(DELETE_ALL_EMPTY.format(resource=RESOURCE))
        report.nodes_deleted += int(rows[0]["c"]) if rows else 0
        report.statements += 1
        report.subjects = len(wanted)
        report.seconds = time.perf_counter() - start
        return report

    # ------------------------------------------------------------------------------------------ mapping

    @property
    def registry(self) -> NameRegistry:
        """The stored name registry (a new one with the scope's namespaces when the graph has none yet). It is
        not changed in place afterwards: when names are added, a new registry replaces it."""
        registry = self._registry
        if registry is None:
            with self._lock:
                if self._registry is None:
                    stored = read_registry(self.graph)
                    self._registry = stored if stored.record().names else NameRegistry(self.scope.namespaces)
                registry = self._registry
        return registry

    def _map(self, triples: Iterable[Triple]) -> MappedGraph:
        """Map with (a copy of) the stored registry, storing the copy first when it grew (a name is in the registry
        before the graph uses it), then putting it in place."""
        before = self.registry.record()
        registry = NameRegistry.from_record(before)
        mapped = map_graph(triples, self.scope.shapes, self.scope.namespaces, registry=registry)
        after = registry.record()
        if after != before:
            props = {f: getattr(after, f) for f in RegistryRecord.__dataclass_fields__}
            try:
                self.graph.query(WRITE_REGISTRY.format(label=REGISTRY_LABEL), {"props": props})
            except BaseException:
                self._registry = None  # the write may or may not have landed: read the graph's again
                raise
            self._registry = registry
        if not self._indexed:
            ensure_indexes(self.graph, mapped.schema.indexes)
            self._indexed = True
        return mapped

    # ------------------------------------------------------------------------------------------ writing

    def _read(self, refs: Sequence[NodeRef]) -> tuple[dict[NodeRef, tuple[set[str], dict[str, Any]]],
                                                      dict[NodeRef, set[Edge]]]:
        nodes: dict[NodeRef, tuple[set[str], dict[str, Any]]] = {}
        out: dict[NodeRef, set[Edge]] = {}
        for key in ("uri", "bnode"):
            keys = [r.value for r in refs if r.key == key]
            if not keys:
                continue
            for row in self.graph.query(READ_NODES.format(resource=RESOURCE, key=key), {"keys": keys}):
                k, labels, props = row.values()
                nodes[NodeRef(key, k)] = ({lb for lb in labels if lb != RESOURCE}, dict(props))
            for row in self.graph.query(READ_OUT.format(resource=RESOURCE, key=key), {"keys": keys}):
                k, rel, uri, bnode = row.values()
                dst = _ref_of(uri, bnode)
                if dst is not None:
                    out.setdefault(NodeRef(key, k), set()).add((rel, dst))
        return nodes, out

    def _resync(self, mapped: MappedGraph, subjects: Sequence[Subject]) -> SyncReport:
        """Make the nodes of ``subjects`` what ``mapped`` (which holds all their exposed triples) says."""
        report = SyncReport(subjects=len(subjects))
        refs = [NodeRef.of(s) for s in subjects]
        wanted_out: dict[NodeRef, set[Edge]] = {}
        wanted_set = set(refs)
        for e in mapped.edges:
            if e.src in wanted_set:
                wanted_out.setdefault(e.src, set()).add((e.type, e.dst))
        nodes, have_out = self._read(refs)

        merge: dict[NodeRef, None] = {}
        props: list[tuple[NodeRef, dict[str, PropertyValue]]] = []
        add_labels: dict[tuple[str, str], list[str]] = {}
        del_labels: dict[tuple[str, str], list[str]] = {}
        add_edges: dict[tuple[str, str, str], list[dict[str, str]]] = {}
        del_edges: dict[tuple[str, str, str], list[dict[str, str]]] = {}
        candidates: dict[NodeRef, None] = {}
        for ref in refs:
            node = mapped.nodes.get(ref)
            labels = set(node.labels) if node else set()
            values: dict[str, PropertyValue] = {ref.key: ref.value, **(node.props if node else {})}
            edges = wanted_out.get(ref, set())
            old_labels, old_props = nodes.get(ref, (set(), {ref.key: ref.value}))
            old_edges = have_out.get(ref, set())
            if ref not in nodes and (labels or len(values) > 1 or edges):
                merge[ref] = None
            if values != old_props:
                props.append((ref, values))
            for label in labels - old_labels:
                add_labels.setdefault((ref.key, label), []).append(ref.value)
            for label in old_labels - labels:
                del_labels.setdefault((ref.key, label), []).append(ref.value)
            for rel, dst in edges - old_edges:
                merge[dst] = None
                add_edges.setdefault((rel, ref.key, dst.key), []).append({"s": ref.value, "d": dst.value})
            for rel, dst in old_edges - edges:
                candidates[dst] = None
                del_edges.setdefault((rel, ref.key, dst.key), []).append({"s": ref.value, "d": dst.value})
            if ref in nodes:
                candidates[ref] = None
            if (labels, values, edges) != (old_labels, old_props, old_edges):
                report.changed += 1

        q = self._statement
        for key in ("uri", "bnode"):
            keys = [r.value for r in merge if r.key == key]
            q(report, MERGE_NODES.format(resource=RESOURCE, key=key), "keys", keys)
            rows = [{"k": r.value, "props": v} for r, v in props if r.key == key]
            q(report, SET_PROPS.format(resource=RESOURCE, key=key), "rows", rows)
        for (key, label), keys in add_labels.items():
            q(report, ADD_LABEL.format(resource=RESOURCE, key=key, label=check_name("label", label)), "keys", keys)
        for (key, label), keys in del_labels.items():
            q(report, REMOVE_LABEL.format(resource=RESOURCE, key=key, label=check_name("label", label)), "keys", keys)
        for (rel, sk, dk), pairs in del_edges.items():
            t = check_name("relationship type", rel)
            q(report, DELETE_EDGES.format(resource=RESOURCE, src=sk, dst=dk, type=t), "rows", pairs)
            report.relationships_removed += len(pairs)
        for (rel, sk, dk), pairs in add_edges.items():
            t = check_name("relationship type", rel)
            q(report, UPSERT_EDGES.format(resource=RESOURCE, src=sk, dst=dk, type=t), "rows", pairs)
            report.relationships_added += len(pairs)
        for key in ("uri", "bnode"):
            gone = [r.value for r in candidates if r.key == key]
            for part in _chunks(gone, self.batch_size):
                found = self.graph.query(DELETE_EMPTY.format(resource=RESOURCE, key=key), {"keys": list(part)})
                report.nodes_deleted += int(found[0]["c"]) if found else 0
                report.statements += 1
        return report

    def _statement(self, report: SyncReport, cypher: str, name: str, items: Sequence[Any]) -> None:
        for part in _chunks(items, self.batch_size):
            self.graph.query(cypher, {name: list(part)})
            report.statements += 1
