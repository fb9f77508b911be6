"""The RDF <-> property-graph mapping of the bridge (``docs/bridge.md`` §1): :func:`map_graph` (RDF -> property
graph, schema-dependent with a domain's SHACL shapes, schema-independent otherwise), :func:`to_rdf` (back),
:func:`write_graph` / :func:`read_graph` (into and out of a :class:`~hybridkg.structural.base.GraphStore`)."""

from hybridkg.bridge.mapping.model import (
    IndexSpec,
    MappedGraph,
    NodeRef,
    PropertySpec,
    RdfMapping,
    Relationship,
    RelationshipSpec,
    ResourceNode,
    Schema,
)
from hybridkg.bridge.mapping.names import REGISTRY_LABEL, NameKind, NameRegistry
from hybridkg.bridge.mapping.shapes import Shapes, domain_shapes, read_shapes
from hybridkg.bridge.mapping.store import WriteReport, read_graph, read_registry, write_graph
from hybridkg.bridge.mapping.to_pg import map_graph
from hybridkg.bridge.mapping.to_rdf import to_rdf
from hybridkg.bridge.mapping.values import MARK, to_literal, to_value

__all__ = [
    "MARK",
    "REGISTRY_LABEL",
    "IndexSpec",
    "MappedGraph",
    "NameKind",
    "NameRegistry",
    "NodeRef",
    "PropertySpec",
    "RdfMapping",
    "Relationship",
    "RelationshipSpec",
    "ResourceNode",
    "Schema",
    "Shapes",
    "WriteReport",
    "domain_shapes",
    "map_graph",
    "read_graph",
    "read_registry",
    "read_shapes",
    "to_literal",
    "to_rdf",
    "to_value",
    "write_graph",
]
