"""The OWL 2 RL/RDF rules as data, for explanations.

Spec: OWL 2 Web Ontology Language Profiles, section 4.3 "Reasoning in OWL 2 RL and RDF Graphs using
Rules", tables 4-9 (https://www.w3.org/TR/owl2-profiles/#Reasoning_in_OWL_2_RL_and_RDF_Graphs_using_Rules).
Rules whose head is ``false`` (inconsistency checks) are left out; the premise-free axioms ``cls-thing``,
``cls-nothing1``, ``prp-ap`` and ``dt-type1`` (table 8) are kept because engines materialise them.

A rule is run backwards: :meth:`Rule.instances` unifies its conclusion with a goal triple and yields
every tuple of premise triples, found in a :class:`GraphView`, that derives the goal. Rules over RDF
lists (``prp-spo2``, ``prp-key``, ``cls-int1``, ``cls-int2``, ``cls-uni``, ``cls-oo``, ``scm-int``,
``scm-uni``) use a small hand-written matcher and count the list's ``rdf:first``/``rdf:rest`` triples
among their premises. ``eq-ref`` has no pattern here: ``x owl:sameAs x`` is not materialised, so
:mod:`hybridkg.semantic.reasoning.explain` handles it itself.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from hybridkg.semantic.base import GraphView, Term
from hybridkg.semantic.vocab import (  # noqa: F401 - re-exported for the rule catalogue
    ALL,
    ANNOTATION_PROPERTY,
    CHAIN,
    CLASS,
    DOMAIN,
    EQ_CLASS,
    FIRST,
    HAS_KEY,
    HAS_VALUE,
    INTERSECTION,
    INVERSE,
    MAX_CARD,
    MAX_QCARD,
    NIL,
    NOTHING,
    ON_CLASS,
    ON_PROPERTY,
    ONE_OF,
    OWL,
    RANGE,
    RDF,
    RDFS,
    REST,
    SAME_AS,
    SOME,
    SUBCLASS,
    SUBPROPERTY,
    THING,
    TYPE,
    UNION,
)
from hybridkg.semantic.vocab import EQ_PROPERTY as EQ_PROP

ANNOTATION_PROPERTIES = tuple(
    NamedNode(iri)
    for iri in (
        RDFS + "label",
        RDFS + "comment",
        RDFS + "seeAlso",
        RDFS + "isDefinedBy",
        OWL + "deprecated",
        OWL + "versionInfo",
        OWL + "priorVersion",
        OWL + "backwardCompatibleWith",
        OWL + "incompatibleWith",
    )
)
XSD = "http://www.w3.org/2001/XMLSchema#"
DATATYPE = NamedNode(RDFS + "Datatype")
#: dt-type1's datatypes: OWL 2 RL's (Profiles section 4.2) plus the RDF 1.1 ones owlrl also types.
DATATYPES = tuple(
    NamedNode(iri)
    for iri in (
        *(RDF + n for n in ("PlainLiteral", "XMLLiteral", "langString", "HTML")),
        RDFS + "Literal",
        *(
            XSD + n
            for n in [
                "decimal",
                "integer",
                "nonNegativeInteger",
                "nonPositiveInteger",
                "positiveInteger",
                "negativeInteger",
                "long",
                "int",
                "short",
                "byte",
                "unsignedLong",
                "unsignedInt",
                "unsignedShort",
                "unsignedByte",
                "float",
                "double",
                "string",
                "normalizedString",
                "token",
                "language",
                "Name",
                "NCName",
                "NMTOKEN",
                "boolean",
                "hexBinary",
                "base64Binary",
                "anyURI",
                "dateTime",
                "dateTimeStamp",
                "date",
                "time",
            ]
        ),
    )
)

#: A pattern position: a ``str`` is a variable name, anything else a constant term.
Node = str | NamedNode | BlankNode | Literal
Pattern = tuple[Node, Node, Node]
Bindings = dict[str, Term]
Instances = Iterator[tuple[Triple, ...]]


@dataclass(frozen=True)
class Rule:
    """One OWL 2 RL/RDF rule: ``premises`` entail ``conclusion``.

    ``guard`` restricts the variable bindings (e.g. a cardinality literal equal to 1); ``custom``
    replaces the pattern matcher for rules over RDF lists and yields complete premise tuples.
    """

    name: str
    conclusion: Pattern
    premises: tuple[Pattern, ...] = ()
    guard: Callable[[Bindings], bool] | None = None
    custom: Callable[[Bindings, GraphView], Instances] | None = None

    def instances(self, goal: Triple, view: GraphView) -> Instances:
        """Every tuple of premises, holding in ``view``, that derives ``goal`` by this rule."""
        bindings = _unify(self.conclusion, goal, {})
        if bindings is None:
            return
        if self.custom is not None:
            yield from self.custom(bindings, view)
            return
        for full in _solve(list(self.premises), bindings, view):
            if self.guard is None or self.guard(full):
                yield tuple(_substitute(p, full) for p in self.premises)


# --------------------------------------------------------------------------- pattern engine


def _unify(pattern: Pattern, triple: Triple, bindings: Bindings) -> Bindings | None:
    out = bindings
    for node, term in zip(pattern, (triple.subject, triple.predicate, triple.object), strict=True):
        if isinstance(node, str):
            bound = out.get(node)
            if bound is None:
                if out is bindings:
                    out = dict(bindings)
                out[node] = term
            elif bound != term:
                return None
        elif node != term:
            return None
    return out


def _resolve(node: Node, bindings: Bindings) -> Term | None:
    return bindings.get(node) if isinstance(node, str) else node


def _weight(pattern: Pattern, bindings: Bindings) -> int:
    s, p, o = (_resolve(n, bindings) is not None for n in pattern)
    return 2 * s + p + 2 * o


def _solve(premises: list[Pattern], bindings: Bindings, view: GraphView) -> Iterator[Bindings]:
    if not premises:
        yield bindings
        return
    best = max(range(len(premises)), key=lambda i: _weight(premises[i], bindings))
    pattern = premises[best]
    rest = premises[:best] + premises[best + 1 :]
    s, p, o = (_resolve(n, bindings) for n in pattern)
    if isinstance(s, Literal) or (p is not None and not isinstance(p, NamedNode)):
        return
    for triple in view.match(s, p, o):  # type: ignore[arg-type]
        extended = _unify(pattern, triple, bindings)
        if extended is not None:
            yield from _solve(rest, extended, view)


def _substitute(pattern: Pattern, bindings: Bindings) -> Triple:
    s, p, o = (bindings[n] if isinstance(n, str) else n for n in pattern)
    return Triple(s, p, o)  # type: ignore[arg-type]


def _is_one(name: str) -> Callable[[Bindings], bool]:
    def guard(bindings: Bindings) -> bool:
        term = bindings.get(name)
        if not isinstance(term, Literal):
            return False
        try:
            return int(term.value.strip()) == 1
        except ValueError:
            return False

    return guard


# --------------------------------------------------------------------------- RDF lists


def list_items(head: Term, view: GraphView) -> tuple[list[Term], list[Triple]] | None:
    """The members of the RDF list at ``head`` and the list's own triples; None if it is malformed."""
    items: list[Term] = []
    triples: list[Triple] = []
    node = head
    seen: set[Term] = set()
    while node != NIL:
        if node in seen or isinstance(node, Literal):
            return None
        seen.add(node)
        first = next(view.match(node, FIRST, None), None)  # type: ignore[arg-type]
        rest = next(view.match(node, REST, None), None)  # type: ignore[arg-type]
        if first is None or rest is None:
            return None
        items.append(first.object)
        triples += (first, rest)
        node = rest.object
    return items, triples


