"""Build the configured :class:`~hybridkg.structural.base.GraphStore` (backend modules are imported lazily)."""

from __future__ import annotations

from pathlib import Path
from typing import assert_never

from hybridkg.errors import InvalidInput
from hybridkg.structural.base import GraphStore
from hybridkg.structural.settings import GraphBackend, GraphConfig


def make_graph_store(config: GraphConfig, path: Path) -> GraphStore:
    """The store ``config.backend`` names; the embedded FalkorDB keeps its data in the directory ``path``."""
    match config.backend:
        case GraphBackend.FALKORDB:
            from hybridkg.structural.graphstore.falkordb_store import FalkorDBGraphStore

            return FalkorDBGraphStore.managed(path, config)
        case GraphBackend.NEO4J:
            from hybridkg.structural.graphstore.neo4j_store import Neo4jGraphStore

            if not config.neo4j_uri:
                raise InvalidInput(
                    "the neo4j graph backend needs structural.graph.neo4j_uri (e.g. bolt://localhost:7687)"
                )
            auth = None if config.neo4j_password is None else (config.neo4j_user, config.neo4j_password)
            return Neo4jGraphStore(config.neo4j_uri, auth, database=config.neo4j_database)
        case GraphBackend.MEMORY:
            from hybridkg.structural.graphstore.memory import InMemoryGraphStore

            return InMemoryGraphStore()
        case _:
            assert_never(config.backend)
