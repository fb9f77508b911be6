"""The schema-dependent mapping from SHACL shapes (docs/bridge.md §1.1, after Angles et al. 2020)."""

from __future__ import annotations

from pyoxigraph import NamedNode, RdfFormat, Triple, parse

from hybridkg.bridge.mapping import IndexSpec, PropertySpec, RelationshipSpec, domain_shapes, map_graph, read_shapes
from hybridkg.bridge.mapping.model import NodeRef
from hybridkg.semantic.domains import DomainPolicy

XSD = "http://www.w3.org/2001/XMLSchema#"
PREFIXES = """@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> . @prefix ex: <https://example.org/> .
"""
SHAPES = """
ex:Person a rdfs:Class, sh:NodeShape ;
  sh:property [ sh:path ex:nick ; sh:datatype xsd:string ] ,
              [ sh:path ex:age ; sh:datatype xsd:integer ; sh:maxCount 1 ; sh:minCount 1 ] ,
              [ sh:path ex:knows ; sh:nodeKind sh:IRI ] ,
              [ sh:path [ sh:inversePath ex:parent ] ; sh:class ex:Person ] .
"""


def _triples(text: str) -> list[Triple]:
    return [q.triple for q in parse(PREFIXES + text, format=RdfFormat.TURTLE)]


def test_crm_shapes_give_labels_typed_properties_relationships_and_indexes() -> None:
    domain = DomainPolicy.load().get("crm")
    shapes = domain_shapes(domain)
    crm = "https://hybridkg.dev/ns/crm#"
    assert {crm + c for c in ("Company", "Contact", "Deal", "Note")} <= set(shapes.classes)
    mapped = map_graph([], shapes, domain.namespaces)
    schema = mapped.schema
    assert PropertySpec("Company", "industry", XSD + "string", scalar=True, required=False) in schema.properties
    assert PropertySpec("Deal", "amount", XSD + "decimal", scalar=True, required=True) in schema.properties
    assert RelationshipSpec("Company", "subsidiaryOf", "Company") in schema.relationships
    assert RelationshipSpec("Deal", "product", "Product") in schema.relationships
    assert schema.indexes[:2] == (IndexSpec("Resource", "uri", True), IndexSpec("Resource", "bnode", True))
    assert {IndexSpec("Company", "industry"), IndexSpec("Deal", "amount")} <= set(schema.indexes)
    assert mapped.mapping.label(NamedNode(crm + "Deal")) == "Deal"


def test_implicit_class_target_node_kind_and_complex_paths() -> None:
    shapes = read_shapes(_triples(SHAPES))
    assert shapes.classes == ("https://example.org/Person",)
    mapped = map_graph([], shapes)
    specs = {(p.key, p.scalar, p.required) for p in mapped.schema.properties}
    assert specs == {("nick", False, False), ("age", True, True)}
    assert mapped.schema.relationships == (RelationshipSpec("Person", "knows", None),)


def test_the_shapes_decide_list_or_scalar() -> None:
    data = _triples("""
        ex:ann a ex:Person ; ex:nick "Annie" ; ex:age 41 ; ex:motto "carpe diem" .
        ex:bob a ex:Person ; ex:age 40, 41 .
        ex:cat ex:nick "Kitty" .
    """)
    mapped = map_graph(data, read_shapes(_triples(SHAPES)))
    ann = mapped.nodes[NodeRef("uri", "https://example.org/ann")]
    assert ann.props == {"nick": ["Annie"], "age": 41, "motto": "carpe diem"}
    bob = mapped.nodes[NodeRef("uri", "https://example.org/bob")]
    assert sorted(bob.props["age"]) == [40, 41]  # type: ignore[type-var, arg-type]
    assert mapped.nodes[NodeRef("uri", "https://example.org/cat")].props == {"nick": "Kitty"}  # not a Person
