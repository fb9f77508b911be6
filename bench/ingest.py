"""Ingestion speed of the structural layer: ~100 short meeting notes through the KB and through ``docs add``.

    python -m bench.ingest [--quick] [--docs N] [--extractor offline|rules] [--graph falkordb|memory] [--no-cli]
                           [--embed-batch N] [--embed-tokens N] [--torch-threads N]

The notes (~80 words each) are generated here from this module's own templates and invented names
(seeded, so every run ingests the same text). The KB run opens a fresh store with the configured
embedder (default: sentence-transformers all-MiniLM-L6-v2) and ingests all notes in one call when the KB
has ``add_documents`` (one document at a time otherwise); the CLI run is ``hybridkg docs add`` with every
note file in one command, in a subprocess from a temporary directory (its wall time includes start-up).

Reported: docs/s, texts asked of the embedder and texts the model actually embedded (the embedder's
content cache answers repeats) per document, and the store's counts. The model loads before timing starts.

Measured on the 2-core VM while other work ran on it (load average 2-4; numbers move by ~2x with the load),
100 notes of ~82 words, FalkorDB, all-MiniLM-L6-v2:

| code | extractor | KB docs/s | `docs add` docs/s | texts embedded / doc |
| --- | --- | --- | --- | --- |
| before (one document per call, every relation embedded with its sentence) | rules | 0.53 | 0.49 | 45.4 |
| after (one batch, distinct texts, short relation texts, no co_occurs vectors) | rules | 6.9 | - | 9.1 |
| after | offline (spaCy) | 2.1-4.3 | 1.8-2.1 | 17.7 |
| after, `--embed-batch 256` | offline (spaCy) | 3.6 | - | 17.7 |
| + keywords already in the text dropped, token-budget batches (load 3.4-4.6) | offline | 2.07-2.25 | 1.62 | 17.2 |
| same, `--embed-batch 64 --embed-tokens 1000000000` (old batching, load 4.5) | offline | 2.09 | - | 17.2 |
| before vector recipes (A/B interleaved, load 5.4-6.1) | offline | 2.62, 2.08 | - | 17.2 (462 tokens) |
| entity + relation recipes (e915062, dropped; load 5.1-5.9) | offline | 3.05, 2.97 | - | 10.6 (211 tokens) |
| same, `--torch-threads 1` vs 2, interleaved (load 4.7-5.1) | offline | 2.89, 3.34 vs 2.69, 3.42 | - | 10.6 |
| before, A/B again (load 3.0-3.7) | offline | 2.59, 2.86 | - | 17.2 (462 tokens) |
| relations composed, kept (0ec3703; load 3.6-4.4) | offline | 3.43, 2.94 | - | 10.6 (376 tokens) |

With spaCy, at load ~2: extraction 3.9 s, embedding 18.7 s (1,767 texts, ~50k tokens), graph write 0.5 s for
the 100 notes: the embedder sets the pace (batch size 64 on two threads is slow for short texts when the cores
are shared: 1,200 relation-sized texts took 21.7 s at batch 64 vs 10.9 s at 256, 7.6 s on one thread).
Later (load 3-5, interleaved runs of one process, 50 notes): 64 texts a pass 0.97-1.26 docs/s, a 4,096-token
budget per pass 1.50; end to end on 100 notes the two were within noise of each other (2.09 vs 2.07 at load
~4.4). The target of 10 docs/s is not met; bench/RESULTS.md says why (the model is compute-bound at ~500
WordPiece tokens a note) and what would reach it.

Relation vectors composed from their names and phrase (``structural/texts.py``) cut the model's work from 462
to ~376 tokens a note. Entity recipes that reached 211 tokens (``name (type)`` + facts + the chunks' mean
vector; embedding 34-40 s -> ~25.5 s per 100 notes at load 5-6) lost held-out questions and were dropped
(bench/RESULTS.md). ``wordpiece_tokens_per_doc`` in the output counts the distinct texts asked of the
embedder, truncated as the model truncates.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hybridkg.structural.base import Embedder, Vector

_FIRST = ["Maren", "Tobias", "Ilse", "Quentin", "Rosa", "Declan", "Yuki", "Anouk", "Felipe", "Greta", "Ravi",
          "Solene", "Bastian", "Noor", "Emeka", "Linnea", "Oskar", "Pilar", "Hamid", "Wren", "Casimir", "Talia"]
_LAST = ["Hollis", "Varga", "Okafor", "Lindqvist", "Moreau", "Castellan", "Brandt", "Iwasaki", "Duarte", "Kovac",
         "Ferreira", "Achterberg", "Nakamura", "Quill", "Ostrowski", "Haldane", "Serrano", "Mbeki", "Thorne"]
_CO_HEAD = ["Tessel", "Corvane", "Lumio", "Brightwater", "Keystone", "Orrin", "Saltmarsh", "Vellum", "Quarry",
            "Ashgrove", "Northpike", "Glimmer", "Harrow", "Ironleaf", "Marlow", "Petrel", "Redfern", "Sable"]
_CO_TAIL = ["Analytics", "Foods", "Freight", "Robotics", "Health", "Energy", "Textiles", "Labs", "Media",
            "Insurance", "Logistics", "Bank"]
_PRODUCTS = ["Ledgerbeam", "Tidepool", "Quickmesh", "Orbitdesk", "Fernlight", "Stackwise", "Pathgrid",
             "Brassline", "Cloudwren", "Datakiln", "Nimbleport", "Signalroot"]
_CITIES = ["Tallinn", "Porto", "Leeds", "Graz", "Aarhus", "Bilbao", "Utrecht", "Gdansk", "Turin", "Cork",
           "Lyon", "Tampere"]
_ROLES = ["chief technology officer", "head of procurement", "account manager", "data lead", "finance director",
          "operations manager", "product owner", "security officer"]
_TOPICS = ["the renewal", "the pilot rollout", "the data migration", "the pricing review", "the support backlog",
           "the security audit", "the onboarding plan", "the integration roadmap"]
_INDUSTRY = ["logistics", "retail", "payments", "healthcare", "energy", "manufacturing", "insurance"]
_ACTIONS = ["asked for a discount on", "raised concerns about", "signed off on", "wants to expand",
            "will pause", "is evaluating", "praised"]
_NEXT = ["send a revised quote", "book a workshop", "share the audit report", "draft the contract",
         "set up a trial account", "prepare a migration plan"]


def _person(rng: random.Random) -> str:
    return f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"


def _company(rng: random.Random) -> str:
    return f"{rng.choice(_CO_HEAD)} {rng.choice(_CO_TAIL)}"


def make_notes(n: int, seed: int = 7) -> list[tuple[str, str]]:
    """``n`` (doc id, text) meeting notes of about 80 words, deterministic for a seed."""
    rng = random.Random(seed)
    notes: list[tuple[str, str]] = []
    for i in range(n):
        client, vendor = _company(rng), _company(rng)
        a, b, c = _person(rng), _person(rng), _person(rng)
        product, city = rng.choice(_PRODUCTS), rng.choice(_CITIES)
        month, day = rng.choice(["March", "April", "May", "June", "September"]), rng.randint(1, 28)
        sentences = [
            f"Meeting notes, {client}, {month} {day}.",
            f"Attendees: {a} ({rng.choice(_ROLES)}, {client}), {b} and {c} from {vendor}.",
            f"{client} is a {rng.choice(_INDUSTRY)} company headquartered in {city}.",
            f"Its {rng.choice(_ROLES)}, {a}, {rng.choice(_ACTIONS)} {rng.choice(_TOPICS)}.",
            f"{b} presented {product}, the {rng.choice(_INDUSTRY)} platform {vendor} sells.",
            f"Next steps: {b} will {rng.choice(_NEXT)} and {a} will {rng.choice(_NEXT)} before {month} "
            f"{min(28, day + 7)}.",
        ]
        if rng.random() < 0.5:
            sentences.insert(4, f"{a} joined {client} from {_company(rng)} in {rng.randint(2012, 2024)}.")
        if rng.random() < 0.5:
            sentences.insert(-1, f"{c} reported that {rng.randint(2, 40)} users at {client} already use {product}.")
        notes.append((f"note-{i:03d}.txt", " ".join(sentences)))
    return notes


class CountingEmbedder:
    """Counts the texts asked of an embedder (before any cache in it)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.texts = 0
        self.calls = 0
        self.distinct: set[str] = set()

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed(self, texts: Sequence[str]) -> Vector:
        self.calls += 1
        self.texts += len(texts)
        self.distinct.update(texts)
        return self.inner.embed(texts)

    def prefetch(self, texts: Sequence[str]) -> None:
        self.inner.prefetch(texts)  # type: ignore[attr-defined]

    def embed_with_spans(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[Vector, list[Vector]]:
        """Counts the texts (the spans cost no model work of their own), then the inner embedder's spans."""
        self.calls += 1
        self.texts += len(texts)
        self.distinct.update(texts)
        return self.inner.embed_with_spans(texts, spans)  # type: ignore[attr-defined]


def wordpiece_tokens(texts: set[str]) -> int | None:
    """WordPiece tokens (with [CLS]/[SEP], truncated as the model truncates) of ``texts``; ``None`` without the
    bundled model."""
    from hybridkg.errors import HybridKGError

    try:
        from transformers import AutoTokenizer

        from hybridkg.structural.embedding.sentence import bundled_model_path

        tokenizer = AutoTokenizer.from_pretrained(str(bundled_model_path()))
    except (ImportError, OSError, HybridKGError):
        return None
    return sum(len(ids) for ids in tokenizer(sorted(texts), truncation=True, max_length=256)["input_ids"])


def _model_texts(embedder: Embedder) -> int | None:
    stats = getattr(embedder, "stats", None)
    return int(stats.misses) if stats is not None else None


def _config(
    extractor: str, graph: str, embedder: str, embed_batch: int | None = None, embed_tokens: int | None = None
) -> Any:
    from hybridkg.structural.settings import StructuralConfig

    emb: dict[str, Any] = {"kind": embedder}
    if embed_batch:
        emb["batch_size"] = embed_batch
    if embed_tokens:
        emb["batch_tokens"] = embed_tokens
    return StructuralConfig.model_validate(
        {"graph": {"backend": graph}, "extractor": {"kind": extractor}, "embedder": emb}
    )


def _open_kb(config: Any, path: Path, embedder: Embedder) -> Any:
    try:  # this issue moves opening into the factory; older checkouts have StructuralKB.open only
        from hybridkg.structural.factory import open_structural_kb
    except ImportError:
        from hybridkg.structural.knowledge import StructuralKB

        return StructuralKB.open(config, path, embedder=embedder)
    return open_structural_kb(config, path, embedder=embedder)


def run_kb(
    notes: list[tuple[str, str]],
    *,
    extractor: str,
    graph: str,
    embedder_kind: str,
    embed_batch: int | None = None,
    embed_tokens: int | None = None,
    torch_threads: int | None = None,
) -> dict[str, Any]:
    from hybridkg.structural.embedding.factory import make_embedder

    if torch_threads:
        import torch

        torch.set_num_threads(torch_threads)

    config = _config(extractor, graph, embedder_kind, embed_batch, embed_tokens)
    inner = make_embedder(config.embedder)
    inner.embed(["warm-up: load the model before timing"])
    before_misses = _model_texts(inner) or 0
    counting = CountingEmbedder(inner)
    with tempfile.TemporaryDirectory(prefix="bench-ingest-") as tmp:
        t_open = time.perf_counter()
        kb = _open_kb(config, Path(tmp) / "s", counting)
        open_s = time.perf_counter() - t_open
        try:
            # the extractor may load its model lazily: one throwaway text outside the timing
            kb.extractor.extract("Warm-up note: Ada Byrne met the team in Oslo.")
            batched = hasattr(kb, "add_documents")
            start = time.perf_counter()
            if batched:
                kb.add_documents([(doc_id, text) for doc_id, text in notes], domain="bench")
            else:
                for doc_id, text in notes:
                    kb.add_document(doc_id, text, domain="bench")
            took = time.perf_counter() - start
            stats = kb.stats()
        finally:
            kb.close()
    model = _model_texts(inner)
    n = len(notes)
    return {
        "path": "kb.add_documents" if batched else "kb.add_document",
        "extractor": type(kb.extractor).__name__,
        "graph": graph,
        "docs": n,
        "seconds": round(took, 2),
        "docs_per_s": round(n / took, 2),
        "open_s": round(open_s, 2),
        "texts_asked_per_doc": round(counting.texts / n, 1),
        "texts_embedded_per_doc": round((model - before_misses) / n, 1) if model is not None else None,
        "wordpiece_tokens_per_doc": round(tokens / n, 1) if (tokens := wordpiece_tokens(counting.distinct)) else None,
        "torch_threads": _torch_threads(),
        "embed_calls": counting.calls,
        "store": stats,
    }


def _torch_threads() -> int | None:
    torch = sys.modules.get("torch")
    return int(torch.get_num_threads()) if torch is not None else None


def run_cli(
    notes: list[tuple[str, str]],
    *,
    extractor: str,
    graph: str,
    embedder_kind: str,
    embed_batch: int | None = None,
    embed_tokens: int | None = None,
) -> dict[str, Any]:
    """``hybridkg docs add`` with every note in one command, in a subprocess started from a temp directory."""
    with tempfile.TemporaryDirectory(prefix="bench-ingest-cli-") as tmp:
        root = Path(tmp)
        files = []
        for doc_id, text in notes:
            f = root / "notes" / doc_id
            f.parent.mkdir(exist_ok=True)
            f.write_text(text, encoding="utf-8")
            files.append(str(f))
        env = {
            **os.environ,
            "HYBRIDKG_STRUCTURAL__EXTRACTOR__KIND": extractor,
            "HYBRIDKG_STRUCTURAL__GRAPH__BACKEND": graph,
            "HYBRIDKG_STRUCTURAL__EMBEDDER__KIND": embedder_kind,
        }
        if embed_batch:
            env["HYBRIDKG_STRUCTURAL__EMBEDDER__BATCH_SIZE"] = str(embed_batch)
        if embed_tokens:
            env["HYBRIDKG_STRUCTURAL__EMBEDDER__BATCH_TOKENS"] = str(embed_tokens)
        cli = [sys.executable, "-c", "import sys; from hybridkg.server.cli import main; sys.exit(main())"]
        cmd = [*cli, "docs", "add", f"--store={root / 'store'}", "--domain", "crm", "--json", *files]
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, check=False)
        took = time.perf_counter() - start
        if proc.returncode != 0:
            raise SystemExit(f"hybridkg docs add failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
        docs = json.loads(proc.stdout)["documents"]
        embedded = sum(int(d.get("embedded", 0)) for d in docs)
    n = len(notes)
    return {
        "path": "hybridkg docs add (subprocess, wall time incl. start-up)",
        "docs": n,
        "seconds": round(took, 2),
        "docs_per_s": round(n / took, 2),
        "vectors_written_per_doc": round(embedded / n, 1),
    }


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--quick", action="store_true", help="20 notes instead of 100")
    ap.add_argument("--docs", type=int, help="number of notes (default 100, 20 with --quick)")
    ap.add_argument("--extractor", default="offline", help="offline (default) | rules | llm")
    ap.add_argument("--graph", default="falkordb", help="falkordb (default) | memory")
    ap.add_argument("--embedder", default="sentence", help="sentence (default) | hash")
    ap.add_argument("--embed-batch", type=int, help="structural.embedder.batch_size (default: the setting's)")
    ap.add_argument("--embed-tokens", type=int, help="structural.embedder.batch_tokens (default: the setting's)")
    ap.add_argument("--torch-threads", type=int, help="torch.set_num_threads for the KB run (default: torch's)")
    ap.add_argument("--no-cli", action="store_true", help="skip the `hybridkg docs add` run")
    ap.add_argument("--label", default="", help="a tag printed with the results (e.g. before/after)")
    args = ap.parse_args(argv)
    n = args.docs or (20 if args.quick else 100)
    notes = make_notes(n)
    words = sum(len(t.split()) for _, t in notes) / n
    out: dict[str, Any] = {"label": args.label, "notes": n, "words_per_note": round(words, 1), "cores": os.cpu_count(),
                           "load_average_1m": round(os.getloadavg()[0], 2)}
    kinds = {"extractor": args.extractor, "graph": args.graph, "embedder_kind": args.embedder,
             "embed_batch": args.embed_batch, "embed_tokens": args.embed_tokens}
    out["kb"] = run_kb(notes, **kinds, torch_threads=args.torch_threads)
    print(json.dumps(out["kb"]), file=sys.stderr, flush=True)
    if not args.no_cli:
        out["cli"] = run_cli(notes, **kinds)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
