"""The lexicon links question words to a domain's labels: exact, then normalised, reordered, content words."""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np
import pytest

from hybridkg.semantic import KnowledgeBase
from hybridkg.semantic.qa import Lexicon, Mention, TextEmbedder
from hybridkg.semantic.qa.lexicon import EMBEDDING_MIN_COSINE
from hybridkg.semantic.qa.text import normalise_word, singular, superlative_or_opinion, tokenize
from hybridkg.structural.embedding.hashing import HashEmbedder

LIB = "http://example.org/library#"
ID = "http://example.org/library/id/"


@pytest.fixture(scope="module")
def lexicon(library_kb: KnowledgeBase) -> Lexicon:
    return Lexicon.build(library_kb, "library")


def _iris(mentions: list[Mention]) -> list[str]:
    return [m.iri for m in mentions]


def test_exact_label_scores_one(lexicon: Lexicon) -> None:
    [m] = lexicon.link("Portland")
    assert (m.iri, m.kind, m.label, m.score) == (ID + "portland", "entity", "Portland", 1.0)
    assert (m.start, m.end, m.text) == (0, 8, "Portland")


@pytest.mark.parametrize(
    ("question", "iri", "kind"),
    [
        ("which BOOKS are there", LIB + "Book", "class"),  # case + plural
        ("list the libraries", LIB + "Branch", "class"),  # -ies plural of an alt label
        ("writers of books", LIB + "Author", "class"),  # alt label, plural
        ("books at St Marys library?", ID + "st-marys", "entity"),  # punctuation and possessive
        ("who is Le Guin Ursula K", ID + "le-guin", "entity"),  # token order
    ],
)
def test_normalised_matches(lexicon: Lexicon, question: str, iri: str, kind: str) -> None:
    mentions = lexicon.link(question)
    hit = [m for m in mentions if m.iri == iri]
    assert hit, mentions
    assert hit[0].kind == kind
    assert hit[0].score < 1.0


def test_longest_match_wins(lexicon: Lexicon) -> None:
    # "library branch" (class label) beats "library" (alt label of the same class) and nothing overlaps
    mentions = lexicon.link("which library branch holds it")
    assert [(m.text, m.iri) for m in mentions] == [("library branch", LIB + "Branch")]


def test_content_words_of_a_property_label(lexicon: Lexicon) -> None:
    mentions = lexicon.link("where is St. Mary's Library located")
    assert _iris(mentions) == [ID + "st-marys", LIB + "locatedIn"]
    assert mentions[1].label == "located in"


def test_no_mention_for_function_words_or_unknown_words(lexicon: Lexicon) -> None:
    assert lexicon.link("what is the of a which") == []
    assert [m.text for m in lexicon.link("Who wrote Moby Dick?")] == ["wrote"]


def test_labels_and_kinds(lexicon: Lexicon) -> None:
    assert set(lexicon.labels(LIB + "Author")) == {"Author", "Writer"}
    assert lexicon.labels(LIB + "pages") == ["number of pages"]
    assert lexicon.kind(LIB + "pages") == "property"
    assert lexicon.labels("http://example.org/nothing") == []


def test_same_span_several_resources_are_all_returned(lexicon: Lexicon) -> None:
    # both records of the same author carry the label "U. K. Le Guin" once sameAs copies labels
    mentions = lexicon.link("U. K. Le Guin")
    assert set(_iris(mentions)) == {ID + "ulg", ID + "le-guin"}
    assert len({(m.start, m.end) for m in mentions}) == 1


class _Synonyms:
    """A test embedder: texts in the same group embed to the same unit vector."""

    def __init__(self, groups: Sequence[Sequence[str]]) -> None:
        self._group = {t.lower(): i for i, g in enumerate(groups) for t in g}
        self._n = len(groups)
        self._dim = self._n + 4096

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for r, t in enumerate(texts):
            g = self._group.get(t.lower())
            out[r, g if g is not None else self._n + zlib.crc32(t.encode()) % 4096] = 1.0
        return out


def test_embedding_matches_only_above_the_threshold(library_kb: KnowledgeBase) -> None:
    emb: TextEmbedder = _Synonyms([["novelist", "Author"]])
    lex = Lexicon.build(library_kb, "library", embedder=emb)
    [m] = lex.link("which novelist wrote it")[:1]
    assert (m.text, m.iri) == ("novelist", LIB + "Author")
    assert EMBEDDING_MIN_COSINE * 0.8 < m.score < 1.0
    assert all(m.text != "wrote it" for m in lex.link("which novelist wrote it"))


def test_structural_embedders_fit_the_protocol(library_kb: KnowledgeBase) -> None:
    emb: TextEmbedder = HashEmbedder()  # the structural layer's embedders satisfy TextEmbedder
    lex = Lexicon.build(library_kb, "library", embedder=emb)
    assert LIB + "Book" in _iris(lex.link("books"))


def test_text_normalisation() -> None:
    assert [singular(w) for w in ("libraries", "boxes", "branches", "books", "class", "status", "analysis")] == [
        "library", "box", "branch", "book", "class", "status", "analysis",
    ]
    assert normalise_word("Mary's") == "mary"
    assert normalise_word("Café") == "cafe"
    assert [t.norm for t in tokenize("St. Mary's, Portland!")] == ["st", "mary", "portland"]


@pytest.mark.parametrize(
    ("question", "word"),
    [
        ("Which is the best book?", "best"),
        ("Which author wrote the most books?", "most"),
        ("Which is the longest book?", "longest"),
        ("Should I read Earthsea?", "Should"),
        ("Which books did Le Guin write?", None),
    ],
)
def test_superlative_or_opinion(question: str, word: str | None) -> None:
    assert superlative_or_opinion(tokenize(question), set()) == word
