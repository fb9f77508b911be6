"""A domain's vocabulary for the structural layer's entity linking (issue 11 §1, "Sync": "the structural layer's
entity linking reads it from there"): its labelled individuals (:class:`~hybridkg.structural.base.KnownEntity`, for
the offline extractor) and its class names (for LLM prompts).

What a domain holds is its bridge scope (:func:`~hybridkg.bridge.policy.scope_of`): the triples of its graphs and,
with the exposure ``inferred``, the closure's triples about its own resources. Two readers give the same
:class:`Vocabulary` from the same triples:

* :func:`graph_vocabulary` reads the domain's bridge property graph by Cypher (names through the graph's registry,
  values decoded by the mapping): what the service uses when the bridge is on;
* :func:`store_vocabulary` reads the RDF store by SPARQL (the fallback when the bridge is off).

:func:`domain_vocabulary` chooses. Both gather the same facts (labels, classes, ``rdfs:subClassOf`` pairs, class
labels) and one function turns them into the result, so the rules are written once:

* an **entity** is an IRI with an ``rdfs:label``, ``skos:prefLabel`` (preferred) or ``skos:altLabel`` (alternative)
  that is not itself a class, property or ontology (a class label is a type, a property label names no entity);
  its labels are ordered preferred first, then by text, so the first names it; entities come in IRI order;
* its **type** is the local name of its most specific class (one no other class of it is a subclass of, through
  the transitive ``rdfs:subClassOf`` pairs in scope; ``owl:Thing``, ``owl:NamedIndividual`` and the OWL
  meta-classes are no type), the least IRI among several, ``concept`` when it has none;
* the **types** list: the label (else the local name) of every ``owl:Class`` in scope, sorted.

Before the bridge (``server/app.py``'s ``KNOWN_ENTITIES``), a domain's vocabulary took the labels of the whole
inferred graph, so the crm domain listed four clinical patients whose labels the closure copies along
``owl:sameAs``; and an entity's type was SPARQL's ``SAMPLE`` of its classes, often a superclass (``Party`` for a
company). Both now follow the scope and the most specific class, on either side.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field

from pyoxigraph import Literal, NamedNode

from hybridkg.bridge.base import RESOURCE, URI
from hybridkg.bridge.graphs import graph_beside
from hybridkg.bridge.mapping import NameKind, NameRegistry, to_literal
from hybridkg.bridge.policy import Scope, scope_of
from hybridkg.bridge.settings import BridgeConfig
from hybridkg.bridge.sync import BridgeSync
from hybridkg.errors import Unsupported
from hybridkg.semantic.base import INFERRED_GRAPH
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.structural.base import GraphStore, KnownEntity
from hybridkg.structural.graphstore.dialect import check_name
from hybridkg.structural.knowledge import known_from_rows

__all__ = ["Vocabulary", "domain_vocabulary", "graph_vocabulary", "store_vocabulary"]

log = logging.getLogger(__name__)

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
RDFS_LABEL = RDFS + "label"
#: label predicate -> rank (0: preferred, 1: alternative)
LABELS = {RDFS_LABEL: 0, SKOS + "prefLabel": 0, SKOS + "altLabel": 1}
SUBCLASS_OF = RDFS + "subClassOf"
OWL_CLASS = OWL + "Class"
#: an IRI typed with one of these is a class, property or ontology: its label names no entity
META = frozenset({
    OWL_CLASS, RDFS + "Class", OWL + "Ontology", RDF + "Property", OWL + "ObjectProperty", OWL + "DatatypeProperty",
    OWL + "AnnotationProperty", OWL + "TransitiveProperty", OWL + "SymmetricProperty", OWL + "FunctionalProperty",
    OWL + "InverseFunctionalProperty",
})
#: classes that are no entity type
NOT_TYPES = frozenset({OWL + "NamedIndividual", OWL + "Thing", OWL_CLASS, OWL + "ObjectProperty",
                       OWL + "DatatypeProperty"})

# ---------------------------------------------------------------------------------------------- SPARQL (fallback)

#: a triple pattern in the scope: asserted in the domain's graphs, or (exposure inferred) inferred about a subject
#: asserted there. %(graphs)s: the graphs' IRIs as N-Triples terms.
_ASSERTED = "{ VALUES ?g { %(graphs)s } GRAPH ?g { %(pattern)s } }"
_INFERRED = (" UNION { GRAPH %(inferred)s { %(pattern)s } "
             "FILTER EXISTS { VALUES ?h { %(graphs)s } GRAPH ?h { %(subject)s ?p0 ?o0 } } }")
SPARQL_LABELS = (
    "SELECT DISTINCT ?s ?p ?o WHERE { VALUES ?p { %(labels)s } %(scoped)s FILTER(isIRI(?s) && isLiteral(?o)) }"
)
#: the IRI objects of one predicate (rdf:type, rdfs:subClassOf) of IRI subjects
SPARQL_OBJECTS = "SELECT DISTINCT ?s ?o WHERE { %(scoped)s FILTER(isIRI(?s) && isIRI(?o)) }"

# ---------------------------------------------------------------------------------------------- Cypher (bridge)

#: nodes with a label property; {cond}: "n.k IS NOT NULL OR ..." over the label keys, {cols}: "n.k AS v0, ..."
CYPHER_LABELLED = (
    "MATCH (n:{resource}) WHERE n.{uri} IS NOT NULL AND ({cond}) RETURN n.{uri} AS iri, labels(n) AS classes, {cols}"
)
CYPHER_CLASSES = "MATCH (n:{resource}:{cls}) WHERE n.{uri} IS NOT NULL RETURN n.{uri} AS iri, {label} AS label"
CYPHER_SUBCLASSES = (
    "MATCH (a:{resource})-[:{sub}]->(b:{resource}) WHERE a.{uri} IS NOT NULL AND b.{uri} IS NOT NULL "
    "RETURN a.{uri} AS a, b.{uri} AS b"
)


@dataclass(frozen=True)
class Vocabulary:
    """A domain's labelled individuals (for the offline extractor) and class names (for LLM prompts)."""

    entities: list[KnownEntity]
    types: list[str]


