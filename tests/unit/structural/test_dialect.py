"""The Cypher each dialect generates (no server needed): DDL, vector index statements, score conversion, and
the name check that guards every label and relationship type spliced into a statement."""

from __future__ import annotations

import pytest

from hybridkg.errors import InvalidInput
from hybridkg.structural.graphstore.cypher import EXPAND_KEYS, EXPAND_SEEDS, UPSERT_EDGES, UPSERT_NODES
from hybridkg.structural.graphstore.dialect import FALKORDB, NEO4J, check_name


@pytest.mark.parametrize("name", ["Entity", "RELATED", "_x1", "a"])
def test_valid_names_pass(name: str) -> None:
    assert check_name("label", name) == name


@pytest.mark.parametrize("name", ["", "1a", "a b", "a-b", "Entity)", "a`b", "é", None, 3, "x}) DETACH DELETE n //"])
def test_invalid_names_are_rejected(name: object) -> None:
    with pytest.raises(InvalidInput, match="label .* is not a valid name"):
        check_name("label", name)


def test_id_index_ddl() -> None:
    assert FALKORDB.id_index("Entity") == "CREATE INDEX FOR (n:Entity) ON (n.id)"
    assert FALKORDB.rel_id_index("RELATED") == "CREATE INDEX FOR ()-[r:RELATED]-() ON (r.id)"
    assert NEO4J.id_index("Entity") == (
        "CREATE CONSTRAINT hkg_Entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.id IS UNIQUE"
    )
    assert NEO4J.rel_id_index("RELATED") == "CREATE INDEX hkg_RELATED_id IF NOT EXISTS FOR ()-[r:RELATED]-() ON (r.id)"
    with pytest.raises(InvalidInput):
        FALKORDB.id_index("Entity) ON (n.x")
    with pytest.raises(InvalidInput):
        NEO4J.rel_id_index("R|S")


def test_vector_index_ddl() -> None:
    options = {"dim": 384, "m": 16, "ef_construction": 200, "ef_runtime": 128}
    assert FALKORDB.create_vector_index("Entity", relationship=False, **options) == (
        "CREATE VECTOR INDEX FOR (e:Entity) ON (e.embedding) OPTIONS {dimension: 384, similarityFunction: "
        "'cosine', M: 16, efConstruction: 200, efRuntime: 128}"
    )
    assert FALKORDB.create_vector_index("RELATED", relationship=True, **options).startswith(
        "CREATE VECTOR INDEX FOR ()-[e:RELATED]-() ON (e.embedding)"
    )
    assert NEO4J.create_vector_index("Chunk", relationship=False, **options) == (
        "CREATE VECTOR INDEX hkg_Chunk_embedding IF NOT EXISTS FOR (e:Chunk) ON (e.embedding) OPTIONS "
        "{indexConfig: {`vector.dimensions`: 384, `vector.similarity_function`: 'cosine', `vector.hnsw.m`: 16, "
        "`vector.hnsw.ef_construction`: 200}}"
    )
    with pytest.raises(InvalidInput):
        NEO4J.create_vector_index("Chunk {x: 1}", relationship=False, **options)


def test_vector_queries_and_values() -> None:
    assert FALKORDB.vector_value("r.v") == "vecf32(r.v)"
    assert NEO4J.vector_value("r.v") == "r.v"
    assert FALKORDB.vector_query("Entity", relationship=False) == (
        "CALL db.idx.vector.queryNodes('Entity', 'embedding', $k, vecf32($v)) YIELD node, score "
        "RETURN node.id AS id, score"
    )
    assert FALKORDB.vector_query("RELATED", relationship=True) == (
        "CALL db.idx.vector.queryRelationships('RELATED', 'embedding', $k, vecf32($v)) YIELD relationship, score "
        "RETURN relationship.id AS id, score"
    )
    assert NEO4J.vector_query("Entity", relationship=False) == (
        "CALL db.index.vector.queryNodes('hkg_Entity_embedding', $k, $v) YIELD node, score RETURN node.id AS id, score"
    )


def test_scores_become_cosine_similarity() -> None:
    assert FALKORDB.cosine(0.0) == 1.0
    assert FALKORDB.cosine(2.0) == -1.0
    assert FALKORDB.cosine(0.4) == 0.6
    assert NEO4J.cosine(1.0) == 1.0
    assert NEO4J.cosine(0.0) == -1.0
    assert NEO4J.cosine(0.8) == pytest.approx(0.6)


def test_candidates_widen_when_the_beam_cannot_be_set() -> None:
    assert FALKORDB.candidates(10, 128, 128) == 10
    assert FALKORDB.candidates(10, 128, 10) == 128
    assert FALKORDB.candidates(200, 128, 10) == 200
    assert NEO4J.candidates(10, 128, None) == 128


def test_existing_vector_index_options_are_read() -> None:
    falkor_rows = [
        {"label": "Entity", "types": {"id": ["RANGE"]}, "options": {"id": {}}, "entitytype": "NODE"},
        {
            "label": "Entity",
            "types": {"embedding": ["VECTOR"]},
            "options": {"embedding": {"dimension": 384, "efRuntime": 10}},
            "entitytype": "NODE",
        },
        {
            "label": "RELATED",
            "types": {"embedding": ["VECTOR"]},
            "options": {"embedding": {"dimension": 8}},
            "entitytype": "RELATIONSHIP",
        },
    ]
    assert FALKORDB.vector_index_options(falkor_rows, "Entity", relationship=False) == (384, 10)
    assert FALKORDB.vector_index_options(falkor_rows, "RELATED", relationship=True) == (8, None)
    assert FALKORDB.vector_index_options(falkor_rows, "RELATED", relationship=False) is None
    neo_rows = [{"name": "hkg_Entity_embedding", "options": {"indexConfig": {"vector.dimensions": 384}}}]
    assert NEO4J.vector_index_options(neo_rows, "Entity", relationship=False) == (384, None)
    assert NEO4J.vector_index_options(neo_rows, "Chunk", relationship=False) is None


def test_shared_templates_take_only_checked_names() -> None:
    assert UPSERT_NODES.format(label="Entity") == "UNWIND $rows AS r MERGE (n:Entity {id: r.id}) SET n += r.props"
    text = UPSERT_EDGES.format(src_label="Chunk", dst_label="Entity", rel_type="MENTIONS")
    assert "MATCH (a:Chunk {id: row.src}) MATCH (b:Entity {id: row.dst})" in text
    assert "MERGE (a)-[r:MENTIONS {id: row.id}]->(b) SET r += row.props" in text
    names = {"label": "Entity", "key": NEO4J.node_key, "proj": ".*, embedding: null", "types": ":RELATED"}
    assert "OPTIONAL MATCH (n)-[e:RELATED]-(m)" in EXPAND_SEEDS.format(**names)
    assert "x {.*, embedding: null}" in EXPAND_SEEDS.format(**names)
    assert "WHERE elementId(n) = k" in EXPAND_KEYS.format(**names)
    assert "WHERE id(n) = k" in EXPAND_KEYS.format(**{**names, "key": FALKORDB.node_key})
    assert "x {.id, .w_struct}" in EXPAND_KEYS.format(**{**names, "proj": ".id, .w_struct"})
