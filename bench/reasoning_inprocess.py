"""LUBM(1) load + OWL 2 RL materialisation: hybridkg's default engine (reasonable + completion
rules) against the reference owlrl, same data, same process, printing both times and the ratio.

    python -m bench.reasoning_inprocess            # both engines (owlrl takes ~90 s here)
    python -m bench.reasoning_inprocess --skip-owlrl
    python -m bench.reasoning_inprocess --engine-only   # also the engines alone, without the store
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from bench.common import shared
from hybridkg.semantic.base import ShapeValidator
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.settings import ReasoningConfig, StoreConfig, ValidationConfig, ValidatorEngine
from hybridkg.semantic.store.factory import make_store
from hybridkg.semantic.validation.factory import make_validator


def _validator(engine: str = "pyshacl") -> ShapeValidator:
    return make_validator(ValidationConfig(engine=ValidatorEngine(engine)))


def load_and_materialise(engine: str) -> tuple[float, int, int]:
    lubm = shared("lubm")
    kb = KnowledgeBase(make_store(StoreConfig(backend="memory")),
                       reasoner=make_reasoner(ReasoningConfig(engine=engine)),
                       validator=_validator("pyshacl"))
    start = time.perf_counter()
    kb.load(lubm / "univ-bench.ttl", graph="urn:lubm:ontology")
    kb.load(lubm / "lubm1-University0.nt", graph="urn:lubm:data", bulk=True)
    seconds = time.perf_counter() - start
    counts = json.loads((lubm / "expected_counts_lubm1.json").read_text())["counts_with_full_inference"]
    for name, expected in counts.items():
        got = len(kb.query((lubm / "queries" / f"q{name[1:]}.rq").read_text()))
        if got != expected:
            raise SystemExit(f"{engine}: {name} returned {got}, expected {expected}")
    return seconds, len(kb.asserted_triples()), len(kb.inferred_triples())


def materialise_only(engine: str) -> float:
    """Time the engine alone on the already-parsed triples (no store, no queries)."""
    from pyoxigraph import RdfFormat, parse

    lubm = shared("lubm")
    triples = [q.triple for q in parse(path=lubm / "univ-bench.ttl", format=RdfFormat.TURTLE)]
    triples += [q.triple for q in parse(path=lubm / "lubm1-University0.nt", format=RdfFormat.N_TRIPLES)]
    reasoner = make_reasoner(ReasoningConfig(engine=engine))
    start = time.perf_counter()
    reasoner.materialize(triples)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--runs", type=int, default=3, help="runs of the default engine (median reported)")
    ap.add_argument("--skip-owlrl", action="store_true", help="do not run the slow reference engine")
    ap.add_argument("--engine-only", action="store_true", help="also time both engines alone (no store)")
    args = ap.parse_args()
    times = []
    for i in range(args.runs):
        t, asserted, inferred = load_and_materialise("reasonable")
        times.append(t)
        print(f"reasonable run {i + 1}: {t:.2f} s ({asserted} asserted, {inferred} inferred; 14/14 LUBM counts ok)")
    fast = statistics.median(times)
    out: dict[str, object] = {"dataset": "LUBM(1)", "reasonable_s": round(fast, 3)}
    if not args.skip_owlrl:
        slow, asserted, inferred = load_and_materialise("owlrl")
        print(f"owlrl: {slow:.2f} s ({asserted} asserted, {inferred} inferred; 14/14 LUBM counts ok)")
        out.update({"owlrl_s": round(slow, 3), "speedup": round(slow / fast, 1)})
        print(f"speed-up reasonable vs owlrl (load + materialise): {slow / fast:.1f}x")
        if args.engine_only:
            fast_e = statistics.median(materialise_only("reasonable") for _ in range(args.runs))
            slow_e = materialise_only("owlrl")
            print(f"materialise only: reasonable {fast_e:.2f} s, owlrl {slow_e:.2f} s, {slow_e / fast_e:.1f}x")
            out.update({"engine_only_reasonable_s": round(fast_e, 3), "engine_only_owlrl_s": round(slow_e, 3),
                        "engine_only_speedup": round(slow_e / fast_e, 1)})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
