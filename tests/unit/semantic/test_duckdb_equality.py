"""owl:sameAs in the duckdb engine: a union-find over the equality edges, every triple rewritten to its classes'
representatives while reasoning and expanded on output; ranks for every triple handed out; retractions that
split a class, dissolving that class only (no full recomputation)."""

from __future__ import annotations

import random
from collections.abc import Collection

import pytest
from pyoxigraph import NamedNode, RdfFormat, Triple, parse
from support import rulecheck
from support.shared import shared_path

from hybridkg.semantic.base import Explanation
from hybridkg.semantic.reasoning.duckdb_engine import DuckDBClosure, DuckDBReasoner, DuckDBSession, _pair_ranks
from hybridkg.semantic.reasoning.explain import Explainer
from hybridkg.semantic.reasoning.memview import MemoryGraphView
from hybridkg.semantic.vocab import SAME_AS, THING, TYPE

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


def _nodes(tree: Explanation) -> list[Explanation]:
    return [tree, *(n for p in tree.premises for n in _nodes(p))]


def rank_problems(session: DuckDBSession, asserted: set[Triple], goals: Collection[Triple]) -> list[str]:
    """What is wrong with the session's ranks: a triple of the closure without one, an asserted triple not at 0, an
    inferred one at 0; a goal (inferred) the explainer, guided by the ranks, cannot prove without falling back to
    the unranked search, or proves with a premise not ranked below its conclusion."""
    inferred = session.inferred
    ranks = session.ranks(inferred | asserted)
    problems = [f"no rank: {t}" for t in (inferred | asserted) - ranks.keys()]
    problems += [f"asserted, rank {ranks[t]}: {t}" for t in asserted if ranks.get(t, 0) != 0]
    problems += [f"inferred, rank 0: {t}" for t in inferred if ranks.get(t) == 0]
    view = MemoryGraphView(asserted, set(inferred))
    explainer = Explainer(view, ranks=session.ranks)
    for goal in goals:
        if goal.predicate == TYPE and goal.object == THING:
            continue  # the engine's owl:Thing for every subject: the explainer's proof of it is not rank-guided
        tree = explainer.explain(goal)
        if tree.rule is None:
            problems.append(f"no proof: {goal}")
            continue
        problems += rulecheck.check_explanation(tree, asserted)
        nodes = _nodes(tree)
        found = session.ranks({n.triple for n in nodes})
        for node in nodes:
            top = found.get(node.triple)
            if node.rule is None or top is None or (node.triple.predicate == TYPE and node.triple.object == THING):
                continue
            limit = top + 1 if node.rule == "prp-trp" or node.rule.startswith("scm-") else top
            problems += [f"{p.triple} ({found[p.triple]}) under {node.triple} ({top})" for p in node.premises
                         if found.get(p.triple, -1) >= limit]
    if explainer.unranked_fallbacks:
        problems.append(f"{explainer.unranked_fallbacks} unranked fallbacks")
    return problems


def _session_against_recomputation(base: set[Triple], steps: list[tuple[set[Triple], set[Triple]]]) -> DuckDBClosure:
    """Apply ``steps`` to a session on ``base``; after each, the inferred set and the delta equal those of full
    recomputations and the ranks serve the explainer (:func:`rank_problems`). Returns the session's closure (closed,
    its counters still readable)."""
    engine = DuckDBReasoner()
    session = engine.session(base)
    assert isinstance(session, DuckDBSession)
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
            assert rank_problems(session, asserted, after) == [], f"step {k}"
            before = after
    finally:
        session.close()
    return session._closure


def test_removing_an_edge_in_the_middle_of_a_chain_splits_the_class() -> None:
    base = ttl(chain(10))
    cut = ttl(":a4 owl:sameAs :a5 .")
    closure = _session_against_recomputation(base, [(set(), cut), (cut, set())])
    assert (closure.splits, closure.rebuilds) == (1, 0)
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
        (set(), ttl(":y2 owl:sameAs :y3 .")),  # y1 = y3 still holds (derived), y2 leaves
    ]
    closure = _session_against_recomputation(base, steps)
    assert (closure.splits, closure.rebuilds) == (2, 0)  # the first and last steps split, the others are DRed


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
    closure = _session_against_recomputation(base, [(ttl(":C owl:sameAs :D . :p owl:sameAs :q ."), set()),
                                                    (set(), ttl(":p owl:sameAs :q .")),
                                                    (set(), ttl(":C owl:sameAs :D ."))])
    assert (closure.splits, closure.rebuilds) == (2, 0)  # split, schema recompiled: no full recomputation


