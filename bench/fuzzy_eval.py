"""Fuzzy answers on documents the project has never seen: Hits@1/Hits@5 per retrieval mode, and extraction precision.

    python -m bench.fuzzy_eval                      # both extractors, modes local/global/hybrid/mix, all questions
    python -m bench.fuzzy_eval --quick              # both extractors, hybrid only, every third question
    python -m bench.fuzzy_eval --kinds offline --graph falkordb --misses

The held-out set is ``bench/data/fuzzy_eval``: short business documents (Markdown, text, HTML) about invented
companies, people, products and places, questions whose answer is one named entity of them (``questions.json``,
with the accepted spellings and the documents that state the facts), and the relations a subset of the
documents states, labelled by hand (``relations_gold.json``). Nothing here is tuned to them.

For each extractor kind (``structural.extractor.kind``: ``offline``, the spaCy pipeline, and ``rules``, the
word-list extractor) a fresh store is built in a temporary directory: the semantic layer in memory with the
``crm`` domain's ontology only (its demo data is not loaded), the structural layer with the default embedder
(sentence-transformers, the bundled all-MiniLM-L6-v2) and the ``memory`` graph backend (``--graph falkordb``
for the embedded FalkorDB). Every document is added to the ``crm`` domain (a fuzzy one), in one
``add_documents`` batch where the KB has it. Settings are the defaults (no config file, no HYBRIDKG_* overrides).

Scoring, per question and mode:

* **retrieve**: ``StructuralKB.retrieve(question, mode=, top_k=10, domain="crm")``; Hits@k is 1 when an item
  among the first k has a name equal to the expected answer or one of its aliases under
  :func:`~hybridkg.structural.resolution.normalise_name` (case, spacing, end punctuation, a leading article).
  Only entity items count: no matching of answer strings in relations, chunks or the context.
* **ask**: the service's Ask engine (:class:`~hybridkg.server.ask.engine.AskEngine`, built as ``hybridkg ask``
  builds it) with the domain named (``domain="crm"``, so the fuzzy route; ``--no-hint`` lets the router pick),
  ``top_k=10``; Hits@k over the first k answers' labels, compared the same way. An abstention is a miss.

Extraction, on the hand-labelled documents: the typed relations the store holds from each document's chunks
(every type but the untyped ``co_occurs`` and ``related_to``). A relation is *judged* when both its ends are
named entities of the document's gold list (names or aliases, normalised as above); precision is the share of
judged relations whose pair of entities a gold relation of that document links, in either direction (the
graph may say "X acquired_by Y" for "Y acquired X"); the relation's wording is not judged. Recall is the share
of gold pairs (a document's gold relations, one per pair of entities) that some typed relation of the document
links. Typed relations with an end that is not a gold entity (a role, a common noun) are counted apart and not
judged; supported / all typed relations is printed beside precision as its lower bound.

The table goes to stdout, progress to stderr, and the last line is one JSON object with the headline figures.
Nothing is written outside the temporary directories.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hybridkg.structural.resolution import normalise_name

if TYPE_CHECKING:
    from hybridkg.server.ask.engine import AskEngine
    from hybridkg.structural.knowledge import StructuralKB

DATA = Path(__file__).resolve().parent / "data" / "fuzzy_eval"
DOMAIN = "crm"
KINDS = ("offline", "rules")
MODES = ("local", "global", "hybrid", "mix")
QUICK_MODE = "hybrid"
TOP_K = 10
KS = (1, 5)
UNTYPED = frozenset({"co_occurs", "related_to"})


# ----------------------------------------------------------------------------------------------- the set


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    answer: str
    aliases: tuple[str, ...]
    docs: tuple[str, ...]
    tags: tuple[str, ...]

    def accepted(self) -> frozenset[str]:
        return frozenset(normalise_name(n) for n in (self.answer, *self.aliases)) - {""}


@dataclass(frozen=True)
class GoldDoc:
    entities: dict[str, tuple[str, ...]]  # name -> other spellings
    relations: tuple[tuple[str, str, str], ...]  # (subject, phrase, object), subject/object are entity names

    def canonical(self) -> dict[str, str]:
        """Normalised spelling -> the entity's gold name."""
        out: dict[str, str] = {}
        for name, aliases in self.entities.items():
            for spelling in (name, *aliases):
                out[normalise_name(spelling)] = name
        return out


