"""The duckdb engine against both reference engines on random small OWL 2 RL graphs (seeded, not tuned).

Classes, properties and individuals are drawn at random with every axiom kind the engine compiles (subclass and
subproperty, domain and range, inverse, property characteristics, some/all/hasValue restrictions, intersections,
unions, chains, keys, equivalences, max-cardinality 1) and data (types, edges, literal values, owl:sameAs).
Two checks per graph, modulo ``x rdf:type owl:Thing`` (which the engines give to different sets of terms):
everything both reference engines infer, duckdb infers (found missing this way: chains through generalised
triples, the literal-subject steps the reference engines keep while reasoning); and every instance-level triple
duckdb infers, owlrl infers too (found unsound this way: two intersections of one class counted as one). Each
reference engine over-derives somewhere, hence the intersection: reasonable's prp-ifp equates subjects whose
values differ (also W3C owl2-rl-rules-ifp-differentFrom), owlrl 7.6's prp-key equates instances that differ on
the last key property (test_reasoners.py).
"""

from __future__ import annotations

import random

import pytest
from pyoxigraph import NamedNode, Triple
from support.random_owl import E, gen

from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.settings import ReasoningConfig
from hybridkg.semantic.vocab import THING, TYPE

SEEDS = range(40)

def _plain(triples: set[Triple]) -> set[Triple]:
    return {t for t in triples if not (t.predicate == TYPE and t.object == THING)}


@pytest.fixture(scope="module")
def engines() -> dict[str, object]:
    # the whole closure, restriction-class types included (the product leaves them out of the store by default)
    return {e: make_reasoner(ReasoningConfig(engine=e, store_blank_node_types=True))
            for e in ("duckdb", "reasonable", "owlrl")}


#: Graphs where both reference engines over-derive the same triples, each by its own known fault, so that their
#: intersection is no lower bound (the engine before the union-find gave the same closure on them).
BOTH_OVER_DERIVE = {
    (37, True): "reasonable's prp-ifp equates i9 and i1, whose p0 values differ (i9, \"1\"); owlrl's prp-key "
                "equates i9 and i3, which differ on the key property p2 (i7, \"2\"): both then hold i9 = i1 = i3",
}


@pytest.mark.parametrize("equality", [False, True], ids=["mixed", "equality"])
@pytest.mark.parametrize("seed", SEEDS)
def test_duckdb_between_the_reference_engines(
    engines: dict[str, object], seed: int, equality: bool, request: pytest.FixtureRequest
) -> None:
    if (seed, equality) in BOTH_OVER_DERIVE:
        request.applymarker(pytest.mark.xfail(reason=BOTH_OVER_DERIVE[seed, equality], strict=True))
    graph = gen(random.Random(seed), equality=equality)
    duck, ref, owl = (
        _plain(engines[e].materialize(graph)) for e in ("duckdb", "reasonable", "owlrl")  # type: ignore[attr-defined]
    )
    # a lower bound: what both reference engines infer (each over-derives somewhere: reasonable's prp-ifp equates
    # subjects of different values, owlrl's prp-key all instances with a value of the key)
    assert (ref & owl) - duck == set()
    # an upper bound, at the instance level: owlrl leaves out schema conclusions the others draw (scm-svf/avf/hv
    # between restrictions) and types literals with their datatype (x rdf:type xsd:string)
    individuals = {t for t in duck if isinstance(t.subject, NamedNode) and t.subject.value.startswith(E + "i")}
    assert individuals - owl == set()
