"""A mapped graph into a :class:`~hybridkg.structural.base.GraphStore` and back (``docs/bridge.md`` §1.6).

The bridge's property graph lives in its own graph of the store (for FalkorDB: its own graph name, e.g.
``hybridkg_bridge``; the structural layer's ``Entity``/``Chunk``/``Document`` graph is another). Its nodes have
several labels (``Resource`` plus their classes), which ``GraphStore.upsert_nodes`` (one label, keyed by ``id``)
cannot write, so every statement here is a named template run through ``GraphStore.query`` with the values as
parameters; the only names spliced in (labels, relationship types) pass
:func:`~hybridkg.structural.graphstore.dialect.check_name`.

Writes merge: nodes by key (properties given are set, labels added), relationships by (source, type, target),
and the name registry into the one :data:`~.names.REGISTRY_LABEL` node, so the reverse mapping needs nothing but
the graph. Writing the same mapped graph twice changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hybridkg.bridge.base import BNODE, RESOURCE, URI
from hybridkg.bridge.mapping.model import (
    IndexSpec,
    MappedGraph,
    NodeRef,
    PropertyValue,
    RdfMapping,
    Relationship,
    ResourceNode,
)
from hybridkg.bridge.mapping.names import REGISTRY_LABEL, NameRegistry, RegistryRecord
from hybridkg.errors import InvalidInput, InvalidQuery, Unsupported
from hybridkg.structural.base import GraphStore
from hybridkg.structural.graphstore.dialect import check_name

BATCH = 2_000
CREATE_INDEX = "CREATE INDEX FOR (n:{label}) ON (n.{key})"
UPSERT_NODES = "UNWIND $rows AS r MERGE (n:{resource} {{{key}: r.k}}) SET n += r.props{labels}"
UPSERT_EDGES = (
    "UNWIND $rows AS r MATCH (a:{resource} {{{src}: r.s}}) MATCH (b:{resource} {{{dst}: r.d}}) MERGE (a)-[:{type}]->(b)"
)
WRITE_REGISTRY = "MERGE (m:{label} {{graph: 'names'}}) SET m += $props"
READ_REGISTRY = "MATCH (m:{label}) RETURN m.names, m.iris, m.kinds, m.prefixes, m.namespaces"
READ_NODES = "MATCH (n:{resource}) RETURN n.uri, n.bnode, labels(n), properties(n)"
READ_EDGES = "MATCH (a:{resource})-[r]->(b:{resource}) RETURN a.uri, a.bnode, type(r), b.uri, b.bnode"


@dataclass(frozen=True, slots=True)
class WriteReport:
    nodes: int
    relationships: int
    statements: int


def _chunks(rows: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [rows[i : i + size] for i in range(0, len(rows), size)]


def ensure_indexes(store: GraphStore, indexes: Sequence[IndexSpec]) -> None:
    """Create the schema's indexes (idempotent). Uniqueness is not declared to the store (a unique constraint is
    not Cypher on FalkorDB): the writes keep it, merging nodes by key."""
    for ix in indexes:
        try:
            store.query(CREATE_INDEX.format(label=check_name("label", ix.label), key=check_name("key", ix.key)))
        except InvalidQuery as e:
            if "already indexed" not in str(e) and "already exists" not in str(e):
                raise


def write_graph(store: GraphStore, mapped: MappedGraph, *, batch_size: int = BATCH) -> WriteReport:
    """Merge ``mapped`` into ``store`` (nodes, then relationships, then the name registry), in batches.

    A graph already in ``store`` must have been mapped with the stored registry (``map_graph(...,
    registry=read_registry(store))``): a name the store gives another IRI raises :class:`InvalidInput` before
    anything is written, so two IRIs are never merged under one name."""
    _check_registry(read_registry(store), mapped.mapping.registry)
    ensure_indexes(store, mapped.schema.indexes)
    statements = 0
    groups: dict[tuple[str, tuple[str, ...]], list[dict[str, Any]]] = {}
    for node in mapped.nodes.values():
        labels = tuple(sorted(set(node.labels)))
        groups.setdefault((node.ref.key, labels), []).append({"k": node.ref.value, "props": node.props})
    for (key, labels), rows in groups.items():
        set_labels = "".join(f":{check_name('label', label)}" for label in labels)
        cypher = UPSERT_NODES.format(resource=RESOURCE, key=key, labels=f" SET n{set_labels}" if labels else "")
        for chunk in _chunks(rows, batch_size):
            store.query(cypher, {"rows": list(chunk)})
            statements += 1
    edge_groups: dict[tuple[str, str, str], list[dict[str, str]]] = {}
    edges = dict.fromkeys(mapped.edges)
    for e in edges:
        edge_groups.setdefault((e.type, e.src.key, e.dst.key), []).append({"s": e.src.value, "d": e.dst.value})
    for (rel, src, dst), rows in edge_groups.items():
        cypher = UPSERT_EDGES.format(resource=RESOURCE, src=src, dst=dst, type=check_name("relationship type", rel))
        for chunk in _chunks(rows, batch_size):
            store.query(cypher, {"rows": list(chunk)})
            statements += 1
    record = mapped.mapping.registry.record()
    props = {f: getattr(record, f) for f in RegistryRecord.__dataclass_fields__}
    store.query(WRITE_REGISTRY.format(label=REGISTRY_LABEL), {"props": props})
    return WriteReport(len(mapped.nodes), len(edges), statements + 1)


def _check_registry(stored: NameRegistry, new: NameRegistry) -> None:
    old = stored.record()
    for name, iri in zip(old.names, old.iris, strict=True):
        if new.iri(name) != iri:
            raise InvalidInput(
                f"the graph's name {name!r} stands for <{iri}>, the mapped graph's for <{new.iri(name)}>: map the "
                "data with the stored registry (map_graph(..., registry=read_registry(store)))"
            )


def _ref(uri: object, bnode: object) -> NodeRef:
    if isinstance(uri, str):
        return NodeRef(URI, uri)
    if isinstance(bnode, str):
        return NodeRef(BNODE, bnode)
    raise Unsupported("a Resource node with neither a uri nor a bnode key cannot be read as RDF")


def read_registry(store: GraphStore) -> NameRegistry:
    rows = store.query(READ_REGISTRY.format(label=REGISTRY_LABEL))
    if not rows:
        return NameRegistry()
    if len(rows) > 1:
        raise Unsupported(f"the graph holds {len(rows)} {REGISTRY_LABEL} nodes; the bridge writes one")
    names, iris, kinds, prefixes, namespaces = (list(v or []) for v in rows[0].values())
    return NameRegistry.from_record(RegistryRecord(names, iris, kinds, prefixes, namespaces))


def read_graph(store: GraphStore) -> MappedGraph:
    """The mapped graph ``store`` holds (written by :func:`write_graph`), with its name registry; the schema is
    not read back (the reverse mapping does not need it)."""
    registry = read_registry(store)
    nodes: dict[NodeRef, ResourceNode] = {}
    for row in store.query(READ_NODES.format(resource=RESOURCE)):
        uri, bnode, labels, props = row.values()
        ref = _ref(uri, bnode)
        values: dict[str, PropertyValue] = {k: v for k, v in props.items() if k not in (URI, BNODE)}
        nodes[ref] = ResourceNode(ref, [label for label in labels if label != RESOURCE], values)
    edges = [
        Relationship(rel, _ref(su, sb), _ref(du, db))
        for su, sb, rel, du, db in (r.values() for r in store.query(READ_EDGES.format(resource=RESOURCE)))
    ]
    return MappedGraph(nodes, edges, RdfMapping(registry))
