"""The TBox compiled into ground rule tables, for the ``duckdb`` engine (:mod:`.duckdb_engine`).

The schema triples of a closure (OWL/RDFS vocabulary, RDF lists, declarations) are closed under the ``scm-*``
rules in Python (:func:`~hybridkg.semantic.reasoning.complete.schema_rules`; a schema is small) and then turned
into rows: one table per rule family, each row a ground instance of the rule's schema premises. The instance rules
are then plain joins of data triples with these tables (``cax-sco`` is ``type(x, c) ⋈ sco(c, d)``), evaluated on
integer ids. Which rule reads which table is in :mod:`.duckdb_engine`.

Closures are taken here so that one join step suffices per rule: ``sco`` holds every strict superclass of a class
(``rdfs:subClassOf``, ``owl:equivalentClass`` both ways, ``cls-int2``/``cls-uni`` members through ``scm-int``/
``scm-uni``), ``spo`` every strict super-property (``rdfs:subPropertyOf``, ``owl:equivalentProperty`` both ways).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from pyoxigraph import BlankNode, NamedNode, Triple

from hybridkg.semantic.reasoning.complete import Node, _index, _is_one, _lists, _transitive, schema_rules
from hybridkg.semantic.vocab import (
    ALL,
    CHAIN,
    DOMAIN,
    EQ_CLASS,
    EQ_PROPERTY,
    HAS_KEY,
    HAS_VALUE,
    INTERSECTION,
    INVERSE,
    MAX_CARD,
    MAX_QCARD,
    ON_CLASS,
    ON_PROPERTY,
    ONE_OF,
    OWL,
    RANGE,
    SOME,
    SUBCLASS,
    SUBPROPERTY,
    TYPE,
    UNION,
)

Term = Node
Pair = tuple[Term, Term]

_CHARACTERISTICS = {
    "symmetric": NamedNode(OWL + "SymmetricProperty"),
    "transitive": NamedNode(OWL + "TransitiveProperty"),
    "functional": NamedNode(OWL + "FunctionalProperty"),
    "inverse_functional": NamedNode(OWL + "InverseFunctionalProperty"),
}


def _resource(x: object) -> bool:
    return isinstance(x, NamedNode | BlankNode)


def _closure(pairs: set[Pair]) -> set[Pair]:
    """The transitive closure of ``pairs`` without reflexive pairs."""
    return {(a, b) for a, b in _transitive(pairs) if a != b}


@dataclass
class TBox:
    """Ground rule tables (terms, not ids) and the schema triples the ``scm-*`` closure added."""

    derived: set[Triple] = field(default_factory=set)
    sco: set[Pair] = field(default_factory=set)  # (c, d): c ⊑ d, strict, closed
    spo: set[Pair] = field(default_factory=set)  # (p, q): p ⊑ q, strict, closed
    domain: set[Pair] = field(default_factory=set)  # (p, c)
    range: set[Pair] = field(default_factory=set)  # (p, c)
    inverse: set[Pair] = field(default_factory=set)  # (p, q): x p y => y q x (both directions listed)
    symmetric: set[Term] = field(default_factory=set)
    transitive: set[Term] = field(default_factory=set)
    functional: set[Term] = field(default_factory=set)
    inverse_functional: set[Term] = field(default_factory=set)
    some: set[tuple[Term, Term, Term]] = field(default_factory=set)  # (r, p, y): cls-svf1 (y = owl:Thing: svf2)
    all: set[tuple[Term, Term, Term]] = field(default_factory=set)  # (r, p, y): cls-avf
    has_value: set[tuple[Term, Term, Term]] = field(default_factory=set)  # (r, p, v): cls-hv1/2
    max_one: set[Pair] = field(default_factory=set)  # (r, p): cls-maxc2
    max_one_q: set[tuple[Term, Term, Term]] = field(default_factory=set)  # (r, p, c): cls-maxqc3/4
    intersections: list[tuple[Term, list[Term]]] = field(default_factory=list)  # cls-int1
    chains: list[tuple[Term, list[Term]]] = field(default_factory=list)  # prp-spo2
    keys: list[tuple[Term, list[Term]]] = field(default_factory=list)  # prp-key
    one_of: set[Pair] = field(default_factory=set)  # (member, class): cls-oo


def compile_tbox(schema: Iterable[Triple]) -> TBox:
    """Close ``schema`` under the ``scm-*`` rules and compile the ground rule tables."""
    given = set(schema)
    derived, _ = schema_rules(given)
    triples = given | derived
    idx = _index(triples)
    tb = TBox(derived=derived)

    def pairs(p: NamedNode) -> set[Pair]:
        return {(s, o) for s, os in idx.get(p, {}).items() for o in os if _resource(s) and _resource(o)}

    sco = pairs(SUBCLASS)
    for a, b in pairs(EQ_CLASS):
        sco |= {(a, b), (b, a)}
    for c, members in _lists(idx, INTERSECTION):  # cls-int2
        sco |= {(c, m) for m in members if _resource(c) and _resource(m)}
    for c, members in _lists(idx, UNION):  # cls-uni
        sco |= {(m, c) for m in members if _resource(c) and _resource(m)}
    tb.sco = _closure(sco)
    spo = pairs(SUBPROPERTY)
    for a, b in pairs(EQ_PROPERTY):
        spo |= {(a, b), (b, a)}
    tb.spo = _closure(spo)
    tb.domain = pairs(DOMAIN)
    tb.range = pairs(RANGE)
    for a, b in pairs(INVERSE):
        tb.inverse |= {(a, b), (b, a)}
    types = idx.get(TYPE, {})
    for name, cls in _CHARACTERISTICS.items():
        getattr(tb, name).update(s for s, os in types.items() if cls in os and isinstance(s, NamedNode))
    on_property = idx.get(ON_PROPERTY, {})
    for r, ps in on_property.items():
        for p in ps:
            if not isinstance(p, NamedNode):
                continue
            tb.some.update((r, p, y) for y in idx.get(SOME, {}).get(r, ()) if _resource(y))
            tb.all.update((r, p, y) for y in idx.get(ALL, {}).get(r, ()) if _resource(y))
            tb.has_value.update((r, p, v) for v in idx.get(HAS_VALUE, {}).get(r, ()))
            if any(_is_one(v) for v in idx.get(MAX_CARD, {}).get(r, ())):
                tb.max_one.add((r, p))
            if any(_is_one(v) for v in idx.get(MAX_QCARD, {}).get(r, ())):
                tb.max_one_q.update((r, p, c) for c in idx.get(ON_CLASS, {}).get(r, ()) if _resource(c))
    tb.intersections = [(c, ms) for c, ms in _lists(idx, INTERSECTION) if _resource(c)]
    tb.chains = [(p, ps) for p, ps in _lists(idx, CHAIN) if isinstance(p, NamedNode)]
    tb.keys = [(c, ps) for c, ps in _lists(idx, HAS_KEY) if _resource(c)]
    for c, members in _lists(idx, ONE_OF):
        tb.one_of.update((m, c) for m in members if _resource(m) and _resource(c))
    return tb

