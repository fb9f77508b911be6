"""SPARQL -> Cypher refuses, naming the construct, whatever it cannot translate exactly."""

from __future__ import annotations

import pytest
from support.bridge_fakes import DictMapping

from hybridkg.bridge import sparql_to_cypher
from hybridkg.bridge.sparql_to_cypher import emit, functions, translate
from hybridkg.bridge.sparql_to_cypher.functions import translate_regex
from hybridkg.errors import Unsupported

P = "PREFIX : <http://e/> "
MAPPING = DictMapping(
    labels={"http://e/Person": "Person"},
    relationships={"http://e/knows": "knows", "http://e/both": "both_r"},
    properties={"http://e/name": "name", "http://e/age": "age", "http://e/both": "both_k"},
)

REFUSED = [
    ("SELECT * WHERE { ?s ?p ?o }", "variable predicate"),
    ("SELECT * WHERE { ?s a ?c }", "variable class"),
    ("SELECT (AVG(?a) AS ?m) WHERE { ?s :age ?a }", "AVG"),
    ("SELECT ?s WHERE { ?s :age ?a FILTER(?a / 2 > 1) }", "division"),
    ("SELECT * WHERE { ?s a :Person OPTIONAL { ?s :knows ?o } ?o :name ?n }", "may be unbound"),
    ("SELECT * WHERE { ?s a :Person OPTIONAL { ?s :knows ?o } OPTIONAL { ?o :name ?n } }", "may be unbound"),
    ("SELECT * WHERE { { ?s :knows ?o } UNION { ?s :name ?n } ?o :name ?m }", "may be unbound"),
    ("SELECT * WHERE { { ?x :knows ?y } UNION { ?x :age ?y } }", "node in one UNION branch"),
    ("SELECT * WHERE { ?s :name ?n BIND(:x AS ?i) }", "BIND of an IRI"),
    ("SELECT * FROM <http://g> WHERE { ?s :name ?n }", "FROM"),
    ("SELECT * WHERE { GRAPH ?g { ?s :name ?n } }", "Graph"),
    ("SELECT * WHERE { SERVICE <http://x> { ?s :name ?n } }", "Service"),
    ("DESCRIBE :a", "DESCRIBE"),
    ("SELECT ?o WHERE { :a :knows* ?o }", "constant end"),
    ("SELECT * WHERE { ?s :knows* ?o }", "both ends unbound"),
    ("SELECT * WHERE { ?s :name+ ?o }", "literal objects"),
    ("SELECT * WHERE { ?s (:knows/:knows)+ ?o }", "property path"),
    ("SELECT * WHERE { ?s :knows ?o VALUES ?x { :a :b } }", "VALUES binding IRIs"),
    ("SELECT * WHERE { ?s a :Person { SELECT ?s WHERE { ?s :knows ?o } LIMIT 1 } }", "LIMIT/OFFSET in a sub-SELECT"),
    ("SELECT DISTINCT ?s WHERE { ?s :name ?n } ORDER BY ?n", "ORDER BY an expression of unprojected"),
    ("SELECT * WHERE { ?s :age 1.5 }", "rewrites its lexical form"),
    ("SELECT * WHERE { ?s :age 030 }", "non-canonical numbers"),
    ("SELECT * WHERE { ?s :name ?n FILTER(regex(?n, ?n)) }", "non-constant pattern"),
    ("SELECT (COUNT(DISTINCT *) AS ?c) WHERE { ?s :name ?n }", r"COUNT\(DISTINCT \*\)"),
    ("SELECT ?l (COUNT(*) AS ?c) WHERE { ?s :name ?n } GROUP BY (MD5(?n) AS ?l)", "MD5"),
    ("SELECT * WHERE { ?s :name ?n FILTER(?n = 'a'@en) }", "stores encoded"),
    ("SELECT * WHERE { ?s :name ?n FILTER(STRLEN(MD5(?n)) > 1) }", "MD5"),
    ("SELECT * WHERE { ?s :name ?n BIND(SUBSTR(?n, 1.5) AS ?x) }", "integer constant"),
    ("SELECT * WHERE { ?s :name ?n BIND(SUBSTR(?n, 1, ?n) AS ?x) }", "integer constant"),
    ("SELECT * WHERE { ?s :name ?n BIND(UCASE(SUBSTR(?n, 1, 2)) AS ?x) }", "of an expression"),
    ("SELECT * WHERE { ?s :age ?a BIND(ROUND(?a + 1) AS ?x) }", "ROUND of an expression"),
    ("SELECT * WHERE { ?s :name ?n BIND(CONCAT(?n, 'x'@en) AS ?c) }", "stores encoded"),
    ("PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> SELECT * WHERE { ?s :age ?a FILTER(xsd:double(?a) > 1) }",
     "function <http://www.w3.org/2001/XMLSchema#double>"),
    ("SELECT * WHERE { ?s :age ?a FILTER(:f(?a)) }", "function <http://e/f>"),
    ("PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> SELECT * WHERE { ?s :age ?a FILTER(xsd:boolean(?a - 1)) }",
     "of an expression"),
    ("SELECT (MIN(?o) AS ?m) WHERE { ?s :knows ?o }", "over IRIs"),
    ("SELECT * WHERE { ?s :age ?a { ?a :knows* ?a } UNION { ?s :knows ?a } }", "from or to a literal"),
    ("SELECT * WHERE { ?s :name ?n OPTIONAL { ?s :age ?a FILTER((false)) } }", "constant rdflib's algebra drops"),
    ("SELECT * WHERE { ?s a :Person OPTIONAL { ?s :knows ?o { ?o :name ?n } UNION { ?o :age ?n } } }", "UNION after"),
]


