"""``hybridkg demo``: the main job on the embedded defaults with the bundled demo knowledge base.

Loads every domain of the policy (ontology + demo data), materialises the OWL 2 RL closure,
shows the SHACL gate rejecting an invalid clinical write and accepting a valid one, runs a few
SPARQL queries with and without inference, prints one derivation tree, then ingests the demo documents
into the property graph (embedded FalkorDB, all-MiniLM-L6-v2) and runs retrieval in each mode.
"""

from __future__ import annotations

import time

from pyoxigraph import NamedNode, Triple

from hybridkg.errors import ShapeViolation
from hybridkg.semantic.base import Explanation, QueryResult
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.server.app import open_knowledge_base
from hybridkg.server.config import Settings

PREFIXES = """PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX clin: <https://hybridkg.dev/ns/clinical#>
PREFIX crm: <https://hybridkg.dev/ns/crm#>
"""

QUERIES: list[tuple[str, str]] = [
    (
        "Patients at cardiovascular risk (cls-svf1 + cax-sco)",
        "SELECT ?patient ?name WHERE { ?patient a clin:CardiovascularRiskPatient ; rdfs:label ?name } "
        "ORDER BY ?patient",
    ),
    (
        "Active ingredients each patient is exposed to (property chains, prp-spo2)",
        "SELECT ?name ?ingredient WHERE { ?p a clin:Patient ; rdfs:label ?name ; clin:exposedTo ?i . "
        "?i rdfs:label ?ingredient } ORDER BY ?name ?ingredient",
    ),
    (
        "Care sites inside the Northshore network (transitive partOf, prp-trp)",
        "SELECT ?site WHERE { ?s clin:partOf <https://hybridkg.dev/data/clinical/site/northshore-health> ; "
        "rdfs:label ?site } ORDER BY ?site",
    ),
    (
        "CRM: deals per company (fuzzy domain; shape gaps came back as warnings)",
        "SELECT ?company (COUNT(?deal) AS ?deals) WHERE { ?deal a crm:Deal ; crm:company ?c . "
        "?c rdfs:label ?company } GROUP BY ?company ORDER BY DESC(?deals) ?company",
    ),
]

EXPLAIN = Triple(
    NamedNode("https://hybridkg.dev/data/clinical/patient/p001"),
    NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
    NamedNode("https://hybridkg.dev/ns/clinical#PatientOnAnticoagulant"),
)


def _table(result: QueryResult, limit: int = 12) -> str:
    if result.kind == "ask":
        return f"  {result.boolean}"
    lines = ["  " + " | ".join(result.variables)]
    for row in result.rows[:limit]:
        lines.append("  " + " | ".join(_short(t) for t in row))
    if len(result.rows) > limit:
        lines.append(f"  ... {len(result.rows) - limit} more")
    return "\n".join(lines)


def _short(term: object) -> str:
    if term is None:
        return "-"
    value = getattr(term, "value", str(term))
    return str(value).rsplit("/", 1)[-1] if str(value).startswith("http") else str(value)


def _tree(e: Explanation, indent: int = 0) -> list[str]:
    pad = "  " * indent
    head = f"{pad}{e.triple} ."
    tag = e.rule if e.status == "inferred" else e.status
    lines = [f"{head}   [{tag}]"]
    for p in e.premises:
        lines.extend(_tree(p, indent + 1))
    return lines


def _section(title: str) -> None:
    print(f"\n== {title}")


def run_demo(settings: Settings) -> int:
    start = time.perf_counter()
    kb: KnowledgeBase = open_knowledge_base(settings)
    print(f"hybridkg demo: store={settings.store.backend} reasoner={kb.reasoner.name} "
          f"validator={kb.validator.name}")

    _section("Loading the bundled domains (ontology + demo data)")
    for name, domain in kb.policy.domains.items():
        for r in kb.ensure_domain(name, with_demo_data=True):
            print(f"  {name:9s} {domain.mode:6s} {r.graph}: {r.asserted_added} asserted, "
                  f"{r.inferred_added} inferred, {len(r.warnings)} warnings ({r.seconds:.2f} s)")

    _section("OWL 2 RL materialisation")
    rr = kb.reason()
    print(f"  {rr.engine}: {rr.asserted} asserted, {rr.inferred} inferred triples ({rr.seconds:.2f} s)")

    _section("SHACL gate on the strict clinical domain")
    clinical = kb.policy.domains.get("clinical")
    if clinical is not None:
        invalid = clinical.path_of(clinical.examples.get("invalid"))
        valid = clinical.path_of(clinical.examples.get("valid"))
        if invalid is not None:
            try:
                kb.load(invalid, domain="clinical")
                print("  UNEXPECTED: the invalid example was accepted")
            except ShapeViolation as e:
                print(f"  rejected {invalid.name}: {e}")
                for v in e.report.violations[:6]:
                    print(f"    {_short(v.focus.strip('<>'))} {v.path or ''} "
                          f"[{v.constraint.rsplit('#', 1)[-1]}]: {v.message}")
        if valid is not None:
            r = kb.load(valid, domain="clinical")
            print(f"  accepted {valid.name}: {r.asserted_added} asserted, {r.inferred_added} inferred")

    for title, body in QUERIES:
        _section(f"SPARQL: {title}")
        with_inf = kb.query(PREFIXES + body)
        without = kb.query(PREFIXES + body, inference=False)
        print(_table(with_inf))
        print(f"  ({len(with_inf)} rows with inference, {len(without)} on asserted triples only)")

    _section("Why? One explanation (derivation tree down to asserted triples)")
    print("\n".join(_tree(kb.explain(EXPLAIN))))

    from hybridkg.server.demo_structural import run_structural_demo

    run_structural_demo(settings, kb, _section)
    print(f"\ndone in {time.perf_counter() - start:.2f} s")
    return 0
