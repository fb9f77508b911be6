"""The structural half of ``hybridkg demo``: demo documents -> property graph + vectors -> retrieval."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.settings import StoreBackend
from hybridkg.server.app import open_structural
from hybridkg.server.config import Settings
from hybridkg.structural.knowledge import StructuralKB
from hybridkg.structural.settings import Mode

QUESTIONS: list[tuple[Mode, str]] = [
    (Mode.LOCAL, "Who leads the vector search pilot at Helios?"),
    (Mode.GLOBAL, "Which customers pushed back on support pricing?"),
    (Mode.HYBRID, "How is Aoife Byrne related to the Vector add-on?"),
    (Mode.NAIVE, "warehouse routing team"),
]


def _documents(kb: KnowledgeBase) -> list[tuple[str, Path]]:
    out: list[tuple[str, Path]] = []
    for name, domain in kb.policy.domains.items():
        folder = domain.path_of(domain.demo_documents)
        if folder is not None and folder.is_dir():
            out.extend((name, p) for p in sorted(folder.iterdir()) if p.is_file())
    return out


def run_structural_demo(settings: Settings, kb: KnowledgeBase, section: Callable[[str], None]) -> None:
    docs = _documents(kb)
    if not docs:
        return
    scratch = None
    if settings.store.backend == StoreBackend.MEMORY and settings.structural.path is None:
        scratch = tempfile.TemporaryDirectory(prefix="hybridkg-demo-")
        settings = settings.model_copy(deep=True)
        settings.structural.path = Path(scratch.name)
    try:
        section("Structural layer: demo documents -> property graph + vectors "
                f"({settings.structural.graph.backend}, {settings.structural.embedder.kind} embedder)")
        skb: StructuralKB = open_structural(settings, kb, sorted({d for d, _ in docs}))
        try:
            for domain, path in docs:
                doc_id = f"demo/{domain}/{path.name}"
                c = skb.add_document(doc_id, path.read_bytes(), domain=domain, name=path.name)
                print(f"  {c.action:9s} {doc_id}: {c.chunks_added} chunks, {c.entities_added} entities, "
                      f"{c.relations_added} relations ({c.took_ms:.0f} ms)")
            again = skb.add_document(f"demo/{docs[0][0]}/{docs[0][1].name}", docs[0][1].read_bytes(),
                                     domain=docs[0][0], name=docs[0][1].name)
            print(f"  re-adding {docs[0][1].name}: {again.action}")
            for mode, question in QUESTIONS:
                section(f"Retrieve ({mode}): {question}")
                r = skb.retrieve(question, mode=mode, top_k=5)
                for item in r.items[:5]:
                    print(f"  {item.score:.3f} (alpha {item.alpha:.2f}, beta {item.beta:.2f})  {item.name}")
                for rel in r.relations[:3]:
                    print(f"  rel  {rel.src_name} -[{rel.type}]-> {rel.dst_name}")
                for ch in r.chunks[:2]:
                    text = " ".join(ch.text.split())
                    print(f"  chunk {ch.doc}: {text[:90]}...")
                print(f"  ({r.took_ms:.1f} ms, of which embedding {r.embed_ms:.1f} ms)")
        finally:
            skb.close()
    finally:
        if scratch is not None:
            scratch.cleanup()
