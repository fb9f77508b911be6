"""The structural layer's vectors backends, built from their settings section by ``make_vector_index``."""

from hybridkg.structural.vectors.factory import make_vector_index

__all__ = ["make_vector_index"]
