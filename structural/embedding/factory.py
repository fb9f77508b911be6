"""Build the configured embedder, wrapped in the content-hash cache."""

from __future__ import annotations

from typing import assert_never

from hybridkg.structural.base import Embedder
from hybridkg.structural.embedding.cache import CachedEmbedder
from hybridkg.structural.settings import EmbedderConfig, EmbedderKind


def make_embedder(config: EmbedderConfig) -> Embedder:
    """The embedder ``config.kind`` names, behind a cache of ``config.cache_size`` embeddings (none when 0)."""
    inner: Embedder
    match config.kind:
        case EmbedderKind.SENTENCE:
            from hybridkg.structural.embedding.sentence import SentenceEmbedder

            inner = SentenceEmbedder(batch_size=config.batch_size, batch_tokens=config.batch_tokens)
        case EmbedderKind.HASH:
            from hybridkg.structural.embedding.hashing import HashEmbedder

            inner = HashEmbedder(config.hash_dim)
        case _:
            assert_never(config.kind)
    return CachedEmbedder(inner, config.cache_size) if config.cache_size > 0 else inner
