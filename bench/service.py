"""The service under load: the 14 LUBM queries on materialised LUBM(1) over gRPC and over HTTP, and Ask (strict
and fuzzy) on the demo knowledge base, with 1, 16 and 64 concurrent clients; the same queries on pyoxigraph
directly, in the same run, as the peer.

    python -m bench.service [--rounds 7] [--clients 1,16,64] [--per-client 28] [--quick] [--json FILE]

The service runs as users run it: ``hybridkg serve`` in its own process (the console script beside this
Python), listening on 127.0.0.1 ports the OS picks. The SPARQL part serves an embedded store holding LUBM(1)
(``--config`` file written into a scratch folder: that store, ``structural.path`` in the scratch folder,
``server.workers`` 8); the Ask part serves the bundled demo knowledge base (``hybridkg serve`` without a store
or config). The server process and this process's client threads share the machine's cores (2 here) but not a
GIL. The direct peer is pyoxigraph in this process on a copy of the service's store directory (same RocksDB
backend, same quads; one RocksDB directory cannot be opened by two processes).

What is timed: one query from the client's call until its last row has arrived (the service's answer is fully
read: JSON parsed over HTTP, every streamed row turned into a tuple of pyoxigraph terms over gRPC;
pyoxigraph's rows are read as tuples of terms, what hybridkg.client returns). The first time each query runs,
on each path, is reported separately ("cold"); the p50 comparison takes ``--rounds`` further runs per query,
interleaved round-robin across the 14 queries so that no query repeats back to back, on all paths alike. Every
path must return the same number of rows per query. The load levels run each path with N client threads.

Not timed: loading and materialising LUBM(1) (done once in this process, before the server starts), copying
the store for the direct peer, starting the servers and building the demo knowledge base, and the first Ask per
question (it builds the domain's lexicon / loads the model).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx
import pyoxigraph
import yaml

from bench.common import shared
from hybridkg.client import Client
from hybridkg.semantic.settings import StoreBackend
from hybridkg.server.config import Settings
from hybridkg.server.runtime import Runtime

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

READY_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 60.0
PROBLEM = re.compile(r"\b(WARNING|ERROR|CRITICAL)\b|\"level\": \"(warning|error|critical)\"")


def _percentile(xs: Sequence[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    k = min(len(s) - 1, max(0, round(q * (len(s) - 1))))
    return s[k]


# ---------------------------------------------------------------------------------------------- the server


@dataclass
class Server:
    """A ``hybridkg serve`` process: its endpoints once ready, and what it printed (stdout and stderr)."""

    name: str
    grpc: str = ""
    http: str = ""
    ready_s: float = float("nan")  # from the spawn until both listeners were announced
    returncode: int | None = None
    phase: str = "starting"  # then "serving", "stopping"
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=60))
    problems: list[str] = field(default_factory=list)  # the first warning/error lines and tracebacks
    problem_count: int = 0
    _traceback: list[str] | None = None
    _ready: threading.Event = field(default_factory=threading.Event)
    _eof: threading.Event = field(default_factory=threading.Event)

    def _problem(self, text: str) -> None:
        self.problem_count += 1
        if len(self.problems) < 10:
            self.problems.append(text)

    def _read(self, stream: IO[str]) -> None:
        for raw in stream:
            line = raw.rstrip("\n")
            self.tail.append(line)
            if self._traceback is not None:
                self._traceback.append(line[:300])
                if line[:1] not in ("", " ", "\t") or len(self._traceback) > 40:  # the exception line ends it
                    self._problem("\n".join(self._traceback))
                    self._traceback = None
            elif line.startswith("Traceback"):
                self._traceback = [f"[while {self.phase}] {line}"]
            elif PROBLEM.search(line):
                self._problem(f"[while {self.phase}] {line[:300]}")
            if not self._ready.is_set():
                if m := re.fullmatch(r"grpc: (\S+)", line):
                    self.grpc = m[1]
                elif m := re.fullmatch(r"http: (\S+)", line):
                    self.http = m[1]
                if self.grpc and self.http:
                    self._ready.set()
        if self._traceback is not None:
            self._problem("\n".join(self._traceback))
        self._eof.set()

    def output(self) -> str:
        return "\n".join(f"    {line}" for line in self.tail)


def hybridkg_command() -> list[str]:
    exe = Path(sys.executable).with_name("hybridkg")
    if not exe.exists():
        raise SystemExit(f"{exe} is missing: install the project into this environment (pip install -e .)")
    return [str(exe)]


@contextlib.contextmanager
def served(name: str, args: Sequence[str], cwd: Path) -> Iterator[Server]:
    """``hybridkg serve ARGS`` in its own process, until its ``grpc:`` and ``http:`` lines are printed; its
    output (stdout and stderr) is drained by a daemon thread throughout; on leaving, SIGTERM, then SIGKILL if
    it has not stopped within STOP_TIMEOUT_S."""
    server = Server(name)
    start = time.perf_counter()
    proc = subprocess.Popen([*hybridkg_command(), "serve", *args], cwd=cwd, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    assert proc.stdout is not None
    reader = threading.Thread(target=server._read, args=(proc.stdout,), name=f"{name}-output", daemon=True)
    reader.start()
    try:
        while not server._ready.wait(0.2):
            if server._eof.is_set() or proc.poll() is not None:
                proc.wait()
                reader.join(5)
                raise SystemExit(f"the {name} server exited with code {proc.returncode} before it was ready:\n"
                                 f"{server.output()}")
            if time.perf_counter() - start > READY_TIMEOUT_S:
                raise SystemExit(f"the {name} server was not ready after {READY_TIMEOUT_S:.0f} s:\n{server.output()}")
        server.ready_s = time.perf_counter() - start
        server.phase = "serving"
        yield server
    finally:
        server.phase = "stopping"
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            print(f"the {name} server did not stop within {STOP_TIMEOUT_S:.0f} s of SIGTERM; killing it", flush=True)
            proc.kill()
            proc.wait()
        reader.join(5)
        proc.stdout.close()
        server.returncode = proc.returncode


# ---------------------------------------------------------------------------------------------- LUBM(1)


def lubm_settings(scratch: Path) -> Settings:
    settings = Settings()
    settings.store.backend = StoreBackend.EMBEDDED
    settings.store.path = scratch / "store"
    settings.structural.path = scratch / "structural"
    settings.server.workers = 8
    return settings


def materialise_lubm(settings: Settings) -> None:
    """LUBM(1) and its closure into the embedded store of ``settings`` (the store is closed afterwards)."""
    runtime = Runtime(settings)
    try:
        lubm = shared("lubm")
        runtime.kb.load(lubm / "univ-bench.ttl", graph="urn:lubm:ontology")
        runtime.kb.load(lubm / "lubm1-University0.nt", graph="urn:lubm:data", bulk=True)
    finally:
        runtime.close()


def write_config(settings: Settings, path: Path) -> Path:
    """The settings the server needs, as a ``--config`` YAML file."""
    config = {
        "store": {"backend": settings.store.backend.value, "path": str(settings.store.path)},
        "structural": {"path": str(settings.structural.path)},
        "server": {"workers": settings.server.workers},
    }
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


# ---------------------------------------------------------------------------------------------- the paths


def direct(store_dir: Path) -> Callable[[str], int]:
    """pyoxigraph itself, on a copy of the service's store, with the same dataset (union of all graphs); each
    row is read as a tuple of its terms, as the gRPC client returns rows."""
    store = pyoxigraph.Store(str(store_dir))

    def run(query: str) -> int:
        result = store.query(query, use_default_graph_as_union=True)
        if isinstance(result, pyoxigraph.QueryBoolean):
            return 1
        return sum(1 for row in result for _ in [tuple(row)])

    return run


def over_http(base: str, *, tsv: bool = False) -> Callable[[str], int]:
    """POST /sparql; SPARQL JSON parsed with the json module, or (``tsv``) TSV parsed by pyoxigraph into rows
    of terms."""
    local = threading.local()
    accept = "text/tab-separated-values" if tsv else "application/sparql-results+json"

    def run(query: str) -> int:
        client = getattr(local, "client", None)
        if client is None:
            client = local.client = httpx.Client(timeout=120)
        r = client.post(f"{base}/sparql", content=query.encode(),
                        headers={"content-type": "application/sparql-query", "accept": accept})
        r.raise_for_status()
        if tsv:
            rows = pyoxigraph.parse_query_results(r.content, format=pyoxigraph.QueryResultsFormat.TSV)
            return sum(1 for row in rows for _ in [tuple(row)])  # type: ignore[union-attr]
        return len(r.json()["results"]["bindings"])

    return run


def over_grpc(target: str, *, text: bool = True) -> Callable[[str], int]:
    """hybridkg.client.Client.sparql: by default the results travel as TSV lines written by the server's store
    (encoding TEXT); ``text=False`` asks for typed rows, what generic gRPC clients read."""
    local = threading.local()

    def run(query: str) -> int:
        client = getattr(local, "client", None)
        if client is None:
            client = local.client = Client(target)
        result = client.sparql(query, text=text)
        if isinstance(result, bool):
            return 1
        return sum(1 for _ in result)

    return run


def ask_fn(target: str, domain: str | None) -> Callable[[str], Any]:
    local = threading.local()

    def run(question: str) -> Any:
        client = getattr(local, "client", None)
        if client is None:
            client = local.client = Client(target)
        return client.ask(question, domain=domain)

    return run


# ---------------------------------------------------------------------------------------------- measuring


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


def _load_line(what: str, r: dict[str, Any]) -> str:
    return (f"{what} clients={r['clients']:3d}: {r['rps']:8.1f} req/s  p50 {r['p50_ms']:8.1f} ms  "
            f"p99 {r['p99_ms']:8.1f} ms  errors {r['errors']}")


# ---------------------------------------------------------------------------------------------- the run


def sparql_part(scratch: Path, texts: dict[str, str], args: argparse.Namespace, levels: list[int],
                out: dict[str, Any]) -> Server:
    print("loading and materialising LUBM(1) (not timed) ...", flush=True)
    settings = lubm_settings(scratch)
    materialise_lubm(settings)
    gc.collect()  # the closed runtime's RocksDB handle goes now, with its background compactions
    shutil.copytree(settings.store.path, scratch / "direct")
    config = write_config(settings, scratch / "lubm.yaml")
    print("starting hybridkg serve on the LUBM(1) store (not timed) ...", flush=True)
    with served("lubm", ["--config", str(config), "--grpc", "127.0.0.1:0", "--http", "127.0.0.1:0"],
                scratch) as svc:
        print(f"  ready in {svc.ready_s:.1f} s: grpc {svc.grpc}, {svc.http}", flush=True)
        paths = {"direct": direct(scratch / "direct"), "grpc": over_grpc(svc.grpc),
                 "grpc-rows": over_grpc(svc.grpc, text=False), "http": over_http(svc.http),
                 "http-tsv": over_http(svc.http, tsv=True)}
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
        served_paths = [p for p in paths if p != "direct"]
        for p in served_paths:
            print(f"sum of p50s {p} / direct: {sums[p] * 1000:.1f} / {sums['direct'] * 1000:.1f} ms = "
                  f"{sums[p] / sums['direct']:.2f}x   (cold sums: {cold[p] / cold['direct']:.2f}x)")
        out["ratio_p50_sum"] = {p: sums[p] / sums["direct"] for p in served_paths}
        out["ratio_cold_sum"] = {p: cold[p] / cold["direct"] for p in served_paths}
        items = list(texts.values())
        out["load"] = {}
        for p in ("direct", "grpc", "http"):
            for c in levels:
                r = load(paths[p], items, c, args.per_client)
                out["load"][f"{p}@{c}"] = r
                print(_load_line(f"SPARQL {p:6s}", r), flush=True)
    return svc


def ask_part(scratch: Path, args: argparse.Namespace, levels: list[int], out: dict[str, Any]) -> Server:
    print("\nstarting hybridkg serve on the demo knowledge base (not timed) ...", flush=True)
    with served("demo", ["--grpc", "127.0.0.1:0", "--http", "127.0.0.1:0"], scratch) as svc:
        print(f"  ready in {svc.ready_s:.1f} s: grpc {svc.grpc}, {svc.http}", flush=True)
        out["ask"] = {}
        for route, questions, domain in (("strict", STRICT_QUESTIONS, "clinical"), ("fuzzy", FUZZY_QUESTIONS, "crm")):
            fn = ask_fn(svc.grpc, domain)
            for q in questions:
                fn(q)  # the first call builds the domain's lexicon / loads the model; not timed
            for c in levels:
                r = load(fn, questions, c, max(3, args.per_client // 4))
                out["ask"][f"{route}@{c}"] = r
                print(_load_line(f"Ask {route:6s}", r), flush=True)
    return svc


def summary(out: dict[str, Any], servers: list[Server]) -> None:
    print(f"\nsummary (server in its own process; {os.cpu_count()} cores shared with the client threads)")
    ratios = out.get("ratio_p50_sum", {})
    if ratios:
        print("  sum of per-query p50s: " + ", ".join(f"{p}/direct {ratios[p]:.2f}x" for p in ratios))
    for part in ("load", "ask"):
        results = out.get(part, {})
        if results:
            print(f"  {'SPARQL' if part == 'load' else 'Ask'} errors: "
                  + ", ".join(f"{k} {r['errors']}/{r['requests']}" for k, r in results.items()))
            for k, r in results.items():
                for e in r["first_errors"]:
                    print(f"    {k}: {e}")
    for s in servers:
        print(f"  {s.name} server: ready in {s.ready_s:.1f} s, exit code {s.returncode}, "
              f"{s.problem_count} warning/error lines")
        for problem in s.problems:
            print("    " + problem.replace("\n", "\n      "))
    out["servers"] = {s.name: {"ready_s": s.ready_s, "returncode": s.returncode, "problem_count": s.problem_count,
                               "problems": s.problems} for s in servers}


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

    servers: list[Server] = []
    with tempfile.TemporaryDirectory(prefix="hybridkg-bench-service-") as scratch:
        servers.append(sparql_part(Path(scratch), texts, args, levels, out))
        servers.append(ask_part(Path(scratch), args, levels, out))
    summary(out, servers)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, default=str))


if __name__ == "__main__":
    main()