def _heads_containing(item: Term, view: GraphView) -> Iterator[Term]:
    """Heads of the lists that have ``item`` as a member (walking ``rdf:rest`` backwards)."""
    seen: set[Term] = set()
    for cell in view.match(None, FIRST, item):  # type: ignore[arg-type]
        frontier: list[Term] = [cell.subject]
        while frontier:
            node = frontier.pop()
            if node in seen:
                continue
            seen.add(node)
            previous = [t.subject for t in view.match(None, REST, node)]  # type: ignore[arg-type]
            if previous:
                frontier += previous
            else:
                yield node


def _lists(subject: Term, predicate: NamedNode, view: GraphView) -> Iterator[tuple[Triple, list[Term], list[Triple]]]:
    if isinstance(subject, Literal):
        return
    for link in view.match(subject, predicate, None):  # type: ignore[arg-type]
        parsed = list_items(link.object, view)
        if parsed is not None:
            yield link, parsed[0], parsed[1]


def _cls_int1(b: Bindings, view: GraphView) -> Instances:
    y, c = b["y"], b["c"]
    for link, items, cells in _lists(c, INTERSECTION, view):
        typed = [Triple(y, TYPE, ci) for ci in items]  # type: ignore[arg-type]
        if items and all(view.holds(t) for t in typed):
            yield (link, *cells, *typed)


