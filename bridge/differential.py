"""Differential proof of the SPARQL -> Cypher translation (issue 11 §4, ``docs/bridge.md`` §4).

One query, one RDF graph, two engines: the SPARQL runs on Oxigraph (a pyoxigraph ``Store`` holding the triples),
the Cypher translation on a :class:`~hybridkg.structural.base.GraphStore` holding the graph the bridge maps them
to; the Cypher rows are mapped back to RDF terms and the two answers compared as multisets (blank nodes up to
renaming; where the query orders its solutions by projected variables, the order of those keys too). Each run
ends in one :class:`Outcome`:

* ``equal`` / ``unequal``: translated, and the answers agree / differ (a bug of the translator);
* ``failed``: translated, but the store rejected the statement (a bug too);
* ``refused``: the translator raised :class:`~hybridkg.errors.Unsupported` (or the statement stopped on a value it
  cannot evaluate exactly, ``RUNTIME_REFUSAL``); the reason names the construct;
* ``data does not map``: the mapping refuses the data (named graphs, triple terms);
* ``not select/ask``: a DESCRIBE or CONSTRUCT query the translator refused;
* ``no answer in time``: translated, but the store did not answer within its client's time limit (FalkorDB plans
  some nested expressions slowly: seconds for a 1,300-character statement on a loaded machine); not counted as
  translated, and reported.

``reference`` says whether Oxigraph's own answer matches the expected result a test suite gives (when one is
given and readable), so the reference engine is checked too. Suite readers (the W3C manifests, SP2Bench's folders)
are in :mod:`hybridkg.bridge.suites`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Any

import pyoxigraph as ox
from rdflib.compare import isomorphic
from rdflib.term import Variable

from hybridkg.bridge.mapping import MappedGraph, RdfMapping, map_graph, write_graph
from hybridkg.bridge.sparql_to_cypher import RUNTIME_REFUSAL, CypherQuery, Kind, translate
from hybridkg.bridge.sparql_to_cypher.parse import parse
from hybridkg.errors import BackendUnavailable, HybridKGError, InvalidQuery, Unsupported
from hybridkg.semantic.convert import to_rdflib_graph
from hybridkg.structural.base import GraphStore

Term = ox.NamedNode | ox.BlankNode | ox.Literal
Row = tuple[Term | None, ...]


class Outcome(StrEnum):
    EQUAL = "equal"
    UNEQUAL = "unequal"
    FAILED = "failed"
    REFUSED = "refused"
    NO_MAP = "data does not map"
    NOT_SELECT_ASK = "not select/ask"
    TIMEOUT = "no answer in time"


class Reference(StrEnum):
    """Oxigraph's answer against a suite's expected result."""

    AGREES = "agrees"
    DISAGREES = "disagrees"
    UNCHECKED = "unchecked"  # no expected result, or one this module cannot read


@dataclass(frozen=True)
class Solutions:
    """A SELECT answer: variables and rows (terms in variable order; ``None`` unbound)."""

    variables: tuple[str, ...]
    rows: tuple[Row, ...]


Answer = Solutions | bool | frozenset[ox.Triple]


@dataclass(frozen=True)
class Verdict:
    """The outcome of one differential run."""

    outcome: Outcome
    form: str  # SELECT, ASK, CONSTRUCT, DESCRIBE (or "" when the query does not say)
    reason: str = ""  # the refusal, or the difference found
    cypher: str | None = None
    reference: Reference = Reference.UNCHECKED

    @property
    def translated(self) -> bool:
        return self.outcome in (Outcome.EQUAL, Outcome.UNEQUAL, Outcome.FAILED)


_FORM = re.compile(r"\b(SELECT|ASK|CONSTRUCT|DESCRIBE)\b", re.IGNORECASE)
_COMMENT = re.compile(r"#[^\n]*")


def query_form(query: str) -> str:
    """SELECT, ASK, CONSTRUCT or DESCRIBE: the query's first form keyword (after its prologue)."""
    text = re.sub(r"<[^>\s]*>", "<>", query)  # an IRI may hold '#'
    text = _COMMENT.sub("", text)
    m = _FORM.search(text)
    return m.group(1).upper() if m else ""


