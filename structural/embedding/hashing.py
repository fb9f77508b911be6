"""A deterministic embedder by feature hashing, for tests and for running without the model.

Each text is case-folded (NFKC) and split into words; every word and every character trigram of
``#word#`` is hashed with blake2b to a slot and a sign, words weighing 1 and trigrams 0.5, and the sum is
L2-normalised. Texts that share words or spellings therefore get similar vectors ("aspirin" and "Aspirin"
are identical, "aspirins" close). A text with no word characters (empty, whitespace, punctuation) maps to
one fixed unit vector, the same for all such texts, so every row is unit-length and nothing is NaN.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from hybridkg.errors import InvalidInput
from hybridkg.structural.base import Vector

WORD_WEIGHT = 1.0
TRIGRAM_WEIGHT = 0.5
EMPTY_FEATURE = "\x00empty"
_WORD = re.compile(r"\w+")


@lru_cache(maxsize=1 << 16)
def _slot(feature: str, dim: int) -> tuple[int, float]:
    """Slot and sign of a feature: the first 8 bytes of its blake2b digest pick both."""
    h = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")
    return (h >> 1) % dim, (1.0 if h & 1 else -1.0)


def features(text: str) -> list[tuple[str, float]]:
    """The weighted features of a text: ``w:<word>`` and ``t:<trigram>``."""
    out: list[tuple[str, float]] = []
    for word in _WORD.findall(unicodedata.normalize("NFKC", text).casefold()):
        out.append(("w:" + word, WORD_WEIGHT))
        padded = f"#{word}#"
        out.extend(("t:" + padded[i : i + 3], TRIGRAM_WEIGHT) for i in range(len(padded) - 2))
    return out


class HashEmbedder:
    """Feature-hashing embedder: unit float32 rows of dimension ``dim``, identical across runs and machines."""

    def __init__(self, dim: int = 384) -> None:
        if isinstance(dim, bool) or not isinstance(dim, int) or dim < 8:
            raise InvalidInput(f"the hashing embedder's dimension must be an integer >= 8, got {dim!r}")
        self._dim = dim

    @property
    def dim(self) -> int:
        return self._dim

    def embed(self, texts: Sequence[str]) -> Vector:
        if isinstance(texts, str):
            raise InvalidInput("embed() takes a sequence of texts, not one string")
        out = np.zeros((len(texts), self._dim), dtype=np.float32)
        for row, text in enumerate(texts):
            if not isinstance(text, str):
                raise InvalidInput(f"texts must be strings, got {type(text).__name__} at position {row}")
            feats = features(text) or [(EMPTY_FEATURE, 1.0)]
            slots = [_slot(f, self._dim) for f, _ in feats]
            idx = np.fromiter((s for s, _ in slots), dtype=np.int64, count=len(slots))
            val = np.fromiter((sign * w for (_, sign), (_, w) in zip(slots, feats, strict=True)), dtype=np.float32,
                              count=len(slots))
            np.add.at(out[row], idx, val)
            norm = float(np.linalg.norm(out[row]))
            if norm == 0.0:
                out[row] = 0.0
                slot, sign = _slot(EMPTY_FEATURE, self._dim)
                out[row, slot] = sign
            else:
                out[row] /= norm
        return out
