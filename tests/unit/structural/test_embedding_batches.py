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
