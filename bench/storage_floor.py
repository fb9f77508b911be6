"""The storage floor under the duckdb fast load: Oxigraph alone storing the same triples (issue 12 §2, growth).

    cd /tmp && python -m bench.storage_floor                      # LUBM(10) and (50), one run each
    cd /tmp && python -m bench.storage_floor --sizes 10 50 --runs 2

For each size: one cold ``hybridkg load`` with the duckdb engine into a new on-disk store (``bench.reasoning``'s
``run_cli``), its wall and CPU time (``wait4``). Then, outside any timing, the files Oxigraph has to store are put on
disk: the data decompressed, and the store's inferred graph dumped as N-Triples. The peer run is a new process,
under the same allocator as the CLI (mimalloc, preloaded with the CLI's options), that does only what the fast load
asks of Oxigraph: two ``Store.bulk_load`` calls side by side, one per file, each from its path (Oxigraph's best:
its own file reader; the CLI reads the gzip file through a pipe), into a new on-disk store, into the two named
graphs the CLI uses. Excluded from the peer: Python's start-up and imports, the ontology (306 triples),
decompression, parsing and reasoning in DuckDB. The table gives both times, their ratio and each side's growth
exponent between consecutive sizes (time ~ triples^k; 1 = linear).

What it answers: how much of the CLI's growth is the store's own. If storing the result alone grows faster than the
data, or leaves no idle core at the larger size, the whole load cannot grow linearly either.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.common import shared
from bench.reasoning import DATA, compile_package, run_cli, timed
from hybridkg.semantic.base import INFERRED_GRAPH
from hybridkg.semantic.kb import DEFAULT_DATA_GRAPH
from hybridkg.server.launch import mimalloc_library, preload_environment

_PEER = """
import sys, threading
import pyoxigraph as ox
store = ox.Store(sys.argv[1])
errors = []
def load(path, graph):
    try:
        store.bulk_load(path=path, format=ox.RdfFormat.N_TRIPLES, to_graph=ox.NamedNode(graph))
    except BaseException as e:
        errors.append(e)
loads = [threading.Thread(target=load, args=(sys.argv[2], sys.argv[3])),
         threading.Thread(target=load, args=(sys.argv[4], sys.argv[5]))]
for t in loads: t.start()
for t in loads: t.join()
if errors: raise errors[0]
store.flush()
print(len(store))
"""


def one(size: int, tmp: Path) -> dict[str, Any]:
    data = shared("lubm") / DATA[size][0]
    store = tmp / "cli-store"
    cli = run_cli("duckdb", size, store)
    # the files the peer stores, prepared outside any timing
    asserted, inferred = tmp / "asserted.nt", tmp / "inferred.nt"
    with (gzip.open(data) if data.suffix == ".gz" else data.open("rb")) as src, asserted.open("wb") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)
    import pyoxigraph as ox

    db = ox.Store.read_only(str(store))
    db.dump(str(inferred), ox.RdfFormat.N_TRIPLES, from_graph=ox.NamedNode(INFERRED_GRAPH.value))
    del db
    shutil.rmtree(store)
    peer_env = preload_environment(os.environ, mimalloc_library()) or dict(os.environ)
    peer = [sys.executable, "-c", _PEER, str(tmp / "peer-store"), str(asserted), DEFAULT_DATA_GRAPH.value,
            str(inferred), INFERRED_GRAPH.value]
    peer_wall, usage, out = timed(peer, peer_env, stderr=None)
    stored = int(out.split()[-1])
    shutil.rmtree(tmp / "peer-store")
    return {"lubm": size, "triples": cli["asserted"] + cli["inferred"], "peer_stored": stored,
            "cli_wall_s": cli["wall_s"], "cli_cpu_s": cli["cpu_s"],
            "peer_wall_s": round(peer_wall, 2), "peer_cpu_s": round(usage.ru_utime + usage.ru_stime, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 50], choices=sorted(DATA))
    ap.add_argument("--runs", type=int, default=1, help="runs per size, interleaved; the table gives medians")
    ap.add_argument("--json", type=Path, help="write the results to this file")
    args = ap.parse_args(argv)
    compile_package()
    runs: dict[int, list[dict[str, Any]]] = {size: [] for size in args.sizes}
    for _ in range(max(1, args.runs)):
        for size in args.sizes:
            with tempfile.TemporaryDirectory(prefix="hkg-floor-", dir="/tmp") as tmp:
                run = one(size, Path(tmp))
            runs[size].append(run)
            print(json.dumps(run), flush=True)
    rows = []
    for size in args.sizes:
        row = dict(runs[size][0])
        for key in ("cli_wall_s", "cli_cpu_s", "peer_wall_s", "peer_cpu_s"):
            row[key] = statistics.median(r[key] for r in runs[size])
        rows.append(row)
    print(f"\n{'LUBM':>4} {'triples':>11} {'CLI wall s':>10} {'CLI CPU s':>9} {'Oxigraph wall s':>15} "
          f"{'Oxigraph CPU s':>14} {'CLI / Oxigraph wall':>19}")
    for r in rows:
        print(f"{r['lubm']:4} {r['triples']:11,} {r['cli_wall_s']:10.2f} {r['cli_cpu_s']:9.1f} "
              f"{r['peer_wall_s']:15.2f} {r['peer_cpu_s']:14.1f} {r['cli_wall_s'] / r['peer_wall_s']:18.2f}x")
    growth = []
    for a, b in zip(rows, rows[1:], strict=False):
        n = b["triples"] / a["triples"]
        g = {"from": a["lubm"], "to": b["lubm"]}
        for key in ("cli_wall_s", "cli_cpu_s", "peer_wall_s", "peer_cpu_s"):
            g[key.removesuffix("_s")] = round(math.log(b[key] / a[key]) / math.log(n), 2)
        growth.append(g)
        print(f"growth LUBM({a['lubm']}) -> LUBM({b['lubm']}), {n:.2f}x the triples: exponent CLI wall {g['cli_wall']}"
              f", CLI CPU {g['cli_cpu']}; Oxigraph alone wall {g['peer_wall']}, CPU {g['peer_cpu']} (1 = linear)")
    if args.json:
        args.json.write_text(json.dumps({"runs": runs, "rows": rows, "growth": growth}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