class Differential:
    """One RDF graph loaded into Oxigraph and, mapped, into a property graph store; :meth:`run` compares a query's
    answers on both. Build with :meth:`load`."""

    def __init__(self, oxigraph: ox.Store, mapped: MappedGraph | None, store: GraphStore, no_map: str = "") -> None:
        self.oxigraph = oxigraph
        self.mapped = mapped
        self.mapping = mapped.mapping if mapped is not None else None  # the product's own RdfMapping
        self.store = store
        self.no_map = no_map

    @classmethod
    def load(cls, statements: Iterable[ox.Triple | ox.Quad], store: GraphStore) -> Differential:
        """Load ``statements`` into a fresh Oxigraph store and, when the mapping takes them, into ``store`` (an empty
        graph). The graph mapped is the one Oxigraph holds (its literals as it gives them back)."""
        oxigraph = ox.Store()
        oxigraph.extend(
            s if isinstance(s, ox.Quad) else ox.Quad(s.subject, s.predicate, s.object, ox.DefaultGraph())
            for s in statements
        )
        try:
            mapped = map_graph(list(oxigraph))
        except Unsupported as e:
            return cls(oxigraph, None, store, str(e))
        write_graph(store, mapped)
        return cls(oxigraph, mapped, store)

    def run(self, query: str, *, base_iri: str | None = None, expected: Answer | None = None) -> Verdict:
        """Run ``query`` both ways. ``base_iri`` resolves its relative IRIs; ``expected`` is the suite's answer,
        against which Oxigraph's is checked."""
        text = f"BASE <{base_iri}>\n{query}" if base_iri else query
        form = query_form(query)
        reference = Reference.UNCHECKED
        try:
            sparql: Answer | None = oxigraph_answer(self.oxigraph, text)
        except (SyntaxError, ValueError, OSError, RuntimeError):  # e.g. SERVICE: no network here
            sparql = None
        if sparql is not None and expected is not None:
            agree = same_answer(by_value(sparql), by_value(expected), ()) is None
            reference = Reference.AGREES if agree else Reference.DISAGREES
        if self.mapping is None:
            return Verdict(Outcome.NO_MAP, form, self.no_map, reference=reference)
        try:
            cypher = translate(text, self.mapping)
        except (Unsupported, InvalidQuery) as e:
            kind = Outcome.NOT_SELECT_ASK if form in ("CONSTRUCT", "DESCRIBE") else Outcome.REFUSED
            reason = str(e) if isinstance(e, Unsupported) else f"rdflib cannot read the query: {e}"
            return Verdict(kind, form, reason, reference=reference)
        try:
            rows = self.store.query(cypher.text, cypher.params)
        except BackendUnavailable as e:  # the statement did not finish within the store's time limit
            return Verdict(Outcome.TIMEOUT, form, f"no answer in time: {e}", cypher.text, reference)
        except InvalidQuery as e:
            if RUNTIME_REFUSAL in str(e):
                return Verdict(Outcome.REFUSED, form, "run time: a value the statement cannot evaluate exactly",
                               cypher.text, reference)
            return Verdict(Outcome.FAILED, form, str(e), cypher.text, reference)
        want = sparql if sparql is not None else expected  # Oxigraph cannot run it: the suite's answer
        if want is None:
            return Verdict(Outcome.FAILED, form, "no reference answer (Oxigraph cannot run the query)", cypher.text)
        got = cypher_answer(cypher, rows, self.mapping)
        difference = same_answer(got, want, order_keys(text))
        if difference is not None:
            return Verdict(Outcome.UNEQUAL, form, difference, cypher.text, reference)
        return Verdict(Outcome.EQUAL, form, "", cypher.text, reference)


def differential(
    statements: Iterable[ox.Triple | ox.Quad],
    query: str,
    store: GraphStore,
    *,
    base_iri: str | None = None,
    expected: Answer | None = None,
) -> Verdict:
    """Load ``statements`` into Oxigraph and (mapped) into the empty graph ``store``, run ``query`` both ways and
    compare (:class:`Differential`)."""
    return Differential.load(statements, store).run(query, base_iri=base_iri, expected=expected)


