"""RDF -> property graph -> RDF is exact (docs/bridge.md §1.5): demo data, LUBM(1), constructed cases; what
cannot round-trip is refused with Unsupported naming it."""

from __future__ import annotations

import time

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Quad, RdfFormat, Triple, parse
from rdflib.compare import isomorphic
from support.shared import shared_path

from hybridkg.bridge.mapping import MappedGraph, NodeRef, Relationship, domain_shapes, map_graph, to_rdf
from hybridkg.errors import Unsupported
from hybridkg.semantic.convert import to_rdflib_graph
from hybridkg.semantic.domains import DomainPolicy

PREFIXES = """@prefix ex: <https://example.org/> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
"""
EX = "https://example.org/"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
UB = "http://www.lehigh.edu/~zhp2/2004/0401/univ-bench.owl#"


def _turtle(text: str) -> list[Triple]:
    return [q.triple for q in parse(PREFIXES + text, format=RdfFormat.TURTLE)]


def _round_trip(triples: list[Triple], **kwargs: object) -> MappedGraph:
    mapped = map_graph(triples, **kwargs)  # type: ignore[arg-type]
    back = to_rdf(mapped)
    assert len(back) == len(set(back)) == len(set(triples))
    assert set(back) == set(triples)
    assert isomorphic(to_rdflib_graph(back), to_rdflib_graph(triples))
    return mapped


@pytest.mark.parametrize("name", ["crm", "clinical"])
def test_demo_data_round_trips_with_its_shapes(name: str) -> None:
    domain = DomainPolicy.load().get(name)
    path = domain.path_of(domain.demo_data)
    assert path is not None
    for rel in (domain.demo_data, domain.ontology):
        p = domain.path_of(rel)
        assert p is not None
        triples = [q.triple for q in parse(path=str(p), format=RdfFormat.TURTLE)]
        _round_trip(triples, shapes=domain_shapes(domain), namespaces=domain.namespaces)


def test_lubm1_round_trips_in_a_few_seconds() -> None:
    lubm = shared_path("lubm")
    triples = [q.triple for q in parse(path=str(lubm / "lubm1-University0.nt"), format=RdfFormat.N_TRIPLES)]
    triples += [q.triple for q in parse(path=str(lubm / "univ-bench.ttl"), format=RdfFormat.TURTLE)]
    start = time.perf_counter()
    mapped = map_graph(triples)
    assert time.perf_counter() - start < 5
    assert set(to_rdf(mapped)) == set(triples)
    assert mapped.mapping.label(NamedNode(UB + "FullProfessor")) == "FullProfessor"
    assert mapped.mapping.relationship_type(NamedNode(UB + "worksFor")) == "worksFor"


def test_blank_nodes_lists_reification_and_language_tags() -> None:
    triples = _turtle("""
        ex:ann ex:address [ ex:city "Oslo"@no, "Oslo"@en, "Oslo" ; ex:zip "0150"^^ex:zipcode ] .
        ex:ann ex:favourites ( ex:bob "two" 3 ( ) ) .
        ex:s1 a rdf:Statement ; rdf:subject ex:ann ; rdf:predicate ex:knows ; rdf:object ex:bob ; ex:since 2020 .
    """)
    mapped = _round_trip(triples)
    assert sum(1 for ref in mapped.nodes if ref.key == "bnode") == 5  # the address and the list's four cells
    stmt = mapped.nodes[NodeRef("uri", EX + "s1")]
    assert stmt.labels == ["Statement"]
    assert stmt.props == {"since": 2020}
    assert Relationship("predicate", NodeRef("uri", EX + "s1"), NodeRef("uri", EX + "knows")) in mapped.edges
    city = next(n for n in mapped.nodes.values() if "city" in n.props).props["city"]
    assert isinstance(city, list)
    assert sorted(city) == sorted(["\ue000@no Oslo", "\ue000@en Oslo", "Oslo"])


def test_duplicates_mixed_objects_and_classes_as_individuals() -> None:
    triples = _turtle("""
        ex:Dog a owl:Class ; rdfs:label "Dog" ; rdfs:subClassOf ex:Animal .
        ex:rex a ex:Dog ; ex:owner ex:ann ; ex:owner "Ann Smith" ; rdfs:label "Rex" .
        ex:rex a ex:Dog .
        ex:ann a ex:Person, ex:Dog .
    """)
    triples += triples[:3]
    mapped = _round_trip(triples)
    dog = mapped.nodes[NodeRef("uri", EX + "Dog")]
    assert dog.labels == ["Class"]
    assert dog.props == {"label": "Dog"}
    rex = mapped.nodes[NodeRef("uri", EX + "rex")]
    assert rex.labels == ["Dog"]
    assert rex.props == {"owner": "Ann Smith", "label": "Rex"}
    assert mapped.mapping.relationship_type(NamedNode(EX + "owner")) == mapped.mapping.property_key(
        NamedNode(EX + "owner")
    )
    assert sorted(mapped.nodes[NodeRef("uri", EX + "ann")].labels) == ["Dog", "Person"]


