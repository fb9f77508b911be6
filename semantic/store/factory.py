"""Build a TripleStore from its settings section (backend modules are imported only when chosen)."""

from __future__ import annotations

from typing import assert_never

from hybridkg.errors import InvalidInput
from hybridkg.semantic.base import TripleStore
from hybridkg.semantic.settings import StoreBackend, StoreConfig


def make_store(config: StoreConfig) -> TripleStore:
    """The store ``config.backend`` names: embedded (in ``config.path``), memory, or remote."""
    match config.backend:
        case StoreBackend.EMBEDDED:
            from hybridkg.semantic.store.embedded import OxigraphStore

            return OxigraphStore(config.path)
        case StoreBackend.MEMORY:
            from hybridkg.semantic.store.embedded import OxigraphStore

            return OxigraphStore(None)
        case StoreBackend.REMOTE:
            from hybridkg.semantic.store.remote import RemoteSparqlStore

            if not config.query_url:
                raise InvalidInput("the remote store needs a SPARQL query URL (store.query_url)")
            return RemoteSparqlStore(
                config.query_url,
                config.update_url,
                timeout=config.timeout_s,
                max_response_bytes=config.max_response_bytes,
            )
        case _:
            assert_never(config.backend)