@dataclass
class _Facts:
    """What a vocabulary is made of, read from either side."""

    labels: dict[str, dict[str, int]] = field(default_factory=dict)  # iri -> label text -> best rank
    rdfs_labels: dict[str, set[str]] = field(default_factory=dict)  # iri -> its rdfs:label texts
    classes: dict[str, set[str]] = field(default_factory=dict)  # iri -> class IRIs
    subclass: set[tuple[str, str]] = field(default_factory=set)  # (sub, super)

    def label(self, iri: str, predicate: str, text: str) -> None:
        rank = LABELS[predicate]
        texts = self.labels.setdefault(iri, {})
        texts[text] = min(rank, texts.get(text, rank))
        if predicate == RDFS_LABEL:
            self.rdfs_labels.setdefault(iri, set()).add(text)

    def typed(self, iri: str, cls: str) -> None:
        self.classes.setdefault(iri, set()).add(cls)


def local_name(iri: str) -> str:
    return iri.rstrip("/#").rsplit("#", 1)[-1].rsplit("/", 1)[-1]


def _supers(pairs: Iterable[tuple[str, str]]) -> dict[str, set[str]]:
    """class -> every class it is a subclass of (transitively, itself excluded)."""
    direct: dict[str, set[str]] = {}
    for a, b in pairs:
        if a != b:
            direct.setdefault(a, set()).add(b)
    out: dict[str, set[str]] = {}
    for start in direct:
        seen: set[str] = set()
        todo = list(direct[start])
        while todo:
            c = todo.pop()
            if c not in seen:
                seen.add(c)
                todo.extend(direct.get(c, ()))
        seen.discard(start)
        out[start] = seen
    return out


def _type_of(classes: set[str], supers: dict[str, set[str]]) -> str:
    candidates = classes - NOT_TYPES
    if not candidates:
        return "concept"
    # c is less specific when another candidate is a subclass of it without being its equivalent
    specific = [c for c in candidates
                if not any(c in supers.get(o, ()) and o not in supers.get(c, ()) for o in candidates if o != c)]
    return local_name(min(specific or candidates))


def _vocabulary(facts: _Facts) -> Vocabulary:
    supers = _supers(facts.subclass)
    rows = []
    for iri in sorted(facts.labels):
        classes = facts.classes.get(iri, set())
        if classes & META:
            continue
        kind = _type_of(classes, supers)
        for text, _rank in sorted(facts.labels[iri].items(), key=lambda item: (item[1], item[0])):
            rows.append({"iri": iri, "label": text, "type": kind})
    types: set[str] = set()
    for iri, classes in facts.classes.items():
        if OWL_CLASS in classes:
            types |= facts.rdfs_labels.get(iri) or {local_name(iri)}
    return Vocabulary(known_from_rows(rows), sorted(types))


# ---------------------------------------------------------------------------------------------- readers


