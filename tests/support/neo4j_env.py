"""A Neo4j graph store for integration tests, from NEO4J_URI and NEO4J_AUTH (``user/password``); skipped when unset.

The tests empty the database they are given (NEO4J_DATABASE, else the server's default): point them at a
scratch server. No Neo4j server can be installed here, so these are the only tests allowed to skip under CI:
their skip reason is ``support.prerequisites.NO_NEO4J``, which the summary counts.
"""

from __future__ import annotations

import os

import pytest
from support.prerequisites import NO_NEO4J

from hybridkg.structural.graphstore.dialect import NAME
from hybridkg.structural.graphstore.neo4j_store import Neo4jGraphStore


def neo4j_store() -> Neo4jGraphStore:
    uri, auth = os.environ.get("NEO4J_URI"), os.environ.get("NEO4J_AUTH")
    if not uri or not auth:
        pytest.skip(NO_NEO4J)
    user, _, password = auth.partition("/")
    store = Neo4jGraphStore(uri, (user, password), database=os.environ.get("NEO4J_DATABASE") or None)
    store.query("MATCH (n) DETACH DELETE n")
    for row in store.query("SHOW VECTOR INDEXES YIELD name RETURN name"):
        if NAME.match(row["name"]) and row["name"].startswith("hkg_"):
            store.query(f"DROP INDEX {row['name']} IF EXISTS")
    return store
