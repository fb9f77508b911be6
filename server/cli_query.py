"""CLI commands over the bridge's queries (issue 11 §5; ``docs/bridge.md`` §5): ``translate`` and ``cypher``.

``hybridkg translate --to cypher|sparql [--config F] [--store DIR] [--domain NAME] [--param NAME=JSON ...] [--json]
QUERY|@FILE`` prints the translation of a SPARQL query into Cypher (``--to cypher``) or of a Cypher query into SPARQL
(``--to sparql``) over the bridge graph of the whole store (or of ``--domain``), with the names stored in that graph
(so run ``hybridkg bridge sync`` first). Plain text is runnable as printed: Cypher and then its parameters on a
``// params: {...}`` line (JSON), SPARQL and then its guards on ``# guard (must be false): ASK ...`` lines;
``--json`` prints ``{"to", "query", "params", "columns", "kind"}`` (and ``"guards"`` for SPARQL). A refused
translation prints ``error: <the construct>`` on stderr and exits 2.

``hybridkg cypher [--config F] [--store DIR] [--domain NAME] [--param NAME=JSON ...] QUERY|@FILE`` runs read-only
Cypher on that property graph and prints ``{"columns": [...], "rows": [[...], ...]}`` (values as
:func:`hybridkg.bridge.queries.json_value` renders them: nodes, relationships and paths as objects with an
``"element"`` key). A write, or a statement FalkorDB cannot run safely, is refused before it is sent (exit 2).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hybridkg.server.config import Settings

if TYPE_CHECKING:
    from hybridkg.bridge.queries import Language

COMMON_QUERY_HELP = "the query, or @FILE to read it from a file"


def add_parsers(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("translate", help="translate SPARQL to Cypher or Cypher to SPARQL over the bridge's graph")
    common(p)
    p.add_argument("--to", required=True, choices=["cypher", "sparql"],
                   help="cypher: the query is SPARQL; sparql: the query is Cypher")
    p.add_argument("--domain", metavar="NAME", help="the domain's bridge graph (default: the whole store's)")
    p.add_argument("--param", action="append", default=[], metavar="NAME=JSON",
                   help="a Cypher parameter (--to sparql), e.g. --param min=30 (repeatable)")
    p.add_argument("--json", action="store_true", help='print {"query", "params", "columns", ...} as JSON')
    p.add_argument("query", metavar="QUERY|@FILE", help=COMMON_QUERY_HELP)

    c = sub.add_parser("cypher", help='read-only Cypher on the bridge\'s property graph; prints {"columns", "rows"}')
    common(c)
    c.add_argument("--domain", metavar="NAME", help="the domain's bridge graph (default: the whole store's)")
    c.add_argument("--param", action="append", default=[], metavar="NAME=JSON",
                   help="a parameter, e.g. --param min=30 or --param 'name=\"Ann\"' (repeatable)")
    c.add_argument("query", metavar="QUERY|@FILE", help=COMMON_QUERY_HELP)


def _query_text(text: str) -> str:
    from hybridkg.server.cli import read_text_input

    return read_text_input(Path(text[1:]), "query file") if text.startswith("@") else text


def _scope(settings: Settings, domain: str | None) -> Any:
    from hybridkg.bridge.policy import scope_of
    from hybridkg.semantic.domains import DomainPolicy

    return scope_of(DomainPolicy.load(settings.domains.policy), settings.bridge, domain)


def _parse(query: str, to: Language) -> None:
    from hybridkg.bridge.queries import Language

    if to is Language.SPARQL:
        from hybridkg.bridge.cypher_to_sparql.parse import parse as parse_cypher

        parse_cypher(query)
    else:
        from hybridkg.bridge.sparql_to_cypher.parse import parse as parse_sparql

        parse_sparql(query)


def cmd_translate(args: argparse.Namespace, settings: Settings) -> int:
    from hybridkg.bridge.queries import Language, names_of, parse_params, translate
    from hybridkg.server.cli_bridge import open_bridge_graph

    query = _query_text(args.query)
    params = parse_params(args.param)
    to = Language(args.to)
    _parse(query, to)  # syntax errors and writes before the graph store starts
    scope = _scope(settings, args.domain)
    graph = open_bridge_graph(settings, scope.graph_name)
    try:
        names = names_of(graph, scope.graph_name, scope.shapes)
    finally:
        graph.close()
    result = translate(query, to, names, params)
    if args.json:
        sys.stdout.write(json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(result.to_text())
    return 0


def cmd_cypher(args: argparse.Namespace, settings: Settings) -> int:
    from hybridkg.bridge.queries import check_read_only, parse_params, run_cypher
    from hybridkg.server.cli_bridge import open_bridge_graph

    query = _query_text(args.query)
    params = parse_params(args.param)
    check_read_only(query)  # before the graph store starts
    scope = _scope(settings, args.domain)
    graph = open_bridge_graph(settings, scope.graph_name)
    try:
        rows = run_cypher(graph, query, params)
        if not rows.rows:
            _note_if_unsynced(graph, scope.graph_name)
    finally:
        graph.close()
    write_rows(rows.columns, rows.json_rows())
    return 0


def _note_if_unsynced(graph: Any, graph_name: str) -> None:
    from hybridkg.bridge.queries import names_of
    from hybridkg.errors import NotFound

    try:
        names_of(graph, graph_name)
    except NotFound as e:
        sys.stderr.write(f"note: {e}\n")


def write_rows(columns: tuple[str, ...], rows: list[list[Any]]) -> None:
    """``{"columns": [...], "rows": [...]}``, one row a line."""
    out = sys.stdout
    out.write('{"columns": ' + json.dumps(list(columns), ensure_ascii=False) + ', "rows": [')
    for i, row in enumerate(rows):
        out.write(("," if i else "") + "\n  " + json.dumps(row, ensure_ascii=False))
    out.write("\n]}\n" if rows else "]}\n")
