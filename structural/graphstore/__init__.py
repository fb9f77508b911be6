"""The structural layer's graphstore backends, built from their settings section by ``make_graph_store``."""

from hybridkg.structural.graphstore.factory import make_graph_store

__all__ = ["make_graph_store"]
