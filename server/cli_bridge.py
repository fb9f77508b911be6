"""CLI commands of the bridge (issue 11 §5): ``bridge sync`` and ``bridge export``.

``hybridkg bridge sync [--config F] [--store DIR] [--domain NAME] [--exposure asserted|inferred]`` brings the
bridge's property graph in line with the RDF store (idempotent; see :mod:`hybridkg.bridge.sync`) and prints a JSON
summary. Without a domain it mirrors the whole store into the graph ``<bridge.graph_name>`` (``hybridkg_bridge``);
with one, that domain's graphs into ``<bridge.graph_name>_<domain>``. What is exposed: ``--exposure``, else the
domain's ``bridge_exposure`` (policy file), else ``bridge.exposure`` (settings; ``inferred`` by default). The graph
lives in the structural layer's graph store (``structural.graph``: the managed FalkorDB under
``<store>/structural/graph`` by default), which a running service holds: while it runs, its own sync keeps the
graphs in line, and these commands refuse to start a second server on the same directory.

``hybridkg bridge export [--config F] [--store DIR] [--domain NAME] [--format nt|ttl]`` prints the RDF rebuilt from
that property graph through the reverse mapping (``nt``: canonical N-Triples, sorted, one triple a line).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from hybridkg.errors import Unsupported
from hybridkg.server.config import Settings

if TYPE_CHECKING:  # numpy and the rest of the structural layer: imported by the commands that open it
    from hybridkg.structural.base import GraphStore

FORMATS = {"nt": "N_TRIPLES", "ttl": "TURTLE"}


def add_parser(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("bridge", help="the RDF -> property-graph bridge: sync the graph, export it back as RDF")
    bridge = p.add_subparsers(dest="bridge_command", required=True)

    s = bridge.add_parser("sync", help="bring the bridge's property graph in line with the RDF store (idempotent)")
    common(s)
    s.add_argument("--domain", metavar="NAME", help="only this domain's graphs (default: the whole store)")
    s.add_argument("--exposure", choices=["asserted", "inferred"],
                   help="asserted triples only, or asserted + inferred (default: the domain's bridge_exposure in the "
                   "policy file, else bridge.exposure in the settings: inferred)")

    e = bridge.add_parser("export", help="print the RDF rebuilt from the bridge's property graph")
    common(e)
    e.add_argument("--domain", metavar="NAME", help="the domain's bridge graph (default: the whole store's)")
    e.add_argument("--format", choices=sorted(FORMATS), default="nt", help="nt (default) or ttl")


def open_bridge_graph(settings: Settings, graph_name: str) -> GraphStore:
    """The bridge's graph ``graph_name`` in the structural layer's graph store (its own server, data directory)."""
    from hybridkg.structural.graphstore.factory import make_graph_store
    from hybridkg.structural.settings import GraphBackend

    config = settings.structural.graph
    if config.backend == GraphBackend.MEMORY:
        raise Unsupported(
            "the bridge needs a graph store that runs Cypher and keeps its data; structural.graph.backend is "
            "memory: set it to falkordb (the default) or neo4j"
        )
    path = settings.structural_path() / "graph"
    return make_graph_store(config.model_copy(update={"graph_name": graph_name, "mirror": False}), path)


@runtime_checkable
class Closable(Protocol):
    def close(self) -> None: ...


def _close(graph: GraphStore) -> None:
    if isinstance(graph, Closable):
        graph.close()


def cmd_bridge(args: argparse.Namespace, settings: Settings) -> int:
    if not settings.bridge.enabled:
        raise Unsupported("the bridge is off (bridge.enabled is false in the settings): it keeps no property graph to "
                          f"{args.bridge_command}; turn it on first")
    if args.bridge_command == "sync":
        return _sync(args, settings)
    return _export(args, settings)


def _sync(args: argparse.Namespace, settings: Settings) -> int:
    from tqdm import tqdm

    from hybridkg.bridge.policy import Exposure, scope_of
    from hybridkg.bridge.sync import BridgeSync
    from hybridkg.semantic.domains import DomainPolicy
    from hybridkg.server.app import open_knowledge_base

    exposure = Exposure(args.exposure) if args.exposure else None
    scope = scope_of(DomainPolicy.load(settings.domains.policy), settings.bridge, args.domain, exposure)
    kb = open_knowledge_base(settings)
    try:
        graph = open_bridge_graph(settings, scope.graph_name)
        try:
            with tqdm(desc="bridge sync", unit="subject", file=sys.stderr, disable=not sys.stderr.isatty()) as bar:
                report = BridgeSync(kb.store, graph, scope).sync(progress=bar.update)
        finally:
            _close(graph)
    finally:
        kb.close()
    out = {"graph": scope.graph_name, "domain": scope.domain, "inferred": scope.inferred, **report.to_json()}
    sys.stdout.write(json.dumps(out, indent=2) + "\n")
    return 0


def _export(args: argparse.Namespace, settings: Settings) -> int:
    from pyoxigraph import RdfFormat, serialize

    from hybridkg.bridge.mapping import read_graph, to_rdf
    from hybridkg.semantic.domains import DomainPolicy

    name = settings.bridge.graph_name
    if args.domain:
        name = f"{name}_{DomainPolicy.load(settings.domains.policy).get(args.domain).name}"
    graph = open_bridge_graph(settings, name)
    try:
        mapped = read_graph(graph)
    finally:
        _close(graph)
    triples = to_rdf(mapped)
    if not triples:
        sys.stderr.write(f"note: the bridge graph {name} is empty; run `hybridkg bridge sync` first\n")
    fmt = getattr(RdfFormat, FORMATS[args.format])
    if fmt == RdfFormat.N_TRIPLES:
        lines = sorted(str(t) + " .\n" for t in triples)
        sys.stdout.write("".join(lines))
        return 0
    out = serialize(triples, format=fmt, prefixes=mapped.mapping.registry.prefixes)
    assert out is not None
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    return 0
