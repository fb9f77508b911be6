"""LUBM's 14 queries through the bridge, both ways (issue 11 §4), on materialised LUBM(1) mapped into a managed
FalkorDB (schema-independent: LUBM has no shapes):

* SPARQL -> Cypher: each query's Cypher translation gives the same rows as SPARQL on Oxigraph and the reference count;
* Cypher -> SPARQL: an openCypher query written by hand for each (``data/lubm_cypher/qNN.cypher``, names from the
  mapping's registry) gives the reference count on FalkorDB, and its SPARQL translation gives the same rows on
  Oxigraph, which are also the LUBM query's rows.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pyoxigraph import BlankNode, NamedNode
from support.falkor import falkordb_store, short_tmp
from support.shared import shared_path

from hybridkg.bridge import cypher_to_sparql
from hybridkg.bridge.base import BNODE, URI
from hybridkg.bridge.mapping import MappedGraph, map_graph, write_graph
from hybridkg.bridge.sparql_to_cypher import translate
from hybridkg.semantic.base import Term
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.settings import ReasoningConfig, StoreConfig, ValidationConfig
from hybridkg.semantic.store.factory import make_store
from hybridkg.semantic.validation.factory import make_validator
from hybridkg.structural.base import Node
from hybridkg.structural.graphstore.falkordb_store import FalkorDBGraphStore

pytestmark = pytest.mark.slow
QUERIES = [f"Q{i}" for i in range(1, 15)]
CYPHER = Path(__file__).parent / "data" / "lubm_cypher"
Row = tuple[tuple[str, Term | None], ...]


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
    expected = _expected(name)
    sparql = _sparql(kb, text)
    cypher = translate(text, mapped.mapping)
    rows = store.query(cypher.text, cypher.params)
    got = Counter(tuple(sorted(zip(cypher.columns, cypher.terms(row, mapped.mapping), strict=True))) for row in rows)
    assert sum(got.values()) == expected
    assert got == sparql


@pytest.mark.parametrize("name", QUERIES)
def test_hand_written_cypher_and_its_sparql_translation_answer_as_lubm_does(
    lubm: tuple[KnowledgeBase, MappedGraph, FalkorDBGraphStore], name: str
) -> None:
    kb, mapped, store = lubm
    text = (CYPHER / f"q{int(name[1:]):02d}.cypher").read_text()
    falkordb = Counter(
        tuple(sorted((col, _term(value, mapped)) for col, value in row.items())) for row in store.query(text)
    )
    assert sum(falkordb.values()) == _expected(name)
    q = cypher_to_sparql.translate(text, mapped.mapping, schema=mapped.schema)
    assert not q.lists
    q.check(lambda ask: bool(kb.query(ask).boolean))
    assert q.guards or name not in ("Q4", "Q8")  # the queries reading properties carry the single-value guard
    result = kb.query(q.text)
    translated = Counter(tuple(sorted(zip(q.columns, row, strict=True))) for row in result.rows)
    assert translated == falkordb, q.text
    lubm_query = (shared_path("lubm", "queries") / f"q{name[1:]}.rq").read_text()
    assert translated == _sparql(kb, lubm_query)


def _expected(name: str) -> int:
    counts = json.loads((shared_path("lubm") / "expected_counts_lubm1.json").read_text())
    return int(counts["counts_with_full_inference"][name])


def _sparql(kb: KnowledgeBase, text: str) -> Counter[Row]:
    result = kb.query(text)
    return Counter(tuple(sorted(zip(result.variables, row, strict=True))) for row in result.rows)


def _term(value: Any, mapped: MappedGraph) -> Term | None:
    """A FalkorDB value as the RDF term it stands for: a node as its IRI (or blank node), a value as its literal."""
    if value is None:
        return None
    if isinstance(value, Node):
        return NamedNode(value.props[URI]) if URI in value.props else BlankNode(value.props[BNODE])
    return mapped.mapping.to_literal(value)
