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


def _span_key(key: bytes, start: int, end: int) -> bytes:
    return key + f":{start}:{end}".encode()


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

    def prefetch(self, texts: Sequence[str]) -> None:
        """The inner embedder's prefetch (see :meth:`SentenceEmbedder.prefetch`), when it has one."""
        prefetch = getattr(self._inner, "prefetch", None)
        if prefetch is not None:
            prefetch(texts)

    def embed_with_spans(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[Vector, list[Vector]]:
        """The inner embedder's pooled spans (see :meth:`SentenceEmbedder.embed_with_spans`), cached per text and
        span; a text with any span not cached goes to the inner embedder whole. Without span support inside,
        each span is embedded as its own text (through the cache)."""
        inner = getattr(self._inner, "embed_with_spans", None)
        if inner is None:
            pieces = [t[lo:hi] for t, ss in zip(texts, spans, strict=True) for lo, hi in ss]
            matrix = self.embed([*texts, *pieces])
            out, at = [], len(texts)
            for ss in spans:
                out.append(matrix[at : at + len(ss)])
                at += len(ss)
            return matrix[: len(texts)], out
        vectors = np.empty((len(texts), self.dim), dtype=np.float32)
        pooled = [np.empty((len(ss), self.dim), dtype=np.float32) for ss in spans]
        keys = [content_key(t) for t in texts]
        todo: list[int] = []
        with self._lock:
            for i, (key, ss) in enumerate(zip(keys, spans, strict=True)):
                rows = [self._rows.get(key), *(self._rows.get(_span_key(key, lo, hi)) for lo, hi in ss)]
                if any(r is None for r in rows):
                    todo.append(i)
                    continue
                vectors[i] = rows[0]
                pooled[i][:] = rows[1:]
            self._hits += len(texts) - len(todo)
            self._misses += len(todo)
        if not todo:
            return vectors, pooled
        fresh, fresh_pooled = inner([texts[i] for i in todo], [spans[i] for i in todo])
        with self._lock:
            for i, v, p in zip(todo, fresh, fresh_pooled, strict=True):
                vectors[i] = v
                pooled[i][:] = p
                if self._max:
                    self._put(keys[i], v)
                    for (lo, hi), row in zip(spans[i], p, strict=True):
                        self._put(_span_key(keys[i], lo, hi), row)
            while len(self._rows) > self._max:
                self._rows.popitem(last=False)
        return vectors, pooled

    def _put(self, key: bytes, row: Vector) -> None:
        self._rows[key] = np.array(row, dtype=np.float32)
        self._rows.move_to_end(key)

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
