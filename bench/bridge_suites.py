"""The differential proof's tables (issue 11 §4): the W3C SPARQL 1.0/1.1 query-evaluation tests and the SP2Bench
queries, each run on Oxigraph and, translated, on FalkorDB (``hybridkg.bridge.differential``).

    cd /tmp && python -m bench.bridge_suites              # both suites
    cd /tmp && python -m bench.bridge_suites --suite w3c --verbose

One managed FalkorDB; a fresh graph per data set. Per feature (the manifest's folder; for SP2Bench the data
folder): tests, translated, equal, unequal (or failed), refused (and not SELECT/ASK), data does not map, slow (no answer
within the client's time limit); then the SELECT/ASK share
translated against all SELECT/ASK tests and against those whose data maps, Oxigraph against the suite's expected
results, and the most common refusal reasons.
"""

from __future__ import annotations

import argparse
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from bench.common import shared
from hybridkg.bridge.differential import Outcome, Reference, Tally
from hybridkg.bridge.suites import Case, applies, run_cases, sp2bench_cases, w3c_cases
from hybridkg.structural.graphstore.falkordb_store import FalkorDBGraphStore
from hybridkg.structural.graphstore.server import ManagedFalkorDB
from hybridkg.structural.settings import GraphConfig

HEADER = (f"{'feature':34} {'tests':>5} {'transl':>6} {'equal':>5} {'unequal':>7} {'refused':>7} {'no map':>6} "
          f"{'slow':>4}")


def table(title: str, cases: list[Case], new_graph: Callable[[], FalkorDBGraphStore], *, verbose: bool,
          keep: Callable[..., bool] | None = None, reasons: int = 12) -> Tally:
    by_feature: dict[str, Tally] = defaultdict(Tally)
    total = Tally()
    start = time.perf_counter()
    for case, v in run_cases(cases, new_graph, keep):
        by_feature[case.feature].add(v)
        total.add(v)
        if verbose or v.outcome in (Outcome.UNEQUAL, Outcome.FAILED):
            print(f"  {case.name}: {v.outcome} {v.reason[:160]}")
    elapsed = time.perf_counter() - start
    print(f"\n## {title} ({sum(total.outcomes.values())} runs, {elapsed:.1f} s)\n")
    print(HEADER)
    for feature, t in [*sorted(by_feature.items()), ("TOTAL", total)]:
        o = t.outcomes
        print(f"{feature:34} {sum(o.values()):5} {t.translated:6} {o[Outcome.EQUAL]:5} "
              f"{o[Outcome.UNEQUAL] + o[Outcome.FAILED]:7} {o[Outcome.REFUSED] + o[Outcome.NOT_SELECT_ASK]:7} "
              f"{o[Outcome.NO_MAP]:6} {o[Outcome.TIMEOUT]:4}")
    share = total.select_ask_translated / total.select_ask if total.select_ask else 0.0
    mapped = total.select_ask_translated / total.select_ask_mapped if total.select_ask_mapped else 0.0
    print(f"\nSELECT/ASK translated: {total.select_ask_translated} of {total.select_ask} ({share:.1%}); "
          f"of the {total.select_ask_mapped} whose data maps: {mapped:.1%}")
    refs = total.references
    if refs[Reference.AGREES] + refs[Reference.DISAGREES]:
        print(f"Oxigraph vs the expected results: {refs[Reference.AGREES]} agree, {refs[Reference.DISAGREES]} "
              f"disagree, {refs[Reference.UNCHECKED]} unchecked")
    print("\nTop refusal reasons (runs, reason):")
    for reason, n in total.reasons.most_common(reasons):
        print(f"  {n:4}  {reason}")
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", choices=["w3c", "sp2bench", "all"], default="all")
    parser.add_argument("--verbose", action="store_true", help="print every run's outcome")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hkg-bs-", dir="/tmp") as tmp:
        server = ManagedFalkorDB(Path(tmp), GraphConfig()).start()
        try:
            def new_graph() -> FalkorDBGraphStore:
                return FalkorDBGraphStore.connect(server.host, server.port, unix_socket=server.unix_socket,
                                                  password=server.password, graph_name=f"b{uuid.uuid4().hex[:12]}")

            if args.suite in ("w3c", "all"):
                cases = w3c_cases(shared("w3c", "sparql11", "sparql"))
                table("W3C SPARQL 1.0/1.1 query-evaluation tests", cases, new_graph, verbose=args.verbose)
            if args.suite in ("sp2bench", "all"):
                cases = sp2bench_cases(shared("sparql-cypher", "sp2bench-kracr"))
                table("SP2Bench (sp2bench-kracr: each query on its data, and on other folders' where it answers)",
                      cases, new_graph, verbose=args.verbose, keep=applies)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
