"""The bridge's seam: how RDF terms and property-graph names and values correspond.

The property graph an RDF graph maps to (``docs/bridge.md`` §1 is the full specification; what the query
translators rely on is fixed here):

* Every IRI and blank node of the data is a node labelled :data:`RESOURCE`, keyed by the property :data:`URI`
  (the IRI) or :data:`BNODE` (a blank node's stable identifier within the mapped data).
* ``?s rdf:type C`` is a label of ``?s``'s node: :meth:`Mapping.label` of ``C``. A type that is a blank node
  (OWL 2 RL infers them for restrictions) is a relationship of type :meth:`Mapping.relationship_type` of
  ``rdf:type`` to that blank node's node instead, so ``?s rdf:type ?c`` reads both.
* ``?s p ?o`` with an IRI or blank-node object is a relationship of type :meth:`Mapping.relationship_type` of
  ``p`` from ``?s``'s node to ``?o``'s node.
* ``?s p "literal"`` is a value of ``?s``'s node property :meth:`Mapping.property_key` of ``p``: a scalar when
  the node has one such value and the shapes do not say otherwise, else a list. The value is
  :meth:`Mapping.to_value` of the literal; :meth:`Mapping.to_literal` reads it back exactly.

A predicate may be both a relationship type and a property key (some of its objects are IRIs, some literals).
A name stands for one IRI across labels, relationship types and property keys together (so :meth:`Mapping.iri`
needs no kind); :data:`RESOURCE`, :data:`URI`, :data:`BNODE` and the name table's label are reserved. The name
table is a node without the :data:`RESOURCE` label: translated queries match ``:Resource`` nodes only.
"""

from __future__ import annotations

from typing import Protocol

from pyoxigraph import Literal, NamedNode

RESOURCE = "Resource"
URI = "uri"
BNODE = "bnode"

#: A property value in the graph: what FalkorDB and Neo4j store natively.
Value = str | int | float | bool


class Mapping(Protocol):
    """The names and values of one mapped RDF graph, both ways. ``None`` means "not in the mapped data" (a
    query naming it matches nothing; a translator may say so rather than guess)."""

    def label(self, cls: NamedNode) -> str | None:
        """The node label of class ``cls``."""
        ...

    def relationship_type(self, predicate: NamedNode) -> str | None:
        """The relationship type of ``predicate`` (its IRI and blank-node objects)."""
        ...

    def property_key(self, predicate: NamedNode) -> str | None:
        """The node property key of ``predicate`` (its literal objects)."""
        ...

    def iri(self, name: str) -> NamedNode | None:
        """The class or predicate a label, relationship type or property key names."""
        ...

    def to_value(self, literal: Literal) -> Value:
        """The property value that stands for ``literal``."""
        ...

    def to_literal(self, value: Value) -> Literal:
        """The literal a property value stands for (inverse of :meth:`to_value`)."""
        ...