@pytest.mark.parametrize(("query", "names"), REFUSED, ids=[f"r{i}" for i in range(len(REFUSED))])
def test_refused(query: str, names: str) -> None:
    with pytest.raises(Unsupported, match=names):
        translate(P + query, MAPPING)


def test_an_oversized_translation_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sparql_to_cypher, "MAX_STATEMENT", 200)
    with pytest.raises(Unsupported, match="exceeds 200 characters"):
        translate(P + "SELECT * WHERE { ?s :age ?a FILTER(?a > 1) }", MAPPING)


def test_a_translation_nesting_past_the_limit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(emit, "MAX_DEPTH", 2)
    with pytest.raises(Unsupported, match="nested [0-9]+ levels deep"):
        translate(P + "SELECT * WHERE { ?s :age ?a FILTER(?a > 1) }", MAPPING)


def test_deep_operands_are_bound_in_steps_of_their_own_so_expressions_stay_shallow() -> None:
    condition = "?a = 30"
    for _ in range(12):
        condition = f"!(?a > 1 && {condition})"
    text = translate(P + f"SELECT * WHERE {{ ?s :age ?a FILTER({condition}) }}", MAPPING).text
    assert emit.depth(text) <= functions.SHALLOW + 4
    assert text.count("UNWIND [") >= 4  # one step per few levels, not one expression 36 levels deep


def test_nesting_is_measured_as_the_engine_pays_for_it() -> None:
    assert emit.depth("RETURN ((1))") == 2
    assert emit.depth("RETURN (NOT (NOT x))") == 4
    assert emit.depth("RETURN CASE WHEN x IS NOT NULL THEN [1] END") == 2  # IS NOT NULL nests nothing
    assert emit.depth("RETURN NOT a AND NOT b AND NOT c") == 1
    assert emit.depth("RETURN '(((', `a(b`") == 0  # strings and names are not brackets
    assert emit.depth("MATCH (a) CALL { WITH a CALL { WITH a RETURN (1) AS x } RETURN x } RETURN x") == 1


def test_a_query_too_deep_for_rdflibs_parser_is_refused() -> None:
    condition = "?a = 30"
    for _ in range(40):
        condition = f"!({condition})"
    with pytest.raises(Unsupported, match="too deeply"):
        translate(P + f"SELECT * WHERE {{ ?s :age ?a FILTER({condition}) }}", MAPPING)


def test_regex_is_rewritten_into_the_engines_syntax() -> None:
    assert translate_regex("^a.c$", "") == "^a[^\\n\\r]c\\z"
    assert translate_regex("[a.$]\\.x", "i") == "(?i)[a.$]\\.x"


@pytest.mark.parametrize(
    ("pattern", "flags", "names"),
    [
        ("\\d+", "", "escape"),
        ("a", "s", "flags"),
        ("é", "i", "non-ASCII"),
        ("(?i)a", "", "group"),
        ("[[a]]", "", "nested"),
    ],
)
def test_regex_outside_the_safe_subset_is_refused(pattern: str, flags: str, names: str) -> None:
    with pytest.raises(Unsupported, match=names):
        translate_regex(pattern, flags)


