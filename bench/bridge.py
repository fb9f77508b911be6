"""LUBM's 14 queries two ways: SPARQL on Oxigraph vs its Cypher translation on FalkorDB (issue 11 §5).

    python -m bench.bridge                    # LUBM(1) from ../shared/data/lubm

LUBM(1) and its ontology are loaded into an in-memory knowledge base and materialised (OWL 2 RL, the default
engine); the asserted and inferred triples are mapped to a property graph (``bridge.mapping.map_graph``,
schema-independent: LUBM has no SHACL shapes) and written into a managed FalkorDB (``write_graph``): the map and
write time give the throughput into the property graph. Then each query runs **once, cold**, on each side:
SPARQL through ``KnowledgeBase.query`` (Oxigraph, in process), and its translation
(``bridge.sparql_to_cypher.translate``, timed apart: a service caches it) through the graph store's
parameterised ``query`` (FalkorDB over its unix socket, rows decoded in Python). Both answer counts are checked
against ``expected_counts_lubm1.json``. Excluded from the timings: loading, materialising, mapping, writing and
translating. After loading, the process's objects are frozen out of the garbage collector (``gc.freeze``, as a
service does after start-up; both sides run in this process): without it a full collection over the loaded
graph's millions of objects lands inside whichever query happens to trigger it (Q8: 50 ms when run first,
300-440 ms after Q1-Q7). The ratio is Cypher / SPARQL per query and for the sum. The ``hand`` columns time the
openCypher written by hand for each query (``tests/integration/data/lubm_cypher``), once, cold, right after the
translation: what FalkorDB gives to a person writing Cypher directly, the yardstick for the translation's own cost.
``--runs N`` repeats the whole run N times, each on a new store and a new FalkorDB server, and reports per query the
median of the N single cold times (never a warm repeat).

What each side's time holds: SPARQL, parsing, planning and evaluating in Oxigraph and every solution as Python
terms; Cypher, the parameters' header, the socket both ways, FalkorDB's parse, plan and execution (its own
"internal execution time", the ``falkordb ms`` column, from :meth:`FalkorDBGraphStore.server_ms`) and the rows
decoded into Python values. Cold on the Cypher side means FalkorDB has never seen the statement's text (it caches
plans by text). For scale, the ``floor`` line times the cheapest statement each side answers, cold: SPARQL
``ASK {}`` and Cypher ``RETURN <n>`` with a new ``n`` each time (median of 5; not in the totals). The graph is
not settled before the queries: the first statement that reads a label or relationship type after the bulk write
pays FalkorDB's deferred work on it (the first traversal 2-4 ms, Q1's most; each later first use 0.3-0.8 ms).
Touching every label and type beforehand would remove it, but that is warming.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from hybridkg.bridge.mapping import map_graph, write_graph
from hybridkg.bridge.sparql_to_cypher import translate
from hybridkg.errors import HybridKGError
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.settings import ReasoningConfig, StoreConfig, ValidationConfig
from hybridkg.semantic.store.factory import make_store
from hybridkg.semantic.validation.factory import make_validator
from hybridkg.structural.graphstore.falkordb_store import FalkorDBGraphStore
from hybridkg.structural.settings import GraphConfig

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "lubm"
#: The openCypher written by hand for each LUBM query (issue 11 §4's Cypher -> SPARQL direction; tested in
#: tests/integration/test_bridge_lubm.py): timed too, once, cold, to tell the translation's cost from FalkorDB's.
HAND = Path(__file__).resolve().parents[1] / "tests" / "integration" / "data" / "lubm_cypher"


def run(lubm: Path) -> dict[str, Any]:
    expected = json.loads((lubm / "expected_counts_lubm1.json").read_text())["counts_with_full_inference"]
    kb = KnowledgeBase(
        make_store(StoreConfig(backend="memory")),
        reasoner=make_reasoner(ReasoningConfig()),
        validator=make_validator(ValidationConfig(engine="pyshacl")),
    )
    out: dict[str, Any] = {"queries": {}}
    with tempfile.TemporaryDirectory(prefix="hkg-bb-", dir="/tmp") as tmp:
        store = FalkorDBGraphStore.managed(Path(tmp), GraphConfig())
        try:
            kb.load(lubm / "univ-bench.ttl", graph="urn:lubm:ontology")
            kb.load(lubm / "lubm1-University0.nt", graph="urn:lubm:data", bulk=True)
            triples = list(kb.asserted_triples() | kb.inferred_triples())
            start = time.perf_counter()
            mapped = map_graph(triples)
            map_s = time.perf_counter() - start
            start = time.perf_counter()
            write_graph(store, mapped)
            write_s = time.perf_counter() - start
            out.update(triples=len(triples), map_s=round(map_s, 2), write_s=round(write_s, 2),
                       triples_per_s=round(len(triples) / (map_s + write_s)))
            print(f"{len(triples)} triples (asserted + inferred): mapped in {map_s:.2f} s, written to FalkorDB in "
                  f"{write_s:.2f} s ({out['triples_per_s']} triples/s)", flush=True)
            gc.collect()
            gc.freeze()  # what a service does after loading: the loaded data leaves the collector's generations
            out["floor"] = _floor(kb, store)
            print(f"floor: SPARQL ASK {{}} {out['floor']['sparql_ms']:.2f} ms, Cypher RETURN <n> "
                  f"{out['floor']['cypher_ms']:.2f} ms (FalkorDB's own {out['floor']['falkordb_ms']:.2f} ms)")
            print(f"{'query':6} {'expected':>8} {'sparql':>8} {'ms':>8} {'cypher':>8} {'ms':>8} {'falkordb':>8} "
                  f"{'translate':>9} {'ratio':>6} {'hand ms':>7} {'ratio':>6}")
            for i in range(1, 15):
                name = f"Q{i}"
                text = (lubm / "queries" / f"q{i}.rq").read_text()
                start = time.perf_counter()
                n_sparql = len(kb.query(text))
                sparql_ms = (time.perf_counter() - start) * 1000
                row: dict[str, Any] = {"expected": expected[name], "sparql": n_sparql, "sparql_ms": round(sparql_ms, 2)}
                try:
                    start = time.perf_counter()
                    cypher = translate(text, mapped.mapping)
                    row["translate_ms"] = round((time.perf_counter() - start) * 1000, 2)
                    start = time.perf_counter()
                    n_cypher = len(store.query(cypher.text, cypher.params))
                    row.update(cypher=n_cypher, cypher_ms=round((time.perf_counter() - start) * 1000, 2))
                    row["falkordb_ms"] = store.server_ms()
                    row["ratio"] = round(row["cypher_ms"] / sparql_ms, 2)
                    hand = (HAND / f"q{i:02d}.cypher").read_text()
                    start = time.perf_counter()
                    n_hand = len(store.query(hand))
                    row.update(hand=n_hand, hand_ms=round((time.perf_counter() - start) * 1000, 2))
                except HybridKGError as e:
                    row["refused"] = f"{type(e).__name__}: {e}"
                out["queries"][name] = row
                print(f"{name:6} {row['expected']:8} {n_sparql:8} {sparql_ms:8.1f} "
                      + (f"{row['cypher']:8} {row['cypher_ms']:8.1f} {row['falkordb_ms'] or 0:8.1f} "
                         f"{row['translate_ms']:9.1f} {row['ratio']:6.2f} {row['hand_ms']:7.1f} "
                         f"{row['hand_ms'] / sparql_ms:6.2f}"
                         if "cypher" in row else f"  refused: {row['refused'][:80]}"), flush=True)
        finally:
            gc.unfreeze()
            store.close()
            kb.close()
    done = [r for r in out["queries"].values() if "cypher" in r]
    out["equal"] = sum(1 for r in done if r["cypher"] == r["sparql"] == r["expected"] == r["hand"])
    out["sparql_total_ms"] = round(sum(r["sparql_ms"] for r in done), 1)
    out["cypher_total_ms"] = round(sum(r["cypher_ms"] for r in done), 1)
    out["falkordb_total_ms"] = round(sum(r["falkordb_ms"] or 0 for r in done), 1)
    out["total_ratio"] = round(out["cypher_total_ms"] / out["sparql_total_ms"], 2) if done else None
    out["within_2x"] = sum(1 for r in done if r["ratio"] <= 2.0)
    out["hand_within_2x"] = sum(1 for r in done if r["hand_ms"] <= 2.0 * r["sparql_ms"])
    print(f"translated {len(done)}/14, equal counts {out['equal']}/14, total SPARQL {out['sparql_total_ms']} ms vs "
          f"Cypher {out['cypher_total_ms']} ms: ratio {out['total_ratio']}x; within 2x on {out['within_2x']}/14")
    return out


def _floor(kb: KnowledgeBase, store: FalkorDBGraphStore) -> dict[str, float]:
    """The cheapest statement on each side, cold (medians of 5): what any query pays before its own work."""
    sparql, cypher, server = [], [], []
    for i in range(5):
        start = time.perf_counter()
        kb.query("ASK {}")
        sparql.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        store.query(f"RETURN {1000 + i} AS n")
        cypher.append((time.perf_counter() - start) * 1000)
        server.append(store.server_ms() or 0.0)
    return {"sparql_ms": round(statistics.median(sparql), 3), "cypher_ms": round(statistics.median(cypher), 3),
            "falkordb_ms": round(statistics.median(server), 3)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lubm", type=Path, default=SHARED, help="the LUBM directory (default ../shared/data/lubm)")
    ap.add_argument("--json", type=Path, help="write the summary to this file")
    ap.add_argument("--runs", type=int, default=1,
                    help="independent runs (each on a new store and FalkorDB server); >1 adds per-query medians")
    args = ap.parse_args(argv)
    if not (args.lubm / "lubm1-University0.nt").exists():
        print(f"LUBM(1) not found in {args.lubm}: pass --lubm DIR", file=sys.stderr)
        return 2
    runs = []
    for k in range(args.runs):
        if args.runs > 1:
            print(f"--- run {k + 1} of {args.runs}", flush=True)
        runs.append(run(args.lubm))
        print(json.dumps({k: v for k, v in runs[-1].items() if k != "queries"}), flush=True)
    out = runs[0] if args.runs == 1 else summary(runs)
    if args.json:
        args.json.write_text(json.dumps(out if args.runs == 1 else {"summary": out, "runs": runs}, indent=2))
    return 0


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per query, the median over independent runs of each side's single cold time (each run loads a new store and
    a new FalkorDB server: no run's query is warm from another's), and the ratio of the medians."""
    out: dict[str, Any] = {"runs": len(runs), "queries": {}}
    print(f"medians over {len(runs)} runs (each query once, cold, per run)")
    print(f"{'query':6} {'sparql ms':>9} {'cypher ms':>9} {'ratio':>6} {'hand ms':>8} {'ratio':>6}  per-run ratios")
    for name in runs[0]["queries"]:
        rows = [r["queries"][name] for r in runs if "cypher" in r["queries"][name]]
        if len(rows) < len(runs):
            print(f"{name:6} refused")
            continue
        med = {k: statistics.median(r[k] for r in rows) for k in ("sparql_ms", "cypher_ms", "hand_ms")}
        q = {**{k: round(v, 3) for k, v in med.items()}, "ratio": round(med["cypher_ms"] / med["sparql_ms"], 2),
             "hand_ratio": round(med["hand_ms"] / med["sparql_ms"], 2), "ratios": [r["ratio"] for r in rows]}
        out["queries"][name] = q
        print(f"{name:6} {q['sparql_ms']:9.2f} {q['cypher_ms']:9.2f} {q['ratio']:6.2f} {q['hand_ms']:8.2f} "
              f"{q['hand_ratio']:6.2f}  {q['ratios']}")
    qs = out["queries"].values()
    out["within_2x"] = sum(1 for q in qs if q["ratio"] <= 2.0)
    out["hand_within_2x"] = sum(1 for q in qs if q["hand_ratio"] <= 2.0)
    out["total_ratio"] = round(sum(q["cypher_ms"] for q in qs) / sum(q["sparql_ms"] for q in qs), 2)
    out["equal_every_run"] = all(r["equal"] == 14 for r in runs)
    print(json.dumps({k: v for k, v in out.items() if k != "queries"}))
    return out


if __name__ == "__main__":
    sys.exit(main())