def load_questions(data: Path = DATA) -> list[Question]:
    raw = json.loads((data / "questions.json").read_text(encoding="utf-8"))
    return [
        Question(q["id"], q["question"], q["answer"], tuple(q.get("aliases", ())), tuple(q["docs"]),
                 tuple(q.get("tags", ())))
        for q in raw["questions"]
    ]


def load_gold(data: Path = DATA) -> dict[str, GoldDoc]:
    raw = json.loads((data / "relations_gold.json").read_text(encoding="utf-8"))
    return {
        doc: GoldDoc({k: tuple(v) for k, v in g["entities"].items()}, tuple(tuple(r) for r in g["relations"]))
        for doc, g in raw["docs"].items()
    }


def documents(data: Path = DATA) -> list[Path]:
    return sorted(p for p in (data / "docs").iterdir() if p.suffix in {".md", ".txt", ".html"})


# ----------------------------------------------------------------------------------------------- scoring


def hit_rank(names: Sequence[str], accepted: frozenset[str]) -> int | None:
    """1-based rank of the first name that is an accepted spelling, or None."""
    for i, name in enumerate(names, 1):
        if normalise_name(name) in accepted:
            return i
    return None


@dataclass
class Tally:
    """Hits@k over a list of questions (rank None: not found in the list)."""

    ranks: list[int | None] = field(default_factory=list)

    def add(self, rank: int | None) -> None:
        self.ranks.append(rank)

    def hits(self, k: int) -> float:
        return sum(1 for r in self.ranks if r is not None and r <= k) / len(self.ranks) if self.ranks else 0.0


@dataclass(frozen=True)
class RelationScore:
    judged: int
    supported: int
    unjudged: int  # typed relations with an end outside the gold entities
    gold: int
    recalled: int
    wrong: tuple[tuple[str, str, str], ...] = ()  # judged, unsupported (src, type, dst)
    outside: tuple[tuple[str, str, str], ...] = ()  # not judged: an end is not a gold entity

    @property
    def precision(self) -> float:
        return self.supported / self.judged if self.judged else 0.0

    @property
    def supported_share(self) -> float:
        """Supported over every typed relation, judged or not: a lower bound of precision."""
        typed = self.judged + self.unjudged
        return self.supported / typed if typed else 0.0

    @property
    def recall(self) -> float:
        return self.recalled / self.gold if self.gold else 0.0


def judge_relations(gold: GoldDoc, extracted: Sequence[tuple[str, str, str]]) -> RelationScore:
    """Score one document's typed relations ``(src name, type, dst name)`` against its gold relations."""
    canon = gold.canonical()
    gold_pairs = {frozenset((s, o)) for s, _, o in gold.relations}
    judged = supported = unjudged = 0
    found: set[frozenset[str]] = set()
    wrong, outside = [], []
    for src, typ, dst in extracted:
        if typ in UNTYPED:
            continue
        a, b = canon.get(normalise_name(src)), canon.get(normalise_name(dst))
        if a is None or b is None:
            unjudged += 1
            outside.append((src, typ, dst))
            continue
        judged += 1
        pair = frozenset((a, b))
        if pair in gold_pairs:
            supported += 1
            found.add(pair)
        else:
            wrong.append((src, typ, dst))
    return RelationScore(judged, supported, unjudged, len(gold_pairs), len(found), tuple(wrong), tuple(outside))


# ----------------------------------------------------------------------------------------------- the store


