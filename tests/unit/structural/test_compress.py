"""Context compression internals: the vectorised TF-IDF against a plain reference, and the candidate memo."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest

from hybridkg.structural.base import Edge, Node
from hybridkg.structural.retrieval.compress import CandidateFactory, tfidf_cosine
from hybridkg.structural.retrieval.fusion import query_words


def reference_tfidf(query: str, texts: list[str]) -> list[float]:
    """The formula of the module docstring, one dict per text."""
    docs = [Counter(query_words(t)) for t in texts]
    n = len(docs)
    df: Counter[str] = Counter()
    for d in docs:
        df.update(d.keys())

    def idf(word: str) -> float:
        return math.log((1 + n) / (1 + df[word])) + 1

    q = {w: c * idf(w) for w, c in Counter(query_words(query)).items()}
    q_norm = math.sqrt(sum(v * v for v in q.values()))
    out = []
    for d in docs:
        vec = {w: c * idf(w) for w, c in d.items()}
        norm = math.sqrt(sum(v * v for v in vec.values()))
        dot = sum(v * q.get(w, 0.0) for w, v in vec.items())
        out.append(dot / (norm * q_norm) if norm > 0 and q_norm > 0 else 0.0)
    return out


@pytest.mark.parametrize("seed", range(20))
def test_tfidf_matches_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    words = ["acme", "widget", "Berlin", "supplier", "of", "the", "x", "order", "2024", "ünïcode"]
    texts = [" ".join(rng.choices(words, k=rng.randint(0, 12))) for _ in range(rng.randint(1, 15))]
    query = " ".join(rng.choices([*words, "unseen", "never"], k=rng.randint(1, 6)))
    assert np.allclose(tfidf_cosine(query, texts), reference_tfidf(query, texts))


def test_tfidf_edge_cases() -> None:
    assert tfidf_cosine("acme", []).shape == (0,)
    assert tfidf_cosine("", ["acme widget"]).tolist() == [0.0]
    assert tfidf_cosine("acme", ["", "  "]).tolist() == [0.0, 0.0]
    assert tfidf_cosine("nothing here", ["acme widget"]).tolist() == [0.0]
    same = tfidf_cosine("acme widget", ["acme widget", "other words"])
    assert same[0] == pytest.approx(1.0)
    assert same[1] == 0.0


def test_candidates_follow_changed_properties() -> None:
    make = CandidateFactory()
    old = make.entity(Node("e1", "Entity", {"name": "Acme", "description": "a supplier"}), 0.5)
    new = make.entity(Node("e1", "Entity", {"name": "Acme", "description": "a customer in Berlin"}), 0.5)
    assert "supplier" in old.line
    assert "customer in Berlin" in new.line
    assert new.entry.token_count(lambda text: len(text.split())) == len(new.line.split())
    nodes = {"a": Node("a", "Entity", {"name": "Acme"}), "b": Node("b", "Entity", {"name": "Bolt"})}
    edge = Edge("r1", "RELATED", "a", "b", {"type": "supplies", "keywords": ["parts", "steel"]})
    assert make.relation(edge, nodes, 0.0).line == "[R:r1] Acme -[supplies]-> Bolt (parts, steel)"
    renamed = {**nodes, "b": Node("b", "Entity", {"name": "Bolt GmbH"})}
    assert make.relation(edge, renamed, 0.0).line.endswith("-> Bolt GmbH (parts, steel)")


def test_candidate_memo_is_bounded() -> None:
    make = CandidateFactory(capacity=8)
    for i in range(100):
        make.chunk(Node(f"c{i}", "Chunk", {"text": f"chunk number {i}"}), 0.0)
        assert len(make._memo) <= 8
    assert make.chunk(Node("c0", "Chunk", {"text": "chunk number 0"}), 0.0).text == "chunk number 0"
