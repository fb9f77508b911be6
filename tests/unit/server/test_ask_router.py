"""Routing over two domains the code has never seen (a strict library, a fuzzy garden), written to a temporary
folder: exact links pick the domain, hints narrow, ties abstain, no link routes nowhere strict, the embedding
model is asked for only when allowed, and lexicons are rebuilt only for the domain a write changed."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from hybridkg.errors import NotFound
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
from hybridkg.server.ask.lexicons import LexiconCache
from hybridkg.server.ask.router import Outcome, Router
from hybridkg.server.ask.settings import AskConfig
from hybridkg.structural.embedding.hashing import HashEmbedder

LIBRARY_ONTOLOGY = """
@prefix lib: <http://example.org/library#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
lib:Book a owl:Class ; rdfs:label "Book"@en .
lib:Author a owl:Class ; rdfs:label "Author"@en ; skos:altLabel "Writer"@en .
lib:wrote a owl:ObjectProperty ; rdfs:label "wrote"@en ; rdfs:domain lib:Author ; rdfs:range lib:Book ;
    owl:inverseOf lib:writtenBy .
lib:writtenBy a owl:ObjectProperty ; rdfs:label "written by"@en .
"""

LIBRARY_DATA = """
@prefix lib: <http://example.org/library#> .
@prefix b: <http://example.org/library/id/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
b:le-guin a lib:Author ; rdfs:label "Ursula K. Le Guin"@en ; lib:wrote b:earthsea , b:dispossessed .
b:ulg a lib:Author ; rdfs:label "U. K. Le Guin"@en ; owl:sameAs b:le-guin .
b:earthsea a lib:Book ; rdfs:label "A Wizard of Earthsea"@en .
b:dispossessed a lib:Book ; rdfs:label "The Dispossessed"@en .
"""

GARDEN_ONTOLOGY = """
@prefix g: <http://example.org/garden#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
g:Plant a owl:Class ; rdfs:label "Plant"@en .
g:Bed a owl:Class ; rdfs:label "Flower bed"@en .
g:grows a owl:ObjectProperty ; rdfs:label "grows in"@en .
"""

GARDEN_DATA = """
@prefix g: <http://example.org/garden#> .
@prefix p: <http://example.org/garden/id/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
p:rose a g:Plant ; rdfs:label "Damask rose"@en ; g:grows p:south-bed .
p:south-bed a g:Bed ; rdfs:label "South bed"@en .
"""

POLICY = """
version: 1
domains:
  library:
    mode: strict
    ontology_graph: "http://example.org/graph/library/ontology"
    data_graph: "http://example.org/graph/library/data"
    ontology: library/ontology.ttl
    demo_data: library/data.ttl
  garden:
    mode: fuzzy
    ontology_graph: "http://example.org/graph/garden/ontology"
    data_graph: "http://example.org/graph/garden/data"
    ontology: garden/ontology.ttl
    demo_data: garden/data.ttl
"""


def two_domain_kb(root: Path) -> KnowledgeBase:
    """A knowledge base with the strict library and the fuzzy garden domains, data loaded and reasoned."""
    for name, files in {"library": (LIBRARY_ONTOLOGY, LIBRARY_DATA), "garden": (GARDEN_ONTOLOGY, GARDEN_DATA)}.items():
        (root / name).mkdir(parents=True, exist_ok=True)
        (root / name / "ontology.ttl").write_text(files[0])
        (root / name / "data.ttl").write_text(files[1])
    (root / "domains.yaml").write_text(POLICY)
    kb = KnowledgeBase(
        make_store(StoreConfig(backend=StoreBackend.MEMORY)),
        reasoner=make_reasoner(ReasoningConfig()),
        validator=make_validator(ValidationConfig()),
        policy=DomainPolicy.load(root / "domains.yaml"),
    )
    for name in kb.policy.domains:
        kb.ensure_domain(name, with_demo_data=True)
    return kb


@pytest.fixture
def kb(tmp_path: Path) -> KnowledgeBase:
    return two_domain_kb(tmp_path)


class EmbedderSpy:
    """The engine's embedder callback: records each ``needed`` flag; a loaded model only once allowed."""

    def __init__(self, already_open: bool = False) -> None:
        self.asked: list[bool] = []
        self.model = HashEmbedder(64)
        self.open = already_open

    def __call__(self, needed: bool) -> HashEmbedder | None:
        self.asked.append(needed)
        if needed:
            self.open = True
        return self.model if self.open else None


def test_a_question_naming_a_library_resource_routes_to_library(kb: KnowledgeBase) -> None:
    d = Router(kb, LexiconCache(kb), AskConfig()).route("Which books did Ursula K. Le Guin write?")
    assert d.outcome is Outcome.CHOSEN
    assert d.domain is not None
    assert d.domain.name == "library"
    chosen = d.chosen
    assert chosen is not None
    assert "http://example.org/library/id/le-guin" in {m.iri for m in chosen.mentions}


def test_a_question_naming_a_garden_resource_routes_to_garden(kb: KnowledgeBase) -> None:
    d = Router(kb, LexiconCache(kb), AskConfig()).route("Where does the damask rose grow?")
    assert d.outcome is Outcome.CHOSEN
    assert d.domain is not None
    assert d.domain.name == "garden"


