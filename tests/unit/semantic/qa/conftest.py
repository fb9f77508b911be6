"""A small library domain the QA code has never seen, written into a temporary folder (module scope)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hybridkg.semantic import (
    DomainPolicy,
    KnowledgeBase,
    ReasoningConfig,
    StoreBackend,
    StoreConfig,
    ValidationConfig,
    make_reasoner,
    make_store,
    make_validator,
)

ONTOLOGY = """
@prefix lib: <http://example.org/library#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
lib:Work a owl:Class ; rdfs:label "Work"@en .
lib:Book a owl:Class ; rdfs:label "Book"@en ; rdfs:subClassOf lib:Work .
lib:Author a owl:Class ; rdfs:label "Author"@en ; skos:altLabel "Writer"@en .
lib:Branch a owl:Class ; rdfs:label "Library branch"@en ; skos:altLabel "Library"@en .
lib:City a owl:Class ; rdfs:label "City"@en .
lib:wrote a owl:ObjectProperty ; rdfs:label "wrote"@en ; rdfs:domain lib:Author ; rdfs:range lib:Work ;
    owl:inverseOf lib:writtenBy .
lib:writtenBy a owl:ObjectProperty ; rdfs:label "written by"@en ; rdfs:domain lib:Work ; rdfs:range lib:Author .
lib:heldBy a owl:ObjectProperty ; rdfs:label "held by"@en ; rdfs:domain lib:Work ; rdfs:range lib:Branch .
lib:locatedIn a owl:ObjectProperty ; rdfs:label "located in"@en ; rdfs:domain lib:Branch ; rdfs:range lib:City .
lib:pages a owl:DatatypeProperty ; rdfs:label "number of pages"@en ; rdfs:domain lib:Book ;
    rdfs:range xsd:integer .
"""

DATA = """
@prefix lib: <http://example.org/library#> .
@prefix b: <http://example.org/library/id/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
b:le-guin a lib:Author ; rdfs:label "Ursula K. Le Guin"@en ; lib:wrote b:earthsea , b:dispossessed .
b:ulg a lib:Author ; rdfs:label "U. K. Le Guin"@en ; owl:sameAs b:le-guin .
b:earthsea a lib:Book ; rdfs:label "A Wizard of Earthsea"@en ; lib:pages 183 ; lib:heldBy b:st-marys .
b:dispossessed a lib:Book ; rdfs:label "The Dispossessed"@en ; lib:pages 387 .
b:st-marys a lib:Branch ; rdfs:label "St. Mary's Library"@en ; lib:locatedIn b:portland .
b:portland a lib:City ; rdfs:label "Portland"@en .
"""

POLICY = """
version: 1
domains:
  library:
    mode: strict
    namespaces:
      lib: "http://example.org/library#"
    data_namespace: "http://example.org/library/id/"
    ontology_graph: "http://example.org/graph/library/ontology"
    data_graph: "http://example.org/graph/library/data"
    ontology: library/ontology.ttl
    demo_data: library/data.ttl
"""


@pytest.fixture(scope="module")
def library_kb(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    root: Path = tmp_path_factory.mktemp("library")
    (root / "library").mkdir()
    (root / "library" / "ontology.ttl").write_text(ONTOLOGY)
    (root / "library" / "data.ttl").write_text(DATA)
    (root / "domains.yaml").write_text(POLICY)
    kb = KnowledgeBase(
        make_store(StoreConfig(backend=StoreBackend.MEMORY)),
        reasoner=make_reasoner(ReasoningConfig()),
        validator=make_validator(ValidationConfig()),
        policy=DomainPolicy.load(root / "domains.yaml"),
    )
    kb.ensure_domain("library", with_demo_data=True)
    return kb
