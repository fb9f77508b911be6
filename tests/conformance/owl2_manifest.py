"""Read the W3C OWL 2 test suite (RDF/XML export) and check entailments with SPARQL ASK.

Spec: https://www.w3.org/TR/owl2-conformance/ - a positive entailment test holds when every triple
of the conclusion ontology holds in the closure of the premise ontology; blank nodes of the
conclusion are existential, so they become SPARQL variables.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

TEST = "http://www.w3.org/2007/OWL/testOntology#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"

RDF_TYPE = ox.NamedNode(RDF + "type")
OWL_SAME_AS = ox.NamedNode(OWL + "sameAs")
OWL_THING = ox.NamedNode(OWL + "Thing")
_BASE = "http://example.org/"

#: ``x rdf:type T`` for these ``T`` only declares vocabulary; it is not checked unless the
#: reference engine (owlrl) derives it too.
DECLARATION_TYPES = frozenset(
    ox.NamedNode(iri)
    for iri in (
        OWL + "Class",
        OWL + "ObjectProperty",
        OWL + "DatatypeProperty",
        OWL + "AnnotationProperty",
        OWL + "Ontology",
        OWL + "NamedIndividual",
        RDFS + "Datatype",
        RDFS + "Class",
        RDF + "Property",
    )
)

_TO_THING = (ox.NamedNode(RDFS + "subClassOf"), ox.NamedNode(RDFS + "domain"), ox.NamedNode(RDFS + "range"))

#: Reflexive properties that every class/property term satisfies (virtual, never materialised).
_REFLEXIVE_SCHEMA = (
    ox.NamedNode(RDFS + "subClassOf"),
    ox.NamedNode(OWL + "equivalentClass"),
    ox.NamedNode(RDFS + "subPropertyOf"),
    ox.NamedNode(OWL + "equivalentProperty"),
)


@dataclass(frozen=True)
class EntailmentCase:
    id: str
    premise: str
    conclusion: str
    semantics: frozenset[str]
    description: str = ""


def _objects(store: ox.Store, subject: ox.NamedNode | ox.BlankNode, predicate: str) -> list[ox.Term]:
    return [q.object for q in store.quads_for_pattern(subject, ox.NamedNode(predicate), None)]


def rl_positive_entailment_cases(manifest: Path) -> list[EntailmentCase]:
    """Every RL-profile positive entailment test (``test:profile test:RL``; the export's
    ``owl:NegativePropertyAssertion`` nodes saying a test is *not* in a profile are separate nodes
    and never match this pattern)."""
    store = ox.Store()
    # pyoxigraph's RDF/XML parser wants double-quoted DOCTYPE entity values; the export uses single.
    text = re.sub(r"<!ENTITY (\w+) '([^']*)'>", r'<!ENTITY \1 "\2">', manifest.read_text(encoding="utf-8"))
    store.bulk_load(text.encode(), format=ox.RdfFormat.RDF_XML, base_iri=_BASE)
    cases: list[EntailmentCase] = []
    positive = ox.NamedNode(TEST + "PositiveEntailmentTest")
    rl = ox.NamedNode(TEST + "RL")
    for quad in store.quads_for_pattern(None, RDF_TYPE, positive):
        node = quad.subject
        if rl not in _objects(store, node, TEST + "profile"):  # type: ignore[arg-type]
            continue
        ident = _objects(store, node, TEST + "identifier")  # type: ignore[arg-type]
        premise = _objects(store, node, TEST + "rdfXmlPremiseOntology")  # type: ignore[arg-type]
        conclusion = _objects(store, node, TEST + "rdfXmlConclusionOntology")  # type: ignore[arg-type]
        semantics = frozenset(
            t.value.removeprefix(TEST) for t in _objects(store, node, TEST + "semantics")  # type: ignore[arg-type, union-attr]
        )
        description = _objects(store, node, TEST + "description")  # type: ignore[arg-type]
        cases.append(
            EntailmentCase(
                id=ident[0].value if ident else str(node),  # type: ignore[union-attr]
                premise=premise[0].value if premise else "",  # type: ignore[union-attr]
                conclusion=conclusion[0].value if conclusion else "",  # type: ignore[union-attr]
                semantics=semantics,
                description=description[0].value if description else "",  # type: ignore[union-attr]
            )
        )
    return sorted(cases, key=lambda c: c.id)


def parse_rdfxml(text: str) -> list[ox.Triple]:
    return [q.triple for q in ox.parse(text.encode(), format=ox.RdfFormat.RDF_XML, base_iri=_BASE)]


def _sparql_term(term: ox.Term) -> str:
    if isinstance(term, ox.BlankNode):
        return f"?b_{term.value}"
    return str(term)


def is_declaration(triple: ox.Triple) -> bool:
    return triple.predicate == RDF_TYPE and triple.object in DECLARATION_TYPES


def virtual_triples(closure: Iterable[ox.Triple]) -> set[ox.Triple]:
    """Triples every engine entails but none materialises (see docs/reasoning.md): ``x owl:sameAs x``
    for every term (eq-ref), reflexive subClassOf/equivalentClass/subPropertyOf/equivalentProperty
    for every class and property term, ``C rdfs:subClassOf owl:Thing`` for every class term and
    ``p rdfs:domain owl:Thing``, ``p rdfs:range owl:Thing`` for every property term."""
    from hybridkg.semantic.reasoning.normalize import schema_terms

    triples = list(closure)
    out: set[ox.Triple] = set()
    for t in triples:
        for term in (t.subject, t.predicate, t.object):
            if not isinstance(term, ox.Literal | ox.Triple):
                out.add(ox.Triple(term, OWL_SAME_AS, term))
    for term in schema_terms(triples):
        for p in _REFLEXIVE_SCHEMA:
            out.add(ox.Triple(term, p, term))
        for p in _TO_THING:
            out.add(ox.Triple(term, p, OWL_THING))
    return out


def entailed(closure: Iterable[ox.Triple], conclusion: Iterable[ox.Triple]) -> bool:
    """True if the conclusion (blank nodes existential) holds in ``closure`` plus virtual triples."""
    triples = list(closure)
    goal = list(conclusion)
    if not goal:
        return True
    store = ox.Store()
    store.extend(ox.Quad(t.subject, t.predicate, t.object) for t in triples)
    store.extend(ox.Quad(t.subject, t.predicate, t.object) for t in virtual_triples(triples))
    pattern = " .\n".join(
        f"{_sparql_term(t.subject)} {_sparql_term(t.predicate)} {_sparql_term(t.object)}" for t in goal
    )
    return bool(store.query(f"ASK {{ {pattern} }}"))


def missing(closure: Iterable[ox.Triple], conclusion: Iterable[ox.Triple]) -> list[ox.Triple]:
    """Ground conclusion triples that do not hold (for failure messages; blank nodes are skipped)."""
    triples = set(closure)
    triples |= virtual_triples(triples)
    return [
        t
        for t in conclusion
        if not isinstance(t.subject, ox.BlankNode)
        and not isinstance(t.object, ox.BlankNode)
        and t not in triples
    ]


_VOCABULARY = (RDF, RDFS, OWL, "http://www.w3.org/2001/XMLSchema#")


def is_instance_level(triple: ox.Triple) -> bool:
    """A conclusion about individuals: a property assertion with a non-vocabulary property,
    ``owl:sameAs``/``owl:differentFrom``, or ``rdf:type`` with a non-vocabulary class."""
    p = triple.predicate.value
    if p == RDF + "type":
        o = triple.object
        return not (isinstance(o, ox.NamedNode) and o.value.startswith(_VOCABULARY))
    if p in (OWL + "sameAs", OWL + "differentFrom"):
        return True
    return not p.startswith(_VOCABULARY)