def _say(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


@contextlib.contextmanager
def opened_store(kind: str, graph: str, root: Path) -> Iterator[tuple[StructuralKB, Any, Any]]:
    """(structural KB, semantic KB, settings) on a fresh store under ``root``: the ``crm`` ontology only."""
    from hybridkg.semantic.settings import StoreBackend
    from hybridkg.server import Settings, open_knowledge_base, open_structural
    from hybridkg.structural.settings import ExtractorKind, GraphBackend

    settings = Settings()
    settings.store.backend = StoreBackend.MEMORY
    settings.store.path = root / "store"
    settings.structural.path = root / "structural"
    settings.structural.graph.backend = GraphBackend(graph)
    settings.structural.extractor.kind = ExtractorKind(kind)
    kb = open_knowledge_base(settings)
    try:
        kb.ensure_domain(DOMAIN)
        skb = open_structural(settings, kb, [DOMAIN])
        try:
            yield skb, kb, settings
        finally:
            skb.close()
    finally:
        kb.close()


def ingest(skb: StructuralKB, docs: Sequence[Path]) -> float:
    """Add every document, in one batch when the KB has ``add_documents`` (else one call per document);
    returns the seconds taken."""
    start = time.perf_counter()
    batch = getattr(skb, "add_documents", None)
    if batch is not None:
        batch([(f"fuzzy_eval/{path.name}", path.read_bytes()) for path in docs], domain=DOMAIN)
    else:
        for path in docs:
            skb.add_document(f"fuzzy_eval/{path.name}", path.read_bytes(), domain=DOMAIN, name=path.name)
    return time.perf_counter() - start


def doc_relations(skb: StructuralKB, doc_id: str) -> list[tuple[str, str, str]]:
    """The relations ``(src name, type, dst name)`` the graph holds from the chunks of ``doc_id``, read through
    the GraphStore protocol (``Document.chunk_ids``, ``Chunk.relation_ids``, ``RELATED`` edges, entity names)."""
    from hybridkg.structural.base import CHUNK, DOCUMENT, ENTITY, RELATED

    node = skb.graph.neighbourhood(DOCUMENT, [f"doc:{doc_id}"], depth=0).nodes.get(f"doc:{doc_id}")
    if node is None:
        raise SystemExit(f"document {doc_id} is not in the graph (the document node id is no longer 'doc:<id>'?)")
    chunk_ids = list(node.props.get("chunk_ids") or [])
    chunks = skb.graph.neighbourhood(CHUNK, chunk_ids, depth=0, props=["relation_ids"]).nodes
    if chunks and not any("relation_ids" in c.props for c in chunks.values()):
        raise SystemExit(f"the chunks of {doc_id} carry no relation_ids: the graph model changed; update doc_relations")
    rel_ids = sorted({r for c in chunks.values() for r in (c.props.get("relation_ids") or [])})
    edges = skb.graph.edges(RELATED, rel_ids)
    ends = sorted({e.src for e in edges} | {e.dst for e in edges})
    names = {
        i: str(n.props.get("name") or i)
        for i, n in skb.graph.neighbourhood(ENTITY, ends, depth=0, props=["name"]).nodes.items()
    }
    return [(names.get(e.src, e.src), str(e.props.get("type") or ""), names.get(e.dst, e.dst)) for e in edges]


def ask_engine(kb: Any, skb: StructuralKB, settings: Any) -> AskEngine:
    from hybridkg.server.ask.engine import AskEngine

    return AskEngine(kb, lambda: skb, settings.ask, structural_open=lambda: True)


# ----------------------------------------------------------------------------------------------- the run


@dataclass
class KindResult:
    kind: str
    ingest_s: float = 0.0
    docs: int = 0
    retrieve: dict[str, Tally] = field(default_factory=dict)
    ask: dict[str, Tally] = field(default_factory=dict)
    by_tag: dict[str, dict[str, Tally]] = field(default_factory=dict)  # mode -> tag -> retrieve tally
    latency_ms: dict[str, float] = field(default_factory=dict)  # mode -> p50 of retrieve
    relations: RelationScore | None = None
    misses: list[str] = field(default_factory=list)
    where: dict[str, dict[str, int]] = field(default_factory=dict)  # mode -> where the answer was -> questions


WHERE = ("top 1", "top 2-5", "items 6-10", "subgraph", "graph only", "not an entity")


def entity_names(graph: Any) -> dict[str, frozenset[str]]:
    """Entity id -> its name and aliases, case-folded, read through the GraphStore protocol."""
    from hybridkg.structural.base import ENTITY, SharedRecords

    if isinstance(graph, SharedRecords):
        rows = [(i, n.props) for i, n in graph.shared_nodes(ENTITY, graph.shared_ids(ENTITY)).items()]
    else:
        rows = [(str(r["id"]), r) for r in graph.query("MATCH (e:Entity) RETURN e.id AS id, e.name AS name, "
                                                         "e.aliases AS aliases")]
    out = {}
    for i, props in rows:
        names = [props.get("name"), *(props.get("aliases") or ())]
        out[i] = frozenset(n.casefold() for n in names if isinstance(n, str))
    return out


def where_answer(rank: int | None, subgraph: Sequence[str], names: Mapping[str, frozenset[str]],
                 accepted: frozenset[str]) -> str:
    """Which of :data:`WHERE` the expected answer reached: by its rank among the items, else whether the
    evidence subgraph or the graph holds an entity of that name."""
    if rank is not None:
        return WHERE[0] if rank == 1 else WHERE[1] if rank <= 5 else WHERE[2]
    wanted = {a.casefold() for a in accepted}
    holders = {i for i, n in names.items() if n & wanted}
    if holders & set(subgraph):
        return WHERE[3]
    return WHERE[4] if holders else WHERE[5]


def _names_of_answers(answer: Any) -> list[str]:
    return [item.label or item.value for item in answer.answers]


def run_kind(kind: str, graph: str, questions: Sequence[Question], modes: Sequence[str], gold: dict[str, GoldDoc],
             *, hint: bool, misses: bool, data: Path = DATA) -> KindResult:
    out = KindResult(kind)
    docs = documents(data)
    with tempfile.TemporaryDirectory(prefix="hybridkg-fuzzy-eval-") as tmp, \
            opened_store(kind, graph, Path(tmp)) as (skb, kb, settings):
        skb.embedder.embed(["warm-up"])
        how = "in one add_documents call" if hasattr(skb, "add_documents") else "one add_document call each"
        _say(f"[{kind}] extractor {type(skb.extractor).__name__}, graph {graph}: ingesting {len(docs)} documents {how}")
        out.ingest_s = ingest(skb, docs)
        out.docs = len(docs)
        _say(f"[{kind}] ingested in {out.ingest_s:.1f} s; stats {skb.stats()}")
        engine = ask_engine(kb, skb, settings)
        names_of = entity_names(skb.graph)
        try:
            for mode in modes:
                ret, ask, took = Tally(), Tally(), []
                tags: dict[str, Tally] = {}
                where = out.where.setdefault(mode, dict.fromkeys(WHERE, 0))
                for q in questions:
                    start = time.perf_counter()
                    result = skb.retrieve(q.question, mode=mode, top_k=TOP_K, domain=DOMAIN)
                    took.append((time.perf_counter() - start) * 1000)
                    names = [e.name for e in result.items]
                    rank = hit_rank(names, q.accepted())
                    ret.add(rank)
                    where[where_answer(rank, result.subgraph_nodes, names_of, q.accepted())] += 1
                    for tag in (*q.tags, "all"):
                        tags.setdefault(tag, Tally()).add(rank)
                    answer = engine.ask(q.question, domain=DOMAIN if hint else None, mode=mode, top_k=TOP_K)
                    ask_names = [] if answer.abstained else _names_of_answers(answer)
                    ask.add(hit_rank(ask_names, q.accepted()))
                    if misses and (rank is None or rank > 1):
                        out.misses.append(f"[{kind}/{mode}] {q.id} {q.question!r} -> want {q.answer!r}, "
                                          f"rank {rank}; top 5: {names[:5]}")
                out.retrieve[mode], out.ask[mode], out.by_tag[mode] = ret, ask, tags
                out.latency_ms[mode] = statistics.median(took) if took else 0.0
                _say(f"[{kind}] {mode}: retrieve Hits@1 {ret.hits(1):.1%} Hits@5 {ret.hits(5):.1%}; "
                     f"ask Hits@1 {ask.hits(1):.1%} Hits@5 {ask.hits(5):.1%}")
        finally:
            engine.close()
        scores = [judge_relations(g, doc_relations(skb, f"fuzzy_eval/{doc}")) for doc, g in gold.items()]
        out.relations = RelationScore(
            sum(s.judged for s in scores), sum(s.supported for s in scores), sum(s.unjudged for s in scores),
            sum(s.gold for s in scores), sum(s.recalled for s in scores), tuple(w for s in scores for w in s.wrong),
            tuple(w for s in scores for w in s.outside),
        )
        if misses:
            out.misses.extend(f"[{kind}] unsupported relation: {w}" for w in out.relations.wrong)
            out.misses.extend(f"[{kind}] relation not judged: {w}" for w in out.relations.outside)
    return out


def table(results: Sequence[KindResult], modes: Sequence[str], n: int) -> str:
    lines = [
        f"{n} questions; Hits@k of the expected entity among the first k items (retrieve) / answers (ask)",
        f"{'extractor':<10} {'mode':<7} {'ret@1':>7} {'ret@5':>7} {'ask@1':>7} {'ask@5':>7} {'p50 ms':>7}",
    ]
    for r in results:
        for m in modes:
            lines.append(
                f"{r.kind:<10} {m:<7} {r.retrieve[m].hits(1):>7.1%} {r.retrieve[m].hits(5):>7.1%} "
                f"{r.ask[m].hits(1):>7.1%} {r.ask[m].hits(5):>7.1%} {r.latency_ms[m]:>7.1f}"
            )
    lines.append("")
    lines.append("retrieve Hits@5 by question tag (n):")
    for r in results:
        for m in modes:
            parts = [f"{tag} ({len(t.ranks)}) {t.hits(5):.0%}" for tag, t in sorted(r.by_tag[m].items())]
            lines.append(f"  {r.kind:<8} {m:<7} " + ", ".join(parts))
    lines.append("")
    lines.append("where the expected answer was (retrieve; subgraph = in G_q but not among the items):")
    for r in results:
        for m in modes:
            lines.append(f"  {r.kind:<8} {m:<7} " + ", ".join(f"{w} {n}" for w, n in r.where[m].items()))
    lines.append("")
    lines.append("extraction on the hand-labelled documents (typed relations, pairs judged without direction):")
    for r in results:
        s = r.relations
        assert s is not None
        lines.append(
            f"  {r.kind:<8} precision {s.precision:.1%} ({s.supported}/{s.judged} judged), recall {s.recall:.1%} "
            f"({s.recalled}/{s.gold} gold pairs); {s.unjudged} typed relations with a non-gold end not judged "
            f"(supported / all typed: {s.supported_share:.1%}); ingest {r.docs / r.ingest_s:.2f} docs/s"
        )
    return "\n".join(lines)


def headline(results: Sequence[KindResult], modes: Sequence[str], n: int, graph: str) -> dict[str, Any]:
    out: dict[str, Any] = {"bench": "fuzzy_eval", "questions": n, "graph": graph}
    for r in results:
        s = r.relations
        assert s is not None
        out[r.kind] = {
            **{
                m: {
                    "retrieve_hits1": round(r.retrieve[m].hits(1), 4),
                    "retrieve_hits5": round(r.retrieve[m].hits(5), 4),
                    "ask_hits1": round(r.ask[m].hits(1), 4),
                    "ask_hits5": round(r.ask[m].hits(5), 4),
                }
                for m in modes
            },
            "relation_precision": round(s.precision, 4),
            "relation_recall": round(s.recall, 4),
            "relation_supported_share": round(s.supported_share, 4),
            "docs_per_s": round(r.docs / r.ingest_s, 2),
        }
    return out


def main(argv: Sequence[str] | None = None, *, emit: Callable[[str], None] = print) -> dict[str, Any]:
    p = argparse.ArgumentParser(prog="python -m bench.fuzzy_eval", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help=f"every third question, {QUICK_MODE} mode only")
    p.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS), help="extractor kinds to run")
    p.add_argument("--modes", nargs="+", choices=MODES, help="retrieval modes (default: all four; --quick: hybrid)")
    p.add_argument("--graph", choices=("memory", "falkordb"), default="memory", help="graph backend")
    p.add_argument("--no-hint", action="store_true", help="ask without naming the domain (the router decides)")
    p.add_argument("--misses", action="store_true", help="print the questions missed at rank 1, on stderr")
    p.add_argument("--json", type=Path, metavar="FILE", help="also write the headline JSON to FILE")
    p.add_argument("--data", type=Path, default=DATA, metavar="DIR",
                   help="the evaluation set: docs/, questions.json, relations_gold.json (default: fuzzy_eval; "
                   "bench/data/fuzzy_holdout is the held-out set)")
    args = p.parse_args(argv)
    questions = load_questions(args.data)
    modes = args.modes or ([QUICK_MODE] if args.quick else list(MODES))
    if args.quick:
        questions = questions[::3]
    gold = load_gold(args.data)
    _say(f"evaluation set: {args.data}")
    results = [
        run_kind(kind, args.graph, questions, modes, gold, hint=not args.no_hint, misses=args.misses, data=args.data)
        for kind in args.kinds
    ]
    for r in results:
        for line in r.misses:
            _say(line)
    emit(table(results, modes, len(questions)))
    summary = headline(results, modes, len(questions), args.graph)
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    emit(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