class NamedMapping(DictMapping):
    """The test mapping listing its names, as variable predicates need."""

    def names(self) -> dict[str, str]:
        return {n: iri for table in (self.labels, self.relationships, self.properties) for iri, n in table.items()}


NAMED = NamedMapping(MAPPING.labels, MAPPING.relationships, MAPPING.properties)


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("SELECT * WHERE { ?s ?p ?s }", "two of its places"),
        ("SELECT * WHERE { ?s ?p ?o FILTER(sameTerm(?o, 'a')) }", "sameTerm of a variable"),
        ("SELECT * WHERE { ?s ?p ?o FILTER(?o IN (:a, 1)) }", "RelationalExpression of a variable"),
        ("SELECT * WHERE { ?s ?p ?o FILTER(isNumeric(?o)) }", "isNUMERIC of a variable"),
        ("SELECT ?p (SAMPLE(?o) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p", "SAMPLE over a variable that may be"),
        ("SELECT (SUM(?o + 1) AS ?n) WHERE { ?s :both ?o }", "SUM over a variable that may be"),
        ("SELECT * WHERE { ?s :both ?o . ?t :both ?o }", "in two triple patterns"),
    ],
)
def test_a_variable_predicates_terms_are_only_projected(query: str, names: str) -> None:
    with pytest.raises(Unsupported, match=names):
        translate(P + query, NAMED)


def test_a_term_of_unknown_kind_is_tested_by_its_tag_and_read_as_a_literal_elsewhere() -> None:
    c = translate(P + "SELECT ?s WHERE { ?s :both ?o FILTER(isIRI(?o) || ?o > 2) }", NAMED)
    assert "v_o[0] = 'i'" in c.text
    assert "v_o[2]" in c.text  # a literal's value: only a literal's list has a third item


def test_a_term_of_unknown_kind_equals_iris_and_nodes_by_its_tagged_list() -> None:
    c = translate(P + "SELECT ?s WHERE { ?s ?p ?o FILTER(?p = :knows || ?o != ?s || sameTerm(?p, :name)) }", NAMED)
    assert "v_p = $" in c.text
    assert "(NOT (v_o = (CASE WHEN v_s.`uri` IS NULL" in c.text
    assert ["i", "http://e/knows"] in c.params.values()


def test_a_variable_predicate_reads_relationships_properties_and_labels() -> None:
    c = translate(P + "SELECT DISTINCT ?p ?o WHERE { :a ?p ?o }", NAMED)
    assert c.text.count("UNION ALL") == 2
    for reader in ("type(", "keys(", "labels("):
        assert reader in c.text
    assert {"http://e/knows", "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"} <= {
        v for p in c.params.values() for v in (p.values() if isinstance(p, dict) else [p])
    }


def test_a_variable_class_reads_labels_only_when_rdf_type_has_no_relationships() -> None:
    c = translate(P + "SELECT ?s ?c WHERE { ?s a ?c }", NAMED)
    assert "labels(v_s)" in c.text
    assert "UNION ALL" not in c.text  # rdf:type has no relationship type or property key in this mapping


def test_string_tests_need_compatible_arguments() -> None:
    c = translate(P + "SELECT ?s WHERE { ?s :name ?n FILTER(CONTAINS(?n, 'a') && STRLEN(?n) > 2) }", MAPPING)
    assert " CONTAINS " in c.text
    assert "size(" in c.text
    assert "= '' OR " in c.text  # the second argument without a language tag, or both with the same


def test_concat_of_plain_strings_is_string_addition_and_an_empty_argument_list_is_rdf_nil() -> None:
    c = translate(P + "SELECT ?c ?e WHERE { ?s :name ?n BIND(CONCAT(?n, 'x') AS ?c) BIND(CONCAT() AS ?e) }", MAPPING)
    assert " + " in c.text
    assert "" in c.params.values()
    assert "x" in c.params.values()
    c = translate(P + "ASK { ?s :name ?n FILTER(?n NOT IN () && COALESCE() = 1) }", MAPPING)
    assert "http://www.w3.org/1999/02/22-rdf-syntax-ns#nil" not in c.params.values()
