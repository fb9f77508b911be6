"""LUBM's 14 queries through the bridge (issue 11 §4): materialised LUBM(1) mapped into a managed FalkorDB, each
query's Cypher translation gives the same rows as SPARQL on Oxigraph and the reference count."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.falkor import falkordb_store, short_tmp
from support.shared import shared_path

from hybridkg.bridge.mapping import MappedGraph, map_graph, write_graph
from hybridkg.bridge.sparql_to_cypher import translate
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.settings import ReasoningConfig, StoreConfig, ValidationConfig
from hybridkg.semantic.store.factory import make_store
from hybridkg.semantic.validation.factory import make_validator
from hybridkg.structural.graphstore.falkordb_store import FalkorDBGraphStore

pytestmark = pytest.mark.slow
QUERIES = [f"Q{i}" for i in range(1, 15)]


@pytest.fixture(scope="module")
def lubm() -> Iterator[tuple[KnowledgeBase, MappedGraph, FalkorDBGraphStore]]:
    data = shared_path("lubm")
    kb = KnowledgeBase(
        make_store(StoreConfig(backend="memory")),
        reasoner=make_reasoner(ReasoningConfig()),
        validator=make_validator(ValidationConfig(engine="pyshacl")),
    )
    kb.load(data / "univ-bench.ttl", graph="urn:lubm:ontology")
    kb.load(data / "lubm1-University0.nt", graph="urn:lubm:data", bulk=True)
    mapped = map_graph(list(kb.asserted_triples() | kb.inferred_triples()))
    with short_tmp() as tmp, falkordb_store(Path(tmp)) as store:
        write_graph(store, mapped)
        yield kb, mapped, store
    kb.close()


@pytest.mark.parametrize("name", QUERIES)
def test_the_cypher_translation_answers_as_sparql_does(
    lubm: tuple[KnowledgeBase, MappedGraph, FalkorDBGraphStore], name: str
) -> None:
    kb, mapped, store = lubm
    text = (shared_path("lubm", "queries") / f"q{name[1:]}.rq").read_text()
    expected = json.loads((shared_path("lubm") / "expected_counts_lubm1.json").read_text())
    result = kb.query(text)
    sparql = Counter(tuple(sorted(zip(result.variables, row, strict=True))) for row in result.rows)
    cypher = translate(text, mapped.mapping)
    rows = store.query(cypher.text, cypher.params)
    got = Counter(
        tuple(sorted(zip(cypher.columns, cypher.terms(row, mapped.mapping), strict=True))) for row in rows
    )
    assert sum(got.values()) == expected["counts_with_full_inference"][name]
    assert got == sparql
