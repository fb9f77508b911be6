"""The W3C SPARQL 1.0/1.1 query-evaluation tests through the bridge (issue 11 §4): each test's data mapped into a
fresh FalkorDB graph (one managed server for the module), its query translated to Cypher, the rows mapped back
and compared with Oxigraph's answer on the same data (:mod:`hybridkg.bridge.differential`). One test per feature
(manifest folder) keeps the run fast; the per-feature table is printed (``-s``) and ``bench.bridge_suites``
prints it too.

What must hold: no translated test answers differently from Oxigraph (or fails on FalkorDB), and the number
translated does not fall below what the translator reaches (``TRANSLATED_FLOOR``; the issue's target is 60% of
the SELECT/ASK tests, not reached yet: see ``docs/bridge.md`` §4). Oxigraph's own answer is checked against the
suite's expected results where they are readable: the disagreements allowed are listed with a reason each.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

import pytest
from support.falkor import falkordb_server, fresh_graph, short_tmp
from support.shared import shared_location, shared_path

from hybridkg.bridge.differential import Outcome, Reference, Tally, Verdict
from hybridkg.bridge.suites import Case, run_cases, w3c_cases
from hybridkg.structural.graphstore.server import ManagedFalkorDB

SUITE_PARTS = ("w3c", "sparql11", "sparql")
CASES = w3c_cases(shared_location(*SUITE_PARTS)) if shared_location(*SUITE_PARTS).exists() else []
FEATURES = sorted({c.feature for c in CASES})

#: SELECT/ASK tests translated (every one answering as Oxigraph does), of 580; raise it with the translator. Measured:
#: 349 (60.2%; none slow on a quiet run); the floor leaves room for the slow ones (SLOW_ALLOWED).
TRANSLATED_FLOOR = 342
SLOW_ALLOWED = 10


@pytest.fixture(scope="module")
def verdicts() -> Iterator[dict[str, list[tuple[Case, Verdict]]]]:
    shared_path(*SUITE_PARTS)
    with short_tmp() as path, falkordb_server(path) as server:
        yield _run(server)


def _run(server: ManagedFalkorDB) -> dict[str, list[tuple[Case, Verdict]]]:
    by_feature: dict[str, list[tuple[Case, Verdict]]] = defaultdict(list)
    for case, verdict in run_cases(CASES, lambda: fresh_graph(server)):
        by_feature[case.feature].append((case, verdict))
    total = Tally()
    print(f"\n{'feature':34} {'tests':>5} {'transl':>6} {'equal':>5} {'refused':>7} {'no map':>6} {'slow':>4}")
    for feature, runs in sorted(by_feature.items()):
        t = Tally()
        for _, v in runs:
            t.add(v)
            total.add(v)
        print(f"{feature:34} {len(runs):5} {t.translated:6} {t.outcomes[Outcome.EQUAL]:5} "
              f"{t.outcomes[Outcome.REFUSED] + t.outcomes[Outcome.NOT_SELECT_ASK]:7} {t.outcomes[Outcome.NO_MAP]:6} "
              f"{t.outcomes[Outcome.TIMEOUT]:4}")
    print(f"SELECT/ASK: {total.select_ask_translated} of {total.select_ask} translated "
          f"({total.select_ask_mapped} with data that maps)")
    return by_feature


@pytest.mark.parametrize("feature", FEATURES)
def test_every_translated_query_answers_as_oxigraph(
    verdicts: dict[str, list[tuple[Case, Verdict]]], feature: str
) -> None:
    wrong = [
        f"{case.name}: {v.outcome} {v.reason}\n  {v.cypher}"
        for case, v in verdicts[feature]
        if v.outcome in (Outcome.UNEQUAL, Outcome.FAILED)
    ]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("feature", FEATURES)
def test_every_refusal_names_a_reason(verdicts: dict[str, list[tuple[Case, Verdict]]], feature: str) -> None:
    silent = [c.name for c, v in verdicts[feature] if not v.translated and not v.reason]
    assert not silent


def test_the_translated_share_does_not_fall(verdicts: dict[str, list[tuple[Case, Verdict]]]) -> None:
    total = Tally()
    for runs in verdicts.values():
        for _, v in runs:
            total.add(v)
    # FalkorDB plans a few translated statements slowly (seconds on a loaded machine): they may miss the client's
    # time limit, which is reported, not a wrong answer; the floor leaves room for them
    assert total.outcomes[Outcome.TIMEOUT] <= SLOW_ALLOWED
    assert len(CASES) >= 590
    assert total.select_ask >= 575
    assert total.select_ask_translated >= TRANSLATED_FLOOR
    assert total.outcomes[Outcome.EQUAL] >= TRANSLATED_FLOOR


def test_oxigraph_agrees_with_the_suite_where_it_can_be_read(
    verdicts: dict[str, list[tuple[Case, Verdict]]],
) -> None:
    checked = [(c, v) for runs in verdicts.values() for c, v in runs if v.reference is not Reference.UNCHECKED]
    agree = sum(v.reference is Reference.AGREES for _, v in checked)
    assert len(checked) >= 500
    assert agree >= 0.85 * len(checked)
