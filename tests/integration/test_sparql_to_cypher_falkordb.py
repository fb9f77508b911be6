"""SPARQL -> Cypher, differential: each query runs on Oxigraph (pyoxigraph) over a small RDF graph and, translated,
on a real FalkorDB holding the same graph in the conventions of ``hybridkg.bridge.base`` (loaded twice: with the
test's fake mapping, and with the bridge's own); the result multisets (lists, where the query orders totally)
must be equal after mapping the Cypher rows back to terms."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pyoxigraph as ox
import pytest
from support.bridge_fakes import load_both
from support.falkor import falkordb_server, short_tmp

from hybridkg.bridge.base import Mapping
from hybridkg.bridge.mapping import RdfMapping
from hybridkg.bridge.sparql_to_cypher import RUNTIME_REFUSAL, Kind, translate
from hybridkg.bridge.sparql_to_cypher.emit import MAX_DEPTH, depth
from hybridkg.errors import InvalidQuery
from hybridkg.structural.graphstore.server import ManagedFalkorDB

DATA = """
@prefix : <http://e/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:alice a :Person ; :name "Alice" ; :age 30 ; :height "1.7E0"^^xsd:double ; :knows :bob, :carol ; :worksFor :acme ;
    :nick "Al", "Ally" ; :active true .
:bob a :Person ; :name "Bob" ; :age 25 ; :knows :carol ; :worksFor :acme ; :label "Robert"@en ; :active false .
:carol a :Person, :Manager ; :name "Carol" ; :age 35 ; :knows :dave ; :worksFor :globex ;
    :born "1990-01-01"^^xsd:date .
:dave a :Person ; :name "dave" ; :knows _:x ; :age "3.0E1"^^xsd:double ; :weight 70.5 .
_:x :name "Mystery" ; :knows :alice .
:acme a :Org ; :name "ACME" ; :partner :globex .
:globex a :Org ; :name "Globex" ; :partner :initech .
:initech a :Org .
:erin a :Person ; :age 30 ; :height "1.6E0"^^xsd:double ; :knows :erin ; :score 1, 1.0e0, true, "1" .
:frank :code "+042", "-0", "12x", "", "007", "true", "0", "TRUE" ;
    :pad " 7", " true" ; :word "Straße" ; :big "1234567890123456789012" .