def oxigraph_answer(store: ox.Store, query: str) -> Answer:
    res = store.query(query)
    if isinstance(res, ox.QueryBoolean):
        return bool(res)
    if isinstance(res, ox.QuerySolutions):
        names = tuple(v.value for v in res.variables)
        return Solutions(names, tuple(tuple(s[n] for n in names) for s in res))
    return frozenset(res)


_XSD = "http://www.w3.org/2001/XMLSchema#"
_NUMERIC = {_XSD + t for t in ("integer", "decimal", "double", "float", "int", "long", "short", "byte")}


def by_value(answer: Answer) -> Answer:
    """``answer`` with numbers and booleans in one lexical form per value (``3.0E4`` and ``30000`` as doubles are one):
    Oxigraph stores numbers canonically, a suite's result files write them as their data did. For checking the
    reference only: the differential itself compares terms exactly."""
    if not isinstance(answer, Solutions):
        return answer
    return Solutions(answer.variables, tuple(tuple(_by_value(t) for t in row) for row in answer.rows))


def _by_value(t: Term | None) -> Term | None:
    if not isinstance(t, ox.Literal):
        return t
    dt = t.datatype.value
    try:
        if dt in _NUMERIC:
            return ox.Literal(str(Decimal(t.value).normalize()), datatype=t.datatype)
    except InvalidOperation:
        return t
    if dt == _XSD + "boolean" and t.value in ("0", "1"):
        return ox.Literal("true" if t.value == "1" else "false", datatype=t.datatype)
    return t


def cypher_answer(cypher: CypherQuery, rows: Sequence[dict[str, Any]], mapping: RdfMapping) -> Answer:
    if cypher.kind is Kind.ASK:
        return bool(rows)
    if cypher.kind is Kind.CONSTRUCT:
        return frozenset(cypher.triples(rows, mapping))
    return Solutions(cypher.columns, tuple(cypher.terms(r, mapping) for r in rows))


def order_keys(query: str) -> tuple[str, ...]:
    """The variables whose order the query fixes: its top-level ORDER BY keys while each is a plain variable (the
    first other expression ends the list: later keys only order within its ties, which the rows cannot show)."""
    try:
        node = parse(query).algebra.p
    except HybridKGError:
        return ()
    while node is not None and getattr(node, "name", None) in ("Project", "Distinct", "Reduced", "Slice", "ToMultiSet"):
        node = node.get("p")
    if node is None or getattr(node, "name", None) != "OrderBy":
        return ()
    keys: list[str] = []
    for cond in node.expr:
        expr = cond.expr if getattr(cond, "name", None) == "OrderCondition" else cond
        if not isinstance(expr, Variable):
            break
        keys.append(str(expr))
    return tuple(keys)


def same_answer(got: Answer, want: Answer, ordered_by: tuple[str, ...]) -> str | None:
    """``None`` when the answers agree, else what differs. Solutions compare as multisets of rows with blank nodes
    up to a consistent renaming, and the sequence of the ``ordered_by`` values (projected ones; blank nodes as
    one placeholder) must agree too; graphs compare by isomorphism."""
    if isinstance(want, bool) or isinstance(got, bool):
        return None if got == want else f"got {got}, want {want}"
    if isinstance(want, frozenset) or isinstance(got, frozenset):
        if not (isinstance(want, frozenset) and isinstance(got, frozenset)):
            return "one answer is a graph, the other is not"
        if isomorphic(to_rdflib_graph(got), to_rdflib_graph(want)):
            return None
        return f"graphs differ: got {len(got)} triples, want {len(want)}"
    if set(got.variables) != set(want.variables):
        return f"variables differ: got {got.variables}, want {want.variables}"
    got_rows = list(got.rows)
    want_rows = [tuple(r[want.variables.index(v)] for v in got.variables) for r in want.rows]
    if not _same_multiset(got_rows, want_rows):
        return _row_difference(got_rows, want_rows)
    keys: list[int] = []
    for k in ordered_by:
        if k not in got.variables:
            break
        keys.append(got.variables.index(k))
    if keys and [_key(r, keys) for r in got_rows] != [_key(r, keys) for r in want_rows]:
        return f"order differs on {', '.join('?' + k for k in ordered_by)}"
    return None


