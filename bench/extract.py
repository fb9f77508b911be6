"""Extraction speed: the spaCy offline extractor against the rules extractor on the same short texts.

    python -m bench.extract --quick     # 120 texts
    python -m bench.extract             # 1,000 texts
    python -m bench.extract --docs 500 --batch 32 --json out.json
    python -m bench.extract --words 80  # texts of >= 80 words (consecutive pool texts joined), like meeting notes
    python -m bench.extract --words 80 --docs 150 --known 10000   # plus 10k synthetic known names
    python -m bench.extract --dev [--misses]   # relation precision/recall on the development corpus
    python -m bench.extract --dev tests/unit/structural/data/extract_dev/heldout.json   # its held-out part

Texts: the paragraphs of the CRM demo documents (``ontology/crm/docs``, read as ``docs add`` reads them) and
two dozen short business notes written for this benchmark (below), repeated in order up to ``--docs``. Each
extractor gets the demo knowledge base's known names (the CRM individuals' labels), as ``docs add`` gives them.
Timed: the spaCy extractor batched (``extract_batch``, ``nlp.pipe`` with ``--batch`` texts per batch) and one
text at a time (``extract``), the rules extractor one text at a time (it has no batch path), after a warm-up
text each; the model load is reported apart. Per extractor: docs/s, ms/doc, and per text the named entities,
typed relations and ``co_occurs`` edges found. The last line is one JSON object.

``--known N`` adds N synthetic known entities (seeded made-up names, a capitalised and a lower-case label each,
so that none occurs in the texts) to the demo's, to show that the per-document cost does not grow with the number
of known names; it also times ``learn()`` of 50 new names followed by one single-text ``extract`` (what ingestion
does per batch), ten times, and reports the mean time of the ``learn()`` calls alone.

``--dev`` scores the spaCy extractor's typed relations (all but ``co_occurs``) on the development corpus
``tests/unit/structural/data/extract_dev/sentences.json`` (its README says what it is) as ``bench.fuzzy_eval``
scores relations: by pair of entities, without direction. An extracted name is a gold entity of its text when
their normalised keys are equal or the gold key is a run of whole words of it ("Dr. Amal Haddad"); a typed
relation between two gold entities is judged, and supported when a gold relation links the pair (precision);
recall is the share of gold pairs some typed relation links; the share of recalled pairs with a relation in the
gold direction is reported apart. Two runs: the corpus's names given as known (the patterns alone) and nothing
known (NER, then the patterns).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.common import REPO
from hybridkg.structural.base import Extraction, KnownEntity
from hybridkg.structural.extract.nlp import SpacyExtractor
from hybridkg.structural.extract.offline import OfflineExtractor
from hybridkg.structural.ingest.documents import prepare_document
from hybridkg.structural.resolution import normalise_name

DEV_CORPUS = REPO / "tests" / "unit" / "structural" / "data" / "extract_dev" / "sentences.json"
DEV_TYPES = ["Organization", "Person", "Product", "Location"]

NOTES = [
    "Amara Okafor joined Pinecrest Bank as head of treasury in March. She previously ran payments at Kestrel "
    "Analytics, where she built the settlement team.",
    "Tallow Brewing, headquartered in Rotterdam, asked for a quote on the cold-chain sensors. Their operations "
    "lead, Joris Visser, wants a pilot in two warehouses before the summer.",
    "Kestrel Analytics is a data consultancy in Valencia. Its chief executive, Lucia Ferrer, signed the framework "
    "agreement on Tuesday and asked for monthly reporting.",
    "Meeting notes: Harbor Point Partners renewed the lease for the Dock 4 office. The renewal runs three years "
    "and includes a break clause after eighteen months.",
    "Nadia Rahman from procurement flagged that the invoice from Greystone Logistics was paid twice. Finance "
    "will recover the duplicate payment next week.",
    "The billing platform called Ledgerwise goes live for Orchard Foods on 1 June. Orchard Foods is our largest "
    "customer in the Netherlands.",
    "Peter Lindqvist, the account manager for Northgate Council, reported that the council wants to cut the "
    "support contract to the basic tier.",
    "Brightline Freight was acquired by Castellan Group in 2022. The integration team, led by Sofia Marino, "
    "expects to migrate the tracking system by the end of the year.",
    "Call with Meridian Health: they use our scheduling tool in six clinics and plan to add two more in Leeds. "
    "Dr. Helen Achebe approved the expansion budget.",
    "Oskar Nilsson left Vantage Robotics and joined Corvane Systems as chief technology officer. He will lead the "
    "firmware and cloud teams.",
    "Quinta Verde, a wine exporter based in Porto, requested samples of the labelling software. Their IT manager "
    "asked about single sign-on.",
    "The steering committee approved the new pricing model. Ravi Menon will present it to Silverline Insurance "
    "at the quarterly review in Dublin.",
    "Elena Petrova is the procurement director of Baltic Grain. She negotiated a two-year deal worth 1.2 million "
    "euros with our Riga office.",
    "Ashford Clinics did not renew the analytics licence. Their finance team cited budget cuts and moved the "
    "reporting work in-house.",
    "Hiroshi Tanaka, who manages partnerships at Kaito Electronics, introduced us to the procurement team at "
    "Shinsei Rail.",
    "Redwood Mutual's largest branch is in Denver. The branch manager, Carla Jensen, wants training for forty "
    "advisers in September.",
    "Northwind Ceramics sells a glaze-mixing robot named Potter. The robot ships from their factory in Stoke and "
    "is serviced by Midlands Automation.",
    "Greta Holm chairs the board of Fjord Energy. The board approved the offshore wind tender and appointed "
    "Lars Eriksen as project director.",
    "Summary: Atlas Couriers pays late every quarter. Collections escalated the account to Mia Novak, who will "
    "call their finance director on Monday.",
    "Blue Heron Hotels opened a property in Lisbon and wants the booking engine translated into Portuguese by "
    "the end of April.",
    "Daniel Cho signed the service agreement for Pinnacle Labs. The agreement covers hosting, backups and a "
    "dedicated support engineer.",
    "Marisol Vega from Cedar Legal asked for the data processing addendum. Legal at Cedar Legal will review it "
    "with our privacy officer, Tom Becker.",
    "The warehouse team at Granite Supply mostly uses the mobile scanner app. They rarely open support tickets "
    "and rated the last release highly.",
    "Omar Haddad, a senior engineer at Sable Networks, found a bug in the export module. The fix shipped in "
    "release 4.2 on Friday.",
]


def demo_paragraphs() -> list[str]:
    out: list[str] = []
    for path in sorted((REPO / "ontology" / "crm" / "docs").iterdir()):
        prepared = prepare_document(path.read_bytes(), fmt=None, name=path.name, max_bytes=1 << 20)
        out.extend(p.strip() for p in prepared.text.split("\n\n") if len(p.split()) >= 5)
    return out


def demo_known() -> list[KnownEntity]:
    from pyoxigraph import Literal, NamedNode, RdfFormat, Store

    store = Store()
    with (REPO / "ontology" / "crm" / "data.ttl").open("rb") as f:
        store.load(f, RdfFormat.TURTLE)
    labels: dict[str, list[str]] = {}
    query = (
        "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> PREFIX skos: <http://www.w3.org/2004/02/skos/core#> "
        "SELECT ?s ?l ?alt WHERE { { ?s rdfs:label ?l } UNION { ?s skos:altLabel ?alt } }"
    )
    for row in store.query(query):  # type: ignore[union-attr]
        s, label, alt = row[0], row[1], row[2]
        if not isinstance(s, NamedNode):
            continue
        bucket = labels.setdefault(s.value, [])
        if isinstance(label, Literal):
            bucket.insert(0, label.value)
        elif isinstance(alt, Literal):
            bucket.append(alt.value)
    return [KnownEntity(iri, tuple(ls)) for iri, ls in labels.items() if ls]


def counts(found: Sequence[Extraction]) -> dict[str, float]:
    n = max(1, len(found))
    return {
        "named_entities": sum(1 for x in found for e in x.entities if e.named) / n,
        "common_entities": sum(1 for x in found for e in x.entities if not e.named) / n,
        "typed_relations": sum(1 for x in found for r in x.relations if r.type != "co_occurs") / n,
        "co_occurs": sum(1 for x in found for r in x.relations if r.type == "co_occurs") / n,
    }


def synthetic_known(n: int, seed: int = 7) -> list[KnownEntity]:
    """``n`` made-up entities with one to three made-up words a name (none of them an English word)."""
    rng = random.Random(seed)
    parts = ["ka", "lo", "mer", "vin", "dra", "sol", "ten", "bri", "qua", "zor", "pel", "nix", "tor", "ael", "gan"]

    def name() -> str:
        words = ("".join(rng.choice(parts) for _ in range(rng.randint(2, 3))) for _ in range(rng.randint(1, 3)))
        return " ".join(w.title() for w in words)

    return [KnownEntity(f"urn:bench:known:{i}", (name(), name().lower()), "Organization") for i in range(n)]


def learn_cost(extractor: SpacyExtractor, texts: Sequence[str], rounds: int = 10) -> float:
    """Mean seconds of ``learn()`` with 50 new names, each followed by one ``extract`` (which rebuilds the
    gazetteer's newest tier)."""
    spent = 0.0
    for r in range(rounds):
        fresh = [KnownEntity(None, (k.labels[0],), "concept") for k in synthetic_known(50, seed=1000 + r)]
        start = time.perf_counter()
        extractor.learn(fresh)
        spent += time.perf_counter() - start
        extractor.extract(texts[r % len(texts)])
    return spent / rounds


def timed(name: str, texts: Sequence[str], run: Callable[[Sequence[str]], list[Extraction]]) -> dict[str, Any]:
    run(texts[:1])
    start = time.perf_counter()
    found = run(texts)
    took = time.perf_counter() - start
    row: dict[str, Any] = {"extractor": name, "docs": len(texts), "docs_per_s": len(texts) / took}
    row["ms_per_doc"] = took * 1000 / len(texts)
    row.update(counts(found))
    return row


def _gold_of(name: str, gold: Sequence[str]) -> str | None:
    """The gold entity an extracted name is (see the module docstring), or None."""
    key = normalise_name(name)
    hits = [g for g in gold if normalise_name(g) == key]
    if not hits:
        hits = [g for g in gold if f" {normalise_name(g)} " in f" {key} "]
    return hits[0] if len(hits) == 1 else None


def score_dev(extractor: SpacyExtractor, items: Sequence[dict[str, Any]]) -> tuple[dict[str, float], list[str]]:
    """Precision, recall and direction of typed relations on the corpus ``items``; the misses and wrong ones."""
    found = extractor.extract_batch([it["text"] for it in items], entity_types=DEV_TYPES)
    judged = supported = gold_n = recalled = directed = 0
    notes: list[str] = []
    for it, x in zip(items, found, strict=True):
        rels = [tuple(r) for r in it["relations"]]
        gold = list(dict.fromkeys([*(n for r in rels for n in (r[0], r[2])), *it.get("entities", [])]))
        pairs = {frozenset((s, o)): (s, o) for s, _, o in rels}
        linked: dict[frozenset[str], set[tuple[str, str]]] = {}
        for r in x.relations:
            if r.type == "co_occurs":
                continue
            a, b = _gold_of(r.src, gold), _gold_of(r.dst, gold)
            if a is None or b is None or a == b:
                continue
            judged += 1
            pair = frozenset((a, b))
            if pair in pairs:
                supported += 1
                linked.setdefault(pair, set()).add((a, b))
            else:
                notes.append(f"wrong: {r.src} -[{r.type}]-> {r.dst}   | {it['text'][:90]!r}")
        for pair, (s, o) in pairs.items():
            gold_n += 1
            if pair in linked:
                recalled += 1
                directed += (s, o) in linked[pair]
            else:
                got = sorted({f"{r.src} -[{r.type}]-> {r.dst}" for r in x.relations if r.type != "co_occurs"})
                notes.append(f"missed: {s} / {o}   | {it['text'][:90]!r}   got: {'; '.join(got) or '-'}")
    score = {
        "precision": supported / judged if judged else 1.0,
        "recall": recalled / gold_n if gold_n else 1.0,
        "directed": directed / recalled if recalled else 1.0,
        "judged": judged,
        "gold": gold_n,
    }
    return score, notes


def dev(corpus: Path, misses: bool) -> None:
    items = json.loads(corpus.read_text(encoding="utf-8"))["items"]
    names = sorted({n for it in items for n in (*(x for r in it["relations"] for x in (r[0], r[2])),
                                                 *it.get("entities", []))})
    out: dict[str, Any] = {}
    for run, known in (("known names", [KnownEntity(None, (n,)) for n in names]), ("nothing known", [])):
        extractor = SpacyExtractor(known)
        score, notes = score_dev(extractor, items)
        out[run] = score
        print(f"{run:14} precision {score['precision']:.1%} ({score['judged']} judged)  recall {score['recall']:.1%} "
              f"of {score['gold']} gold pairs  in gold direction {score['directed']:.1%}")
        if misses:
            print("\n".join(f"  {n}" for n in notes))
    print(json.dumps(out))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="120 texts instead of 1,000")
    parser.add_argument("--docs", type=int, help="number of texts (overrides --quick)")
    parser.add_argument("--batch", type=int, default=64, help="texts per nlp.pipe batch (extractor.spacy_batch)")
    parser.add_argument("--words", type=int, default=0, help="join consecutive texts until each has this many words")
    parser.add_argument("--known", type=int, default=0, help="add this many synthetic known names")
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    parser.add_argument("--dev", nargs="?", type=Path, const=DEV_CORPUS,
                        help="score relations on the development corpus (or this corpus file) instead")
    parser.add_argument("--misses", action="store_true", help="with --dev: list missed and wrong relations")
    args = parser.parse_args(argv)
    if args.dev:
        dev(args.dev, args.misses)
        return
    n = args.docs or (120 if args.quick else 1000)
    pool = demo_paragraphs() + NOTES
    texts: list[str] = []
    i = 0
    while len(texts) < n:
        parts = [pool[i % len(pool)]]
        i += 1
        while sum(len(p.split()) for p in parts) < args.words:
            parts.append(pool[i % len(pool)])
            i += 1
        texts.append("\n\n".join(parts))
    known = demo_known() + synthetic_known(args.known)
    words = sum(len(t.split()) for t in texts) / len(texts)
    print(f"{n} texts ({len(pool)} distinct, {words:.0f} words on average), {len(known)} known entities, "
          f"{os.cpu_count()} CPUs")

    start = time.perf_counter()
    spacy_x = SpacyExtractor(known, batch_size=args.batch)
    load_s = time.perf_counter() - start
    rules_x = OfflineExtractor(known)
    rows = [
        timed("spacy (batched)", texts, lambda ts: spacy_x.extract_batch(ts)),
        timed("spacy (one at a time)", texts, lambda ts: [spacy_x.extract(t) for t in ts]),
        timed("rules", texts, lambda ts: [rules_x.extract(t) for t in ts]),
    ]
    print(f"spaCy model {spacy_x.model} loaded in {load_s:.2f} s")
    print(f"{'extractor':24} {'docs/s':>8} {'ms/doc':>8} {'named':>6} {'common':>7} {'typed':>6} {'co_occ':>7}")
    for r in rows:
        print(f"{r['extractor']:24} {r['docs_per_s']:8.1f} {r['ms_per_doc']:8.2f} {r['named_entities']:6.1f} "
              f"{r['common_entities']:7.1f} {r['typed_relations']:6.1f} {r['co_occurs']:7.1f}")
    ratio = rows[0]["ms_per_doc"] / rows[2]["ms_per_doc"]
    print(f"spacy (batched) / rules time per doc: {ratio:.1f}x")
    learn_s = learn_cost(spacy_x, texts)
    print(f"learn() of 50 new names with {len(known)} known: {learn_s * 1000:.1f} ms")
    summary = {"docs": n, "words_per_doc": words, "batch": args.batch, "model_load_s": load_s}
    summary.update({"known": len(known), "learn_50_ms": learn_s * 1000})
    summary.update({"spacy_over_rules": ratio, "rows": rows})
    if args.json:
        args.json.write_text(json.dumps(summary, indent=2), encoding="utf-8")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
