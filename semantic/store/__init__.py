"""TripleStore backends: embedded pyoxigraph and a remote SPARQL 1.1 endpoint."""

from .factory import StoreBackend, make_store

__all__ = ["StoreBackend", "make_store"]
