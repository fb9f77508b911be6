"""The sentence embedder batches by a token budget: every text once, in the order asked, the same vectors
whatever the batching."""

from __future__ import annotations

import numpy as np
import pytest

from hybridkg.structural.embedding.sentence import SentenceEmbedder, token_batches


@pytest.mark.parametrize(("lengths", "budget", "max_texts", "want"), [
    ([], 100, 10, []),
    ([5, 5, 5, 5], 10, 10, [(0, 2), (2, 4)]),  # two texts of 5 fill a budget of 10
    ([2, 3, 4, 50], 12, 10, [(0, 3), (3, 4)]),  # a text longer than the budget goes alone
    ([1, 1, 1, 1, 1], 100, 2, [(0, 2), (2, 4), (4, 5)]),  # the text cap
    ([3, 3, 8, 9], 20, 10, [(0, 2), (2, 4)]),  # padded to the longest: 3 x 8 > 20
])
def test_token_batches_cover_every_text_once_within_the_budget(
    lengths: list[int], budget: int, max_texts: int, want: list[tuple[int, int]]
) -> None:
    got = token_batches(lengths, budget, max_texts)
    assert got == want
    assert [i for s, e in got for i in range(s, e)] == list(range(len(lengths)))
    for s, e in got:
        assert e - s <= max_texts
        assert e - s == 1 or (e - s) * lengths[e - 1] <= budget


def test_batched_vectors_equal_one_text_at_a_time_in_the_order_asked() -> None:
    texts = [
        "Quarterly review of the warehouse robots that Fenwick Dynamics leases to two grocery chains in the north.",
        "Ilse",
        "Orla Brennan signed the renewal",
        "a note",
        "The pilot in Graz moved to phase two after the audit found no open issues with the data export.",
        "Ilse",
    ]
    small = SentenceEmbedder(batch_tokens=24, batch_size=3)  # several batches, some of one text
    rows = small.embed(texts)
    alone = np.vstack([small.embed([t]) for t in texts])
    assert rows.shape == (6, 384)
    np.testing.assert_allclose(rows, alone, atol=2e-5)
    np.testing.assert_array_equal(rows[1], rows[5])
    np.testing.assert_allclose(SentenceEmbedder().embed(texts), rows, atol=2e-5)


SHARED = "Mira Holt flies the night route for Kestrel Shipping."
CHUNK_A = f"The fleet grew to nine aircraft in May. {SHARED} Fuel costs fell by a tenth."
CHUNK_B = f"{SHARED}\nThe board of the orchard cooperative met on Tuesday about apple prices."


def _pooled_alone(embedder: SentenceEmbedder, text: str) -> np.ndarray:
    _, [row] = embedder.embed_with_spans([text], [[(0, len(text))]])
    return np.asarray(row[0])


def test_a_span_is_pooled_from_its_own_sentence_pass_whatever_the_chunk() -> None:
    embedder = SentenceEmbedder(batch_tokens=64)
    a, b = CHUNK_A.index(SHARED), CHUNK_B.index(SHARED)
    vectors, pooled = embedder.embed_with_spans(
        [CHUNK_A, CHUNK_B], [[(a, a + len(SHARED)), (0, 3)], [(b, b + len(SHARED))]]
    )
    assert vectors.shape == (2, 384)
    assert [p.shape for p in pooled] == [(2, 384), (1, 384)]
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # the same sentence in two chunks: the same vector (no drift towards either chunk's topic)
    np.testing.assert_allclose(pooled[0][0], pooled[1][0], atol=2e-5)
    np.testing.assert_allclose(pooled[0][0], _pooled_alone(embedder, SHARED), atol=2e-5)
    # the token mean of a one-sentence text is close to the model's own (CLS/SEP left out)
    assert float(_pooled_alone(embedder, SHARED) @ embedder.embed([SHARED])[0]) > 0.97
    # a part of a sentence pools that part's tokens: closer to its own words than to the rest
    the = pooled[0][1]
    assert not np.allclose(the, pooled[0][0], atol=1e-3)
    # the chunk's vector is the mean of all its sentences' tokens: each sentence contributes
    others = embedder.embed(["The board of the orchard cooperative met on Tuesday about apple prices."])[0]
    assert float(vectors[1] @ others) > float(pooled[1][0] @ others)


def test_a_span_past_the_models_truncation_is_embedded_on_its_own() -> None:
    embedder = SentenceEmbedder()
    tail = "Halden Foods buys the spare capacity."
    long = " ".join(["alpha"] * 400) + " " + tail  # one "sentence" of 400+ tokens: cut at 256
    at = long.index(tail)
    _, [rows] = embedder.embed_with_spans([long], [[(at, at + len(tail))]])
    np.testing.assert_allclose(rows[0], embedder.embed([tail])[0], atol=2e-5)


def test_embed_with_spans_rejects_mismatched_spans() -> None:
    from hybridkg.errors import InvalidInput

    with pytest.raises(InvalidInput, match="one list of spans per text"):
        SentenceEmbedder().embed_with_spans(["a", "b"], [[(0, 1)]])


def test_prefetched_sentence_passes_give_the_same_vectors_and_are_released() -> None:
    embedder = SentenceEmbedder(batch_tokens=64)
    a = CHUNK_A.index(SHARED)
    spans = [[(a, a + len(SHARED))], [(0, 5)]]
    want_vectors, want_pooled = embedder.embed_with_spans([CHUNK_A, CHUNK_B], spans)
    embedder.prefetch([CHUNK_A, CHUNK_B])
    embedder.wait()
    assert SHARED in embedder._ready, "the shared sentence's states are held once"
    assert len(embedder._ready) == 4, "one entry per distinct sentence of the two chunks (3 + 2, one shared)"
    got_vectors, got_pooled = embedder.embed_with_spans([CHUNK_A, CHUNK_B], spans)
    assert embedder._ready == {}, "used states are released"
    np.testing.assert_allclose(got_vectors, want_vectors, atol=2e-5)
    for got, want in zip(got_pooled, want_pooled, strict=True):
        np.testing.assert_allclose(got, want, atol=2e-5)
    embedder.prefetch([])  # nothing to do: no thread
    assert embedder._prefetch is None
