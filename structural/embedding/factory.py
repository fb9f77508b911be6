"""Build the configured embedder, wrapped in the content-hash cache."""

from __future__ import annotations

from typing import assert_never

from ..base import Embedder
from ..settings import EmbedderConfig, EmbedderKind
from .cache import CachedEmbedder


def make_embedder(config: EmbedderConfig) -> Embedder:
    """The embedder ``config.kind`` names, behind a cache of ``config.cache_size`` embeddings (none when 0)."""
    inner: Embedder
    match config.kind:
        case EmbedderKind.SENTENCE:
            from .sentence import SentenceEmbedder

            inner = SentenceEmbedder(batch_size=config.batch_size)
        case EmbedderKind.HASH:
            from .hashing import HashEmbedder

            inner = HashEmbedder(config.hash_dim)
        case _:
            assert_never(config.kind)
    return CachedEmbedder(inner, config.cache_size) if config.cache_size > 0 else inner