def _cls_int2(b: Bindings, view: GraphView) -> Instances:
    y, ci = b["y"], b["ci"]
    for head in _heads_containing(ci, view):
        for link in view.match(None, INTERSECTION, head):  # type: ignore[arg-type]
            typed = Triple(y, TYPE, link.subject)  # type: ignore[arg-type]
            parsed = list_items(head, view)
            if parsed is not None and ci in parsed[0] and view.holds(typed):
                yield (link, *parsed[1], typed)


def _cls_uni(b: Bindings, view: GraphView) -> Instances:
    y, c = b["y"], b["c"]
    for link, items, cells in _lists(c, UNION, view):
        for ci in items:
            typed = Triple(y, TYPE, ci)  # type: ignore[arg-type]
            if view.holds(typed):
                yield (link, *cells, typed)


def _cls_oo(b: Bindings, view: GraphView) -> Instances:
    y, c = b["y"], b["c"]
    for link, items, cells in _lists(c, ONE_OF, view):
        if y in items:
            yield (link, *cells)


def _scm_int(b: Bindings, view: GraphView) -> Instances:
    c, ci = b["c"], b["ci"]
    for link, items, cells in _lists(c, INTERSECTION, view):
        if ci in items:
            yield (link, *cells)


def _scm_uni(b: Bindings, view: GraphView) -> Instances:
    c, ci = b["c"], b["ci"]
    for link, items, cells in _lists(c, UNION, view):
        if ci in items:
            yield (link, *cells)


def _chains(start: Term, props: list[Term], end: Term, view: GraphView) -> Iterator[list[Triple]]:
    if len(props) == 1:
        last = Triple(start, props[0], end)  # type: ignore[arg-type]
        if view.holds(last):
            yield [last]
        return
    for step in view.match(start, props[0], None):  # type: ignore[arg-type]
        if isinstance(step.object, Literal):
            continue
        for tail in _chains(step.object, props[1:], end, view):
            yield [step, *tail]


def _prp_spo2(b: Bindings, view: GraphView) -> Instances:
    u, p, w = b["u"], b["p"], b["w"]
    for link, props, cells in _lists(p, CHAIN, view):
        if props and all(isinstance(q, NamedNode) for q in props):
            for chain in _chains(u, props, w, view):
                yield (link, *cells, *chain)


def _prp_key(b: Bindings, view: GraphView) -> Instances:
    x, y = b["x"], b["y"]
    if x == y or isinstance(x, Literal) or isinstance(y, Literal):
        return
    for link in view.match(None, HAS_KEY, None):
        c = link.subject
        x_type, y_type = Triple(x, TYPE, c), Triple(y, TYPE, c)  # type: ignore[arg-type]
        if not (view.holds(x_type) and view.holds(y_type)):
            continue
        parsed = list_items(link.object, view)
        if parsed is None or not all(isinstance(q, NamedNode) for q in parsed[0]):
            continue
        shared: list[list[tuple[Triple, Triple]]] = []
        for prop in parsed[0]:
            pairs = []
            for t in view.match(x, prop, None):  # type: ignore[arg-type]
                other = Triple(y, prop, t.object)  # type: ignore[arg-type]
                if view.holds(other):
                    pairs.append((t, other))
            shared.append(pairs)
        for combo in itertools.product(*shared):
            values = [t for pair in combo for t in pair]
            yield (link, *parsed[1], x_type, *values, y_type)


