"""``hybridkg ask``: answer questions, routed to a domain (strict: proof or abstain; fuzzy: retrieval).

Several questions are answered in order with the stores and models loaded once; ``--json`` prints one
:class:`~hybridkg.server.ask.answer.AskAnswer` JSON object per line (the shape gRPC's AskResponse maps).

Without ``--store`` and ``--config`` the questions go to the bundled demo knowledge base, in memory (as
``hybridkg demo``); its demo documents are added to a scratch structural store only when a question takes
the fuzzy route. A ``--store`` that holds no domain's data yet is refused with the commands that load it
(nothing is loaded silently).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pyoxigraph import NamedNode

from hybridkg.errors import InvalidInput
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.settings import StoreBackend
from hybridkg.server.ask.answer import AskAnswer
from hybridkg.server.config import Settings
from hybridkg.structural.settings import Mode

if TYPE_CHECKING:
    from hybridkg.structural.knowledge import StructuralKB


def add_parser(sub: Any, common: Callable[[argparse.ArgumentParser], None]) -> None:
    p = sub.add_parser("ask", help="answer questions: strict domains with proof or not at all, fuzzy by retrieval")
    common(p)
    p.add_argument("--domain", metavar="NAME", help="route to this domain only (default: the best-linked one)")
    p.add_argument("--mode", metavar="M", help="fuzzy route's retrieval mode: local | global | hybrid | naive | mix "
                   "(default: ask.default_mode)")
    p.add_argument("--top-k", type=int, metavar="K", help="answers and evidence items (default: ask.top_k)")
    p.add_argument("--json", action="store_true", help="one JSON object per question, one per line")
    p.add_argument("questions", nargs="+", metavar="QUESTION")


def _say(text: str) -> None:
    sys.stderr.write(text + "\n")


def require_domain_data(kb: KnowledgeBase, store: str) -> None:
    """:class:`InvalidInput` naming the load commands when no domain of the policy has its graphs in ``kb``."""
    present = set(kb.store.graphs())
    if any(NamedNode(g) in present for d in kb.policy.domains.values() for g in d.graphs):
        return
    lines = []
    for name, d in kb.policy.domains.items():
        data = d.path_of(d.demo_data)
        lines.append(f"hybridkg load --store {store} --domain {name} {data or 'FILE'}")
    raise InvalidInput(
        f"the store {store} holds no domain's data yet, so there is nothing to answer from; load a domain "
        f"first (its ontology comes along), e.g.: {'; '.join(lines)}; or run `hybridkg ask` without --store "
        "to ask the bundled demo knowledge base"
    )


class _LazyStructural:
    """The structural layer opened on first use (FalkorDB + embedding model), with demo documents if asked."""

    def __init__(self, settings: Settings, kb: KnowledgeBase, *, demo: bool) -> None:
        self._settings = settings
        self._kb = kb
        self._demo = demo
        self._skb: StructuralKB | None = None
        self._lock = threading.Lock()

    def __call__(self) -> StructuralKB:
        with self._lock:
            if self._skb is None:
                self._skb = self._open()
            return self._skb

    @property
    def is_open(self) -> bool:
        return self._skb is not None

    def _open(self) -> StructuralKB:
        from hybridkg.server.app import open_structural

        if not self._demo:
            return open_structural(self._settings, None, ())
        from hybridkg.server.serve import demo_documents  # asyncio, metrics: only when the demo's documents are used

        docs = demo_documents(self._kb.policy)
        skb = open_structural(self._settings, self._kb, sorted({d for d, _ in docs}))
        for domain, path in docs:
            change = skb.add_document(f"demo/{domain}/{path.name}", path.read_bytes(), domain=domain, name=path.name)
            _say(f"ask: demo document {domain}/{path.name}: {change.chunks_added} chunks, "
                 f"{change.entities_added} entities")
        return skb

    def close(self) -> None:
        if self._skb is not None:
            self._skb.close()


@contextlib.contextmanager
def _opened(args: argparse.Namespace, settings: Settings) -> Iterator[tuple[KnowledgeBase, _LazyStructural]]:
    from hybridkg.server.app import open_knowledge_base

    demo = not args.store and not args.config
    with contextlib.ExitStack() as stack:
        if demo:
            settings = settings.model_copy(deep=True)
            settings.store.backend = StoreBackend.MEMORY
            if settings.structural.path is None:
                scratch = stack.enter_context(tempfile.TemporaryDirectory(prefix="hybridkg-ask-"))
                settings.structural.path = Path(scratch) / "structural"
            _say("ask: no --store or --config: answering over the bundled demo knowledge base (in memory)")
        kb = open_knowledge_base(settings)
        if demo:
            for name in kb.policy.domains:
                kb.ensure_domain(name, with_demo_data=True)
        else:
            require_domain_data(kb, args.store or str(settings.store.path))
        structural = _LazyStructural(settings, kb, demo=demo)
        stack.callback(kb.flush)
        stack.callback(structural.close)
        yield kb, structural


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    from hybridkg.server.ask.engine import AskEngine

    questions = [q for q in args.questions]
    for i, q in enumerate(questions, 1):
        if not q.strip():
            raise InvalidInput(f"question {i} is empty")
    if args.top_k is not None and args.top_k <= 0:
        raise InvalidInput(f"--top-k must be a positive number, not {args.top_k}")
    if args.mode and args.mode.lower() not in {m.value for m in Mode}:
        raise InvalidInput(f"unknown mode {args.mode!r}; use one of {', '.join(m.value for m in Mode)}")
    with _opened(args, settings) as (kb, structural):
        if args.domain:
            kb.policy.get(args.domain)  # an unknown domain fails before any answer is printed
        engine = AskEngine(kb, structural, settings.ask, structural_open=lambda: structural.is_open)
        try:
            for q in questions:
                answer = engine.ask(q, domain=args.domain, mode=args.mode, top_k=args.top_k)
                if args.json:
                    sys.stdout.write(json.dumps(answer.to_json(), ensure_ascii=False) + "\n")
                else:
                    sys.stdout.write(render(answer) + "\n")
                sys.stdout.flush()
        finally:
            engine.close()
    return 0


def render(a: AskAnswer) -> str:
    """The readable form of an answer."""
    where = f"{a.route.value}, {a.domain}" if a.domain else a.route.value
    lines = [f"Q: {a.question}", f"   route: {where} ({a.took_ms:.0f} ms)"]
    if a.abstained:
        lines.append(f"   abstained: {a.reason}")
    else:
        if a.reason:
            lines.append(f"   why: {a.reason}")
        if not a.answers:
            lines.append("   answer: none")
        for item in a.answers:
            label = f"{item.label}  " if item.label and item.label != item.value else ""
            lines.append(f"   - {label}{item.value}  ({item.score:.2f})")
    generated = a.evidence.get("generated") if isinstance(a.evidence.get("generated"), dict) else None
    if generated and generated.get("text"):
        cites = ", ".join(generated.get("citations") or [])
        lines.append(f"   generated: {generated['text']}" + (f" [{cites}]" if cites else ""))
    for rel in (a.evidence.get("relations") or [])[:3]:
        lines.append(f"   relation {rel['id']}: {rel['src_name']} -[{rel['type']}]-> {rel['dst_name']}")
    for chunk in (a.evidence.get("chunks") or [])[:2]:
        doc = (chunk.get("provenance") or {}).get("doc")
        lines.append(f"   chunk {chunk['id']} ({doc}): {chunk['text'][:100]}")
    if a.sparql:
        lines.append("   sparql: " + " ".join(a.sparql.split()))
    if a.explanations:
        lines.append(f"   proofs: {len(a.explanations)} derivation tree(s) (--json shows them)")
    return "\n".join(lines)
