"""Structural layer: property graph, vectors and LightRAG-style retrieval (issue 3)."""