# --------------------------------------------------------------------------- catalogue


def _r(name: str, conclusion: Pattern, *premises: Pattern, guard: Callable[[Bindings], bool] | None = None) -> Rule:
    return Rule(name, conclusion, tuple(premises), guard)


def _c(name: str, conclusion: Pattern, custom: Callable[[Bindings, GraphView], Instances]) -> Rule:
    return Rule(name, conclusion, (), None, custom)


#: Every rule, in the order the explainer tries them (direct, cheap rules first; ``eq-rep-*`` last).
RULES: tuple[Rule, ...] = (
    # table 9: schema vocabulary
    _r("scm-cls", ("c", SUBCLASS, "c"), ("c", TYPE, CLASS)),
    _r("scm-cls", ("c", EQ_CLASS, "c"), ("c", TYPE, CLASS)),
    _r("scm-cls", ("c", SUBCLASS, THING), ("c", TYPE, CLASS)),
    _r("scm-cls", (NOTHING, SUBCLASS, "c"), ("c", TYPE, CLASS)),
    _r("scm-eqc1", ("c1", SUBCLASS, "c2"), ("c1", EQ_CLASS, "c2")),
    _r("scm-eqc1", ("c2", SUBCLASS, "c1"), ("c1", EQ_CLASS, "c2")),
    _r("scm-sco", ("c1", SUBCLASS, "c3"), ("c1", SUBCLASS, "c2"), ("c2", SUBCLASS, "c3")),
    _r("scm-eqc2", ("c1", EQ_CLASS, "c2"), ("c1", SUBCLASS, "c2"), ("c2", SUBCLASS, "c1")),
    _r("scm-op", ("p", SUBPROPERTY, "p"), ("p", TYPE, NamedNode(OWL + "ObjectProperty"))),
    _r("scm-op", ("p", EQ_PROP, "p"), ("p", TYPE, NamedNode(OWL + "ObjectProperty"))),
    _r("scm-dp", ("p", SUBPROPERTY, "p"), ("p", TYPE, NamedNode(OWL + "DatatypeProperty"))),
    _r("scm-dp", ("p", EQ_PROP, "p"), ("p", TYPE, NamedNode(OWL + "DatatypeProperty"))),
    _r("scm-eqp1", ("p1", SUBPROPERTY, "p2"), ("p1", EQ_PROP, "p2")),
    _r("scm-eqp1", ("p2", SUBPROPERTY, "p1"), ("p1", EQ_PROP, "p2")),
    _r("scm-spo", ("p1", SUBPROPERTY, "p3"), ("p1", SUBPROPERTY, "p2"), ("p2", SUBPROPERTY, "p3")),
    _r("scm-eqp2", ("p1", EQ_PROP, "p2"), ("p1", SUBPROPERTY, "p2"), ("p2", SUBPROPERTY, "p1")),
    _r("scm-dom1", ("p", DOMAIN, "c2"), ("p", DOMAIN, "c1"), ("c1", SUBCLASS, "c2")),
    _r("scm-dom2", ("p1", DOMAIN, "c"), ("p2", DOMAIN, "c"), ("p1", SUBPROPERTY, "p2")),
    _r("scm-rng1", ("p", RANGE, "c2"), ("p", RANGE, "c1"), ("c1", SUBCLASS, "c2")),
    _r("scm-rng2", ("p1", RANGE, "c"), ("p2", RANGE, "c"), ("p1", SUBPROPERTY, "p2")),
    _r(
        "scm-hv",
        ("c1", SUBCLASS, "c2"),
        ("c1", HAS_VALUE, "i"),
        ("c1", ON_PROPERTY, "p1"),
        ("c2", HAS_VALUE, "i"),
        ("c2", ON_PROPERTY, "p2"),
        ("p1", SUBPROPERTY, "p2"),
    ),
    _r(
        "scm-svf1",
        ("c1", SUBCLASS, "c2"),
        ("c1", SOME, "y1"),
        ("c1", ON_PROPERTY, "p"),
        ("c2", SOME, "y2"),
        ("c2", ON_PROPERTY, "p"),
        ("y1", SUBCLASS, "y2"),
    ),
    _r(
        "scm-svf2",
        ("c1", SUBCLASS, "c2"),
        ("c1", SOME, "y"),
        ("c1", ON_PROPERTY, "p1"),
        ("c2", SOME, "y"),
        ("c2", ON_PROPERTY, "p2"),
        ("p1", SUBPROPERTY, "p2"),
    ),
    _r(
        "scm-avf1",
        ("c1", SUBCLASS, "c2"),
        ("c1", ALL, "y1"),
        ("c1", ON_PROPERTY, "p"),
        ("c2", ALL, "y2"),
        ("c2", ON_PROPERTY, "p"),
        ("y1", SUBCLASS, "y2"),
    ),
    _r(
        "scm-avf2",
        ("c2", SUBCLASS, "c1"),
        ("c1", ALL, "y"),
        ("c1", ON_PROPERTY, "p1"),
        ("c2", ALL, "y"),
        ("c2", ON_PROPERTY, "p2"),
        ("p1", SUBPROPERTY, "p2"),
    ),
    _c("scm-int", ("c", SUBCLASS, "ci"), _scm_int),
    _c("scm-uni", ("ci", SUBCLASS, "c"), _scm_uni),
    # table 6: classes (premise-free axioms first)
    _r("cls-thing", (THING, TYPE, CLASS)),
    _r("cls-nothing1", (NOTHING, TYPE, CLASS)),
    *(_r("prp-ap", (p, TYPE, ANNOTATION_PROPERTY)) for p in ANNOTATION_PROPERTIES),
    *(_r("dt-type1", (dt, TYPE, DATATYPE)) for dt in DATATYPES),
    # table 7: class axioms
    _r("cax-sco", ("x", TYPE, "c2"), ("c1", SUBCLASS, "c2"), ("x", TYPE, "c1")),
    _r("cax-eqc1", ("x", TYPE, "c2"), ("c1", EQ_CLASS, "c2"), ("x", TYPE, "c1")),
    _r("cax-eqc2", ("x", TYPE, "c1"), ("c1", EQ_CLASS, "c2"), ("x", TYPE, "c2")),
    # table 5: properties
    _r("prp-dom", ("x", TYPE, "c"), ("p", DOMAIN, "c"), ("x", "p", "y")),
    _r("prp-rng", ("y", TYPE, "c"), ("p", RANGE, "c"), ("x", "p", "y")),
    _r("prp-spo1", ("x", "p2", "y"), ("p1", SUBPROPERTY, "p2"), ("x", "p1", "y")),
    _r("prp-eqp1", ("x", "p2", "y"), ("p1", EQ_PROP, "p2"), ("x", "p1", "y")),
    _r("prp-eqp2", ("x", "p1", "y"), ("p1", EQ_PROP, "p2"), ("x", "p2", "y")),
    _r("prp-inv1", ("y", "p2", "x"), ("p1", INVERSE, "p2"), ("x", "p1", "y")),
    _r("prp-inv2", ("y", "p1", "x"), ("p1", INVERSE, "p2"), ("x", "p2", "y")),
    _r("prp-symp", ("y", "p", "x"), ("p", TYPE, NamedNode(OWL + "SymmetricProperty")), ("x", "p", "y")),
    _r(
        "prp-trp",
        ("x", "p", "z"),
        ("p", TYPE, NamedNode(OWL + "TransitiveProperty")),
        ("x", "p", "y"),
        ("y", "p", "z"),
    ),
    _c("prp-spo2", ("u", "p", "w"), _prp_spo2),
    # table 6: classes
    _r("cls-hv1", ("u", "p", "y"), ("x", HAS_VALUE, "y"), ("x", ON_PROPERTY, "p"), ("u", TYPE, "x")),
    _r("cls-hv2", ("u", TYPE, "x"), ("x", HAS_VALUE, "y"), ("x", ON_PROPERTY, "p"), ("u", "p", "y")),
    _r(
        "cls-svf1",
        ("u", TYPE, "x"),
        ("x", SOME, "y"),
        ("x", ON_PROPERTY, "p"),
        ("u", "p", "v"),
        ("v", TYPE, "y"),
    ),
    _r("cls-svf2", ("u", TYPE, "x"), ("x", SOME, THING), ("x", ON_PROPERTY, "p"), ("u", "p", "v")),
    _r("cls-avf", ("v", TYPE, "y"), ("x", ALL, "y"), ("x", ON_PROPERTY, "p"), ("u", TYPE, "x"), ("u", "p", "v")),
    _c("cls-int1", ("y", TYPE, "c"), _cls_int1),
    _c("cls-int2", ("y", TYPE, "ci"), _cls_int2),
    _c("cls-uni", ("y", TYPE, "c"), _cls_uni),
    _c("cls-oo", ("y", TYPE, "c"), _cls_oo),
    # table 4: equality
    _r("eq-sym", ("y", SAME_AS, "x"), ("x", SAME_AS, "y")),
    _r("eq-trans", ("x", SAME_AS, "z"), ("x", SAME_AS, "y"), ("y", SAME_AS, "z")),
    _r(
        "prp-fp",
        ("y1", SAME_AS, "y2"),
        ("p", TYPE, NamedNode(OWL + "FunctionalProperty")),
        ("x", "p", "y1"),
        ("x", "p", "y2"),
    ),
    _r(
        "prp-ifp",
        ("x1", SAME_AS, "x2"),
        ("p", TYPE, NamedNode(OWL + "InverseFunctionalProperty")),
        ("x1", "p", "y"),
        ("x2", "p", "y"),
    ),
    _r(
        "cls-maxc2",
        ("y1", SAME_AS, "y2"),
        ("x", MAX_CARD, "n"),
        ("x", ON_PROPERTY, "p"),
        ("u", TYPE, "x"),
        ("u", "p", "y1"),
        ("u", "p", "y2"),
        guard=_is_one("n"),
    ),
    _r(
        "cls-maxqc3",
        ("y1", SAME_AS, "y2"),
        ("x", MAX_QCARD, "n"),
        ("x", ON_PROPERTY, "p"),
        ("x", ON_CLASS, "c"),
        ("u", TYPE, "x"),
        ("u", "p", "y1"),
        ("y1", TYPE, "c"),
        ("u", "p", "y2"),
        ("y2", TYPE, "c"),
        guard=lambda b: b["c"] != THING and _is_one("n")(b),
    ),
    _r(
        "cls-maxqc4",
        ("y1", SAME_AS, "y2"),
        ("x", MAX_QCARD, "n"),
        ("x", ON_PROPERTY, "p"),
        ("x", ON_CLASS, THING),
        ("u", TYPE, "x"),
        ("u", "p", "y1"),
        ("u", "p", "y2"),
        guard=_is_one("n"),
    ),
    _c("prp-key", ("x", SAME_AS, "y"), _prp_key),
    _r("eq-rep-s", ("s2", "p", "o"), ("s", SAME_AS, "s2"), ("s", "p", "o")),
    _r("eq-rep-p", ("s", "p2", "o"), ("p", SAME_AS, "p2"), ("s", "p", "o")),
    _r("eq-rep-o", ("s", "p", "o2"), ("o", SAME_AS, "o2"), ("s", "p", "o")),
)

#: Names of every rule in :data:`RULES`, plus ``eq-ref`` (handled by the explainer).
RULE_NAMES: frozenset[str] = frozenset({r.name for r in RULES} | {"eq-ref"})

_ORDER = {id(r): i for i, r in enumerate(RULES)}
_BY_PREDICATE: dict[Term | None, list[Rule]] = {}
for _rule in RULES:
    _key = _rule.conclusion[1]
    _BY_PREDICATE.setdefault(None if isinstance(_key, str) else _key, []).append(_rule)
_FOR_PREDICATE: dict[NamedNode, tuple[Rule, ...]] = {}


def rules_for(triple: Triple) -> tuple[Rule, ...]:
    """The rules whose conclusion may unify with ``triple``, in catalogue order."""
    predicate = triple.predicate
    found = _FOR_PREDICATE.get(predicate)
    if found is None:
        candidates = [*_BY_PREDICATE.get(predicate, ()), *_BY_PREDICATE.get(None, ())]
        found = _FOR_PREDICATE[predicate] = tuple(sorted(candidates, key=lambda r: _ORDER[id(r)]))
    return found