def test_rdf_type_to_a_blank_node_is_a_relationship() -> None:
    triples = _turtle("ex:x a [ a owl:Restriction ; owl:onProperty ex:p ; owl:hasValue ex:v ] .")
    mapped = _round_trip(triples)
    assert mapped.mapping.relationship_type(NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")) == "type"
    assert mapped.mapping.label(NamedNode("http://www.w3.org/2002/07/owl#Restriction")) == "Restriction"


def test_names_collide_across_namespaces_and_read_back() -> None:
    triples = _turtle("""
        ex:a a ex:Site, <https://other.org/Site> ; ex:name "a" ; <https://other.org/name> "b" ; ex:uri "x" .
    """)
    mapped = _round_trip(triples, namespaces={"ex": EX, "oth": "https://other.org/"})
    assert sorted(mapped.nodes[NodeRef("uri", EX + "a")].labels) == ["ex__Site", "oth__Site"]
    assert mapped.nodes[NodeRef("uri", EX + "a")].props == {"ex__name": "a", "oth__name": "b", "ex__uri": "x"}


def test_quads_in_the_default_graph_map_and_named_graphs_are_refused() -> None:
    t = Triple(NamedNode(EX + "a"), NamedNode(EX + "p"), Literal("v"))
    assert to_rdf(map_graph([Quad(t.subject, t.predicate, t.object, DefaultGraph())])) == [t]
    with pytest.raises(Unsupported, match="named graph <https://example.org/g>"):
        map_graph([Quad(t.subject, t.predicate, t.object, NamedNode(EX + "g"))])


def test_triple_terms_are_refused() -> None:
    inner = Triple(NamedNode(EX + "a"), NamedNode(EX + "p"), BlankNode("b"))
    with pytest.raises(Unsupported, match="triple term"):
        map_graph([Triple(NamedNode(EX + "s"), NamedNode(EX + "says"), inner)])


def test_names_the_registry_does_not_hold_are_refused_on_the_way_back() -> None:
    mapped = map_graph(_turtle("ex:a a ex:C ; ex:p ex:b ; ex:q 1 ."))
    node = mapped.nodes[NodeRef("uri", EX + "a")]
    node.labels.append("Stranger")
    with pytest.raises(Unsupported, match="label 'Stranger'"):
        to_rdf(mapped)
    node.labels.pop()
    node.props["written_by_hand"] = 1
    with pytest.raises(Unsupported, match="key 'written_by_hand'"):
        to_rdf(mapped)
    del node.props["written_by_hand"]
    mapped.edges.append(Relationship("LINKS", node.ref, node.ref))
    with pytest.raises(Unsupported, match="type 'LINKS'"):
        to_rdf(mapped)


_SUBJECTS = st.sampled_from([NamedNode(EX + "a"), NamedNode("https://other.org/a"), BlankNode("b1"), BlankNode("b2")])
_PREDICATES = st.sampled_from(
    [NamedNode(EX + "p"), NamedNode("https://other.org/p"), NamedNode(RDF + "type"), NamedNode(EX + "uri")]
)
_CLASSES = st.sampled_from([NamedNode(EX + "C"), NamedNode("https://other.org/C"), NamedNode(EX + "p")])
_LITERALS = st.one_of(
    st.text(max_size=4).map(Literal),
    st.integers().map(Literal),
    st.floats().map(Literal),
    st.booleans().map(Literal),
    st.tuples(st.text(max_size=4), st.sampled_from(["en", "de-ch"])).map(lambda t: Literal(t[0], language=t[1])),
)
_OBJECTS = st.one_of(_SUBJECTS, _CLASSES, _LITERALS)


@given(st.lists(st.tuples(_SUBJECTS, _PREDICATES, _OBJECTS), max_size=12))
def test_any_graph_round_trips(spo: list[tuple[NamedNode | BlankNode, NamedNode, object]]) -> None:
    triples = [Triple(s, p, o) for s, p, o in spo]  # type: ignore[arg-type]
    assert set(to_rdf(map_graph(triples))) == set(triples)
