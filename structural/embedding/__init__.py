"""The structural layer's embedding backends, built from their settings section by ``make_embedder``."""

from hybridkg.structural.embedding.factory import make_embedder

__all__ = ["make_embedder"]
