"""The service under load: the 14 LUBM queries on materialised LUBM(1) over gRPC and over HTTP, and Ask (strict
and fuzzy) on the demo knowledge base, with 1, 16 and 64 concurrent clients; the same queries on pyoxigraph
directly, in the same run, as the peer.

    python -m bench.service [--rounds 7] [--clients 1,16,64] [--quick]

What is timed: one query from the client's call until its last row has arrived (the service's answer is fully
read: JSON parsed over HTTP, every streamed row over gRPC; pyoxigraph's rows are fully iterated). The first
time each query runs, on each path, is reported separately ("cold"); the p50 comparison takes ``--rounds``
further runs per query, interleaved round-robin across the 14 queries so that no query repeats back to back,
on both paths alike. Loading and materialising LUBM(1) is excluded (done once, before timing). The service
runs in this process on its own event-loop thread with real sockets on 127.0.0.1; client threads share the
machine's 2 cores with the server, as a co-located client would.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from bench.common import shared
from hybridkg.client import Client
from hybridkg.semantic.settings import StoreBackend
from hybridkg.server.config import Settings
from hybridkg.server.runtime import Runtime
from hybridkg.server.serve import BackgroundService, demo_runtime

QUERIES = [f"q{i}" for i in range(1, 15)]

STRICT_QUESTIONS = [
    "Which patients are at cardiovascular risk?",
    "Which sites are part of Northshore Health?",
    "How many patients are there?",
]
FUZZY_QUESTIONS = [
    "Who leads the vector search pilot at Helios?",
    "Which customers pushed back on support pricing?",
    "How is Aoife Byrne related to the Vector add-on?",
]


def _percentile(xs: Sequence[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    k = min(len(s) - 1, max(0, round(q * (len(s) - 1))))
    return s[k]


def lubm_runtime(scratch: Path) -> Runtime:
    settings = Settings()
    settings.store.backend = StoreBackend.EMBEDDED
    settings.store.path = scratch / "store"
    settings.structural.path = scratch / "structural"
    settings.server.workers = 8
    runtime = Runtime(settings)
    lubm = shared("lubm")
    runtime.kb.load(lubm / "univ-bench.ttl", graph="urn:lubm:ontology")
    runtime.kb.load(lubm / "lubm1-University0.nt", graph="urn:lubm:data", bulk=True)
    return runtime


def direct(runtime: Runtime) -> Callable[[str], int]:
    """pyoxigraph itself, on the same store, with the same dataset (union of all graphs)."""
    store = runtime.kb.store._store  # type: ignore[attr-defined]

    def run(query: str) -> int:
        return sum(1 for _ in store.query(query, use_default_graph_as_union=True))

    return run


def over_http(base: str) -> Callable[[str], int]:
    local = threading.local()

    def run(query: str) -> int:
        client = getattr(local, "client", None)
        if client is None:
            client = local.client = httpx.Client(timeout=120)
        r = client.post(f"{base}/sparql", content=query.encode(),
                        headers={"content-type": "application/sparql-query",
                                 "accept": "application/sparql-results+json"})
        r.raise_for_status()
        return len(r.json()["results"]["bindings"])

    return run


def over_grpc(target: str) -> Callable[[str], int]:
    local = threading.local()

    def run(query: str) -> int:
        client = getattr(local, "client", None)
        if client is None:
            client = local.client = Client(target)
        return sum(1 for _ in client.sparql(query))

    return run


def timed(fn: Callable[[str], Any], arg: str) -> float:
    start = time.perf_counter()
    fn(arg)
    return time.perf_counter() - start


def per_query(paths: dict[str, Callable[[str], int]], texts: dict[str, str], rounds: int) -> dict[str, Any]:
    """Cold first run per query and path, then ``rounds`` interleaved runs for p50."""
    cold: dict[str, dict[str, float]] = {p: {} for p in paths}
    warm: dict[str, dict[str, list[float]]] = {p: {q: [] for q in texts} for p in paths}
    counts: dict[str, dict[str, int]] = {p: {} for p in paths}
    names = list(paths)
    for i, (q, text) in enumerate(texts.items()):
        for p in names[i % len(names):] + names[:i % len(names)]:  # no path always goes first
            start = time.perf_counter()
            counts[p][q] = paths[p](text)
            cold[p][q] = time.perf_counter() - start
    for r in range(rounds):
        for i, (q, text) in enumerate(texts.items()):
            k = (i + r) % len(names)
            for p in names[k:] + names[:k]:
                warm[p][q].append(timed(paths[p], text))
    for q in texts:
        seen = {counts[p][q] for p in paths}
        if len(seen) != 1:
            raise SystemExit(f"{q}: paths disagree on the row count: { {p: counts[p][q] for p in paths} }")
    p50 = {p: {q: statistics.median(v) for q, v in warm[p].items()} for p in paths}
    return {"cold": cold, "p50": p50, "counts": counts.get("direct", {})}


def load(fn: Callable[[str], Any], items: Sequence[str], clients: int, per_client: int) -> dict[str, Any]:
    """``clients`` threads each run ``per_client`` calls (round-robin over ``items``)."""
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()

    def worker(i: int) -> None:
        mine: list[float] = []
        for k in range(per_client):
            item = items[(i + k) % len(items)]
            try:
                mine.append(timed(fn, item))
            except Exception as e:  # every failure is counted and reported
                with lock:
                    errors.append(f"{type(e).__name__}: {e}"[:200])
        with lock:
            latencies.extend(mine)

    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(worker, range(clients)))
    wall = time.perf_counter() - start
    return {
        "clients": clients, "requests": len(latencies) + len(errors), "errors": len(errors),
        "first_errors": errors[:3], "rps": (len(latencies) + len(errors)) / wall,
        "p50_ms": _percentile(latencies, 0.5) * 1000, "p99_ms": _percentile(latencies, 0.99) * 1000,
    }


def ask_fn(target: str, domain: str | None) -> Callable[[str], Any]:
    local = threading.local()

    def run(question: str) -> Any:
        client = getattr(local, "client", None)
        if client is None:
            client = local.client = Client(target)
        return client.ask(question, domain=domain)

    return run


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--rounds", type=int, default=7, help="timed runs per query after the cold one")
    ap.add_argument("--clients", default="1,16,64", help="concurrency levels")
    ap.add_argument("--per-client", type=int, default=28, help="calls per client thread at each level")
    ap.add_argument("--quick", action="store_true", help="3 rounds, 14 calls per client")
    ap.add_argument("--json", type=Path, help="also write the results here")
    args = ap.parse_args(argv)
    if args.quick:
        args.rounds, args.per_client = 3, 14
    levels = [int(x) for x in args.clients.split(",")]
    texts = {q: (shared("lubm", "queries") / f"{q}.rq").read_text() for q in QUERIES}
    out: dict[str, Any] = {"rounds": args.rounds, "levels": levels, "per_client": args.per_client}

    with tempfile.TemporaryDirectory(prefix="hybridkg-bench-service-") as scratch:
        print("loading and materialising LUBM(1) (not timed) ...", flush=True)
        runtime = lubm_runtime(Path(scratch))
        try:
            with BackgroundService(runtime) as svc:
                paths = {"direct": direct(runtime), "grpc": over_grpc(svc.endpoints.grpc),
                         "http": over_http(svc.endpoints.http)}
                pq = per_query(paths, texts, args.rounds)
                out["per_query"] = pq
                print(f"\n{'query':6s} {'rows':>6s} " + " ".join(f"{p + ' p50 ms':>14s}" for p in paths)
                      + " " + " ".join(f"{p + ' cold ms':>14s}" for p in paths))
                for q in texts:
                    print(f"{q:6s} {pq['counts'][q]:6d} "
                          + " ".join(f"{pq['p50'][p][q] * 1000:14.2f}" for p in paths) + " "
                          + " ".join(f"{pq['cold'][p][q] * 1000:14.2f}" for p in paths))
                sums = {p: sum(pq["p50"][p].values()) for p in paths}
                cold = {p: sum(pq["cold"][p].values()) for p in paths}
                for p in ("grpc", "http"):
                    print(f"sum of p50s {p} / direct: {sums[p] * 1000:.1f} / {sums['direct'] * 1000:.1f} ms = "
                          f"{sums[p] / sums['direct']:.2f}x   (cold sums: {cold[p] / cold['direct']:.2f}x)")
                out["ratio_p50_sum"] = {p: sums[p] / sums["direct"] for p in ("grpc", "http")}
                out["ratio_cold_sum"] = {p: cold[p] / cold["direct"] for p in ("grpc", "http")}
                items = list(texts.values())
                out["load"] = {}
                for p in ("direct", "grpc", "http"):
                    for c in levels:
                        r = load(paths[p], items, c, args.per_client)
                        out["load"][f"{p}@{c}"] = r
                        print(f"SPARQL {p:6s} clients={c:3d}: {r['rps']:8.1f} req/s  p50 {r['p50_ms']:8.1f} ms  "
                              f"p99 {r['p99_ms']:8.1f} ms  errors {r['errors']}")
        finally:
            runtime.close()

    print("\npreparing the demo knowledge base for Ask (not timed) ...", flush=True)
    with demo_runtime(Settings(), say=lambda _m: None) as demo, BackgroundService(demo) as svc:
        for route, questions, domain in (("strict", STRICT_QUESTIONS, "clinical"), ("fuzzy", FUZZY_QUESTIONS, "crm")):
            fn = ask_fn(svc.endpoints.grpc, domain)
            for q in questions:
                fn(q)  # the first call builds the domain's lexicon / loads the model; reported as cold below
            for c in levels:
                r = load(fn, questions, c, max(3, args.per_client // 4))
                out.setdefault("ask", {})[f"{route}@{c}"] = r
                print(f"Ask {route:6s} clients={c:3d}: {r['rps']:8.1f} req/s  p50 {r['p50_ms']:8.1f} ms  "
                      f"p99 {r['p99_ms']:8.1f} ms  errors {r['errors']}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, default=str))


if __name__ == "__main__":
    main()
