"""Wire the layers together from Settings (no globals: every call builds its own objects)."""

from __future__ import annotations

from collections.abc import Sequence

from pyoxigraph import Literal, NamedNode

from hybridkg.semantic.base import INFERRED_GRAPH
from hybridkg.semantic.domains import DomainPolicy
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.store.factory import make_store
from hybridkg.semantic.validation.factory import make_validator
from hybridkg.server.config import Settings
from hybridkg.structural.base import KnownEntity
from hybridkg.structural.factory import open_structural_kb
from hybridkg.structural.knowledge import StructuralKB, known_from_rows


def open_knowledge_base(settings: Settings) -> KnowledgeBase:
    return KnowledgeBase(
        make_store(settings.store),
        reasoner=make_reasoner(settings.reasoning),
        validator=make_validator(settings.validation),
        policy=DomainPolicy.load(settings.domains.policy),
        max_input_bytes=settings.store.max_input_bytes,
    )


# Individuals only: classes, properties and the ontology have labels too, but a class label is a type (the
# extractor gets those from ENTITY_TYPES) and a property label ("about", "works for") names no entity. Preferred
# labels come before alt labels (the first label of a KnownEntity names the entity), in a fixed order.
KNOWN_ENTITIES = """
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
PREFIX owl: <http://www.w3.org/2002/07/owl#>
SELECT ?iri ?label (SAMPLE(?cls) AS ?type) (MIN(?rank) AS ?r) WHERE {
  VALUES ?g { %(graphs)s }
  VALUES (?lp ?rank) { (rdfs:label 0) (skos:prefLabel 0) (skos:altLabel 1) }
  GRAPH ?g { ?iri ?lp ?label }
  FILTER(isIRI(?iri))
  FILTER NOT EXISTS {
    GRAPH ?g3 { ?iri a ?meta }
    FILTER(?meta IN (owl:Class, rdfs:Class, owl:Ontology, rdf:Property, owl:ObjectProperty, owl:DatatypeProperty,
                     owl:AnnotationProperty, owl:TransitiveProperty, owl:SymmetricProperty, owl:FunctionalProperty,
                     owl:InverseFunctionalProperty))
  }
  OPTIONAL { GRAPH ?g2 { ?iri a ?cls } FILTER(isIRI(?cls) && ?cls != owl:NamedIndividual && ?cls != owl:Thing
             && ?cls != owl:Class && ?cls != owl:ObjectProperty && ?cls != owl:DatatypeProperty) }
} GROUP BY ?iri ?label ORDER BY ?iri ?r ?label
"""

ENTITY_TYPES = """
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX owl: <http://www.w3.org/2002/07/owl#>
SELECT DISTINCT ?cls ?label WHERE {
  GRAPH %(graph)s { ?cls a owl:Class . OPTIONAL { ?cls rdfs:label ?label } FILTER(isIRI(?cls)) }
}
"""


def _local_name(iri: str) -> str:
    return iri.rstrip("/#").rsplit("#", 1)[-1].rsplit("/", 1)[-1]


def domain_vocabulary(kb: KnowledgeBase, domain: str) -> tuple[list[KnownEntity], list[str]]:
    """The domain's labelled resources (for the offline extractor) and class names (for LLM prompts)."""
    dom = kb.policy.get(domain)
    kb.ensure_domain(domain)
    graphs = " ".join(str(g) for g in (*(NamedNode(x) for x in dom.graphs), INFERRED_GRAPH))
    result = kb.query(KNOWN_ENTITIES % {"graphs": graphs})
    rows = []
    for iri, label, cls, _rank in result.rows:
        if not isinstance(iri, NamedNode) or not isinstance(label, Literal):
            continue
        kind = _local_name(cls.value) if isinstance(cls, NamedNode) else "concept"
        rows.append({"iri": iri.value, "label": label.value, "type": kind})
    types_result = kb.query(ENTITY_TYPES % {"graph": str(NamedNode(dom.ontology_graph))})
    types = sorted({
        lbl.value if isinstance(lbl, Literal) else _local_name(c.value)
        for c, lbl in types_result.rows
        if isinstance(c, NamedNode)
    })
    return known_from_rows(rows), types


def open_structural(settings: Settings, kb: KnowledgeBase | None = None, domains: Sequence[str] = ()) -> StructuralKB:
    """The structural layer under ``settings.structural_path()``; the offline extractor links entities the
    semantic layer knows for ``domains`` (their labels and altLabels)."""
    known: list[KnownEntity] = []
    types: dict[str, list[str]] = {}
    if kb is not None:
        for name in domains:
            found, classes = domain_vocabulary(kb, name)
            known.extend(found)
            types[name] = classes
    skb = open_structural_kb(settings.structural, settings.structural_path(), known=known)
    skb.entity_types.update(types)
    return skb
