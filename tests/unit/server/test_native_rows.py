"""Counting the rows of results the store writes itself (JSON, XML, TSV, N-Triples), in pieces cut anywhere:
the row cap depends on it."""

from __future__ import annotations

import random
import zlib

import pytest
from pyoxigraph import BlankNode, Literal, NamedNode, Quad, QueryResultsFormat, RdfFormat, Store

from hybridkg.server.runtime import _ROW_COUNTERS

NASTY = ['},{', '[{', '"},{"', '\\', '\\"', '\\\\"},{', '<result>', 'a\nb\tc', '{"type":"uri"}', '"[{"', 'é𝄞', '']


def _store(rng: random.Random) -> Store:
    store = Store()
    for i in range(300):
        s = NamedNode(f"http://e/s{i % 40}") if i % 7 else BlankNode(f"b{i}")
        value = rng.choice(NASTY) * rng.randrange(1, 4) + str(i)
        o = Literal(value, language="en") if i % 3 == 0 else Literal(value)
        store.add(Quad(s, NamedNode(f"http://e/p{i % 3}"), o))
    return store


QUERIES = [
    "SELECT ?s ?p ?o WHERE { ?s ?p ?o }",
    "SELECT ?s ?o ?none WHERE { ?s <http://e/p1> ?o OPTIONAL { ?s <http://e/none> ?none } }",
    "SELECT ?x WHERE { ?x <http://e/none> ?y }",
    "SELECT * WHERE { }",
    "SELECT ?t WHERE { ?s <http://e/p2> ?o BIND(<<( ?s <http://e/p2> ?o )>> AS ?t) }",
    "SELECT ?none WHERE { ?s <http://e/p0> ?o OPTIONAL { ?s <http://e/none> ?none } }",
]


def _pieces(data: bytes, rng: random.Random) -> list[bytes]:
    out, i = [], 0
    while i < len(data):
        n = rng.choice([1, 2, 3, 7, 64, 1000])
        out.append(data[i:i + n])
        i += n
    return out


@pytest.mark.parametrize("fmt", ["json", "xml", "tsv"])
@pytest.mark.parametrize("query", QUERIES)
def test_rows_are_counted_exactly_however_the_result_is_cut(fmt: str, query: str) -> None:
    rng = random.Random(zlib.crc32(f"{fmt} {query}".encode()))
    store = _store(rng)
    expected = len(list(store.query(query)))  # type: ignore[arg-type]
    native = {"json": QueryResultsFormat.JSON, "xml": QueryResultsFormat.XML, "tsv": QueryResultsFormat.TSV}[fmt]
    data = store.query(query).serialize(format=native)  # type: ignore[union-attr]
    assert data is not None
    for _ in range(40):
        count = _ROW_COUNTERS[fmt]("select")
        assert sum(count(piece) for piece in _pieces(data, rng)) == expected
    one_byte = _ROW_COUNTERS[fmt]("select")
    assert sum(one_byte(data[i:i + 1]) for i in range(len(data))) == expected
    for cut in range(0, len(data), max(1, len(data) // 400)):  # one cut anywhere
        count = _ROW_COUNTERS[fmt]("select")
        assert count(data[:cut]) + count(data[cut:]) == expected, cut


def test_triples_are_counted_exactly() -> None:
    rng = random.Random(3)
    store = _store(rng)
    data = store.query("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }").serialize(format=RdfFormat.N_TRIPLES)  # type: ignore[union-attr]
    assert data is not None
    count = _ROW_COUNTERS["ntriples"]("graph")
    assert sum(count(piece) for piece in _pieces(data, rng)) == 300
