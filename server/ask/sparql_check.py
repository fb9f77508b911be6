"""Check a proposed SPARQL query against a strict domain's schema before it runs.

A proposal passes when it parses (rdflib's SPARQL 1.1 grammar, then pyoxigraph's, which will run it), is a
SELECT or ASK (updates do not parse as queries), calls no SERVICE, has no variable in predicate position,
and every IRI in predicate position (property paths included) or class position (object of ``rdf:type``) is
a class or property the domain's ontology declares, or one of the few RDF/RDFS/SKOS/OWL terms that label
and identify resources. The rdflib-to-pyoxigraph term boundary is this module's own: it reads rdflib's
algebra and hands back plain IRI strings.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pyoxigraph import Literal, NamedNode

from hybridkg.semantic.kb import KnowledgeBase

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
OWL = "http://www.w3.org/2002/07/owl#"

#: Properties every domain may use: typing, labels, comments, identity.
STANDARD_PROPERTIES = frozenset({
    RDF_TYPE, RDFS + "label", RDFS + "comment", SKOS + "prefLabel", SKOS + "altLabel", OWL + "sameAs",
})

SCHEMA_TERMS = """
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX owl: <http://www.w3.org/2002/07/owl#>
SELECT DISTINCT ?term ?kind (SAMPLE(?lbl) AS ?label) (SAMPLE(?dom) AS ?domain) (SAMPLE(?rng) AS ?range) WHERE {
  GRAPH %(graph)s {
    ?term a ?kind .
    VALUES ?kind { owl:Class rdfs:Class owl:ObjectProperty owl:DatatypeProperty rdf:Property }
    FILTER(isIRI(?term))
    OPTIONAL { ?term rdfs:label ?lbl }
    OPTIONAL { ?term rdfs:domain ?dom FILTER(isIRI(?dom)) }
    OPTIONAL { ?term rdfs:range ?rng FILTER(isIRI(?rng)) }
  }
} GROUP BY ?term ?kind ORDER BY ?term
"""

_KINDS = {
    OWL + "Class": "class", RDFS + "Class": "class", OWL + "ObjectProperty": "object property",
    OWL + "DatatypeProperty": "datatype property", "http://www.w3.org/1999/02/22-rdf-syntax-ns#Property": "property",
}


@dataclass(frozen=True)
class Schema:
    """A domain's declared classes and properties (IRIs), and a readable listing for prompts."""

    classes: frozenset[str]
    properties: frozenset[str]
    terms: tuple[Any, ...] = ()  # SchemaTerm rows, for prompts


def load_schema(kb: KnowledgeBase, ontology_graph: str) -> Schema:
    from hybridkg.server.ask.llm import SchemaTerm

    classes: set[str] = set()
    properties: set[str] = set()
    terms: dict[str, SchemaTerm] = {}
    rows = kb.query(SCHEMA_TERMS % {"graph": str(NamedNode(ontology_graph))}).rows
    for term, kind, label, dom, rng in rows:
        if not isinstance(term, NamedNode) or not isinstance(kind, NamedNode):
            continue
        iri, role = term.value, _KINDS.get(kind.value, "property")
        (classes if role == "class" else properties).add(iri)
        prior = terms.get(iri)
        if prior is None or (prior.kind == "property" and role != "property"):
            terms[iri] = SchemaTerm(
                iri, label.value if isinstance(label, Literal) else iri.rsplit("#", 1)[-1].rsplit("/", 1)[-1], role,
                dom.value if isinstance(dom, NamedNode) else "", rng.value if isinstance(rng, NamedNode) else "",
            )
    return Schema(frozenset(classes), frozenset(properties), tuple(terms.values()))


@dataclass
class CheckResult:
    ok: bool
    problems: list[str] = field(default_factory=list)
    kind: str = ""  # "select" | "ask"
    patterns: list[tuple[Any, str, Any]] = field(default_factory=list)  # BGP triples with an IRI predicate

    @property
    def reason(self) -> str:
        return "; ".join(self.problems)


def _path_iris(path: Any) -> Iterator[str]:
    from rdflib import URIRef
    from rdflib.paths import AlternativePath, InvPath, MulPath, NegatedPath, SequencePath

    if isinstance(path, URIRef):
        yield str(path)
    elif isinstance(path, (SequencePath, AlternativePath, NegatedPath)):
        for p in path.args:
            yield from _path_iris(p)
    elif isinstance(path, InvPath):
        yield from _path_iris(path.arg)
    elif isinstance(path, MulPath):
        yield from _path_iris(path.path)


def _nodes(node: Any) -> Iterator[Any]:
    from rdflib.plugins.sparql.parserutils import CompValue

    if isinstance(node, CompValue):
        yield node
        for key, value in node.items():
            if key != "_vars":
                yield from _nodes(value)
    elif isinstance(node, (list, tuple)):
        for value in node:
            yield from _nodes(value)


def check_query(query: str, schema: Schema) -> CheckResult:
    """Whether ``query`` may run against the domain whose ``schema`` is given, and what is wrong if not."""
    from pyoxigraph import Store
    from rdflib import URIRef, Variable
    from rdflib.plugins.sparql.algebra import translateQuery
    from rdflib.plugins.sparql.parser import parseQuery

    try:
        algebra = translateQuery(parseQuery(query)).algebra
    except Exception as e:  # rdflib raises pyparsing and plain exceptions alike for bad queries
        return CheckResult(False, [f"it does not parse as a SPARQL query ({str(e).splitlines()[0][:200]})"])
    kinds = {"SelectQuery": "select", "AskQuery": "ask"}
    if algebra.name not in kinds:
        return CheckResult(False, [f"it is a {algebra.name.removesuffix('Query').upper()} query, not SELECT or ASK"])
    try:
        Store().query(query)  # the engine that will run it must parse it too (on an empty store: no cost)
    except (SyntaxError, ValueError, OSError) as e:
        return CheckResult(False, [f"pyoxigraph rejects it ({e})"])
    result = CheckResult(True, kind=kinds[algebra.name])
    unknown: dict[str, str] = {}
    for node in _nodes(algebra):
        if node.name == "ServiceGraphPattern":
            result.problems.append("it calls a remote SERVICE")
        if node.name != "BGP":
            continue
        for s, p, o in node.get("triples") or ():
            if isinstance(p, Variable):
                result.problems.append(f"a variable (?{p}) in predicate position")
                continue
            for iri in _path_iris(p):
                if iri not in schema.properties and iri not in STANDARD_PROPERTIES:
                    unknown.setdefault(iri, "property")
            if isinstance(p, URIRef):
                result.patterns.append((s, str(p), o))
                if str(p) == RDF_TYPE and isinstance(o, URIRef) and str(o) not in schema.classes:
                    unknown.setdefault(str(o), "class")
    result.problems.extend(f"<{iri}> is not a {role} of the domain's ontology" for iri, role in unknown.items())
    result.problems = list(dict.fromkeys(result.problems))
    result.ok = not result.problems
    return result
