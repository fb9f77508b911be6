"""Embedders: the hashing embedder, the content-hash cache, the factory and the real all-MiniLM-L6-v2."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.structural_fakes import RecordingEmbedder

from hybridkg.errors import BackendUnavailable, InvalidInput
from hybridkg.structural.base import Embedder, Vector
from hybridkg.structural.embedding.cache import CachedEmbedder, CacheStats
from hybridkg.structural.embedding.factory import make_embedder
from hybridkg.structural.embedding.hashing import HashEmbedder
from hybridkg.structural.embedding.sentence import SentenceEmbedder
from hybridkg.structural.settings import EmbedderConfig, EmbedderKind


class CountingEmbedder:
    """An Embedder that records every batch it is asked for."""

    def __init__(self, dim: int = 8) -> None:
        self._hash = HashEmbedder(dim)
        self.batches: list[list[str]] = []

    @property
    def dim(self) -> int:
        return self._hash.dim

    def embed(self, texts: Sequence[str]) -> Vector:
        self.batches.append(list(texts))
        return self._hash.embed(texts)


def cos(a: Vector, b: Vector) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


# --------------------------------------------------------------------------------------------- hashing


def test_hash_embedder_is_deterministic_and_unit_length() -> None:
    texts = ["Aspirin inhibits COX-1", "", "   ", "??", "naïve café", "x" * 5_000]
    a, b = HashEmbedder().embed(texts), HashEmbedder().embed(texts)
    assert a.dtype == np.float32
    assert a.shape == (len(texts), 384)
    assert np.array_equal(a, b)
    assert np.isfinite(a).all()
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-6)


def test_texts_without_words_share_one_fixed_vector() -> None:
    rows = HashEmbedder(64).embed(["", "  ", "!?"])
    assert np.array_equal(rows[0], rows[1])
    assert np.array_equal(rows[0], rows[2])


def test_hash_embedder_puts_similar_names_close() -> None:
    names = ["Aspirin", "Ibuprofen", "Acetaminophen", "Warfarin", "Heart failure", "Aspirin resistance"]
    emb = HashEmbedder()
    query, rows = emb.embed(["aspirin"])[0], emb.embed(names)
    ranked = [names[i] for i in np.argsort(-(rows @ query))]
    assert ranked[:2] == ["Aspirin", "Aspirin resistance"]
    assert cos(query, rows[0]) == pytest.approx(1.0)
    assert cos(*emb.embed(["aspirins", "aspirin"])) > 0.45
    assert cos(*emb.embed(["aspirin", "bicycle"])) < 0.3


def test_hash_embedder_rejects_bad_input() -> None:
    with pytest.raises(InvalidInput, match="not one string"):
        HashEmbedder().embed("aspirin")
    with pytest.raises(InvalidInput, match=">= 8"):
        HashEmbedder(4)
    assert HashEmbedder(16).embed([]).shape == (0, 16)


# --------------------------------------------------------------------------------------------- cache


def test_cache_sends_only_misses_once_each_and_keeps_order() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, max_items=100)
    first = cached.embed(["a", "b", "a", "c"])
    assert inner.batches == [["a", "b", "c"]]
    assert np.array_equal(first, inner._hash.embed(["a", "b", "a", "c"]))
    second = cached.embed(["c", "d", "a", "d"])
    assert inner.batches[1] == ["d"]
    assert np.array_equal(second, inner._hash.embed(["c", "d", "a", "d"]))
    assert cached.stats == CacheStats(hits=4, misses=4, size=4)
    cached.embed(["a", "b", "c", "d"])
    assert len(inner.batches) == 2


def test_cache_evicts_the_least_recently_used() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, max_items=2)
    cached.embed(["a", "b"])
    cached.embed(["a"])
    cached.embed(["c"])
    cached.embed(["a", "b"])
    assert inner.batches == [["a", "b"], ["c"], ["b"]]
    assert cached.stats.size == 2


def test_cache_of_size_zero_still_dedupes_within_a_call() -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, max_items=0)
    cached.embed(["a", "a"])
    cached.embed(["a"])
    assert inner.batches == [["a"], ["a"]]
    assert cached.stats.size == 0


def test_changing_a_returned_row_does_not_change_the_cache() -> None:
    cached = CachedEmbedder(CountingEmbedder(), max_items=10)
    cached.embed(["a"])[0] += 1.0
    assert np.linalg.norm(cached.embed(["a"])[0]) == pytest.approx(1.0)


def test_cache_of_nothing_asks_nothing() -> None:
    inner = CountingEmbedder()
    assert CachedEmbedder(inner, max_items=5).embed([]).shape == (0, 8)
    assert inner.batches == []


# --------------------------------------------------------------------------------------------- factory


def test_factory_wraps_the_hash_embedder_in_the_cache() -> None:
    embedder = make_embedder(EmbedderConfig(kind=EmbedderKind.HASH, hash_dim=32, cache_size=10))
    assert isinstance(embedder, CachedEmbedder)
    assert isinstance(embedder.inner, HashEmbedder)
    assert isinstance(embedder, Embedder)
    assert embedder.dim == 32
    bare = make_embedder(EmbedderConfig(kind=EmbedderKind.HASH, cache_size=0))
    assert isinstance(bare, HashEmbedder)


def test_factory_builds_the_sentence_embedder_without_loading_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    embedder = make_embedder(EmbedderConfig(kind=EmbedderKind.SENTENCE, batch_size=8))
    assert isinstance(embedder, CachedEmbedder)
    inner = embedder.inner
    assert isinstance(inner, SentenceEmbedder)
    assert not inner.loaded
    assert embedder.dim == 384
    assert os.environ["HF_HUB_OFFLINE"] == "1"


# --------------------------------------------------------------------------------------------- sentence


def test_sentence_embedder_reports_a_model_directory_that_is_not_one(tmp_path: Path) -> None:
    with pytest.raises(BackendUnavailable, match="not a sentence-transformers model"):
        SentenceEmbedder(model_path=tmp_path)


def test_sentence_embedder_ranks_medical_synonyms_together() -> None:
    embedder = SentenceEmbedder(batch_size=4)
    rows = embedder.embed(["heart attack", "myocardial infarction", "bicycle", ""])
    assert rows.shape == (4, 384)
    assert rows.dtype == np.float32
    assert np.isfinite(rows).all()
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert cos(rows[0], rows[1]) > cos(rows[0], rows[2]) + 0.2


class _SpanRecorder(RecordingEmbedder):
    """The recording hashing embedder with a span pass that pools nothing real: each span row is the span's own
    text; the span passes are recorded apart."""

    def __init__(self) -> None:
        super().__init__()
        self.span_calls: list[list[str]] = []

    def embed_with_spans(self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]) -> Any:
        self.span_calls.append(list(texts))
        pooled = [self.inner.embed([t[a:b] for a, b in ss]) for t, ss in zip(texts, spans, strict=True)]
        return self.inner.embed(texts), pooled


def test_cache_keeps_span_rows_and_asks_again_only_for_a_new_span() -> None:
    inner = _SpanRecorder()
    cache = CachedEmbedder(inner, 100)
    v1, p1 = cache.embed_with_spans(["Dana Reyes runs Ledgerline.", "x y"], [[(0, 10)], []])
    v2, p2 = cache.embed_with_spans(["Dana Reyes runs Ledgerline."], [[(0, 10)]])
    assert inner.span_calls == [["Dana Reyes runs Ledgerline.", "x y"]]
    np.testing.assert_array_equal(v1[0], v2[0])
    np.testing.assert_array_equal(p1[0], p2[0])
    np.testing.assert_array_equal(p1[0][0], inner.inner.embed(["Dana Reyes"])[0])
    cache.embed_with_spans(["Dana Reyes runs Ledgerline."], [[(0, 10), (16, 26)]])
    assert len(inner.span_calls) == 2, "a span not cached sends its text again"
    assert cache.stats.misses == 3
    assert cache.stats.hits == 1


def test_cache_over_an_embedder_without_spans_embeds_each_span_as_text() -> None:
    cache = CachedEmbedder(HashEmbedder(32), 100)
    vectors, [rows] = cache.embed_with_spans(["Corvid Labs hired Dana Reyes."], [[(0, 11), (18, 28)]])
    np.testing.assert_array_equal(rows, HashEmbedder(32).embed(["Corvid Labs", "Dana Reyes"]))
    np.testing.assert_array_equal(vectors[0], HashEmbedder(32).embed(["Corvid Labs hired Dana Reyes."])[0])
