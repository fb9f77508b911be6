"""Stage 5: run the readings, merge ``owl:sameAs`` individuals, attach proofs, or abstain with a reason.

:class:`StrictAnswerer` is the strict route's front door: ``link -> parse -> plan -> emit -> answer``.
It answers only when every content word of the question is accounted for by the domain's labels, the
question asks for a fact (no superlative or opinion), and every competing reading (score within
:data:`AMBIGUITY_MARGIN` of the best) gives the same answers; the confidence (product of the link scores,
times :data:`~hybridkg.semantic.qa.plan.CONNECTOR_FACTOR` per unnamed link) must reach the threshold.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from hybridkg.semantic.base import INFERRED_GRAPH
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.qa import emit
from hybridkg.semantic.qa.lexicon import Lexicon
from hybridkg.semantic.qa.parse import Form, Parse, parse
from hybridkg.semantic.qa.plan import PlanError, Reading, plan
from hybridkg.semantic.qa.schema import OWL_SAME_AS, Schema, lexical

#: Default lowest confidence at which an answer is given.
DEFAULT_THRESHOLD = 0.5
#: Readings scoring at least this fraction of the best one compete: if they disagree, the question is
#: ambiguous. A reading more than 10% worse (a word-part match against a whole label) is not a rival.
AMBIGUITY_MARGIN = 0.9
#: At most this many competing readings are run.
MAX_RUN = 8

LABEL = """
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT ?e ?label ?g WHERE { VALUES ?e { %(iris)s } GRAPH ?g { ?e rdfs:label|skos:prefLabel ?label } }
"""
SAME = "SELECT ?a ?b WHERE { VALUES ?a { %(iris)s } ?a %(same)s ?b FILTER(isIRI(?b)) }"


@dataclass(frozen=True)
class StrictItem:
    value: str  # IRI, lexical form, "true"/"false", or the number counted
    label: str = ""
    score: float = 1.0


@dataclass
class StrictResult:
    abstained: bool
    reason: str = ""
    answers: list[StrictItem] = field(default_factory=list)
    sparql: str = ""
    explanations: list[dict[str, Any]] = field(default_factory=list)
    confidence: float = 0.0


def _abstain(reason: str, confidence: float = 0.0, sparql: str = "") -> StrictResult:
    return StrictResult(abstained=True, reason=reason, sparql=sparql, confidence=confidence)


class StrictAnswerer:
    """Answers questions about one domain from its asserted + inferred triples, with proofs, or abstains."""

    def __init__(self, kb: KnowledgeBase, domain: str, lexicon: Lexicon, *, threshold: float = DEFAULT_THRESHOLD):
        self.kb = kb
        self.domain = domain
        self.lexicon = lexicon
        self.threshold = threshold
        self.schema = Schema.load(kb, domain)

    def answer(self, question: str) -> StrictResult:
        self.schema._types.clear()  # entity types may have changed since the last question
        p = parse(question, self.lexicon)
        if p.judgement is not None:
            return _abstain(f"{p.judgement!r} asks for a ranking or a judgement the schema cannot express")
        if not p.slots:
            return _abstain(f"nothing in the question links to the {self.domain!r} domain's labels")
        if p.unknown_names:
            return _abstain(f"unknown entity: no resource of {self.domain!r} is named {' '.join(p.unknown_names)!r}")
        if p.unlinked:
            return _abstain(f"words not linked to the {self.domain!r} schema: {', '.join(p.unlinked)}")
        try:
            readings = plan(p, self.kb, self.schema)
        except PlanError as e:
            return _abstain(f"no property matches: {e}")
        best = readings[0].score
        if best < self.threshold:
            return _abstain(f"confidence {best:.2f} is below the threshold {self.threshold:.2f}", best)
        rivals = [r for r in readings if r.score >= best * AMBIGUITY_MARGIN][:MAX_RUN]
        return self._run(p, rivals)

    # ------------------------------------------------------------------ running
    def _run(self, p: Parse, readings: list[Reading]) -> StrictResult:
        outcomes: list[tuple[Reading, frozenset[str], list[tuple[Any, ...]], list[str]]] = []
        for r in readings:
            if p.form is Form.ASK:
                rows = list(self.kb.query(emit.select(r) + " LIMIT 1").rows)
                values = frozenset(["true" if rows else "false"])
            else:
                rows = list(self.kb.query(emit.select(r)).rows)
                values = frozenset(self._canonical([row[0] for row in rows]).values())
            outcomes.append((r, values, rows, emit.variables(r)))
        distinct = {o[1] for o in outcomes}
        if len(distinct) > 1:
            shown = "; ".join(f"{emit.body(o[0].patterns).strip()} -> {len(o[1])} answer(s)" for o in outcomes[:3])
            return _abstain(f"ambiguous parse: {len(distinct)} readings give different answers ({shown})",
                            readings[0].score, emit.select(readings[0]))
        r, values, rows, names = outcomes[0]
        if p.form is Form.ASK:
            sparql = emit.ask(r)
            truth = bool(self.kb.query(sparql).boolean)
            items = [StrictItem("true" if truth else "false", score=r.score)]
            proofs = self._proofs(r, rows[:1], names) if truth else []
            return StrictResult(False, "", items, sparql, proofs, r.score)
        canon = self._canonical([row[0] for row in rows])
        witness: dict[str, tuple[Any, ...]] = {}
        for row in rows:
            key = canon.get(_value(row[0]), _value(row[0]))
            if key not in witness or self._inferred_count(r, row, names) < self._inferred_count(r, witness[key], names):
                witness[key] = row
        proofs = self._proofs(r, list(witness.values()), names)
        if p.form is Form.COUNT:
            sparql = emit.count(r)
            counted = self.kb.query(sparql).rows
            n = int(lexical(counted[0][0]) or 0) if counted else 0
            if n != len(witness):
                return _abstain(f"the count ({n}) disagrees with the answers found ({len(witness)})", r.score, sparql)
            return StrictResult(False, "", [StrictItem(str(n), score=r.score)], sparql, proofs, r.score)
        labels = self._labels([k for k in witness if not r.literal])
        items = [StrictItem(k, labels.get(k, ""), r.score) for k in sorted(witness)]
        return StrictResult(False, "", items, emit.select(r), proofs, r.score)

    # ------------------------------------------------------------------ sameAs and labels
    def _canonical(self, terms: list[Any]) -> dict[str, str]:
        """value -> canonical value: one per owl:sameAs group (asserted label first, then smallest IRI)."""
        iris = sorted({t.value for t in terms if isinstance(t, NamedNode)})
        out = {_value(t): _value(t) for t in terms if t is not None}
        if not iris:
            return out
        groups: dict[str, set[str]] = {i: {i} for i in iris}
        values = " ".join(str(NamedNode(i)) for i in iris)
        for a, b in self.kb.query(SAME % {"iris": values, "same": str(NamedNode(OWL_SAME_AS))}).rows:
            av, bv = lexical(a), lexical(b)
            if av is not None and bv is not None:
                groups[av].add(bv)
        members = sorted({m for g in groups.values() for m in g})
        labelled = self._asserted_labels(members)
        for i, group in groups.items():
            out[i] = min(group, key=lambda m: (m not in labelled, m))
        return out

    def _asserted_labels(self, iris: list[str]) -> dict[str, str]:
        if not iris:
            return {}
        out: dict[str, str] = {}
        rows = self.kb.query(LABEL % {"iris": " ".join(str(NamedNode(i)) for i in iris)}).rows
        for e, label, g in sorted(rows, key=lambda row: tuple(str(t) for t in row)):
            ev = lexical(e)
            if ev is not None and isinstance(label, Literal) and g != INFERRED_GRAPH:
                out.setdefault(ev, label.value)
        return out

    def _labels(self, iris: list[str]) -> dict[str, str]:
        return self._asserted_labels(iris)

    # ------------------------------------------------------------------ proofs
    def _triples(self, r: Reading, row: tuple[Any, ...], names: list[str]) -> list[Triple]:
        bound = {n: t for n, t in zip(names, row, strict=False) if t is not None}
        out = []
        for s, p, o in r.patterns:
            subj, pred, obj = (bound.get(x) if x.startswith("?") else NamedNode(x) for x in (s, p, o))
            if isinstance(subj, NamedNode | BlankNode) and isinstance(pred, NamedNode) and obj is not None:
                out.append(Triple(subj, pred, obj))
        return out

    def _inferred_only(self, t: Triple) -> bool:
        graphs = {q.graph_name for q in self.kb.store.quads(t.subject, t.predicate, t.object)}
        return INFERRED_GRAPH in graphs and all(g == INFERRED_GRAPH for g in graphs)

    def _inferred_count(self, r: Reading, row: tuple[Any, ...], names: list[str]) -> int:
        return sum(self._inferred_only(t) for t in self._triples(r, row, names))

    def _proofs(self, r: Reading, rows: list[tuple[Any, ...]], names: list[str]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        seen: set[Triple] = set()
        for row in rows:
            for t in self._triples(r, row, names):
                if t not in seen and self._inferred_only(t):
                    seen.add(t)
                    out.append(self.kb.explain(t).to_json())
        return out


def _value(t: Any) -> str:
    return str(t.value) if t is not None else ""
