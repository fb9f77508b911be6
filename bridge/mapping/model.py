"""Typed records of a mapped property graph, and :class:`RdfMapping`: the concrete bridge ``Mapping``.

``docs/bridge.md`` §1: every IRI and blank node is a :class:`ResourceNode` (label ``Resource``, keyed by ``uri``
or ``bnode``), its ``rdf:type`` classes are further labels, its literal objects are properties, and its IRI and
blank-node objects are :class:`Relationship` records. :class:`Schema` holds what the SHACL shapes say about the
graph (typed properties, relationship types, indexes).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pyoxigraph import BlankNode, Literal, NamedNode

from hybridkg.bridge.base import BNODE, RESOURCE, URI, Mapping, Value
from hybridkg.bridge.mapping.names import NameKind, NameRegistry
from hybridkg.bridge.mapping.values import MARK, to_literal, to_value

#: A node property: one value, or several (a list) when the node has several or the shapes say so.
PropertyValue = Value | list[Value]


@dataclass(frozen=True, slots=True)
class NodeRef:
    """The key of a resource node: ``key`` is ``uri`` or ``bnode`` (the constants of ``bridge/base.py``)."""

    key: str
    value: str

    @staticmethod
    def of(term: NamedNode | BlankNode) -> NodeRef:
        return NodeRef(URI, term.value) if isinstance(term, NamedNode) else NodeRef(BNODE, term.value)

    def term(self) -> NamedNode | BlankNode:
        return NamedNode(self.value) if self.key == URI else BlankNode(self.value)


@dataclass(slots=True)
class ResourceNode:
    """A ``Resource`` node; ``labels`` are the further labels (its classes), ``props`` exclude the key."""

    ref: NodeRef
    labels: list[str] = field(default_factory=list)
    props: dict[str, PropertyValue] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Relationship:
    type: str
    src: NodeRef
    dst: NodeRef


@dataclass(frozen=True, slots=True)
class IndexSpec:
    """Index nodes labelled ``label`` on property ``key``; ``unique``: no two such nodes share a value."""

    label: str
    key: str
    unique: bool = False


@dataclass(frozen=True, slots=True)
class PropertySpec:
    """A typed node property the shapes declare: ``scalar`` when ``sh:maxCount 1``, ``required`` when
    ``sh:minCount`` >= 1; ``datatype`` is the ``sh:datatype`` IRI."""

    label: str
    key: str
    datatype: str
    scalar: bool
    required: bool


@dataclass(frozen=True, slots=True)
class RelationshipSpec:
    """A relationship type the shapes declare from ``src_label`` nodes, to ``dst_label`` nodes when ``sh:class``
    says which."""

    src_label: str
    type: str
    dst_label: str | None


@dataclass(frozen=True, slots=True)
class Schema:
    properties: tuple[PropertySpec, ...] = ()
    relationships: tuple[RelationshipSpec, ...] = ()
    indexes: tuple[IndexSpec, ...] = (IndexSpec(RESOURCE, URI, True), IndexSpec(RESOURCE, BNODE, True))


class RdfMapping:
    """The :class:`~hybridkg.bridge.base.Mapping` of one mapped graph: names from its :class:`NameRegistry`,
    values from :mod:`~hybridkg.bridge.mapping.values`."""

    def __init__(self, registry: NameRegistry) -> None:
        self.registry = registry

    def label(self, cls: NamedNode) -> str | None:
        return self.registry.name(NameKind.LABEL, cls.value)

    def relationship_type(self, predicate: NamedNode) -> str | None:
        return self.registry.name(NameKind.TYPE, predicate.value)

    def property_key(self, predicate: NamedNode) -> str | None:
        return self.registry.name(NameKind.KEY, predicate.value)

    def iri(self, name: str) -> NamedNode | None:
        iri = self.registry.iri(name)
        return None if iri is None else NamedNode(iri)

    def to_value(self, literal: Literal) -> Value:
        return to_value(literal)

    def to_literal(self, value: Value) -> Literal:
        return to_literal(value)

    def plain_string(self, expr: str) -> str:
        """The SPARQL -> Cypher translator's ``PlainStrings``: a String value is an xsd:string literal's iff it does
        not start with the encoding's mark (``values.py``); without this every string counted as encoded, and any
        string comparison stopped the translated statement at run time."""
        return f"(NOT {expr} STARTS WITH '{MARK}')"

    def names(self) -> dict[str, str]:
        """Every name with its IRI (the translator's optional ``NameTable``: variable predicates need it)."""
        return {n: iri for kind in NameKind for n, iri in self.registry.items(kind).items()}


if TYPE_CHECKING:
    _IMPLEMENTS: type[Mapping] = RdfMapping  # mypy checks RdfMapping against the protocol


@dataclass(slots=True)
class MappedGraph:
    """An RDF graph as a property graph: nodes by key, relationships, the names, the schema from the shapes."""

    nodes: dict[NodeRef, ResourceNode]
    edges: list[Relationship]
    mapping: RdfMapping
    schema: Schema = field(default_factory=Schema)
