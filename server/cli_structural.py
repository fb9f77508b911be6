"""CLI commands of the structural layer: ``docs add|update|delete``, ``retrieve``, ``feedback``."""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
from pathlib import Path
from typing import Any

from hybridkg.errors import InputTooLarge, InvalidInput, UnsupportedFormat
from hybridkg.server.cli import input_path, read_input, read_text_input
from hybridkg.structural.settings import Mode

#: Documents per write of ``docs add|update``: each batch is extracted and embedded together and written at once.
DOCS_PER_BATCH = 256


def add_parsers(sub: Any, common: Any) -> None:
    p = sub.add_parser("docs", help="add, update or delete text documents in the property graph")
    p.add_argument("action", choices=["add", "update", "delete"])
    common(p)
    p.add_argument("--domain", required=True, metavar="NAME", help="domain from the policy file")
    p.add_argument("--id", metavar="DOC_ID", help="document id (one FILE only; default: the file path)")
    p.add_argument("--format", choices=["text", "markdown", "html"], help="default: from the file extension")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    p.add_argument("--batch", type=int, default=DOCS_PER_BATCH, metavar="N",
                   help=f"documents extracted and embedded together per write (default {DOCS_PER_BATCH})")
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="files, or directories (their text, Markdown and HTML files, recursively)")

    p = sub.add_parser("retrieve", help="graph + vector retrieval; prints JSON")
    common(p)
    p.add_argument("--mode", default=str(Mode.HYBRID), metavar="MODE",
                   help="local | global | hybrid (default) | naive | mix")
    p.add_argument("--top-k", type=int, metavar="K", help="entities, relations and chunks to return")
    p.add_argument("--domain", metavar="NAME", help="only this domain's entities, relations and chunks")
    p.add_argument("query", metavar="QUERY")

    p = sub.add_parser("feedback", help="attention feedback: NODE_ID=SCORE multiplies w_attn of its edges by 1+SCORE")
    common(p)
    p.add_argument("--from", dest="from_file", metavar="FILE", help="JSON object {node_id: score}")
    p.add_argument("scores", nargs="*", metavar="NODE_ID=SCORE")


def doc_id_for(path: Path) -> str:
    """A stable id for a file: its path relative to the working directory (absolute when outside it)."""
    resolved = path.resolve()
    try:
        return resolved.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return resolved.as_posix()


def _open_structural(settings: Any, domains: tuple[str, ...] = ()) -> Any:
    from hybridkg.server.app import open_knowledge_base, open_structural

    kb = open_knowledge_base(settings) if domains else None
    return open_structural(settings, kb, domains)


def expand_files(names: list[str]) -> list[Path]:
    """The files named, a directory standing for its text, Markdown and HTML files (recursively, sorted,
    hidden ones left out)."""
    from hybridkg.structural.ingest.documents import resolve_format

    out: list[Path] = []
    for name in names:
        path = Path(name)
        if not path.is_dir():
            out.append(path)
            continue
        found = []
        for f in sorted(path.rglob("*")):
            if not f.is_file() or any(part.startswith(".") for part in f.relative_to(path).parts):
                continue
            try:
                if resolve_format(None, f.name) is not None:
                    found.append(f)
            except UnsupportedFormat:
                continue
        if not found:
            raise InvalidInput(f"{path} is a directory with no text, Markdown or HTML file in it")
        out.extend(found)
    return out


