"""Cut a document's text into overlapping token windows (LightRAG-style chunks), cutting at natural boundaries.

A window holds at most ``chunk_tokens`` tokens. When the text goes on, the cut is moved back to the best
boundary in the window's last ~20 % (paragraph > line or sentence end > word gap), so chunks tend to end
where a thought ends. The next window starts exactly ``overlap_tokens`` tokens before the cut. Chunk texts
are exact slices of the input, from the first token's start to the last token's end; the same text and
settings always give the same chunks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from hybridkg.errors import InvalidInput
from hybridkg.structural.ingest.tokenizer import Span, TextTokenizer

CUT_ZONE = 0.2

_PARAGRAPH, _SENTENCE, _WORD, _NONE = 3, 2, 1, 0
_SENTENCE_END = frozenset(".!?;。！？…")
_CLOSERS = frozenset("\"')]»”’")


@dataclass(frozen=True, slots=True)
class TextChunk:
    """One chunk: ``text == source[start:end]``, ``tokens`` word pieces, ``index`` its position in the document."""

    index: int
    text: str
    start: int
    end: int
    tokens: int


def _boundary(text: str, offsets: list[Span], k: int) -> int:
    """How good a cut between token ``k - 1`` and token ``k`` is."""
    prev_end = offsets[k - 1][1]
    gap = text[prev_end : offsets[k][0]]
    if not gap:
        return _NONE
    if gap.count("\n") >= 2:
        return _PARAGRAPH
    if "\n" in gap:
        return _SENTENCE
    j = prev_end - 1
    while j > 0 and text[j] in _CLOSERS and prev_end - j < 4:
        j -= 1
    return _SENTENCE if text[j] in _SENTENCE_END else _WORD


def _cut(text: str, offsets: list[Span], start: int, stop: int, earliest: int) -> int:
    """The token index to end the window ``[start, stop)`` at: the latest best boundary at or after ``earliest``."""
    best, best_score = stop, _NONE
    for k in range(stop, earliest - 1, -1):
        score = _boundary(text, offsets, k)
        if score > best_score:
            best, best_score = k, score
            if score == _PARAGRAPH:
                break
    return best


def chunk_text(text: str, *, chunk_tokens: int, overlap_tokens: int, tokenizer: TextTokenizer) -> list[TextChunk]:
    """Chunks of at most ``chunk_tokens`` tokens; consecutive chunks share exactly ``overlap_tokens`` tokens."""
    if chunk_tokens < 1:
        raise InvalidInput(f"chunk_tokens must be at least 1, not {chunk_tokens}")
    if not 0 <= overlap_tokens < chunk_tokens:
        raise InvalidInput(
            f"overlap_tokens must be at least 0 and smaller than chunk_tokens ({chunk_tokens}), not {overlap_tokens}"
        )
    offsets = tokenizer.encode(text)
    n = len(offsets)
    chunks: list[TextChunk] = []
    start = 0
    while start < n:
        stop = min(start + chunk_tokens, n)
        if stop < n:
            earliest = max(start + math.ceil(chunk_tokens * (1 - CUT_ZONE)), start + overlap_tokens + 1)
            if earliest < stop:
                stop = _cut(text, offsets, start, stop, earliest)
        lo, hi = offsets[start][0], offsets[stop - 1][1]
        chunks.append(TextChunk(len(chunks), text[lo:hi], lo, hi, stop - start))
        if stop >= n:
            break
        start = stop - overlap_tokens
    return chunks
