"""The duckdb engine's incremental maintenance on random graphs (seeded, not tuned): every axiom kind it compiles,
with and without many equalities, changed in random steps (data removed, data added back, both at once, now and
then a schema triple), and after each step the live session's inferred set and delta equal those of full
recomputations. The steps exercise what a small write takes: the rules a delta can trigger, DRed's over-deletion
and its re-derivation of the over-deleted triples only, equality classes split and merged, the local snapshot."""

from __future__ import annotations

import random

import pytest
from pyoxigraph import BlankNode, NamedNode, Triple
from support.random_owl import E, gen

from hybridkg.semantic.base import InferenceDelta
from hybridkg.semantic.reasoning.duckdb_engine import SCHEMA_PREDICATES as _SCHEMA_P
from hybridkg.semantic.reasoning.duckdb_engine import DuckDBReasoner, DuckDBSession
from hybridkg.semantic.vocab import SAME_AS, TYPE

SEEDS = range(12)


def _is_data(t: Triple) -> bool:
    return t.predicate not in _SCHEMA_P and not isinstance(t.subject, BlankNode) and not (
        t.predicate == TYPE and isinstance(t.object, BlankNode)) and "owl#" not in str(t.object)


def _denser(rng: random.Random, *, equality: bool) -> list[Triple]:
    """More data over the generator's classes, properties and individuals, so that triples share their terms: a
    retraction then often leaves another support for what it supported (DRed must re-derive it)."""
    people = [NamedNode(f"{E}i{i}") for i in range(10 if equality else 6)]
    out = []
    for _ in range(30):
        x, y, k = rng.choice(people), rng.choice(people), rng.random()
        if k < 0.6:
            out.append(Triple(x, NamedNode(f"{E}p{rng.randrange(4)}"), y))
        elif k < 0.9 or not equality:
            out.append(Triple(x, TYPE, NamedNode(f"{E}C{rng.randrange(5)}")))
        else:
            out.append(Triple(x, SAME_AS, y))
    return out


def _steps(rng: random.Random, graph: list[Triple]) -> tuple[set[Triple], list[tuple[set[Triple], set[Triple]]]]:
    """A base (the schema and most of the data) and five steps of (added, removed)."""
    data = [t for t in graph if _is_data(t)]
    schema = [t for t in graph if not _is_data(t)]
    held = set(rng.sample(data, len(data) // 4))
    base = set(graph) - held
    steps: list[tuple[set[Triple], set[Triple]]] = []
    present = sorted(base - set(schema), key=str)
    gone = set(rng.sample(present, min(len(present), 3)))
    steps.append((set(), gone))  # a few data triples retracted
    steps.append((set(held), set()))  # the held-back data added
    present = sorted(set(present) - gone | held, key=str)
    half = set(rng.sample(present, len(present) // 2))
    steps.append((set(), half))  # half the data retracted at once
    back = set(rng.sample(sorted(half, key=str), len(half) // 2))
    rest = sorted(set(present) - half, key=str)
    out = set(rng.sample(rest, min(2, len(rest))))
    steps.append((back | gone, out))  # some back, others out, in one change
    if schema:
        axiom = rng.choice(sorted(schema, key=str))
        steps.append((set(), {axiom}))  # a schema triple retracted (the rules change)
    return base, steps


@pytest.mark.parametrize("equality", [False, True], ids=["mixed", "equality"])
@pytest.mark.parametrize("seed", SEEDS)
def test_random_changes_equal_full_recomputation(seed: int, equality: bool) -> None:
    rng = random.Random(1000 + seed)
    graph = gen(random.Random(seed), equality=equality) + _denser(rng, equality=equality)
    base, steps = _steps(rng, graph)
    reference = DuckDBReasoner(store_blank_node_types=False)
    session = DuckDBSession(base, blank_node_types=False)
    asserted = set(base)
    try:
        before = frozenset(reference.materialize(asserted))
        assert session.inferred == before
        for k, (plus, minus) in enumerate(steps):
            delta = session.apply(added=plus, removed=minus)
            asserted = (asserted - minus) | (plus - minus)
            after = frozenset(reference.materialize(asserted))
            assert session.inferred == after, (
                f"step {k}: missing {sorted(map(str, after - session.inferred))}, "
                f"extra {sorted(map(str, session.inferred - after))}")
            assert delta == InferenceDelta(added=after - before, removed=before - after), f"step {k}"
            before = after
    finally:
        session.close()