def store_vocabulary(kb: KnowledgeBase, scope: Scope) -> Vocabulary:
    """The vocabulary of a domain's ``scope`` read from the RDF store by SPARQL."""
    if scope.graphs is None:
        raise ValueError("a vocabulary is a domain's: the scope has no graphs")
    graphs = " ".join(str(NamedNode(g)) for g in sorted(scope.graphs))

    def scoped(pattern: str) -> str:
        out = _ASSERTED % {"graphs": graphs, "pattern": pattern}
        if scope.inferred:
            out += _INFERRED % {"graphs": graphs, "pattern": pattern, "inferred": str(INFERRED_GRAPH), "subject": "?s"}
        return out

    facts = _Facts()
    labels = " ".join(str(NamedNode(p)) for p in LABELS)
    for s, p, o in kb.query(SPARQL_LABELS % {"labels": labels, "scoped": scoped("?s ?p ?o")}).rows:
        assert isinstance(s, NamedNode)
        assert isinstance(p, NamedNode)
        assert isinstance(o, Literal)
        facts.label(s.value, p.value, o.value)
    for predicate, add in ((RDF + "type", facts.typed), (SUBCLASS_OF, lambda a, b: facts.subclass.add((a, b)))):
        query = SPARQL_OBJECTS % {"scoped": scoped(f"?s {NamedNode(predicate)} ?o")}
        for s, o in kb.query(query).rows:
            assert isinstance(s, NamedNode)
            assert isinstance(o, NamedNode)
            add(s.value, o.value)
    return _vocabulary(facts)


def _values(value: object) -> list[object]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def graph_vocabulary(graph: GraphStore, registry: NameRegistry) -> Vocabulary:
    """The vocabulary a domain's bridge property graph holds (``registry``: its names), read by Cypher."""
    facts = _Facts()
    keys = {name: p for p in LABELS if (name := registry.name(NameKind.KEY, p)) is not None}
    if keys:
        names = [check_name("property key", k) for k in keys]
        cypher = CYPHER_LABELLED.format(
            resource=RESOURCE, uri=URI, cond=" OR ".join(f"n.{k} IS NOT NULL" for k in names),
            cols=", ".join(f"n.{k} AS v{i}" for i, k in enumerate(names)),
        )
        for row in graph.query(cypher):
            iri = str(row["iri"])
            for name in row["classes"]:
                cls = registry.iri(name) if name != RESOURCE else None
                if cls is not None:
                    facts.typed(iri, cls)
            for i, k in enumerate(names):
                for v in _values(row[f"v{i}"]):
                    facts.label(iri, keys[k], to_literal(v).value)  # type: ignore[arg-type]
    owl_class = registry.name(NameKind.LABEL, OWL_CLASS)
    if owl_class is not None:
        label = registry.name(NameKind.KEY, RDFS_LABEL)
        cypher = CYPHER_CLASSES.format(resource=RESOURCE, uri=URI, cls=check_name("label", owl_class),
                                       label=f"n.{check_name('property key', label)}" if label else "null")
        for row in graph.query(cypher):
            iri = str(row["iri"])
            facts.typed(iri, OWL_CLASS)
            for v in _values(row["label"]):
                facts.label(iri, RDFS_LABEL, to_literal(v).value)  # type: ignore[arg-type]
    sub = registry.name(NameKind.TYPE, SUBCLASS_OF)
    if sub is not None:
        cypher = CYPHER_SUBCLASSES.format(resource=RESOURCE, uri=URI, sub=check_name("relationship type", sub))
        facts.subclass.update((str(r["a"]), str(r["b"])) for r in graph.query(cypher))
    return _vocabulary(facts)


def domain_vocabulary(
    kb: KnowledgeBase, domain: str, config: BridgeConfig, structural: GraphStore | None = None, *,
    sync: BridgeSync | None = None,
) -> Vocabulary:
    """The vocabulary of ``domain`` (its ontology is loaded first when missing).

    From the domain's bridge graph when the bridge is on (``config.enabled``): through ``sync`` when given (a sync
    the caller keeps following the store and has brought in line, as the service does), else through a sync made
    here on the graph beside ``structural`` (the structural layer's graph store), brought in line first (a CLI
    command may have written while no service ran) and closed after. From the RDF store by SPARQL when the bridge is
    off or cannot run there (no ``structural``, or a graph store other than the managed FalkorDB)."""
    kb.ensure_domain(domain)
    if sync is not None:
        return graph_vocabulary(sync.graph, sync.registry)
    scope = scope_of(kb.policy, config, domain)
    if not config.enabled or structural is None:
        return store_vocabulary(kb, scope)
    try:
        graph = graph_beside(structural, scope.graph_name)
    except Unsupported as e:
        log.debug("vocabulary of %s from the RDF store: %s", domain, e)
        return store_vocabulary(kb, scope)
    own = BridgeSync(kb.store, graph, scope)
    try:
        own.sync()
        return graph_vocabulary(graph, own.registry)
    finally:
        own.close()