def test_a_derived_equality_between_declared_terms_splits_with_the_schema() -> None:
    # K's key equates the classes C1 and C2; retracting a key value splits them, and the schema with them
    base = ttl(":K owl:hasKey ( :k ) . :C1 a owl:Class , :K ; :k :v . :C2 a owl:Class , :K ; :k :v . "
               ":C1 rdfs:subClassOf :D . :x a :C2 . :m :r :n .")
    closure = _session_against_recomputation(base, [(set(), ttl(":m :r :n .")), (set(), ttl(":C2 :k :v .")),
                                                    (ttl(":C2 :k :v ."), set())])
    assert (closure.splits, closure.rebuilds) == (1, 0)


@pytest.mark.slow
def test_lubm1_with_a_chain_of_50_splits_one_class_without_recomputing() -> None:
    lubm = shared_path("lubm")
    asserted: set[Triple] = set()
    for name, fmt in (("univ-bench.ttl", RdfFormat.TURTLE), ("lubm1-University0.nt", RdfFormat.N_TRIPLES)):
        asserted |= {Triple(q.subject, q.predicate, q.object) for q in parse(path=lubm / name, format=fmt)}
    students = sorted({t.subject for t in asserted if t.predicate == TYPE and str(t.object).endswith(
        "#UndergraduateStudent>")}, key=str)[:50]
    links = [Triple(a, SAME_AS, b) for a, b in zip(students, students[1:], strict=False)]
    cut = links[24]  # the middle: two classes of 25
    base = asserted | set(links)
    engine = DuckDBReasoner()
    session = engine.session(base)
    assert isinstance(session, DuckDBSession)
    try:
        before = session.inferred
        assert Triple(students[0], SAME_AS, students[49]) in before
        delta = session.apply(removed={cut})
        expected = frozenset(engine.materialize(base - {cut}))
        assert session.inferred == expected
        assert (delta.added, delta.removed) == (expected - before, before - expected)
        assert Triple(students[0], SAME_AS, students[49]) in delta.removed
        assert Triple(students[0], SAME_AS, students[24]) in expected
        assert (session._closure.splits, session._closure.rebuilds) == (1, 0)
        # ranks for the whole closure, and proofs the ranks guide for a sample around the split classes
        near = sorted((t for t in expected if t.subject in (students[0], students[24], students[25], students[49])),
                      key=str)
        goals = random.Random(20261124).sample(near, 150)
        assert rank_problems(session, base - {cut}, goals) == []
    finally:
        session.close()


def test_removals_that_keep_a_class_do_not_pile_up_rewrite_steps() -> None:
    """A DRed removal re-enters the kept asserted triples about a class's members in its representatives' form;
    the rewrite steps kept for their ranks (``hist``) are recorded once, not once per removal."""
    asserted = ttl(chain(6) + " :a3 :knows :a4 . :a5 :knows :a1 .")  # two positions rewritten: steps kept
    unrelated = Triple(ex("z"), ex("q"), ex("w"))
    session = DuckDBSession(asserted | {unrelated})
    try:
        con = session._closure.con

        def hist() -> int:
            return int(con.execute("SELECT count(*) FROM hist").fetchall()[0][0])

        session.apply(removed=[unrelated])
        session.apply(added=[unrelated])
        settled = hist()
        assert settled > 0  # the chain's members' facts were rewritten: there are steps to keep
        for _ in range(4):
            session.apply(removed=[unrelated])
            session.apply(added=[unrelated])
        assert hist() == settled
        assert session.inferred == DuckDBReasoner().materialize(asserted | {unrelated})
    finally:
        session.close()