def test_a_hint_narrows_the_choice_even_against_the_links(kb: KnowledgeBase) -> None:
    router = Router(kb, LexiconCache(kb), AskConfig())
    d = router.route("Where does the damask rose grow?", hint="library")
    assert d.outcome is Outcome.CHOSEN
    assert d.domain is not None
    assert d.domain.name == "library"
    assert d.hinted
    assert d.candidates == ()
    with pytest.raises(NotFound, match="unknown domain 'kitchen'; known domains: garden, library"):
        router.route("anything", hint="kitchen")


def test_equal_links_into_two_domains_are_ambiguous_and_name_both(kb: KnowledgeBase) -> None:
    d = Router(kb, LexiconCache(kb), AskConfig()).route("Books and plants?")
    assert d.outcome is Outcome.AMBIGUOUS
    assert d.domain is None
    assert set(d.tied) == {"library", "garden"}
    assert "library (strict" in d.reason
    assert "garden (fuzzy" in d.reason


def test_a_wider_margin_makes_a_near_tie_ambiguous(kb: KnowledgeBase) -> None:
    question = "Which plants did Ursula K. Le Guin write about?"
    assert Router(kb, LexiconCache(kb), AskConfig()).route(question).outcome is Outcome.CHOSEN
    wide = Router(kb, LexiconCache(kb), AskConfig(ambiguity_margin=0.9)).route(question)
    assert wide.outcome is Outcome.AMBIGUOUS


def test_a_question_linking_nowhere_is_unlinked(kb: KnowledgeBase) -> None:
    d = Router(kb, LexiconCache(kb), AskConfig()).route("What is the weather like tomorrow?")
    assert d.outcome is Outcome.UNLINKED
    assert d.domain is None
    assert d.candidates == ()


def test_the_embedding_model_is_loaded_only_when_nothing_links_exactly(kb: KnowledgeBase) -> None:
    router = Router(kb, LexiconCache(kb), AskConfig())
    linked = EmbedderSpy()
    d = router.route("Which books did Ursula K. Le Guin write?", embedder=linked)
    assert linked.asked == [False], "a question that links exactly loads no model"
    assert not d.embedding
    unlinked = EmbedderSpy()
    d = router.route("What is the weather like tomorrow?", embedder=unlinked)
    assert unlinked.asked == [True]
    assert d.embedding
    opened = EmbedderSpy(already_open=True)
    d = router.route("Which books did Ursula K. Le Guin write?", embedder=opened)
    assert d.embedding, "an embedder already loaded is used for free"
    strict_hint = EmbedderSpy()
    router.route("What is the weather like tomorrow?", hint="library", embedder=strict_hint)
    assert strict_hint.asked == [False], "a question sent to a strict domain never loads the model"


def test_embedding_links_can_be_switched_off(kb: KnowledgeBase) -> None:
    spy = EmbedderSpy()
    Router(kb, LexiconCache(kb), AskConfig(embedding_links=False)).route("weather tomorrow", embedder=spy)
    assert spy.asked == []


class FixedEmbedder:
    """Maps known phrases to fixed unit vectors (a paraphrase gets its label's vector); others are orthogonal."""

    def __init__(self, same: dict[str, str]) -> None:
        self.same = same
        self.dim = 4096
        self.axes: dict[str, int] = {}  # one axis per distinct phrase (hash() % dim collided now and then)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            key = self.same.get(t.lower(), t.lower())
            rows[i, self.axes.setdefault(key, len(self.axes)) % self.dim] = 1.0
        return rows


def test_embedding_similarity_links_a_paraphrase(kb: KnowledgeBase) -> None:
    model = FixedEmbedder({"novelist": "writer"})
    d = Router(kb, LexiconCache(kb), AskConfig()).route("Which novelist is famous?", embedder=lambda needed: model)
    assert d.outcome is Outcome.CHOSEN
    assert d.domain is not None
    assert d.domain.name == "library"
    assert d.embedding
    chosen = d.chosen
    assert chosen is not None
    assert chosen.mentions[0].iri == "http://example.org/library#Author"
    assert chosen.mentions[0].score < 1.0


def test_a_write_drops_only_the_changed_domains_lexicon(kb: KnowledgeBase) -> None:
    cache = LexiconCache(kb)
    library, garden = cache.lexicon("library"), cache.lexicon("garden")
    assert cache.lexicon("library") is library
    kb.load(b'<http://example.org/garden/id/tulip> a <http://example.org/garden#Plant> ; '
            b'<http://www.w3.org/2000/01/rdf-schema#label> "Tulip"@en .', fmt="turtle", domain="garden")
    assert cache.lexicon("library") is library
    fresh = cache.lexicon("garden")
    assert fresh is not garden
    assert [m.iri for m in fresh.link("tulip")] == ["http://example.org/garden/id/tulip"]
    cache.close()
    kb.load(b'<http://example.org/garden/id/fern> a <http://example.org/garden#Plant> .', fmt="turtle",
            domain="garden")
    assert cache.lexicon("garden") is fresh, "a closed cache no longer listens"
