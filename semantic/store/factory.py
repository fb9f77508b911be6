"""Build a TripleStore from configuration."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from ...errors import InvalidInput
from ..base import TripleStore


class StoreBackend(StrEnum):
    EMBEDDED = "embedded"
    MEMORY = "memory"
    REMOTE = "remote"


def make_store(
    backend: StoreBackend | str,
    *,
    path: str | Path | None = None,
    query_url: str | None = None,
    update_url: str | None = None,
) -> TripleStore:
    try:
        kind = StoreBackend(backend)
    except ValueError:
        accepted = ", ".join(b.value for b in StoreBackend)
        raise InvalidInput(f"unknown store backend {backend!r}; accepted: {accepted}") from None
    match kind:
        case StoreBackend.EMBEDDED:
            from .embedded import OxigraphStore

            if path is None:
                raise InvalidInput("the embedded store needs a directory (store.path or --store DIR)")
            return OxigraphStore(path)
        case StoreBackend.MEMORY:
            from .embedded import OxigraphStore

            return OxigraphStore(None)
        case StoreBackend.REMOTE:
            from .remote import RemoteSparqlStore

            if not query_url:
                raise InvalidInput("the remote store needs a SPARQL query URL (store.query_url)")
            return RemoteSparqlStore(query_url, update_url)
