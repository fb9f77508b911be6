"""An LRU cache in front of any embedder, keyed by the blake2b hash of each text.

Re-ingesting a document, or asking the same query again, costs no model call: only texts the cache has
not seen go to the inner embedder, each once per call however often it repeats, in one ``embed`` call
(the inner embedder does its own batching), and the rows come back in the order asked.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from hybridkg.errors import HybridKGError, InvalidInput
from hybridkg.structural.base import Embedder, Vector


@dataclass(frozen=True, slots=True)
class CacheStats:
    hits: int  # texts answered without the inner embedder (cached, or repeated within one call)
    misses: int  # texts sent to the inner embedder
    size: int  # embeddings held now


def content_key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class CachedEmbedder:
    """Wraps ``inner`` with a cache of at most ``max_items`` embeddings (0 disables caching, not de-duplication)."""

    def __init__(self, inner: Embedder, max_items: int) -> None:
        if max_items < 0:
            raise InvalidInput(f"max_items must be >= 0, got {max_items}")
        self._inner = inner
        self._max = max_items
        self._rows: OrderedDict[bytes, Vector] = OrderedDict()
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0

    @property
    def dim(self) -> int:
        return self._inner.dim

    @property
    def inner(self) -> Embedder:
        return self._inner

    @property
    def stats(self) -> CacheStats:
        with self._lock:
            return CacheStats(self._hits, self._misses, len(self._rows))

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()

    def embed(self, texts: Sequence[str]) -> Vector:
        if isinstance(texts, str):
            raise InvalidInput("embed() takes a sequence of texts, not one string")
        if not all(isinstance(t, str) for t in texts):
            raise InvalidInput("texts must be strings")
        keys = [content_key(t) for t in texts]
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        missing: dict[bytes, list[int]] = {}
        miss_texts: list[str] = []
        with self._lock:
            for pos, key in enumerate(keys):
                row = self._rows.get(key)
                if row is not None:
                    self._rows.move_to_end(key)
                    out[pos] = row
                elif key in missing:
                    missing[key].append(pos)
                else:
                    missing[key] = [pos]
                    miss_texts.append(texts[pos])
            self._hits += len(texts) - len(miss_texts)
            self._misses += len(miss_texts)
        if not miss_texts:
            return out
        fresh = np.asarray(self._inner.embed(miss_texts), dtype=np.float32)
        if fresh.shape != (len(miss_texts), self.dim):
            raise HybridKGError(
                f"the inner embedder returned shape {fresh.shape} for {len(miss_texts)} texts of dimension {self.dim}"
            )
        for row, positions in zip(fresh, missing.values(), strict=True):
            out[positions] = row
        if self._max:
            with self._lock:
                for key, row in zip(missing, fresh, strict=True):
                    self._rows[key] = row.copy()
                    self._rows.move_to_end(key)
                while len(self._rows) > self._max:
                    self._rows.popitem(last=False)
        return out
