"""What a domain's ontology says about its classes and properties, read once from the knowledge base.

Classes with their superclasses (``rdfs:subClassOf``, closed transitively), properties with their
declared domains and ranges, ``owl:inverseOf``, and whether they hold literals (``owl:DatatypeProperty``,
or a range in the XSD namespace / ``rdfs:Literal``). Entity types are read on demand from the union
graph (asserted + inferred), so ``rdf:type`` entailments count.

*Place-like* classes (for "where" questions) are decided from the ontology alone: a class whose label
(or a superclass's label) contains an English noun that names a place (:data:`PLACE_NOUNS`), or a class
that is or specialises a place class of a standard vocabulary (:data:`PLACE_CLASSES`: schema.org,
DBpedia, W3C Basic Geo, GeoSPARQL, Dublin Core, PROV).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from pyoxigraph import BlankNode, Literal, NamedNode

from hybridkg.semantic.base import INFERRED_GRAPH
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.qa.text import norm_key

XSD = "http://www.w3.org/2001/XMLSchema#"
RDFS_LITERAL = "http://www.w3.org/2000/01/rdf-schema#Literal"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
OWL_SAME_AS = "http://www.w3.org/2002/07/owl#sameAs"
OWL_THING = "http://www.w3.org/2002/07/owl#Thing"

#: English nouns that name a place (language, not a domain): a class labelled with one is place-like.
PLACE_NOUNS = frozenset(
    ["place", "location", "site", "area", "region", "address", "locality", "venue", "facility", "building",
     "city", "town", "country", "premise", "geography", "territory"]
)
#: Place classes of standard vocabularies.
PLACE_CLASSES = frozenset(
    [
        "http://schema.org/Place", "https://schema.org/Place", "http://dbpedia.org/ontology/Place",
        "http://www.w3.org/2003/01/geo/wgs84_pos#SpatialThing", "http://www.opengis.net/ont/geosparql#Feature",
        "http://purl.org/dc/terms/Location", "http://www.w3.org/ns/prov#Location",
    ]
)

SCHEMA = """
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX owl: <http://www.w3.org/2002/07/owl#>
SELECT DISTINCT ?s ?p ?o WHERE {
  VALUES ?g { %(graphs)s }
  VALUES ?p { rdfs:subClassOf rdfs:domain rdfs:range owl:inverseOf rdf:type rdfs:label }
  GRAPH ?g { ?s ?p ?o }
  FILTER(isIRI(?s) && (isIRI(?o) || ?p = rdfs:label))
}
"""

TYPES = """
SELECT DISTINCT ?e ?t WHERE { VALUES ?e { %(entities)s } ?e a ?t FILTER(isIRI(?t)) }
"""

_RDFS = "http://www.w3.org/2000/01/rdf-schema#"
_OWL = "http://www.w3.org/2002/07/owl#"
_CLASS_TYPES = {_OWL + "Class", _RDFS + "Class"}
_PROPERTY_TYPES = {_OWL + "ObjectProperty", _OWL + "DatatypeProperty", "http://www.w3.org/1999/02/22-rdf-syntax-ns#Property"}


@dataclass
class Prop:
    iri: str
    datatype: bool = False
    domains: set[str] = field(default_factory=set)
    ranges: set[str] = field(default_factory=set)
    inverse: str | None = None


@dataclass
class Schema:
    domain: str
    classes: set[str] = field(default_factory=set)
    supers: dict[str, set[str]] = field(default_factory=dict)  # class -> itself and every superclass
    props: dict[str, Prop] = field(default_factory=dict)
    class_labels: dict[str, list[str]] = field(default_factory=dict)
    _types: dict[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def load(cls, kb: KnowledgeBase, domain: str) -> Schema:
        dom = kb.policy.get(domain)
        graphs = " ".join(str(NamedNode(g)) for g in (*dom.graphs, INFERRED_GRAPH.value))
        sub: dict[str, set[str]] = defaultdict(set)
        labels: dict[str, list[str]] = defaultdict(list)
        props: dict[str, Prop] = {}
        classes: set[str] = set()
        rows = kb.query(SCHEMA % {"graphs": graphs}).rows
        for row in rows:
            pv, sv, ov = lexical(row[1]), lexical(row[0]), lexical(row[2])
            if pv is None or sv is None or ov is None:
                continue
            if pv == RDF_TYPE and ov in _CLASS_TYPES:
                classes.add(sv)
            elif pv == RDF_TYPE and ov in _PROPERTY_TYPES:
                props.setdefault(sv, Prop(sv)).datatype |= ov == _OWL + "DatatypeProperty"
        for row in rows:
            pv, sv, ov = lexical(row[1]), lexical(row[0]), lexical(row[2])
            if pv is None or sv is None or ov is None:
                continue
            if pv == _RDFS + "subClassOf" and sv != ov:
                sub[sv].add(ov)
            elif pv == _RDFS + "label":
                labels[sv].append(ov)
            elif sv in props and pv == _RDFS + "domain" and ov != OWL_THING:
                props[sv].domains.add(ov)
            elif sv in props and pv == _RDFS + "range" and ov != OWL_THING:
                props[sv].ranges.add(ov)
                if ov.startswith(XSD) or ov == RDFS_LITERAL:
                    props[sv].datatype = True
            elif pv == _OWL + "inverseOf" and sv in props and ov in props:
                props[sv].inverse, props[ov].inverse = ov, sv
        supers = {c: _closure(c, sub) for c in classes | set(sub)}
        return cls(domain, classes, supers, props, dict(labels))

    # ------------------------------------------------------------------ classes
    def ancestors(self, c: str) -> set[str]:
        return self.supers.get(c, {c})

    def related(self, a: str, b: str) -> bool:
        """Whether an instance of ``a`` may be an instance of ``b`` (one specialises the other)."""
        return b in self.ancestors(a) or a in self.ancestors(b)

    def place_like(self, c: str) -> bool:
        for anc in self.ancestors(c):
            if anc in PLACE_CLASSES:
                return True
            if any(w in PLACE_NOUNS for label in self.class_labels.get(anc, []) for w in norm_key(label)):
                return True
        return False

    # ------------------------------------------------------------------ entities
    def types_of(self, kb: KnowledgeBase, iris: list[str]) -> dict[str, frozenset[str]]:
        """Asserted and inferred ``rdf:type`` of each IRI (cached)."""
        todo = [i for i in dict.fromkeys(iris) if i not in self._types]
        if todo:
            found: dict[str, set[str]] = {i: set() for i in todo}
            values = " ".join(str(NamedNode(i)) for i in todo)
            for e, t in kb.query(TYPES % {"entities": values}).rows:
                ev, tv = lexical(e), lexical(t)
                if ev is not None and tv is not None:
                    found[ev].add(tv)
            for i, ts in found.items():
                self._types[i] = frozenset(ts)
        return {i: self._types[i] for i in iris}


def lexical(t: object) -> str | None:
    """The IRI or lexical form of a term (``None`` for an unbound or quoted-triple value)."""
    return t.value if isinstance(t, NamedNode | BlankNode | Literal) else None


def _closure(c: str, sub: dict[str, set[str]]) -> set[str]:
    seen, stack = {c}, [c]
    while stack:
        for s in sub.get(stack.pop(), ()):
            if s not in seen:
                seen.add(s)
                stack.append(s)
    return seen
