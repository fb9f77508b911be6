"""The duckdb engine's incremental maintenance (semi-naive additions, DRed removals) against full recomputation.

LUBM(1) in a live :class:`DuckDBSession`, then 1,000 generated additions, 1,000 seeded removals and a schema axiom
added and removed: after each step the session's inferred set equals ``DuckDBReasoner().materialize`` of the
asserted set, and the :class:`InferenceDelta` equals the difference of the full recomputations before and after.
Small hand-written cases cover DRed's tricky paths, each checked against ``materialize`` and against the
``reasonable`` engine.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from pyoxigraph import NamedNode, RdfFormat, Triple, parse
from support.shared import shared_path

from hybridkg.semantic.base import InferenceDelta
from hybridkg.semantic.reasoning.duckdb_engine import DuckDBReasoner, DuckDBSession
from hybridkg.semantic.reasoning.reasonable_engine import ReasonableReasoner
from hybridkg.semantic.vocab import SAME_AS, SUBCLASS, THING, TYPE

UB = "http://www.lehigh.edu/~zhp2/2004/0401/univ-bench.owl#"
NEW = "http://example.org/new/"


def ub(name: str) -> NamedNode:
    return NamedNode(UB + name)


def new(name: str) -> NamedNode:
    return NamedNode(NEW + name)


# --------------------------------------------------------------------------- LUBM(1) + 1,000 changes


def _lubm1() -> set[Triple]:
    lubm = shared_path("lubm")
    asserted: set[Triple] = set()
    for name, fmt in (("univ-bench.ttl", RdfFormat.TURTLE), ("lubm1-University0.nt", RdfFormat.N_TRIPLES)):
        asserted |= {Triple(q.subject, q.predicate, q.object) for q in parse(path=lubm / name, format=fmt)}
    return asserted


def _of(triples: set[Triple], predicate: NamedNode, obj: NamedNode | None = None) -> list[Triple]:
    return sorted((t for t in triples if t.predicate == predicate and (obj is None or t.object == obj)), key=str)


def _additions(asserted: set[Triple], inferred: frozenset[Triple], rng: random.Random) -> set[Triple]:
    """1,000 new asserted triples, generated around the data: new individuals typed with LUBM classes and linked
    by LUBM properties (subOrganizationOf chains for the transitive property, worksFor/headOf under memberOf,
    degrees under their inverse, takesCourse into Student's someValuesFrom), plus triples already asserted and
    triples already inferred."""
    courses = [t.subject for t in _of(asserted, TYPE, ub("Course"))]
    departments = [t.subject for t in _of(asserted, TYPE, ub("Department"))]
    universities = [t.subject for t in _of(asserted, TYPE, ub("University"))]
    people = [t.subject for t in _of(asserted, TYPE, ub("UndergraduateStudent"))]
    out: set[Triple] = set()
    for i in range(60):  # students: typed, in a department, taking courses, with a degree
        s = new(f"student{i}")
        out.add(Triple(s, TYPE, ub(rng.choice(["GraduateStudent", "UndergraduateStudent", "Person"]))))
        out.add(Triple(s, ub("memberOf"), rng.choice(departments)))
        out.update(Triple(s, ub("takesCourse"), c) for c in rng.sample(courses, 3))
        out.add(Triple(s, ub("undergraduateDegreeFrom"), rng.choice(universities)))
    for i in range(40):  # faculty: worksFor (under memberOf), teaching, some heads (headOf under worksFor)
        f = new(f"faculty{i}")
        out.add(Triple(f, TYPE, ub(rng.choice(["FullProfessor", "AssociateProfessor", "Lecturer"]))))
        out.add(Triple(f, ub("worksFor"), rng.choice(departments)))
        out.add(Triple(f, ub("teacherOf"), rng.choice(courses)))
        out.add(Triple(f, ub("doctoralDegreeFrom"), rng.choice(universities)))
        if i % 5 == 0:
            out.add(Triple(f, ub("headOf"), rng.choice(departments)))
    for i in range(30):  # organisations: chains of subOrganizationOf into the data's departments
        chain = [new(f"group{i}-{k}") for k in range(4)] + [rng.choice(departments)]
        out.update(Triple(a, ub("subOrganizationOf"), b) for a, b in zip(chain, chain[1:], strict=False))
        out.add(Triple(chain[0], TYPE, ub("ResearchGroup")))
    for i in range(40):  # untyped people, typed by the properties' domains and ranges and by Student
        p = new(f"person{i}")
        out.add(Triple(p, ub("takesCourse"), rng.choice(courses)))
        out.add(Triple(p, ub("advisor"), new(f"faculty{i % 40}")))
    out.update(rng.sample(sorted(asserted, key=str), 100))  # duplicates of asserted triples
    data_inferred = [t for t in sorted(inferred, key=str) if str(t.subject).startswith("<http://www.Department")]
    out.update(rng.sample(data_inferred, 100))  # already inferred: they become asserted
    extra = iter(rng.sample(people, len(people)))
    while len(out) < 1_000:  # top up with more typed edges from existing people
        out.add(Triple(next(extra), ub("takesCourse"), rng.choice(courses)))
    assert len(out) == 1_000
    return out


def _removals(asserted: set[Triple], added: set[Triple], rng: random.Random) -> set[Triple]:
    """1,000 asserted data triples, seeded: some still supported otherwise (a graduate student's type, given by
    takesCourse too; worksFor of department heads, given by headOf), subOrganizationOf links cut in the middle of
    chains, some of the new triples, and the rest at random."""
    data = sorted((t for t in asserted if str(t.subject).startswith("<http://www.Department")), key=str)
    takes = {t.subject for t in asserted if t.predicate == ub("takesCourse")}
    heads = {t.subject for t in asserted if t.predicate == ub("headOf")}
    out: set[Triple] = set()
    grad_types = [t for t in _of(asserted, TYPE, ub("GraduateStudent")) if t.subject in takes]
    out.update(rng.sample(grad_types, 150))
    out.update(t for t in _of(asserted, ub("worksFor")) if t.subject in heads)
    out.update(rng.sample(_of(asserted, ub("subOrganizationOf")), 40))
    out.update(rng.sample(sorted(added, key=str), 150))
    while len(out) < 1_000:
        out.add(rng.choice(data))
    return out


@dataclass(frozen=True)
class Step:
    delta: InferenceDelta
    inferred: frozenset[Triple]  # the session's, after the step
    before: frozenset[Triple]  # full recomputation before the step
    after: frozenset[Triple]  # full recomputation after the step
    seconds: float  # the session's update
    full_seconds: float  # the full recomputation after the step


STEPS = ("add 1000", "remove 1000", "add subClassOf axiom", "remove subClassOf axiom")


@pytest.fixture(scope="module")
def lubm_steps() -> Iterator[dict[str, Step]]:
    rng = random.Random(20261124)
    asserted = _lubm1()
    engine = DuckDBReasoner()
    started = time.perf_counter()
    session = engine.session(asserted)
    assert isinstance(session, DuckDBSession)
    build = time.perf_counter() - started
    try:
        full = frozenset(engine.materialize(asserted))
        assert session.inferred == full
        added = _additions(asserted, full, rng)
        removed = _removals(asserted, added, rng)
        axiom = Triple(ub("TeachingAssistant"), SUBCLASS, ub("Employee"))
        assert axiom not in asserted
        changes = {
            "add 1000": (added, set()),
            "remove 1000": (set(), removed),
            "add subClassOf axiom": ({axiom}, set()),
            "remove subClassOf axiom": (set(), {axiom}),
        }
        steps: dict[str, Step] = {}
        recomputed: dict[frozenset[Triple], tuple[frozenset[Triple], float]] = {}
        for name in STEPS:
            plus, minus = changes[name]
            asserted = (asserted - minus) | plus
            started = time.perf_counter()
            delta = session.apply(added=plus, removed=minus)
            seconds = time.perf_counter() - started
            key = frozenset(asserted)
            if key not in recomputed:  # removing the axiom returns to an asserted set already recomputed
                started = time.perf_counter()
                recomputed[key] = frozenset(engine.materialize(asserted)), time.perf_counter() - started
            after, full_seconds = recomputed[key]
            steps[name] = Step(delta, session.inferred, full, after, seconds, full_seconds)
            full = after
        print(f"\nLUBM(1) session built in {build:.2f} s;",
              "; ".join(f"{n}: {s.seconds:.2f} s (full recomputation {s.full_seconds:.2f} s, "
                        f"+{len(s.delta.added)}/-{len(s.delta.removed)} inferred)" for n, s in steps.items()))
        yield steps
    finally:
        session.close()


def test_lubm1_changes_are_real(lubm_steps: dict[str, Step]) -> None:
    # each step moves the inferred set, so an engine that ignored the change would fail the comparisons below
    for name, step in lubm_steps.items():
        assert step.before != step.after, name
    assert len(lubm_steps["add 1000"].delta.added) > 1_000
    assert len(lubm_steps["remove 1000"].delta.removed) > 100
    # removed asserted triples that stay entailed join the inferred set
    assert lubm_steps["remove 1000"].delta.added


@pytest.mark.parametrize("name", STEPS)
def test_lubm1_closure_equals_full_recomputation(lubm_steps: dict[str, Step], name: str) -> None:
    step = lubm_steps[name]
    assert len(step.inferred ^ step.after) == 0, sorted(map(str, step.inferred ^ step.after))[:10]


@pytest.mark.parametrize("name", STEPS)
def test_lubm1_delta_equals_difference_of_recomputations(lubm_steps: dict[str, Step], name: str) -> None:
    step = lubm_steps[name]
    assert step.delta.added == step.after - step.before
    assert step.delta.removed == step.before - step.after


def test_lubm1_schema_removal_restores_the_closure(lubm_steps: dict[str, Step]) -> None:
    assert lubm_steps["remove subClassOf axiom"].inferred == lubm_steps["remove 1000"].inferred


# --------------------------------------------------------------------------- tricky paths, by hand

PREFIXES = """
@prefix : <http://example.org/> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
"""


def ttl(text: str) -> set[Triple]:
    return {Triple(q.subject, q.predicate, q.object) for q in parse(PREFIXES + text, format=RdfFormat.TURTLE)}


def ex(name: str) -> NamedNode:
    return NamedNode("http://example.org/" + name)


#: name -> (base, [(added, removed), ...], [(triple, inferred after each step?), ...])
CASES: dict[str, tuple[str, list[tuple[str, str]], list[tuple[Triple, list[bool]]]]] = {
    "DRed, alternative support": (
        ":A rdfs:subClassOf :C . :B rdfs:subClassOf :C . :x a :A , :B .",
        [("", ":x a :A ."), ("", ":x a :B ."), (":x a :A .", "")],
        [(Triple(ex("x"), TYPE, ex("C")), [True, False, True])],
    ),
    "removed asserted triple still entailed": (
        ":A rdfs:subClassOf :B . :x a :A , :B .",
        [("", ":x a :B ."), ("", ":x a :A ."), (":x a :B .", "")],
        [(Triple(ex("x"), TYPE, ex("B")), [True, False, False])],
    ),
    "sameAs added then removed": (
        ":a :p :v . :b :q :w . :fp a owl:FunctionalProperty . :s :fp :c .",
        [(":a owl:sameAs :b .", ""), ("", ":a owl:sameAs :b ."), (":s :fp :a .", ""), ("", ":s :fp :a .")],
        [
            (Triple(ex("b"), ex("p"), ex("v")), [True, False, False, False]),
            (Triple(ex("c"), ex("p"), ex("v")), [False, False, True, False]),
            (Triple(ex("b"), SAME_AS, ex("a")), [True, False, False, False]),
            (Triple(ex("c"), SAME_AS, ex("a")), [False, False, True, False]),
        ],
    ),
    "prp-trp chain cut in the middle": (
        ":tr a owl:TransitiveProperty . :n1 :tr :n2 . :n2 :tr :n3 . :n3 :tr :n4 . :n4 :tr :n5 .",
        [("", ":n3 :tr :n4 ."), (":n2 :tr :n4 .", ""), ("", ":n2 :tr :n4 . :n1 :tr :n2 .")],
        [
            (Triple(ex("n1"), ex("tr"), ex("n5")), [False, True, False]),
            (Triple(ex("n1"), ex("tr"), ex("n3")), [True, True, False]),
            (Triple(ex("n2"), ex("tr"), ex("n5")), [False, True, False]),
        ],
    ),
    "prp-spo2 chain": (
        ":ch owl:propertyChainAxiom ( :c1 :c2 :c3 ) . :h1 :c1 :h2 . :h2 :c2 :h3 . :h3 :c3 :h4 . :k2 :c2 :h3 .",
        [("", ":h2 :c2 :h3 ."), (":h1 :c1 :k2 .", ""), ("", ":h3 :c3 :h4 .")],
        [(Triple(ex("h1"), ex("ch"), ex("h4")), [False, True, False])],
    ),
    "prp-key": (
        ":K owl:hasKey ( :k1 :k2 ) . :x1 a :K ; :k1 :v ; :k2 :w . :x2 a :K ; :k1 :v . :x1 :p :o .",
        [(":x2 :k2 :w .", ""), ("", ":x1 :k1 :v ."), (":x1 :k1 :v .", ""), ("", ":x2 a :K .")],
        [
            (Triple(ex("x2"), SAME_AS, ex("x1")), [True, False, True, False]),
            (Triple(ex("x2"), ex("p"), ex("o")), [True, False, True, False]),
        ],
    ),
    # one support of a head retracted, another kept: DRed re-derives the head, with each rule's head subject taken
    # from the right premise column (here not the retracted triple's subject)
    "prp-rng, another support": (
        ":p rdfs:range :C . :a :p :y . :b :p :y .", [("", ":a :p :y ."), ("", ":b :p :y .")],
        [(Triple(ex("y"), TYPE, ex("C")), [True, False])],
    ),
    "prp-dom, another support": (
        ":p rdfs:domain :C . :a :p :y1 , :y2 .", [("", ":a :p :y1 ."), ("", ":a :p :y2 .")],
        [(Triple(ex("a"), TYPE, ex("C")), [True, False])],
    ),
    "prp-spo1, another support": (
        ":p rdfs:subPropertyOf :q . :r rdfs:subPropertyOf :q . :a :p :y ; :r :y .",
        [("", ":a :p :y ."), ("", ":a :r :y .")],
        [(Triple(ex("a"), ex("q"), ex("y")), [True, False])],
    ),
    "prp-inv, another support": (
        ":p owl:inverseOf :q . :r owl:inverseOf :q . :a :p :y ; :r :y .", [("", ":a :p :y ."), ("", ":a :r :y .")],
        [(Triple(ex("y"), ex("q"), ex("a")), [True, False])],
    ),
    "prp-symp, another support": (
        ":s a owl:SymmetricProperty . :t rdfs:subPropertyOf :s . :a :s :y ; :t :y .",
        [("", ":a :s :y ."), ("", ":a :t :y .")],
        [(Triple(ex("y"), ex("s"), ex("a")), [True, False])],
    ),
    "cls-avf, another support": (
        ":R owl:onProperty :p ; owl:allValuesFrom :D . :a a :R ; :p :y . :b a :R ; :p :y .",
        [("", ":a :p :y ."), ("", ":b a :R .")],
        [(Triple(ex("y"), TYPE, ex("D")), [True, False])],
    ),
    "cls-svf, another support": (
        ":R owl:onProperty :p ; owl:someValuesFrom :D . :R rdfs:subClassOf :E . :a :p :y1 , :y2 . :y1 a :D . "
        ":y2 a :D .", [("", ":y1 a :D ."), ("", ":a :p :y2 .")],
        [(Triple(ex("a"), TYPE, ex("E")), [True, False])],
    ),
    "prp-fp, another support": (
        ":fp a owl:FunctionalProperty . :a :fp :y1 , :y2 . :b :fp :y1 , :y2 . :y2 :q :z .",
        [("", ":a :fp :y1 ."), ("", ":b :fp :y2 .")],
        [(Triple(ex("y1"), ex("q"), ex("z")), [True, False])],
    ),
    "cls-maxc2, another support": (
        ":R owl:onProperty :p ; owl:maxCardinality 1 . :a a :R ; :p :y1 , :y2 . :b a :R ; :p :y1 , :y2 . "
        ":y2 :q :z .", [("", ":a :p :y1 ."), ("", ":b a :R .")],
        [(Triple(ex("y1"), ex("q"), ex("z")), [True, False])],
    ),
    "cls-int1": (
        ":I owl:intersectionOf ( :I1 :I2 ) . :J rdfs:subClassOf :I2 . :w a :I1 , :I2 .",
        [("", ":w a :I2 ."), (":w a :J .", ""), ("", ":w a :I1 ."), (":w a :I1 .", "")],
        [(Triple(ex("w"), TYPE, ex("I")), [False, True, False, True])],
    ),
}


def _functional_objects_as_things(asserted: set[Triple]) -> set[Triple]:
    return {Triple(t.object, TYPE, THING) for t in asserted if t.predicate == ex("fp")}  # type: ignore[arg-type]


#: Cases where the reasonable engine answers otherwise: the difference each may show, and why.
REASONABLE_DIFFERS = {
    # reasonable's prp-fp also pairs a value with itself (c owl:sameAs c, normalised away), which makes the object
    # of a functional property an owl:Thing; duckdb's prp-fp skips equal values. Noise either way (owlrl derives
    # neither), but the engines disagree.
    "sameAs added then removed": _functional_objects_as_things,
    "prp-fp, another support": _functional_objects_as_things,
}


def _check_against_reasonable(case: str, duck: frozenset[Triple], asserted: set[Triple]) -> bool:
    """Assert duckdb's closure is reasonable's, up to the known difference; whether that difference showed."""
    reference = ReasonableReasoner().materialize(asserted)
    if duck == reference:
        return False
    allowed = REASONABLE_DIFFERS[case](asserted) if case in REASONABLE_DIFFERS else set()
    assert not duck - reference, sorted(map(str, duck - reference))
    assert reference - duck <= allowed, sorted(map(str, reference - duck - allowed))
    return True


@pytest.mark.parametrize("case", sorted(CASES))
def test_tricky_paths_against_materialize_and_reasonable(case: str) -> None:
    base, changes, watched = CASES[case]
    asserted = ttl(base)
    duck = DuckDBReasoner()
    session = duck.session(asserted)
    try:
        before = frozenset(duck.materialize(asserted))
        assert session.inferred == before
        differed = _check_against_reasonable(case, before, asserted)
        for k, (plus_text, minus_text) in enumerate(changes):
            plus, minus = ttl(plus_text), ttl(minus_text)
            asserted = (asserted - minus) | plus
            delta = session.apply(added=plus, removed=minus)
            after = frozenset(duck.materialize(asserted))
            assert session.inferred == after, f"step {k}: {sorted(map(str, session.inferred ^ after))}"
            assert (delta.added, delta.removed) == (after - before, before - after), f"step {k}"
            for triple, expected in watched:
                assert (triple in session.inferred) == expected[k], f"step {k}: {triple}"
            differed |= _check_against_reasonable(case, after, asserted)
            before = after
        assert differed == (case in REASONABLE_DIFFERS), "a known difference from reasonable is gone: drop it"
    finally:
        session.close()  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- additions found locally


def test_additions_find_the_inferred_delta_from_the_rows_they_touched() -> None:
    """Additions without a merge or a schema change take the local snapshot (the delta from the rows the change
    touched, not the whole closure); each step's inferred set and delta equal the full recomputations', through the
    cases that snapshot must get right: an inferred triple asserted (it leaves the inferred set), a term that
    becomes a schema term (its ``owl:Thing`` type leaves), a term that stops being new, a duplicate."""
    cls, prop = NamedNode("http://www.w3.org/2002/07/owl#Class"), NamedNode(NEW + "rel")
    base = {Triple(new("Dog"), SUBCLASS, new("Animal")), Triple(new("rex"), TYPE, new("Dog")),
            Triple(new("fido"), TYPE, new("Dog")), Triple(new("rex"), prop, new("fido"))}
    session = DuckDBSession(base, blank_node_types=False)
    asserted = set(base)
    steps = [
        {Triple(new("rex"), TYPE, new("Animal"))},  # inferred, now asserted
        {Triple(new("felix"), TYPE, new("Cat")), Triple(new("Cat"), SUBCLASS, new("Animal"))},  # a schema triple
        {Triple(new("tom"), TYPE, new("Animal")), Triple(new("tom"), prop, new("rex"))},
        {Triple(new("a"), new("tom"), new("b"))},  # tom, an individual (typed owl:Thing), used as a property
        {Triple(new("fido"), TYPE, cls)},  # fido declared a class: a schema triple
        {Triple(new("rex"), prop, new("fido"))},  # already asserted
        # a new term in a built-in namespace (its inferred triples are normalised away)
        {Triple(NamedNode("http://www.w3.org/2002/07/owl#madeUp"), prop, new("rex"))},
    ]
    try:
        local = session._closure.local_snapshots
        for step in steps:
            before = DuckDBReasoner(store_blank_node_types=False).materialize(asserted)
            delta = session.apply(added=step)
            asserted |= step
            after = DuckDBReasoner(store_blank_node_types=False).materialize(asserted)
            assert session.inferred == after
            assert delta == InferenceDelta(added=frozenset(after - before), removed=frozenset(before - after))
            assert set(DuckDBSession(asserted, blank_node_types=False).inferred) == after
        # every step but the two schema triples' (which recompile the rules) was found locally
        assert session._closure.local_snapshots - local == len(steps) - 2
        assert Triple(new("tom"), TYPE, THING) not in session.inferred  # a schema term now (normalisation)
    finally:
        session.close()


def test_removals_find_the_inferred_delta_from_the_rows_they_touched() -> None:
    """Retractions handled by DRed without splitting a class take the local snapshot too; each step's inferred set
    and delta equal the full recomputations', through what that snapshot must get right: consequences that leave,
    an asserted triple that stays entailed (it joins the inferred set), a term that stops being a schema term (its
    ``owl:Thing`` type joins), a retraction and an addition in one change, a triple that was never asserted."""
    prop = NamedNode(NEW + "rel")
    base = {Triple(new("Dog"), SUBCLASS, new("Animal")), Triple(new("rex"), TYPE, new("Dog")),
            Triple(new("rex"), TYPE, new("Animal")), Triple(new("fido"), TYPE, new("Dog")),
            Triple(new("rex"), prop, new("fido")), Triple(new("a"), new("tom"), new("b")),
            Triple(new("tom"), TYPE, new("Animal")), Triple(new("tom"), prop, new("rex"))}
    session = DuckDBSession(base, blank_node_types=False)
    asserted = set(base)
    steps: list[tuple[set[Triple], set[Triple]]] = [
        (set(), {Triple(new("fido"), TYPE, new("Dog"))}),  # fido's types leave
        (set(), {Triple(new("rex"), TYPE, new("Animal"))}),  # still entailed: joins the inferred set
        (set(), {Triple(new("a"), new("tom"), new("b"))}),  # tom is no property now: its owl:Thing type joins
        ({Triple(new("fido"), TYPE, new("Dog"))}, {Triple(new("rex"), prop, new("fido"))}),  # both at once
        (set(), {Triple(new("rex"), TYPE, THING)}),  # never asserted: nothing changes
    ]
    try:
        local = session._closure.local_snapshots
        for plus, minus in steps:
            before = DuckDBReasoner(store_blank_node_types=False).materialize(asserted)
            delta = session.apply(added=plus, removed=minus)
            asserted = (asserted - minus) | plus
            after = DuckDBReasoner(store_blank_node_types=False).materialize(asserted)
            assert session.inferred == after
            assert delta == InferenceDelta(added=frozenset(after - before), removed=frozenset(before - after))
        assert session._closure.local_snapshots - local == len(steps)
        assert Triple(new("tom"), TYPE, THING) in session.inferred
    finally:
        session.close()
