"""LUBM(1), (10), (50) through the CLI into an on-disk store: wall time and peak RSS of load + materialise per
engine, the 14 query counts against the reference, and a growth table (issue 12 §2).

    cd /tmp && python -m bench.reasoning                         # duckdb 1/10/50, reasonable 1/10, owlrl 1
    cd /tmp && python -m bench.reasoning --sizes 1 10 --engines duckdb
    cd /tmp && python -m bench.reasoning --sizes 1 --engines duckdb owlrl --runs 5   # medians of 5 cold runs each

Each run is one cold process, as a new user runs it: ``hybridkg load --store <fresh dir> --json univ-bench.ttl
<data>`` with ``HYBRIDKG_REASONING__ENGINE=<engine>`` (and ``store.max_input_bytes`` raised to 4 GB: LUBM(50) is
1.18 GB decompressed). Wall time is the process's, start-up included; peak RSS is the process's own maximum
(``wait4``). The load command's own JSON gives the load time without start-up. Then the 14 LUBM queries run on the
store in this process (with inference: all graphs) and their counts are compared with
``expected_counts_lubm1.json`` / ``scale/expected_counts.json``. Left out by default: ``reasonable`` on LUBM(50)
(stopped at 14 GiB RSS in the issue's run) and ``owlrl`` above LUBM(1) (90 s at LUBM(1)). The owlrl comparison:
its CLI wall time on LUBM(1), and its reasoning alone (``materialize`` on parsed triples, no store) against the
duckdb load's reasoning phase (what ``semantic.bulkload`` reports).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.common import shared

DATA = {1: ("lubm1-University0.nt", None), 10: ("scale/lubm10.nt.gz", "lubm10.nt.gz"),
        50: ("scale/lubm50.nt.gz", "lubm50.nt.gz")}
SKIP = {("reasonable", 50), ("owlrl", 10), ("owlrl", 50)}


def hybridkg() -> str:
    exe = Path(sys.executable).with_name("hybridkg")
    return str(exe) if exe.exists() else "hybridkg"


def expected(size: int) -> dict[str, int]:
    lubm = shared("lubm")
    if size == 1:
        return json.loads((lubm / "expected_counts_lubm1.json").read_text())["counts_with_full_inference"]
    return json.loads((lubm / "scale" / "expected_counts.json").read_text())[DATA[size][1]]


def compile_package() -> None:
    """Byte-compile hybridkg's sources once, as ``pip install`` does for an installed package: with the editable
    install and ``PYTHONDONTWRITEBYTECODE`` set (as on this machine) every CLI process would otherwise compile ~115
    modules (0.15 s) that an installed copy has compiled already. Not part of any timing."""
    import compileall

    import hybridkg

    for root in {Path(p).resolve() for p in hybridkg.__path__} | {Path(hybridkg.__file__).resolve().parents[1]}:
        for layer in ("semantic", "structural", "bridge", "server", "proto", "hybridkg"):
            if (root / layer).is_dir():
                compileall.compile_dir(root / layer, quiet=1)


def timed(cmd: list[str], env: dict[str, str], *, stderr: int | None = subprocess.DEVNULL,
          ) -> tuple[float, resource.struct_rusage, bytes]:
    """Run one process: its wall time, its own resource usage (``wait4``: CPU and peak RSS, threads included) and
    its standard output; a failure ends the benchmark. ``stderr``: where the process's goes (None: inherited)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=stderr)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd[:4])} ... failed ({proc.returncode})")
    return wall, usage, out


def run_cli(engine: str, size: int, store: Path) -> dict[str, Any]:
    lubm = shared("lubm")
    env = {**os.environ, "HYBRIDKG_REASONING__ENGINE": engine, "HYBRIDKG_STORE__MAX_INPUT_BYTES": str(4 << 30)}
    cmd = [hybridkg(), "load", "--store", str(store), "--json", str(lubm / "univ-bench.ttl"),
           str(lubm / DATA[size][0])]
    wall, usage, out = timed(cmd, env)
    report = json.loads(out)
    return {"wall_s": round(wall, 2), "load_s": report["seconds"], "peak_rss_gib": round(usage.ru_maxrss / 2**20, 2),
            "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
            "asserted": report["triples_asserted"], "inferred": report["triples_inferred"]}


def counts(store: Path) -> dict[str, int]:
    import pyoxigraph as ox

    db = ox.Store.read_only(str(store))
    queries = shared("lubm", "queries")
    return {f"Q{i}": len(list(db.query((queries / f"q{i}.rq").read_text(), use_default_graph_as_union=True)))  # type: ignore[arg-type]
            for i in range(1, 15)}


