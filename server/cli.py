"""The ``hybridkg`` command line: a stable contract other tools script against.

Exit codes: 0 success, 1 ``validate`` found violations, 2 error (message on stderr). Every error a user
can cause is a :class:`~hybridkg.errors.HybridKGError` whose message says what to do; anything else is a
bug, reported with its traceback, and still exits 2.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hybridkg.errors import HybridKGError, InvalidInput, ShapeViolation
from hybridkg.semantic.settings import StoreBackend
from hybridkg.server.config import Settings, load_settings

EXIT_OK, EXIT_VIOLATES, EXIT_ERROR = 0, 1, 2


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--store", metavar="DIR", help="embedded store directory (default: ./hybridkg-store)")
    p.add_argument("--config", metavar="FILE", help="settings file (YAML or TOML)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hybridkg", description=__doc__.splitlines()[0] if __doc__ else None)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("load", help="load RDF files into a named graph (validated for strict domains)")
    _common(p)
    p.add_argument("--graph", metavar="IRI", help="target named graph (default: the domain's data graph)")
    p.add_argument("--domain", metavar="NAME", help="domain from the policy file (strict domains are validated)")
    p.add_argument("--format", metavar="F", help="RDF format (default: from the file extension)")
    p.add_argument("--bulk", action="store_true", help="force the store's bulk path (automatic from 10,000 quads)")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    p.add_argument("files", nargs="+", metavar="FILE")

    p = sub.add_parser("reason", help="recompute the OWL 2 RL closure")
    _common(p)
    p.add_argument("--engine", choices=["reasonable", "owlrl", "duckdb"],
                   help="reasoning engine (default: from config)")
    p.add_argument("--json", action="store_true", help="print a JSON summary")

    p = sub.add_parser("sparql", help="run a SPARQL query; prints SPARQL JSON results, N-Triples for CONSTRUCT")
    _common(p)
    p.add_argument("--no-inference", action="store_true", help="query asserted triples only")
    p.add_argument("query", metavar="QUERY|@FILE")

    p = sub.add_parser("explain", help="explain why a triple holds (JSON derivation tree)")
    _common(p)
    p.add_argument("triple", metavar="'<s> <p> <o> .'")

    p = sub.add_parser("validate", help="validate RDF files against SHACL shapes (exit 1 if they violate)")
    _common(p)
    p.add_argument("--shapes", required=True, metavar="FILE", help="SHACL shapes file")
    p.add_argument("--no-inference", action="store_true", help="validate the data as written, without its closure")
    p.add_argument("data", nargs="+", metavar="DATA")

    from hybridkg.server.cli_structural import add_parsers

    add_parsers(sub, _common)

    from hybridkg.server import cli_ask

    cli_ask.add_parser(sub, _common)

    from hybridkg.server import cli_bridge

    cli_bridge.add_parser(sub, _common)

    from hybridkg.server import cli_query

    cli_query.add_parsers(sub, _common)

    p = sub.add_parser("serve", help="run the gRPC service and the SPARQL endpoint (the demo KB without a store)")
    _common(p)
    p.add_argument("--grpc", metavar="HOST:PORT", help="gRPC listener (default: server.grpc, 127.0.0.1:50051)")
    p.add_argument("--http", metavar="HOST:PORT", help="HTTP listener (default: server.http, 127.0.0.1:8080)")

    p = sub.add_parser("keys", help="API keys for the service")
    keys = p.add_subparsers(dest="keys_command", required=True)
    k = keys.add_parser("new", help="print a new random API key and its config line (server.auth.keys)")
    k.add_argument("--role", required=True, choices=["reader", "writer", "admin"], help="what the key may do")
    k.add_argument("--name", default=None, help="who holds the key (default: <role>-<date>)")

    p = sub.add_parser("demo", help="load the bundled demo knowledge base, reason, validate, query, explain")
    _common(p)
    return parser


def _settings(args: argparse.Namespace) -> Settings:
    settings = load_settings(args.config)
    if args.store:
        settings.store.backend = StoreBackend.EMBEDDED
        settings.store.path = Path(args.store)
    return settings


def _open(args: argparse.Namespace) -> Any:
    from hybridkg.server.app import open_knowledge_base

    return open_knowledge_base(_settings(args))


def _print_json(obj: object) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, ensure_ascii=False) + "\n")


def input_path(name: str | Path, what: str = "file") -> Path:
    """The path of a file the user named, or :class:`InvalidInput` saying what is wrong with it."""
    path = Path(name)
    if path.is_dir():
        raise InvalidInput(f"{path} is a directory, not a {what}; pass a file inside it")
    if not path.exists():
        raise InvalidInput(f"no such {what}: {path}")
    if not os.access(path, os.R_OK):
        raise InvalidInput(f"cannot read {what} {path}: permission denied; check its permissions")
    return path


def read_input(path: Path, what: str = "file") -> bytes:
    try:
        return input_path(path, what).read_bytes()
    except OSError as e:
        hint = "; check its permissions" if isinstance(e, PermissionError) else ""
        raise InvalidInput(f"cannot read {what} {path}: {e.strerror or e}{hint}") from e


def read_text_input(path: Path, what: str = "file") -> str:
    data = read_input(path, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InvalidInput(f"{what} {path} is not UTF-8 text (byte {e.start}); save it as UTF-8") from e


def cmd_load(args: argparse.Namespace) -> int:
    from hybridkg.semantic.formats import resolve_format

    paths = [input_path(name) for name in args.files]
    for path in paths:
        resolve_format(args.format, path)  # every file's format is known before anything is loaded
    kb = _open(args)
    results = []
    try:
        for path in paths:
            results.append(
                kb.load(path, fmt=args.format, graph=args.graph, domain=args.domain, bulk=args.bulk, progress=True)
            )
    except HybridKGError as e:
        if results:
            done = ", ".join(str(p) for p in paths[: len(results)])
            e.add_note(f"{done} {'was' if len(results) == 1 else 'were'} loaded before it; "
                       f"{paths[len(results)]} and the files after it were not")
        raise
    finally:
        kb.flush()
    if args.json:
        _print_json({
            "files": [r.to_json() for r in results],
            "triples_asserted": sum(r.asserted_added for r in results),
            "triples_inferred": sum(r.inferred_added for r in results),
            "seconds": round(sum(r.seconds for r in results), 4),
        })
    else:
        for name, r in zip(args.files, results, strict=True):
            print(f"{name}: {r.asserted_added} asserted, {r.inferred_added} inferred into {r.graph} "
                  f"({r.seconds:.2f} s)")
            for w in r.warnings:
                print(f"  warning: {w.focus} {w.path or ''}: {w.message}")
    return EXIT_OK


def cmd_reason(args: argparse.Namespace) -> int:
    kb = _open(args)
    reasoner = None
    if args.engine:
        from hybridkg.semantic.reasoning.factory import make_reasoner
        from hybridkg.semantic.settings import ReasoningConfig

        reasoner = make_reasoner(ReasoningConfig(engine=args.engine))
    result = kb.reason(reasoner)
    kb.flush()
    if args.json:
        _print_json(result.to_json())
    else:
        print(f"{result.engine}: {result.asserted} asserted, {result.inferred} inferred "
              f"(+{result.inferred_added} -{result.inferred_removed}) in {result.seconds:.2f} s")
    return EXIT_OK


def _read_query(text: str) -> str:
    if text.startswith("@"):
        return read_text_input(Path(text[1:]), "query file")
    return text


def cmd_sparql(args: argparse.Namespace) -> int:
    from hybridkg.server.sparql_json import ntriples, results_json

    query = _read_query(args.query)
    kb = _open(args)
    result = kb.query(query, inference=not args.no_inference)
    if result.kind == "graph":
        sys.stdout.write(ntriples(result))
    else:
        _print_json(results_json(result))
    return EXIT_OK


def cmd_explain(args: argparse.Namespace) -> int:
    from hybridkg.semantic.ntriples import parse_triple

    triple = parse_triple(args.triple)
    kb = _open(args)
    _print_json(kb.explain(triple).to_json())
    return EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    from pyoxigraph import NamedNode, Triple

    from hybridkg.semantic.formats import parse_document, resolve_format
    from hybridkg.semantic.reasoning.factory import make_reasoner
    from hybridkg.semantic.validation.factory import make_validator

    settings = _settings(args)
    graph = NamedNode("urn:hybridkg:validate")
    limit = settings.store.max_input_bytes
    shapes_path = input_path(args.shapes, "shapes file")
    paths = [input_path(name) for name in args.data]
    formats = [resolve_format(None, p) for p in paths]
    shapes = [
        q.triple for q in parse_document(shapes_path, resolve_format(None, shapes_path), graph, max_bytes=limit).quads
    ]
    data: set[Triple] = set()
    for path, fmt in zip(paths, formats, strict=True):
        data.update(q.triple for q in parse_document(path, fmt, graph, max_bytes=limit).quads)
    if args.store:
        kb = _open(args)
        data.update(q.triple for q in kb.store.quads())
    if not args.no_inference:
        data |= make_reasoner(settings.reasoning).materialize(data)
    report = make_validator(settings.validation).validate(data, shapes)
    _print_json(report.to_json())
    return EXIT_OK if report.conforms else EXIT_VIOLATES


def cmd_demo(args: argparse.Namespace) -> int:
    from hybridkg.server.demo import run_demo

    settings = _settings(args)
    if not args.store and not args.config:
        settings.store.backend = StoreBackend.MEMORY
    return run_demo(settings)


def cmd_serve(args: argparse.Namespace) -> int:
    from hybridkg.server.serve import run_serve

    settings = _settings(args)
    if args.grpc:
        settings.server.grpc = _hostport(args.grpc, "--grpc")
    if args.http:
        settings.server.http = _hostport(args.http, "--http")
    return run_serve(settings, demo=not args.store and not args.config, grpc_address=None, http_address=None)


def _hostport(value: str, flag: str) -> str:
    from hybridkg.server.settings import parse_hostport

    try:
        parse_hostport(value)
    except ValueError as e:
        raise InvalidInput(f"{flag}: {e}") from e
    return value


def cmd_keys(args: argparse.Namespace) -> int:
    import datetime

    from hybridkg.server.auth import new_key
    from hybridkg.server.settings import Role

    role = Role(args.role)
    name = args.name or f"{role.value}-{datetime.date.today().isoformat()}"
    key, line = new_key(role, name)
    sys.stdout.write(f"key: {key}\n")
    sys.stdout.write("config (add under server.auth.keys; the key itself is not stored):\n")
    sys.stdout.write(f"  {line}\n")
    return EXIT_OK


def cmd_ask(args: argparse.Namespace) -> int:
    from hybridkg.server.cli_ask import cmd_ask as run

    return run(args, _settings(args))


def cmd_bridge(args: argparse.Namespace) -> int:
    from hybridkg.server.cli_bridge import cmd_bridge as run

    return run(args, _settings(args))


def cmd_translate(args: argparse.Namespace) -> int:
    from hybridkg.server.cli_query import cmd_translate as run

    return run(args, _settings(args))


def cmd_cypher(args: argparse.Namespace) -> int:
    from hybridkg.server.cli_query import cmd_cypher as run

    return run(args, _settings(args))


def _structural(name: str) -> Any:
    def run(args: argparse.Namespace) -> int:
        from hybridkg.server import cli_structural

        command = getattr(cli_structural, f"cmd_{name}")
        return int(command(args, _settings(args), _print_json))

    return run


COMMANDS = {
    "load": cmd_load,
    "reason": cmd_reason,
    "sparql": cmd_sparql,
    "explain": cmd_explain,
    "validate": cmd_validate,
    "demo": cmd_demo,
    "serve": cmd_serve,
    "ask": cmd_ask,
    "keys": cmd_keys,
    "bridge": cmd_bridge,
    "translate": cmd_translate,
    "cypher": cmd_cypher,
    "docs": _structural("docs"),
    "retrieve": _structural("retrieve"),
    "feedback": _structural("feedback"),
}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except HybridKGError as e:
        sys.stderr.write(f"error: {e}\n")
        if isinstance(e, ShapeViolation):
            for r in e.report.violations:
                sys.stderr.write(f"  {r.focus} {r.path or ''} [{r.constraint.rsplit('#', 1)[-1]}]: {r.message}\n")
        for note in getattr(e, "__notes__", ()):
            sys.stderr.write(f"  {note}\n")
        return EXIT_ERROR
    except BrokenPipeError:
        _silence_stdout()  # the reader went away (| head); Python would fail again flushing at exit
        return EXIT_ERROR
    except OSError as e:
        sys.stderr.write(f"error: {e}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return EXIT_ERROR
    except Exception as e:
        traceback.print_exc()
        sys.stderr.write(f"error: internal error ({type(e).__name__}: {e}); this is a bug in hybridkg, "
                         "please report it with the traceback above\n")
        return EXIT_ERROR


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    raise SystemExit(main())