def cmd_docs(args: argparse.Namespace, settings: Any, print_json: Any) -> int:
    from tqdm import tqdm

    from hybridkg.semantic.domains import DomainPolicy
    from hybridkg.structural.knowledge import DocumentInput

    DomainPolicy.load(settings.domains.policy).get(args.domain)
    if args.batch < 1:
        raise InvalidInput(f"--batch must be at least 1, not {args.batch}")
    files = expand_files(args.files) if args.action != "delete" else [Path(f) for f in args.files]
    if args.id and len(files) != 1:
        raise InvalidInput("--id names one document; give exactly one FILE with it")
    items: list[tuple[str, Path]] = [(args.id or doc_id_for(f), f) for f in files]
    if args.action != "delete":
        limit = settings.structural.chunking.max_document_bytes
        for _, path in items:
            size = input_path(path).stat().st_size
            if size > limit:  # before reading it into memory
                raise InputTooLarge(
                    f"{path} is {size:,} bytes; the limit is {limit:,} bytes "
                    "(structural.chunking.max_document_bytes); split the document or raise the limit"
                )
    skb = _open_structural(settings, (args.domain,) if args.action != "delete" else ())
    changes = []
    show = sys.stderr.isatty()
    try:
        with tqdm(total=len(items), desc=f"docs {args.action}", unit="doc", disable=not show) as bar:
            if args.action == "delete":
                for doc_id, _ in items:
                    changes.append(skb.delete_document(doc_id, domain=args.domain))
                    bar.update(1)
            op = skb.add_documents if args.action == "add" else skb.update_documents
            for i in range(0, len(items) if args.action != "delete" else 0, args.batch):
                part = items[i : i + args.batch]
                docs = [DocumentInput(d, read_input(p), args.format, p.name) for d, p in part]
                changes.extend(op(docs, domain=args.domain, progress=show and len(items) > 1))
                bar.update(len(part))
    finally:
        skb.close()
    if args.json:
        print_json({"action": args.action, "documents": [c.to_json() for c in changes]})
    else:
        for c in changes:
            print(f"{c.doc_id}: {c.action} (+{c.chunks_added}/-{c.chunks_removed} chunks, "
                  f"+{c.entities_added}/-{c.entities_removed} entities, "
                  f"+{c.relations_added}/-{c.relations_removed} relations, {c.took_ms:.0f} ms)")
    return 0


def cmd_retrieve(args: argparse.Namespace, settings: Any, print_json: Any) -> int:
    if args.mode not in {m.value for m in Mode}:
        raise InvalidInput(f"unknown mode {args.mode!r}; use one of {', '.join(m.value for m in Mode)}")
    if args.top_k is not None and args.top_k <= 0:
        raise InvalidInput(f"--top-k must be a positive number, not {args.top_k}")
    if not args.query.strip():
        raise InvalidInput("the query is empty")
    settings.structural.graph.mirror = False  # one query: the round trips cost less than loading the mirror
    skb = _open_structural(settings)
    try:
        result = skb.retrieve(args.query, mode=args.mode, top_k=args.top_k, domain=args.domain)
    finally:
        skb.close()
    print_json(result.to_json())
    return 0


def parse_scores(pairs: list[str], from_file: str | None) -> dict[str, float]:
    scores: dict[str, float] = {}
    if from_file:
        path = Path(from_file)
        try:
            data = json.loads(read_text_input(path, "feedback file"))
        except json.JSONDecodeError as e:
            raise InvalidInput(f"{path} is not a JSON object of node_id -> score: {e}") from e
        if not isinstance(data, dict):
            raise InvalidInput(f"{path} is not a JSON object of node_id -> score")
        for k, v in data.items():
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise InvalidInput(f"score of {k!r} in {path} is not a number: {v!r}")
            scores[str(k)] = float(v)
    for pair in pairs:
        node, sep, value = pair.rpartition("=")
        if not sep or not node:
            raise InvalidInput(f"feedback {pair!r} is not NODE_ID=SCORE")
        try:
            scores[node] = float(value)
        except ValueError as e:
            raise InvalidInput(f"score in {pair!r} is not a number") from e
    if not scores:
        raise InvalidInput("no feedback given: pass NODE_ID=SCORE pairs or --from FILE")
    for k, v in scores.items():
        if not math.isfinite(v):
            raise InvalidInput(f"score of {k!r} is not finite")
    return scores


def cmd_feedback(args: argparse.Namespace, settings: Any, print_json: Any) -> int:
    scores = parse_scores(args.scores, args.from_file)
    skb = _open_structural(settings)
    try:
        result = skb.feedback(scores)
    finally:
        skb.close()
    print_json(dataclasses.asdict(result))
    return 0