def _key(row: Row, keys: list[int]) -> tuple[object, ...]:
    return tuple("_:" if isinstance(row[i], ox.BlankNode) else row[i] for i in keys)


def _row_difference(got: list[Row], want: list[Row]) -> str:
    extra = Counter(got) - Counter(want)
    missing = Counter(want) - Counter(got)
    return (
        f"rows differ: got {len(got)}, want {len(want)}; "
        f"extra {_show(extra)}; missing {_show(missing)}"
    )


def _show(rows: Counter[Row]) -> str:
    items = [" ".join("UNDEF" if t is None else str(t) for t in r) for r in list(rows)[:3]]
    return "[" + "; ".join(items) + ("; ..." if len(rows) > 3 else "") + "]"


def _has_bnode(row: Row) -> bool:
    return any(isinstance(t, ox.BlankNode) for t in row)


def _same_multiset(a: list[Row], b: list[Row], budget: int = 200_000) -> bool:
    """Equal multisets of rows, blank nodes up to one bijective renaming across all rows (backtracking; rows
    without blank nodes compare directly)."""
    if len(a) != len(b):
        return False
    if Counter(r for r in a if not _has_bnode(r)) != Counter(r for r in b if not _has_bnode(r)):
        return False
    a_b = [r for r in a if _has_bnode(r)]
    b_b = [r for r in b if _has_bnode(r)]
    if len(a_b) != len(b_b):
        return False
    if Counter(a_b) == Counter(b_b):
        return True
    steps = [budget]
    used = [False] * len(b_b)

    def fits(x: Row, y: Row, fwd: dict[str, str], back: dict[str, str], added: list[str]) -> bool:
        for s, t in zip(x, y, strict=True):
            if isinstance(s, ox.BlankNode) and isinstance(t, ox.BlankNode):
                if s.value in fwd:
                    if fwd[s.value] != t.value:
                        return False
                elif t.value in back:
                    return False
                else:
                    fwd[s.value], back[t.value] = t.value, s.value
                    added.append(s.value)
            elif s != t:
                return False
        return True

    def search(i: int, fwd: dict[str, str], back: dict[str, str]) -> bool:
        if i == len(a_b):
            return True
        steps[0] -= 1
        if steps[0] < 0:
            return False
        for j, y in enumerate(b_b):
            if used[j]:
                continue
            added: list[str] = []
            if fits(a_b[i], y, fwd, back, added):
                used[j] = True
                if search(i + 1, fwd, back):
                    return True
                used[j] = False
            for k in added:
                del back[fwd.pop(k)]
        return False

    return search(0, {}, {})


@dataclass
class Tally:
    """Counts of outcomes of one group of runs (a feature, a suite), with the refusal reasons."""

    outcomes: Counter[Outcome] = field(default_factory=Counter)
    references: Counter[Reference] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    select_ask: int = 0
    select_ask_translated: int = 0
    select_ask_mapped: int = 0

    def add(self, v: Verdict) -> None:
        self.outcomes[v.outcome] += 1
        self.references[v.reference] += 1
        if v.outcome in (Outcome.REFUSED, Outcome.NOT_SELECT_ASK, Outcome.NO_MAP, Outcome.TIMEOUT):
            self.reasons[reason_kind(v.reason)] += 1
        if v.form in ("SELECT", "ASK"):
            self.select_ask += 1
            self.select_ask_translated += v.translated
            self.select_ask_mapped += v.outcome is not Outcome.NO_MAP

    @property
    def translated(self) -> int:
        return self.outcomes[Outcome.EQUAL] + self.outcomes[Outcome.UNEQUAL] + self.outcomes[Outcome.FAILED]


def reason_kind(reason: str) -> str:
    """A refusal's reason without its particulars (quoted terms, variables, numbers), for counting."""
    text = re.sub(r"\?\w+", "?v", reason)
    text = re.sub(r"<[^>]*>|'[^']*'|\"[^\"]*\"", "…", text)
    text = re.sub(r"\b\d+\b", "N", text)
    return text[:120]