def owlrl_reasoning_s() -> float:
    from bench.reasoning_inprocess import materialise_only

    return materialise_only("owlrl")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 10, 50], choices=sorted(DATA))
    ap.add_argument("--engines", nargs="+", default=["duckdb", "reasonable", "owlrl"])
    ap.add_argument("--runs", type=int, default=1,
                    help="cold CLI processes per engine and size (each on a new store); the table gives medians")
    ap.add_argument("--json", type=Path, help="write the results to this file")
    args = ap.parse_args(argv)
    compile_package()
    rows: list[dict[str, Any]] = []
    for engine in args.engines:
        for size in args.sizes:
            if (engine, size) in SKIP:
                continue
            runs = []
            for _ in range(max(1, args.runs)):
                with tempfile.TemporaryDirectory(prefix="hkg-scale-", dir="/tmp") as tmp:
                    run = {"engine": engine, "lubm": size, **run_cli(engine, size, Path(tmp) / "store")}
                    got, want = counts(Path(tmp) / "store"), expected(size)
                    run["counts_ok"] = sum(got[q] == want[q] for q in want)
                    if run["counts_ok"] != len(want):
                        run["wrong"] = {q: (got[q], want[q]) for q in want if got[q] != want[q]}
                runs.append(run)
                print(json.dumps(run), flush=True)
            rows.append(_median_row(runs))
    out: dict[str, Any] = {"runs": rows}
    print(f"\n{'engine':11} {'LUBM':>4} {'triples':>11} {'wall s':>8} {'load s':>8} {'peak GiB':>8} "
          f"{'s / M triples':>13} {'counts':>6}")
    for r in rows:
        n = r["asserted"] + r["inferred"]
        print(f"{r['engine']:11} {r['lubm']:4} {n:11,} {r['wall_s']:8.2f} {r['load_s']:8.2f} {r['peak_rss_gib']:8.2f} "
              f"{r['wall_s'] / n * 1e6:13.1f} {r['counts_ok']:>4}/14")
    for engine in args.engines:  # growth: time ~ size^k between consecutive sizes
        mine = sorted((r for r in rows if r["engine"] == engine), key=lambda r: r["lubm"])
        for a, b in zip(mine, mine[1:], strict=False):
            na, nb = a["asserted"] + a["inferred"], b["asserted"] + b["inferred"]
            k = math.log(b["load_s"] / a["load_s"]) / math.log(nb / na)
            print(f"growth {engine} LUBM({a['lubm']}) -> LUBM({b['lubm']}): {nb / na:.1f}x the triples, "
                  f"{b['load_s'] / a['load_s']:.1f}x the load time (exponent {k:.2f}; 1 = linear)")
            out.setdefault("growth", []).append({"engine": engine, "from": a["lubm"], "to": b["lubm"],
                                                 "exponent": round(k, 2)})
    duck1 = next((r for r in rows if r["engine"] == "duckdb" and r["lubm"] == 1), None)
    owl1 = next((r for r in rows if r["engine"] == "owlrl" and r["lubm"] == 1), None)
    if duck1 and owl1:
        out["owlrl_over_duckdb_cli"] = round(owl1["wall_s"] / duck1["wall_s"], 1)
        print(f"LUBM(1) through the CLI: owlrl {owl1['wall_s']:.2f} s / duckdb {duck1['wall_s']:.2f} s = "
              f"{out['owlrl_over_duckdb_cli']}x")
    if duck1 and "owlrl" in args.engines:
        from hybridkg.semantic.reasoning.duckdb_engine import DuckDBReasoner  # noqa: F401 - engine importable

        reasoning = _duckdb_reasoning_s()
        owl = owlrl_reasoning_s()
        out.update(duckdb_reasoning_s=round(reasoning, 2), owlrl_reasoning_s=round(owl, 1),
                   owlrl_over_duckdb_reasoning=round(owl / reasoning, 1))
        print(f"LUBM(1) reasoning alone: owlrl materialize {owl:.1f} s / duckdb's reasoning phase of the fast "
              f"load {reasoning:.2f} s = {owl / reasoning:.1f}x")
        out["owlrl_reasoning_over_duckdb_cli"] = round(owl / duck1["wall_s"], 1)
        print(f"LUBM(1) owlrl's reasoning against duckdb's whole CLI run: owlrl materialize {owl:.1f} s / duckdb "
              f"{duck1['wall_s']:.2f} s = {out['owlrl_reasoning_over_duckdb_cli']}x")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2))
    return 0


def _median_row(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One row for several cold runs of the same engine and size: the medians of their times and peak RSS, the
    fewest counts right, and each run's wall time."""
    row = dict(runs[0])
    for key in ("wall_s", "load_s", "peak_rss_gib"):
        row[key] = statistics.median(r[key] for r in runs)
    row["counts_ok"] = min(r["counts_ok"] for r in runs)
    if len(runs) > 1:
        row["runs_wall_s"] = [r["wall_s"] for r in runs]
    return row


def _duckdb_reasoning_s() -> float:
    """The reasoning phase of a duckdb fast load of LUBM(1) (DuckDB reading the file and saturating), in process."""
    from hybridkg.semantic import bulkload
    from hybridkg.semantic.kb import KnowledgeBase
    from hybridkg.semantic.reasoning.factory import make_reasoner
    from hybridkg.semantic.settings import ReasoningConfig, StoreConfig, ValidationConfig
    from hybridkg.semantic.store.factory import make_store
    from hybridkg.semantic.validation.factory import make_validator

    lubm = shared("lubm")
    with tempfile.TemporaryDirectory(prefix="hkg-scale-", dir="/tmp") as tmp:
        kb = KnowledgeBase(make_store(StoreConfig(path=Path(tmp) / "store")),
                           reasoner=make_reasoner(ReasoningConfig(engine="duckdb")),
                           validator=make_validator(ValidationConfig()))
        try:
            kb.load(lubm / "univ-bench.ttl")
            kb.load(lubm / "lubm1-University0.nt", bulk=True)
            return bulkload.LAST_PHASES["reason"]
        finally:
            kb.close()


if __name__ == "__main__":
    sys.exit(main())
