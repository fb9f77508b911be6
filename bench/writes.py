"""Latency of one small write through a knowledge base, per reasoning engine, in the same run.

    python -m bench.writes [--data clinical crm lubm1 lubm10] [--engines duckdb reasonable] [--writes 8]

What a service user waits for when they add or retract a few facts: ``KnowledgeBase.write`` (closure update,
store change, change feed), with no SHACL gate (the same for every engine, so left out). For each dataset and
engine, a fresh knowledge base is loaded (the domain's ontology and demo data in memory, or LUBM's ontology and
data into an on-disk store in a temporary directory), then four kinds of write are timed, each write once:

- ``add``: a new individual, a copy of up to three asserted triples of a randomly chosen asserted subject (its
  types and properties) on a fresh IRI;
- ``remove``: the same triples retracted (nothing but them depends on them);
- ``retract``: one randomly chosen asserted triple of the data retracted (DRed: what it supported is over-deleted,
  then what still holds is re-derived);
- ``reassert``: that triple asserted again.

The writes are chosen with a fixed seed from the loaded data, not written for it; every engine gets the same
writes. At the end the inferred set must equal the one after loading (every write was undone). Medians per kind,
and the ratio against the first engine listed, are printed and written as JSON lines. Loading time is reported
but excluded from the write timings.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from pyoxigraph import BlankNode, NamedNode, Quad

from bench.common import shared
from hybridkg.semantic.domains import DomainPolicy
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.settings import (
    ReasoningConfig,
    StoreConfig,
    ValidationConfig,
    ValidatorEngine,
)
from hybridkg.semantic.store.factory import make_store
from hybridkg.semantic.validation.factory import make_validator

KINDS = ("add", "remove", "retract", "reassert")
DATA_GRAPH = "urn:bench:writes:data"


def _kb(engine: str, store_dir: Path | None) -> KnowledgeBase:
    store = make_store(StoreConfig(backend="embedded", path=store_dir) if store_dir else StoreConfig(backend="memory"))
    return KnowledgeBase(store, reasoner=make_reasoner(ReasoningConfig(engine=engine)),
                         validator=make_validator(ValidationConfig(engine=ValidatorEngine.PYSHACL)),
                         policy=DomainPolicy.load(), max_input_bytes=4 << 30)


def _load(kb: KnowledgeBase, data: str) -> str:
    """Load ``data``; returns the IRI of the graph to draw writes from."""
    if data in ("clinical", "crm"):
        kb.ensure_domain(data, with_demo_data=True)
        return kb.policy.get(data).data_graph
    lubm = shared("lubm")
    kb.load(lubm / "univ-bench.ttl", graph="urn:lubm:ontology")
    source = lubm / "lubm1-University0.nt" if data == "lubm1" else shared("lubm", "scale", f"{data}.nt.gz")
    kb.load(source, graph=DATA_GRAPH, bulk=True)
    return DATA_GRAPH


def _writes(kb: KnowledgeBase, graph: str, n: int, seed: int) -> list[tuple[list[Quad], Quad]]:
    """``n`` pairs (a new individual's triples, an asserted triple to retract), drawn with ``seed``."""
    g = NamedNode(graph)
    quads = [q for q in kb.store.quads(None, None, None, g) if not isinstance(q.subject, BlankNode)
             and not isinstance(q.object, BlankNode)]
    quads.sort(key=str)
    by_subject: dict[object, list[Quad]] = {}
    for q in quads:
        by_subject.setdefault(q.subject, []).append(q)
    subjects = sorted(by_subject, key=str)
    rng = random.Random(seed)
    out = []
    for k in range(n):
        s = rng.choice(subjects)
        fresh = NamedNode(f"urn:bench:writes:new{seed}-{k}")
        copy = [Quad(fresh, q.predicate, q.object, g) for q in rng.sample(by_subject[s], min(3, len(by_subject[s])))]
        out.append((copy, rng.choice(quads)))
    return out


def run(data: str, engine: str, writes: int, seed: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="hkg-writes-") as tmp:
        kb = _kb(engine, Path(tmp) / "store" if data.startswith("lubm") else None)
        try:
            t0 = time.perf_counter()
            graph = _load(kb, data)
            kb.write(added=[Quad(NamedNode("urn:bench:writes:warm"), NamedNode("urn:bench:writes:p"),
                                 NamedNode("urn:bench:writes:o"), NamedNode(graph))])  # the session starts here
            load_s = time.perf_counter() - t0
            before = kb.inferred_triples()
            times: dict[str, list[float]] = {k: [] for k in KINDS}
            inferred: dict[str, list[int]] = {k: [] for k in KINDS}
            for new, old in _writes(kb, graph, writes, seed):
                changes: list[tuple[str, list[Quad], list[Quad]]] = [
                    ("add", new, []), ("remove", [], new), ("retract", [], [old]), ("reassert", [old], [])]
                for kind, added, removed in changes:
                    t = time.perf_counter()
                    cs = kb.write(added, removed)
                    times[kind].append(time.perf_counter() - t)
                    inferred[kind].append(len(cs.inferred_added) + len(cs.inferred_removed))
            if kb.inferred_triples() != before:
                raise SystemExit(f"{data}/{engine}: the inferred set differs after every write was undone")
        finally:
            kb.close()
    return {
        "data": data, "engine": engine, "writes": writes, "load_s": round(load_s, 2),
        **{f"{k}_ms": round(1000 * statistics.median(v), 1) for k, v in times.items()},
        **{f"{k}_max_ms": round(1000 * max(v), 1) for k, v in times.items()},
        **{f"{k}_inferred_changed": round(statistics.median(v)) for k, v in inferred.items()},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--data", nargs="+", default=["clinical", "crm", "lubm1"],
                    choices=["clinical", "crm", "lubm1", "lubm10", "lubm50"])
    ap.add_argument("--engines", nargs="+", default=["duckdb", "reasonable"])
    ap.add_argument("--writes", type=int, default=8)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    for data in args.data:
        rows = [run(data, engine, args.writes, args.seed) for engine in args.engines]
        for row in rows:
            print(json.dumps(row), flush=True)
        base = rows[0]
        for row in rows[1:]:
            ratios = {k: round(float(base[f"{k}_ms"]) / max(float(row[f"{k}_ms"]), 1e-3), 2)  # type: ignore[arg-type]
                      for k in KINDS}
            print(json.dumps({"data": data, "ratio": f"{base['engine']} / {row['engine']}", **ratios}), flush=True)


if __name__ == "__main__":
    main()