"""

P = "PREFIX : <http://e/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> "

# (query, ordered): ordered compares sequences (the query's order is total), else multisets
QUERIES: list[tuple[str, bool]] = [
    ("SELECT ?s WHERE { ?s a :Person }", False),
    ("SELECT ?s ?n WHERE { ?s a :Person ; :name ?n }", False),
    ("SELECT ?s ?o WHERE { ?s :knows ?o }", False),
    ("SELECT ?s WHERE { ?s :age 30 }", False),
    ("SELECT ?s ?n WHERE { ?s :nick ?n }", False),
    ("SELECT ?a ?b ?c WHERE { ?a :knows ?b . ?b :knows ?c }", False),
    ("SELECT ?s WHERE { ?s :knows ?s }", False),
    ("SELECT ?s ?o WHERE { ?s :worksFor :acme ; :knows ?o . ?o :worksFor :acme }", False),
    ("SELECT ?s WHERE { ?s a :Person, :Manager }", False),
    ("SELECT ?s ?a WHERE { ?s :age ?a FILTER(?a > 28) }", False),
    ("SELECT ?s ?a WHERE { ?s :age ?a FILTER(?a = 30) }", False),
    ("SELECT ?s ?a WHERE { ?s :age ?a FILTER(?a != 30 && ?a < 40) }", False),
    ("SELECT ?s ?a WHERE { ?s :age ?a FILTER(!(?a >= 30) || ?a IN (35, 36)) }", False),
    ("SELECT ?s ?n WHERE { ?s :name ?n FILTER(regex(?n, '^[a-c]', 'i')) }", False),
    ("SELECT ?s ?n WHERE { ?s :name ?n FILTER(?n < 'Carol') }", False),
    ("SELECT ?s ?n WHERE { ?s :name ?n FILTER(isBlank(?s) || lang(?n) = 'en') }", False),
    ("SELECT ?s ?o WHERE { ?s :knows ?o FILTER(isIRI(?o) && ?o != :carol) }", False),
    ("SELECT ?s ?a WHERE { ?s :age ?a FILTER(datatype(?a) = xsd:double) }", False),
    ("SELECT ?s ?n WHERE { ?s :name ?n FILTER(str(?n) = 'ACME' || isLiteral(?s)) }", False),
    ("SELECT ?s ?w WHERE { ?s a :Person OPTIONAL { ?s :worksFor ?w } }", False),
    ("SELECT ?s ?n ?o WHERE { ?s a :Person OPTIONAL { ?s :knows ?o . ?o :name ?n } }", False),
    ("SELECT ?s ?a WHERE { ?s a :Person OPTIONAL { ?s :age ?a FILTER(?a > 26) } }", False),
    ("SELECT ?s WHERE { ?s a :Person OPTIONAL { ?s :worksFor ?w } FILTER(!bound(?w)) }", False),
    ("SELECT ?x WHERE { { ?x a :Org } UNION { ?x :worksFor :acme } }", False),
    ("SELECT ?x ?y WHERE { { ?x :partner ?y } UNION { ?x :knows ?y } UNION { ?x :worksFor ?y } }", False),
    ("SELECT ?x ?y ?z WHERE { ?x a :Person { ?x :knows ?y } UNION { ?x :age ?z } }", False),
    ("SELECT ?s WHERE { ?s a :Person MINUS { ?s :worksFor :acme } }", False),
    ("SELECT DISTINCT ?w WHERE { ?s :worksFor ?w }", False),
    ("SELECT DISTINCT ?v WHERE { ?s :score ?v }", False),
    ("SELECT ?v (COUNT(*) AS ?c) WHERE { ?s :score ?v } GROUP BY ?v", False),
    ("SELECT (COUNT(DISTINCT ?v) AS ?c) WHERE { ?s :score ?v }", False),
    ("SELECT ?s WHERE { ?s :score 1 }", False),
    ("SELECT ?s ?v WHERE { ?s :score ?v FILTER(?v = 1) }", False),
    ("SELECT ?s ?v WHERE { ?s :score ?v FILTER(?v != 1) }", False),
    ("SELECT ?s ?v WHERE { ?s :score ?v FILTER(?v < 2) }", False),
    ("SELECT ?v WHERE { ?s :score ?v } ORDER BY ?v", False),
    ("SELECT ?s ?o WHERE { ?s :knows ?o { SELECT ?o WHERE { ?x :knows ?o . ?x :name ?s } } }", False),
    ("SELECT ?s ?o WHERE { ?s :knows ?o { SELECT DISTINCT ?o WHERE { ?x :knows ?o } } }", False),
    ("SELECT * WHERE { ?s :knows ?o OPTIONAL { ?o :name ?n } OPTIONAL { ?o :age ?a } }", False),
    ("SELECT * WHERE { ?s :knows ?o OPTIONAL { ?o :knows ?p OPTIONAL { ?p :name ?n } } }", False),
    ("SELECT * WHERE { ?s :name ?n FILTER(langMatches(lang(?n), '*') || ?n IN ('Bob', 'ACME')) }", False),
    ("SELECT ?s ?b WHERE { ?s :name ?n BIND(?n = 'Bob' AS ?b) }", False),
    ("SELECT ?s ?t WHERE { ?s :age ?a BIND(IF(?a > 29, 'old', 'young') AS ?t) }", False),
    ("SELECT ?s WHERE { ?s :knows ?o . ?o :knows ?s }", False),
    ("SELECT ?n WHERE { ?s :nick ?n } ORDER BY DESC(?n)", True),
    ("SELECT ?s ?v WHERE { ?s :active ?v FILTER(!?v) }", False),
    ("SELECT * WHERE { ?s :knows ?o FILTER(isBlank(?o)) ?o :name ?n }", False),
    ("SELECT (COUNT(*) AS ?c) WHERE { ?s :knows ?o MINUS { ?o a :Manager } }", False),
    ("SELECT * WHERE { ?s a :Org MINUS { ?x :partner ?y } }", False),
    ("SELECT * WHERE { ?s a :Person OPTIONAL { { ?s :worksFor ?o } UNION { ?s :knows ?o } } }", False),
    ("SELECT * WHERE { ?s a :Person FILTER EXISTS { { ?s :worksFor :acme } UNION { ?s a :Manager } } }", False),
    ("SELECT * WHERE { ?s :knows ?o OPTIONAL { ?o :name ?n FILTER(false && true) } }", False),
    ("SELECT * WHERE { ?s :knows ?o OPTIONAL { ?o :name ?n FILTER(1 = 2) } }", False),
    ("SELECT ?s ?a WHERE { ?s :age ?a } ORDER BY ?a ?s", True),
    ("SELECT ?s ?a WHERE { ?s :age ?a } ORDER BY DESC(?a) ?s LIMIT 2 OFFSET 1", True),
    ("SELECT ?s WHERE { ?s a :Person } ORDER BY DESC(?s) LIMIT 3", True),
    ("SELECT ?w (COUNT(?s) AS ?c) WHERE { ?s :worksFor ?w } GROUP BY ?w", False),
    ("SELECT (COUNT(*) AS ?c) (COUNT(DISTINCT ?a) AS ?d) (SUM(?a) AS ?t) WHERE { ?s :age ?a }", False),
    ("SELECT (MIN(?a) AS ?lo) (MAX(?a) AS ?hi) WHERE { ?s :age ?a FILTER(datatype(?a) = xsd:integer) }", False),
    ("SELECT ?w (COUNT(?s) AS ?c) WHERE { ?s :worksFor ?w } GROUP BY ?w HAVING (COUNT(?s) > 1)", False),
    ("SELECT ?s (GROUP_CONCAT(?n; separator='|') AS ?g) WHERE { ?s :name ?n } GROUP BY ?s", False),
    ("SELECT ?s (SAMPLE(?n) AS ?m) WHERE { ?s :name ?n } GROUP BY ?s", False),
    ("SELECT (COUNT(*) AS ?c) WHERE { ?s :nothere ?o }", False),
    ("SELECT ?s ?b WHERE { ?s :age ?a BIND(?a + 1 AS ?b) }", False),
    ("SELECT ?s ?a WHERE { ?s :age ?a FILTER((?a + 1) * 2 - ?a > 32 && -?a < -1) }", False),
    ("SELECT ?s ?n WHERE { VALUES ?n { 'Alice' 'Bob' 'Zed' } ?s :name ?n }", False),
    ("SELECT ?s ?x WHERE { ?s :name ?n VALUES (?s ?x) { (:alice 1) (:bob UNDEF) (:nobody 3) } }", False),
    ("SELECT ?s ?o WHERE { ?s :knows+ ?o }", False),
    ("SELECT ?o WHERE { ?a :name 'Alice' . ?a :knows* ?o }", False),
    ("SELECT ?a ?o WHERE { ?a :name 'dave' . ?a :knows? ?o }", False),
    ("SELECT ?a WHERE { ?o :name 'Bob' . ?a :knows* ?o }", False),
    ("SELECT ?a WHERE { ?a :knows+ ?a }", False),
    ("SELECT ?s WHERE { ?s ^:knows :alice }", False),
    ("SELECT ?s ?o WHERE { ?s :knows/:worksFor ?o }", False),
    ("SELECT ?s ?o WHERE { ?s :worksFor|:partner ?o }", False),
    ("SELECT ?s ?o WHERE { ?s :worksFor/:partner+ ?o }", False),
    ("SELECT ?s ?c WHERE { ?s a :Person { SELECT ?s (COUNT(?o) AS ?c) WHERE { ?s :knows ?o } GROUP BY ?s } }", False),
    ("SELECT ?s WHERE { ?s a :Person FILTER NOT EXISTS { ?s :worksFor ?w } }", False),
    ("SELECT ?s WHERE { ?s a :Person FILTER EXISTS { ?s :knows ?o . ?o a :Manager } }", False),
    ("ASK { :alice :knows :bob }", False),
    ("ASK { :bob :knows :alice }", False),
    ("CONSTRUCT { ?o :knownBy ?s } WHERE { ?s :knows ?o }", False),
    ("SELECT ?s ?c WHERE { ?s :nick ?n BIND(CONCAT(?n, '-', ?n) AS ?c) }", False),
    ("SELECT ?s ?c WHERE { ?s :name ?n ; :age ?a BIND(CONCAT(?n, ?a) AS ?c) }", False),
    ("SELECT ?s ?c WHERE { ?s :score ?v BIND(CONCAT('a', ?v) AS ?c) }", False),
    ("SELECT ?s ?c WHERE { ?s :worksFor ?w BIND(CONCAT(?w) AS ?c) }", False),
    ("SELECT ?s WHERE { ?s :name ?n FILTER(CONCAT(?n, 'x') = 'Bobx') }", False),
    ("SELECT ?c ?d WHERE { BIND(CONCAT() AS ?c) BIND(COALESCE() AS ?d) }", False),
    ("ASK { FILTER(2 NOT IN ()) }", False),
    ("ASK { FILTER(2 IN ()) }", False),
    ("SELECT ?v ?i WHERE { ?s :code ?v BIND(xsd:integer(?v) AS ?i) }", False),
    ("SELECT ?v WHERE { ?s :code ?v } ORDER BY xsd:integer(?v) ?v", True),
    ("SELECT ?s ?i ?t WHERE { ?s :active ?v BIND(xsd:integer(?v) AS ?i) BIND(xsd:string(?v) AS ?t) }", False),
    ("SELECT ?s ?i ?t WHERE { ?s :worksFor ?w BIND(xsd:integer(?w) AS ?i) BIND(xsd:string(?w) AS ?t) }", False),
    ("SELECT ?s ?i WHERE { ?s :name ?n BIND(xsd:integer(?n) AS ?i) }", False),
    ("SELECT ?s WHERE { ?s :active ?a FILTER(xsd:integer(?a) = 1 && datatype(xsd:string(?a)) = xsd:string) }", False),
    ("SELECT ?v ?b WHERE { ?s :code ?v BIND(xsd:boolean(?v) AS ?b) }", False),
    ("SELECT ?s ?u ?l WHERE { ?s :name ?n BIND(UCASE(?n) AS ?u) BIND(LCASE(?n) AS ?l) }", False),
    ("SELECT ?s ?u WHERE { ?s :worksFor ?w BIND(UCASE(?w) AS ?u) }", False),
    ("SELECT ?n ?a ?b ?c ?d ?e WHERE { ?s :name ?n BIND(SUBSTR(?n, 2) AS ?a) BIND(SUBSTR(?n, 0, 3) AS ?b) "
     "BIND(SUBSTR(?n, -5, 7) AS ?c) BIND(SUBSTR(?n, 4, 100) AS ?d) BIND(SUBSTR(?n, 3, -1) AS ?e) }", False),
    ("SELECT ?s ?x WHERE { ?s :score ?v BIND(SUBSTR(?v, 1, 1) AS ?x) }", False),
    ("SELECT ?s ?a ?b WHERE { ?s :age ?v BIND(ABS(?v) AS ?a) BIND(ABS(2) AS ?b) }", False),
    ("SELECT ?s ?a WHERE { ?s :name ?v BIND(ABS(?v) AS ?a) }", False),
    ("SELECT ?s ?c ?f ?r WHERE { ?s :nick ?v BIND(CEIL(?v) AS ?c) BIND(FLOOR(?v) AS ?f) BIND(ROUND(?v) AS ?r) }",
     False),
    ("SELECT ?s ?c ?f ?r WHERE { ?s :age 30 ; :age ?v BIND(CEIL(?v) AS ?c) BIND(FLOOR(?v) AS ?f) "
     "BIND(ROUND(?v) AS ?r) }", False),
    ("SELECT ?s WHERE { ?s :name ?n FILTER(SUBSTR(?n, 1, 2) = 'Al' || LCASE(?n) = 'bob') }", False),
    ("SELECT ?v ?b WHERE { ?s :score ?v BIND(xsd:boolean(?v) AS ?b) }", False),
    ("SELECT ?s ?b WHERE { ?s :knows ?o BIND(xsd:boolean(?o) AS ?b) }", False),
    ("SELECT ?s WHERE { ?s :age ?a FILTER(xsd:boolean(?a) && xsd:boolean('1') && !xsd:boolean(0)) }", False),
    # language-tagged strings and decimals compared (literals.py): unequal to plain strings, decimals by value
    ("SELECT ?s ?l WHERE { ?s :label ?l FILTER(?l = 'Robert' || ?l != 'Robert') }", False),
    ("SELECT ?s ?w WHERE { ?s :weight ?w FILTER(?w > 70 && ?w < 70.6e0 && ?w != 70) }", False),
    ("SELECT ?s ?v WHERE { { ?s :age ?v } UNION { ?s :weight ?v } } ORDER BY DESC(?v) ?s", True),
    # language-tagged strings taken apart and built back (encoded.py)
    ("SELECT ?s ?c WHERE { ?s :label ?l BIND(CONCAT(?l, 'x') AS ?c) }", False),
    ("SELECT ?u WHERE { ?s :label ?w BIND(LCASE(?w) AS ?u) }", False),
    ("SELECT ?r ?c WHERE { ?s :weight ?w BIND(ABS(?w) AS ?r) BIND(CEIL(?w) AS ?c) }", False),
    ("SELECT ?s ?x WHERE { ?s :age ?a BIND(STR(?a) AS ?x) }", False),  # dave's 3.0E1 is "30"
    ("SELECT ?u ?v WHERE { ?s :word ?w BIND(SUBSTR(?w, 1, 2) AS ?u) BIND(SUBSTR(?w, 5) AS ?v) }", False),
]

# queries whose translation must stop on the data (an encoded literal reaches a comparison)
REFUSED_AT_RUN_TIME = [
    "SELECT ?s WHERE { ?s :label ?l FILTER(?l < 'S') }",
    "SELECT ?s WHERE { ?s :born ?b FILTER(?b = 'x') }",
    "SELECT ?s ?b WHERE { ?s :born ?b } ORDER BY ?b",
    "SELECT (SUM(?w) AS ?t) WHERE { ?s :weight ?w }",
    "SELECT ?x WHERE { ?s :height ?h BIND(STR(?h) AS ?x) }",
    "SELECT ?i WHERE { ?s :pad ?v BIND(xsd:integer(?v) AS ?i) }",
    "SELECT ?i WHERE { ?s :big ?v BIND(xsd:integer(?v) AS ?i) }",
    "SELECT ?b WHERE { ?s :pad ?v FILTER(isNumeric(?v) || xsd:boolean(?v)) }",
    "SELECT ?u WHERE { ?s :word ?w BIND(UCASE(?w) AS ?u) }",
    "SELECT ?r WHERE { ?s :height ?h BIND(ROUND(?h) AS ?r) }",
    "SELECT ?r WHERE { ?s :born ?w BIND(ABS(?w) AS ?r) }",
    "SELECT ?i WHERE { ?s :height ?v BIND(xsd:integer(?v) AS ?i) }",
]


@pytest.fixture(scope="module")
def server() -> Iterator[ManagedFalkorDB]:
    with short_tmp() as path, falkordb_server(path) as s:
        yield s


@pytest.fixture(scope="module", params=["fake", "bridge"])
def graph(request: pytest.FixtureRequest, server: ManagedFalkorDB) -> Iterator[tuple[Any, ox.Store, Mapping]]:
    """The data in Oxigraph and in FalkorDB, loaded by the test's loader with the fake mapping, or by the bridge's
    own mapping (``map_graph`` + ``write_graph``)."""
    g, store, mapping = load_both(server, DATA, request.param)
    yield g, store, mapping
    g.close()


def _oxigraph(store: ox.Store, query: str) -> Any:
    res = store.query(query)
    if isinstance(res, ox.QueryBoolean):
        return bool(res)
    if isinstance(res, ox.QuerySolutions):
        names = sorted(v.value for v in res.variables)
        return [tuple(s[n] for n in names) for s in res]
    return set(res)


def _falkordb(g: Any, mapping: Mapping, query: str) -> Any:
    c = translate(query, mapping)
    rows = g.query(c.text, c.params)
    if c.kind is Kind.ASK:
        return bool(rows)
    if c.kind is Kind.CONSTRUCT:
        return set(c.triples(rows, mapping))
    order = sorted(range(len(c.columns)), key=lambda i: c.columns[i])  # as _oxigraph: by name
    return [tuple(t[i] for i in order) for t in c.solutions(rows, mapping)]


@pytest.mark.parametrize(("query", "ordered"), QUERIES, ids=[f"q{i}" for i in range(len(QUERIES))])
def test_same_answers(graph: tuple[Any, ox.Store, Mapping], query: str, ordered: bool) -> None:
    g, store, mapping = graph
    expected = _oxigraph(store, P + query)
    try:
        got = _falkordb(g, mapping, P + query)
    except InvalidQuery as e:
        # the bridge's mapping encodes Oxigraph's canonical doubles ("30"), so a filter meeting one stops: a
        # refusal, never a different answer (the fake mapping keeps them native and must answer every query)
        if isinstance(mapping, RdfMapping) and RUNTIME_REFUSAL in str(e):
            return
        raise
    if isinstance(expected, list) and not ordered:
        assert Counter(got) == Counter(expected), translate(P + query, mapping).text
    else:
        assert got == expected, translate(P + query, mapping).text


@pytest.mark.parametrize("query", REFUSED_AT_RUN_TIME)
def test_encoded_literal_stops_the_statement(graph: tuple[Any, ox.Store, Mapping], query: str) -> None:
    g, _, mapping = graph
    with pytest.raises(InvalidQuery, match=RUNTIME_REFUSAL):
        _falkordb(g, mapping, P + query)


def _nested(wrap: str, base: str, levels: int) -> str:
    for _ in range(levels):
        base = wrap.format(base)
    return base


#: Expressions nested 6 levels: before the translator bound deep operands in WITH steps, FalkorDB's parse time grew
#: about 4x a level (a translated FILTER(!(!(!(?a = 30)))) took 5 s, past the client's timeout).
NESTED = [
    _nested("!({})", "?a = 30", 6),
    _nested("!(?a > 26 && {})", "?a != 35", 6),
    _nested("IF({}, ?a < 32, !(?a < 32))", "?a > 26", 6),
    _nested("COALESCE(IF({} = 30, ?a, 0), ?a)", "?a", 6) + " = 30",
    _nested("({} + ?a)", "?a", 6) + " > 200",
]


@pytest.mark.parametrize("condition", NESTED, ids=[f"n{i}" for i in range(len(NESTED))])
def test_nested_expressions_answer_fast(graph: tuple[Any, ox.Store, Mapping], condition: str) -> None:
    g, store, mapping = graph
    query = P + f"SELECT ?s ?a WHERE {{ ?s :age ?a FILTER({condition}) }}"
    c = translate(query, mapping)
    assert depth(c.text) <= MAX_DEPTH
    start = time.perf_counter()
    outcome: Counter[Any] | str
    try:
        outcome = Counter(_falkordb(g, mapping, query))
    except InvalidQuery as e:
        outcome = str(e)
    assert time.perf_counter() - start < 1.0
    if isinstance(outcome, str):  # the bridge's mapping encodes some doubles: a refusal, never a different answer
        assert isinstance(mapping, RdfMapping), outcome
        assert RUNTIME_REFUSAL in outcome
    else:
        assert outcome == Counter(_oxigraph(store, query))
