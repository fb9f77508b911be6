"""owl:sameAs in the duckdb engine: a union-find over the equality edges, every triple rewritten to its classes'
representatives while reasoning and expanded on output; ranks for every triple handed out; retractions that
split a class."""

from __future__ import annotations

from pyoxigraph import NamedNode, RdfFormat, Triple, parse

from hybridkg.semantic.reasoning.duckdb_engine import DuckDBClosure, DuckDBReasoner, _pair_ranks
from hybridkg.semantic.vocab import SAME_AS

PREFIXES = """@prefix : <http://example.org/> . @prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
"""


def ttl(text: str) -> set[Triple]:
    return {q.triple for q in parse((PREFIXES + text).encode(), format=RdfFormat.TURTLE)}


def ex(name: str) -> NamedNode:
    return NamedNode("http://example.org/" + name)


def chain(n: int) -> str:
    """A sameAs chain a0 .. a{n-1}, two facts about every member, a functional property on a0."""
    return " ".join(f":a{i} owl:sameAs :a{i + 1} ." for i in range(n - 1)) + " ".join(
        f" :a{i} :p :b{i} . :a{i} a :C{i % 3} ." for i in range(n)
    ) + " :C0 rdfs:subClassOf :D . :f a owl:FunctionalProperty . :a0 :f :v ."


def test_a_clique_is_stored_once_and_expanded_on_output() -> None:
    n = 40
    asserted = ttl(chain(n))
    closure = DuckDBClosure(asserted)
    try:
        stored = closure.con.execute("SELECT count(*) FROM t").fetchall()[0][0]
        inferred = closure.inferred()
    finally:
        closure.close()
    # n^2 sameAs pairs and every fact on every member: the expansion; the representatives' form is linear
    closure_out = inferred | asserted
    assert {Triple(ex(f"a{i}"), SAME_AS, ex(f"a{j}")) for i in range(n) for j in range(n) if i != j} <= closure_out
    assert {Triple(ex(f"a{i}"), ex("p"), ex(f"b{j}")) for i in range(n) for j in range(n)} <= closure_out
    assert not inferred & asserted
    assert stored < 5 * n < len(inferred) / 10


def test_derived_equalities_merge_classes_across_rounds() -> None:
    # prp-fp equates y1 and y2, prp-ifp then z1 and z2 (through y1 = y2), the key then k1 and k2
    text = (":f a owl:FunctionalProperty . :g a owl:InverseFunctionalProperty . :K owl:hasKey ( :h ) . "
            ":x :f :y1 , :y2 . :z1 :g :y1 . :z2 :g :y2 . :k1 a :K ; :h :z1 . :k2 a :K ; :h :z2 . :k1 :q :w .")
    inferred = DuckDBReasoner().materialize(ttl(text))
    for a, b in (("y1", "y2"), ("z2", "z1"), ("k1", "k2")):
        assert Triple(ex(a), SAME_AS, ex(b)) in inferred
    assert Triple(ex("k2"), ex("q"), ex("w")) in inferred
    assert Triple(ex("k2"), SAME_AS, ex("k2")) not in inferred  # reflexive: normalised away, as before


def test_every_inferred_triple_has_a_rank_and_asserted_ones_rank_zero() -> None:
    asserted = ttl(chain(12))
    closure = DuckDBClosure(asserted)
    try:
        inferred = closure.inferred()
        ranks = closure.ranks(inferred | asserted)
    finally:
        closure.close()
    assert ranks.keys() == inferred | asserted
    assert all(ranks[t] == 0 for t in asserted)
    assert all(ranks[t] > 0 for t in inferred)
    # a pair's rank grows with the logarithm of its distance on the chain (eq-trans doubles what it spans)
    assert ranks[Triple(ex("a0"), SAME_AS, ex("a11"))] == 4
    assert ranks[Triple(ex("a11"), SAME_AS, ex("a0"))] == 5  # one eq-sym more


def test_pair_ranks() -> None:
    edges = [(1, 2, 0), (2, 3, 0), (3, 4, 0), (4, 5, 0), (1, 5, 7)]
    assert _pair_ranks(edges, 1) == {2: 0, 3: 1, 4: 2, 5: 2}
    assert _pair_ranks(edges, 1, reverse=True) == {2: 1, 3: 2, 4: 3, 5: 3}
    assert _pair_ranks([(1, 2, 3)], 2) == {1: 4}


def _session_against_recomputation(base: set[Triple], steps: list[tuple[set[Triple], set[Triple]]]) -> None:
    engine = DuckDBReasoner()
    session = engine.session(base)
    asserted = set(base)
    try:
        before = frozenset(engine.materialize(asserted))
        assert session.inferred == before
        for k, (plus, minus) in enumerate(steps):
            asserted = (asserted - minus) | plus
            delta = session.apply(added=plus, removed=minus)
            after = frozenset(engine.materialize(asserted))
            assert session.inferred == after, f"step {k}: {sorted(map(str, session.inferred ^ after))[:5]}"
            assert (delta.added, delta.removed) == (after - before, before - after), f"step {k}"
            before = after
    finally:
        session.close()  # type: ignore[attr-defined]


def test_removing_an_edge_in_the_middle_of_a_chain_splits_the_class() -> None:
    base = ttl(chain(10))
    cut = ttl(":a4 owl:sameAs :a5 .")
    _session_against_recomputation(base, [(set(), cut), (cut, set())])
    engine = DuckDBReasoner()
    inferred = engine.materialize(base - cut)
    assert Triple(ex("a0"), SAME_AS, ex("a4")) in inferred
    assert Triple(ex("a0"), SAME_AS, ex("a5")) not in inferred
    assert Triple(ex("a9"), ex("f"), ex("v")) not in inferred


def test_retracting_the_support_of_a_derived_equality_splits_the_class() -> None:
    base = ttl(":f a owl:FunctionalProperty . :x :f :y1 , :y2 . :y1 :p :z . :y2 owl:sameAs :y3 . :m :r :n .")
    steps = [
        (set(), ttl(":x :f :y2 .")),  # y1 = y2 loses its support
        (ttl(":x :f :y3 ."), set()),  # y1 = y3 = y2 again, through y3
        (set(), ttl(":m :r :n .")),  # unrelated to any class: DRed as usual
        (ttl(":y1 :p :w . :z owl:sameAs :w ."), ttl(":y1 :p :z .")),
    ]
    _session_against_recomputation(base, steps)


def test_merging_two_classes_in_a_session() -> None:
    base = ttl(":a owl:sameAs :b . :c owl:sameAs :d . :a :p :x . :d :q :y . :q owl:inverseOf :qi .")
    _session_against_recomputation(base, [(ttl(":b owl:sameAs :c ."), set()), (set(), ttl(":a :p :x ."))])


def test_equal_classes_and_properties_change_the_schema() -> None:
    text = (":C a owl:Class . :D a owl:Class . :x a :C . :C rdfs:subClassOf :E . :p a owl:ObjectProperty . "
            ":q a owl:ObjectProperty . :p rdfs:domain :F . :u :q :v .")
    base = ttl(text)
    inferred = DuckDBReasoner().materialize(base | ttl(":C owl:sameAs :D . :p owl:sameAs :q ."))
    assert Triple(ex("D"), NamedNode("http://www.w3.org/2000/01/rdf-schema#subClassOf"), ex("E")) in inferred
    assert Triple(ex("u"), NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), ex("F")) in inferred
    _session_against_recomputation(base, [(ttl(":C owl:sameAs :D . :p owl:sameAs :q ."), set()),
                                          (set(), ttl(":p owl:sameAs :q ."))])
