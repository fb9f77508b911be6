"""Normalisation of engine output, so that every engine reports the same kind of inferred set.

Engines disagree on noise, not on instance-level conclusions: owlrl adds axiomatic triples about
the built-in vocabulary and reflexive ``owl:sameAs``/``rdfs:subClassOf`` for every term, reasonable
types every class and property as ``owl:Thing``. :func:`normalize_inferred` removes exactly what is
listed in ``docs/reasoning.md`` ("Normalisation") and keeps everything else:

1. generalised triples (literal subject, non-IRI predicate) never get this far: the converter in
   :mod:`hybridkg.semantic.convert` drops them, and ``"x"^^xsd:string`` equals ``"x"`` in pyoxigraph;
2. reflexive ``owl:sameAs``, ``rdfs:subClassOf``, ``owl:equivalentClass``, ``rdfs:subPropertyOf``
   and ``owl:equivalentProperty`` (rules eq-ref, scm-cls, scm-op, scm-dp): true of every term, so
   they are *virtual* — never materialised, always treated as entailed;
3. ``C rdfs:subClassOf owl:Thing`` (scm-cls) and what scm-dom1/scm-rng1 make of it,
   ``p rdfs:domain owl:Thing`` and ``p rdfs:range owl:Thing``: also virtual;
4. axiomatic triples: triples whose subject is a term of the RDF, RDFS, OWL or XSD vocabularies
   (``owl:Thing a owl:Class``, ``xsd:string a rdfs:Datatype``, ``owl:Nothing rdfs:subClassOf C``...);
5. ``x rdf:type owl:Thing`` where ``x`` is a schema term (a class, property, datatype, restriction,
   list node or ontology of the closure, see :func:`schema_terms`); for individuals it is kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Set

from pyoxigraph import BlankNode, NamedNode, Triple

from hybridkg.semantic.vocab import BUILTIN_NAMESPACES, OWL, RDF, RDFS, XSD  # noqa: F401 - re-exported
from hybridkg.semantic.vocab import THING as OWL_THING
from hybridkg.semantic.vocab import TYPE as RDF_TYPE

_REFLEXIVE_VIRTUAL = frozenset(
    NamedNode(iri)
    for iri in (
        OWL + "sameAs",
        RDFS + "subClassOf",
        OWL + "equivalentClass",
        RDFS + "subPropertyOf",
        OWL + "equivalentProperty",
    )
)

#: ``x P owl:Thing`` for these ``P`` is virtual (scm-cls and its consequences through scm-dom1/scm-rng1).
_TO_THING = frozenset(NamedNode(RDFS + name) for name in ("subClassOf", "domain", "range"))

#: Types that make their instances schema terms.
META_CLASSES = frozenset(
    NamedNode(iri)
    for iri in (
        RDFS + "Class",
        RDFS + "Datatype",
        RDF + "Property",
        RDF + "List",
        OWL + "Class",
        OWL + "Restriction",
        OWL + "ObjectProperty",
        OWL + "DatatypeProperty",
        OWL + "AnnotationProperty",
        OWL + "OntologyProperty",
        OWL + "FunctionalProperty",
        OWL + "InverseFunctionalProperty",
        OWL + "TransitiveProperty",
        OWL + "SymmetricProperty",
        OWL + "AsymmetricProperty",
        OWL + "ReflexiveProperty",
        OWL + "IrreflexiveProperty",
        OWL + "Ontology",
        OWL + "AllDifferent",
        OWL + "AllDisjointClasses",
        OWL + "AllDisjointProperties",
        OWL + "NegativePropertyAssertion",
        OWL + "Axiom",
    )
)

#: Predicates whose subject and object are both schema terms (classes, properties, list nodes).
_SCHEMA_BOTH = frozenset(
    NamedNode(iri)
    for iri in (
        RDFS + "subClassOf",
        RDFS + "subPropertyOf",
        OWL + "equivalentClass",
        OWL + "equivalentProperty",
        OWL + "inverseOf",
        OWL + "disjointWith",
        OWL + "propertyDisjointWith",
        OWL + "complementOf",
        OWL + "onProperty",
        OWL + "onClass",
        OWL + "onDataRange",
        OWL + "someValuesFrom",
        OWL + "allValuesFrom",
        OWL + "intersectionOf",
        OWL + "unionOf",
        OWL + "oneOf",
        OWL + "propertyChainAxiom",
        OWL + "hasKey",
        OWL + "disjointUnionOf",
        OWL + "members",
        OWL + "distinctMembers",
        OWL + "onDatatype",
        OWL + "withRestrictions",
        RDF + "rest",
    )
)

#: Predicates whose subject only is a schema term (the object is an individual, literal or class).
_SCHEMA_SUBJECT = frozenset(
    NamedNode(iri)
    for iri in (
        RDFS + "domain",
        RDFS + "range",
        OWL + "hasValue",
        OWL + "maxCardinality",
        OWL + "minCardinality",
        OWL + "cardinality",
        OWL + "maxQualifiedCardinality",
        OWL + "minQualifiedCardinality",
        OWL + "qualifiedCardinality",
        OWL + "hasSelf",
        OWL + "sourceIndividual",
        OWL + "assertionProperty",
        OWL + "targetIndividual",
        OWL + "targetValue",
        OWL + "annotatedSource",
        OWL + "annotatedProperty",
        OWL + "annotatedTarget",
        RDF + "first",
    )
)
_SCHEMA_OBJECT = frozenset(NamedNode(iri) for iri in (RDFS + "domain", RDFS + "range"))


def is_builtin(term: object) -> bool:
    """True for IRIs of the RDF, RDFS, OWL and XSD vocabularies."""
    return type(term) is NamedNode and term.value.startswith(BUILTIN_NAMESPACES)


def schema_terms(closure: Iterable[Triple]) -> set[NamedNode | BlankNode]:
    """Classes, properties, datatypes, restrictions, list nodes and ontologies used in ``closure``."""
    terms: set[NamedNode | BlankNode] = set()
    add = terms.add
    for t in closure:
        p = t.predicate
        add(p)
        if p == RDF_TYPE:
            o = t.object
            add(o)  # type: ignore[arg-type]
            if o in META_CLASSES:
                add(t.subject)  # type: ignore[arg-type]
        elif p in _SCHEMA_BOTH:
            add(t.subject)  # type: ignore[arg-type]
            add(t.object)  # type: ignore[arg-type]
        elif p in _SCHEMA_SUBJECT:
            add(t.subject)  # type: ignore[arg-type]
            if p in _SCHEMA_OBJECT:
                add(t.object)  # type: ignore[arg-type]
    return terms


def is_virtual(triple: Triple) -> bool:
    """True for triples every term entails and that are never materialised (items 2 and 3)."""
    p = triple.predicate
    if p in _REFLEXIVE_VIRTUAL and triple.subject == triple.object:
        return True
    return p in _TO_THING and triple.object == OWL_THING


def normalize_inferred(
    inferred: Iterable[Triple],
    asserted: Set[Triple],
    schema: Set[NamedNode | BlankNode] | None = None,
) -> set[Triple]:
    """The normalised inferred set: ``inferred`` minus ``asserted`` minus the noise listed above.

    ``schema`` is :func:`schema_terms` of the closure if the caller has it already.
    """
    candidates = [t for t in inferred if t not in asserted]
    if schema is None:
        schema = set()
        if any(t.object == OWL_THING and t.predicate == RDF_TYPE for t in candidates):
            schema = schema_terms(asserted) | schema_terms(candidates)
    result: set[Triple] = set()
    add = result.add
    for t in candidates:
        s = t.subject
        if type(s) is NamedNode and s.value.startswith(BUILTIN_NAMESPACES):
            continue
        if is_virtual(t):
            continue
        if t.object == OWL_THING and t.predicate == RDF_TYPE and s in schema:
            continue
        add(t)
    return result
