"""RDF, RDFS, OWL and XSD terms used across the semantic layer (one definition each)."""

from __future__ import annotations

from pyoxigraph import NamedNode

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
XSD = "http://www.w3.org/2001/XMLSchema#"
BUILTIN_NAMESPACES = (RDF, RDFS, OWL, XSD)

TYPE = NamedNode(RDF + "type")
FIRST = NamedNode(RDF + "first")
REST = NamedNode(RDF + "rest")
NIL = NamedNode(RDF + "nil")
SUBCLASS = NamedNode(RDFS + "subClassOf")
SUBPROPERTY = NamedNode(RDFS + "subPropertyOf")
DOMAIN = NamedNode(RDFS + "domain")
RANGE = NamedNode(RDFS + "range")
SAME_AS = NamedNode(OWL + "sameAs")
THING = NamedNode(OWL + "Thing")
NOTHING = NamedNode(OWL + "Nothing")
CLASS = NamedNode(OWL + "Class")
OBJECT_PROPERTY = NamedNode(OWL + "ObjectProperty")
DATATYPE_PROPERTY = NamedNode(OWL + "DatatypeProperty")
ANNOTATION_PROPERTY = NamedNode(OWL + "AnnotationProperty")
EQ_CLASS = NamedNode(OWL + "equivalentClass")
EQ_PROPERTY = NamedNode(OWL + "equivalentProperty")
INVERSE = NamedNode(OWL + "inverseOf")
ON_PROPERTY = NamedNode(OWL + "onProperty")
ON_CLASS = NamedNode(OWL + "onClass")
SOME = NamedNode(OWL + "someValuesFrom")
ALL = NamedNode(OWL + "allValuesFrom")
HAS_VALUE = NamedNode(OWL + "hasValue")
MAX_CARD = NamedNode(OWL + "maxCardinality")
MAX_QCARD = NamedNode(OWL + "maxQualifiedCardinality")
INTERSECTION = NamedNode(OWL + "intersectionOf")
UNION = NamedNode(OWL + "unionOf")
ONE_OF = NamedNode(OWL + "oneOf")
CHAIN = NamedNode(OWL + "propertyChainAxiom")
HAS_KEY = NamedNode(OWL + "hasKey")
