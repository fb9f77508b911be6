"""TripleStore backends: embedded pyoxigraph and a remote SPARQL 1.1 endpoint."""

from hybridkg.semantic.store.factory import make_store

__all__ = ["make_store"]
