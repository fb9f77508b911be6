"""SPARQL -> Cypher on encoded literals (``bridge/sparql_to_cypher/literals.py``): decimals compared and ordered by
value, language-tagged and opaque literals in ``=``/``!=``, each answer equal to Oxigraph's on both mappings (the
fake's and the bridge's); what stays out of reach stops the statement. The values are chosen so that a naive
translation answers differently: decimals whose lexical order is not their numeric order (``10.25`` < ``9.75`` as
strings), a decimal equal to an integer, literals of one lexical form under different tags and datatypes (where
``!=`` is an error for some pairs and true for others), a decimal of 16 significant digits next to an integer past
2^53."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pyoxigraph as ox
import pytest
from support.bridge_fakes import DictMapping, load_both
from support.falkor import falkordb_server, short_tmp

from hybridkg.bridge.base import Mapping
from hybridkg.bridge.mapping import map_graph
from hybridkg.bridge.sparql_to_cypher import RUNTIME_REFUSAL, translate
from hybridkg.bridge.sparql_to_cypher.functions import NameTable
from hybridkg.bridge.sparql_to_cypher.literals import DECIMAL_EXACT, DECIMAL_LEXICAL, encoding
from hybridkg.errors import InvalidQuery, Unsupported

DATA = """
@prefix : <http://e/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:a :n "1.5"^^xsd:decimal . :b :n 2 . :c :n "10.25"^^xsd:decimal . :d :n "9.75"^^xsd:decimal .
:e :n "2.0"^^xsd:decimal . :f :n "1.0e0"^^xsd:double . :g :n "-0.5"^^xsd:decimal . :h :n 11 .
:u :n "-2.5"^^xsd:decimal . :v :n "-10.25"^^xsd:decimal .
:i :w "chat"@en . :j :w "chat"@fr . :k :w "chat" . :l :w "chat"^^:t . :m :w "chat"^^:u . :o :w "chat"@en .
:p :w 3 . :q :w "3"^^:t .
:r :long "0.1234567890123456"^^xsd:decimal . :s :long 9007199254740993 .
:t :when "2001-01-01"^^xsd:date .
:w1 :s "sab" . :w2 :s "abs"@en . :w3 :s "日本😀語s"@ja . :w4 :s "" . :w5 :s "ss"@en . :w6 :s "français" .
"""

P = "PREFIX : <http://e/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> "

QUERIES = [
    ("SELECT ?s ?v WHERE { ?s :n ?v FILTER(?v > 2) }", False),
    ("SELECT ?s ?v WHERE { ?s :n ?v FILTER(?v >= 2 && ?v <= 10) }", False),
    ("SELECT ?s ?v WHERE { ?s :n ?v FILTER(?v < 1.6e0) }", False),
    ("SELECT ?s ?v WHERE { ?s :n ?v FILTER(?v = 2 || ?v = 1) }", False),
    ("SELECT ?s ?v WHERE { ?s :n ?v FILTER(?v != 2) }", False),
    ("SELECT ?s ?v WHERE { ?s :n ?v FILTER(?v IN (11, 1, 'x')) }", False),
    ("SELECT ?x ?y WHERE { ?x :n ?v . ?y :n ?u FILTER(?v = ?u && ?x != ?y) }", False),
    ("SELECT ?x ?y WHERE { ?x :n ?v . ?y :n ?u FILTER(?v < ?u) }", False),
    # ties (2 and 2.0) are left out: their order is unspecified
    ("SELECT ?v WHERE { ?s :n ?v FILTER(?s != :e) } ORDER BY ?v", True),
    ("SELECT ?s ?v WHERE { ?s :n ?v FILTER(?s != :b) } ORDER BY DESC(?v) LIMIT 3", True),
    ("SELECT ?x ?y WHERE { ?x :w ?v . ?y :w ?u FILTER(?v = ?u) }", False),
    ("SELECT ?x ?y WHERE { ?x :w ?v . ?y :w ?u FILTER(?v != ?u) }", False),
    ("SELECT ?x WHERE { ?x :w ?v FILTER(?v = 'chat') }", False),
    ("SELECT ?x WHERE { ?x :w ?v FILTER(?v != 'chat') }", False),
    ("SELECT ?x WHERE { ?x :w ?v FILTER(?v = 3) }", False),
    ("SELECT ?x WHERE { ?x :w ?v FILTER(?v != 3) }", False),
    ("SELECT ?x ?b WHERE { ?x :w ?v BIND(?v = 'chat' AS ?b) }", False),
    # taken apart and built back (encoded.py)
    ("SELECT ?x ?l ?t WHERE { ?x :w ?v BIND(LANG(?v) AS ?l) BIND(STR(?v) AS ?t) }", False),
    (
        "SELECT ?x ?l ?t WHERE { { SELECT ?x ?v { ?x :n ?v FILTER(?x != :f) } } BIND(LANG(?v) AS ?l) "
        "BIND(STR(?v) AS ?t) }",
        False,
    ),
    (
        "SELECT ?x WHERE { { ?x :w ?v } UNION { ?x :n ?v } FILTER(datatype(?v) IN (:t, xsd:integer, xsd:decimal, "
        "<http://www.w3.org/1999/02/22-rdf-syntax-ns#langString>)) }",
        False,
    ),
    (
        "SELECT ?x WHERE { { ?x :w ?v } UNION { ?x :n ?v } FILTER(datatype(?v) != :t && datatype(?v) != xsd:string) }",
        False,
    ),
    ("SELECT ?x WHERE { ?x :w ?v FILTER(langMatches(lang(?v), 'EN') || lang(?v) = 'fr') }", False),
    ("SELECT ?x ?y ?c WHERE { ?x :w ?v . ?y :w ?u BIND(CONCAT(?v, ?u) AS ?c) }", False),
    ("SELECT ?x ?y ?c WHERE { ?x :w ?v . ?y :w ?u BIND(CONCAT(?v, ' ', ?u, '') AS ?c) }", False),
    (
        "SELECT ?x ?u ?l ?n ?s WHERE { ?x :w ?v BIND(UCASE(?v) AS ?u) BIND(LCASE(?v) AS ?l) BIND(STRLEN(?v) AS ?n) "
        "BIND(SUBSTR(?v, 2, 2) AS ?s) }",
        False,
    ),
    ("SELECT ?x WHERE { ?x :w ?v FILTER(CONTAINS(?v, 'ha') && STRSTARTS(?v, 'c') && STRENDS(?v, 't')) }", False),
    (
        "SELECT ?x ?a ?b ?c ?d WHERE { ?x :w ?v BIND(STRLANG(STR(?v), 'en-GB') AS ?a) BIND(STRDT(STR(?v), :t) AS ?b) "
        "BIND(STRLANG(?v, 'de') AS ?c) BIND(STRDT(?v, xsd:string) AS ?d) }",
        False,
    ),
    ("SELECT ?x ?y WHERE { ?x :w ?v . ?y :w ?u FILTER(STRLANG(STR(?v), 'en') = ?u) }", False),
    ("SELECT ?x ?y WHERE { ?x :w ?v . ?y :w ?u FILTER(STRDT(STR(?v), :t) = ?u) }", False),
    (
        "SELECT ?x ?a ?c ?f ?r WHERE { { SELECT ?x ?v { ?x :n ?v FILTER(?x != :f) } } BIND(ABS(?v) AS ?a) "
        "BIND(CEIL(?v) AS ?c) BIND(FLOOR(?v) AS ?f) BIND(ROUND(?v) AS ?r) }",
        False,
    ),
    ("SELECT ?x WHERE { ?x :n ?v FILTER(ABS(?v) > 2 && ABS(?v) < 10.5e0) }", False),
    # non-ASCII and non-BMP characters, edges of SUBSTR, STRBEFORE, STRAFTER (tags kept where found)
    (
        "SELECT ?x ?a ?b ?c ?d WHERE { ?x :s ?v BIND(SUBSTR(?v, 2) AS ?a) BIND(SUBSTR(?v, 2, 2) AS ?b) "
        "BIND(SUBSTR(?v, 0, 3) AS ?c) BIND(SUBSTR(?v, 10) AS ?d) }",
        False,
    ),
    (
        "SELECT ?x ?a ?b ?c ?d ?e WHERE { ?x :s ?v BIND(STRBEFORE(?v, 's') AS ?a) BIND(STRAFTER(?v, 's') AS ?b) "
        "BIND(STRBEFORE(?v, '') AS ?c) BIND(STRAFTER(?v, '') AS ?d) BIND(STRAFTER(?v, '本') AS ?e) }",
        False,
    ),
    (
        "SELECT ?x ?y ?a ?b WHERE { ?x :s ?v . ?y :s ?u BIND(STRBEFORE(?v, ?u) AS ?a) BIND(STRAFTER(?v, ?u) AS ?b) }",
        False,
    ),
    ("SELECT ?x ?n ?c WHERE { ?x :s ?v BIND(STRLEN(?v) AS ?n) BIND(CONCAT(?v, ?v) AS ?c) }", False),
    # VALUES joined with terms of unknown kind (tagged lists): IRIs, literals of each kind
    ("SELECT ?x ?p ?v WHERE { ?x ?p ?v } VALUES ?v { 'chat' 3 'chat'@en '3'^^:t :b }", False),
    ("SELECT ?x ?p ?v WHERE { ?x ?p ?v } VALUES (?p ?v) { (:w 'chat'@fr) (:n 2) (:nothere 3) }", False),
]

REFUSED_AT_RUN_TIME = [
    "SELECT ?s WHERE { ?s :long ?v FILTER(?v > 0) }",  # 16 significant digits
    "SELECT ?v WHERE { ?s :long ?v } ORDER BY ?v",
    "SELECT ?s WHERE { ?s :w ?v FILTER(?v < 'd') }",  # language-tagged strings are not ordered
    "SELECT ?v WHERE { ?s :w ?v } ORDER BY ?v",
    "SELECT ?x WHERE { ?x :w ?v FILTER(?v > 2) }",
    "SELECT ?r WHERE { ?x :n ?v BIND(ROUND(?v) AS ?r) }",  # a double
    "SELECT ?s WHERE { ?s :when ?v FILTER(?v = 'x') }",  # a date
]


@pytest.fixture(scope="module")
def server() -> Iterator[Any]:
    with short_tmp() as path, falkordb_server(path) as s:
        yield s


@pytest.fixture(scope="module", params=["fake", "bridge"])
def graph(request: pytest.FixtureRequest, server: Any) -> Iterator[tuple[Any, ox.Store, Mapping]]:
    g, store, mapping = load_both(server, DATA, request.param)
    yield g, store, mapping
    g.close()


def _rows(names: list[str], solutions: Any) -> list[tuple[Any, ...]]:
    order = sorted(range(len(names)), key=lambda i: names[i])
    return [tuple(t[i] for i in order) for t in solutions]


@pytest.mark.parametrize(("query", "ordered"), QUERIES, ids=[f"q{i}" for i in range(len(QUERIES))])
def test_same_answers(graph: tuple[Any, ox.Store, Mapping], query: str, ordered: bool) -> None:
    g, store, mapping = graph
    res = store.query(P + query)
    assert isinstance(res, ox.QuerySolutions)
    names = [v.value for v in res.variables]
    expected = _rows(names, ([s[n] for n in names] for s in res))
    if "?p" in query and not isinstance(mapping, NameTable):  # variable predicates need the name table
        with pytest.raises(Unsupported, match="does not list its names"):
            translate(P + query, mapping)
        return
    c = translate(P + query, mapping)
    got = _rows(list(c.columns), c.solutions(g.query(c.text, c.params), mapping))
    if ordered:
        assert got == expected, c.text
    else:
        assert Counter(got) == Counter(expected), c.text


@pytest.mark.parametrize("query", REFUSED_AT_RUN_TIME)
def test_out_of_reach_stops_the_statement(graph: tuple[Any, ox.Store, Mapping], query: str) -> None:
    g, _, mapping = graph
    c = translate(P + query, mapping)
    with pytest.raises(InvalidQuery, match=RUNTIME_REFUSAL):
        g.query(c.text, c.params)


def test_both_mappings_have_an_encoding() -> None:
    assert encoding(DictMapping()) is not None
    assert encoding(map_graph([]).mapping) is not None


class _Native(DictMapping):
    def to_value(self, literal: ox.Literal) -> Any:
        return literal.value  # decimals as bare strings: no prefix to read, so no encoding


def test_a_mapping_without_prefixes_has_none() -> None:
    assert encoding(_Native()) is None


@pytest.mark.parametrize(
    ("lexical", "exact"),
    [
        ("1.5", True),
        ("-0.5", True),
        ("123456789012345", True),
        ("1234567890123456", False),
        ("0.123456789012345", True),
        ("0.1234567890123456", False),
        ("12345678901234.50000", True),
        (".5", True),
        ("+007.250", True),
        ("1e5", None),
        ("", None),
        (".", None),
        ("1.2.3", None),
    ],
)
def test_decimal_checks(lexical: str, exact: bool | None) -> None:
    """The two regexes the statement runs on a decimal's lexical form (RE2 syntax, which Python's ``re`` reads the
    same way for these): valid, and at most 15 digits past leading zeros (trailing fraction zeros aside)."""
    import re

    valid = re.match(DECIMAL_LEXICAL.replace(r"\z", r"\Z"), lexical) is not None
    assert valid == (exact is not None)
    if valid:
        assert (re.match(DECIMAL_EXACT.replace(r"\z", r"\Z"), lexical) is not None) == exact
