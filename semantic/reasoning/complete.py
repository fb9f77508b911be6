"""OWL 2 RL rules that the ``reasonable`` engine does not implement, run beside it to a fixpoint.

Spec: https://www.w3.org/TR/owl2-profiles/#Reasoning_in_OWL_2_RL_and_RDF_Graphs_using_Rules
(section 4.3, tables 4-9). Found missing by comparing with owlrl (tests/unit/semantic/test_reasoners.py).

Instance rules (:func:`instance_rules`; their output is fed back to the engine, which draws the
consequences, and the loop repeats until nothing is new):

* ``prp-spo2`` property chains of any length; ``prp-key`` keys;
* ``cls-maxc2``, ``cls-maxqc3``, ``cls-maxqc4`` max-cardinality-1 restrictions; ``cls-oo`` enumerations.

Schema rules (:func:`schema_rules`, run to their own fixpoint on the schema triples only):
``scm-sco``, ``scm-spo`` (transitivity, so the other rules see it), ``scm-eqc1/2``, ``scm-eqp1/2``,
``scm-dom1/2``, ``scm-rng1/2``, ``scm-hv``, ``scm-svf1/2``, ``scm-avf1/2``, ``scm-int``, ``scm-uni``,
and ``eq-rep-o`` on the virtual reflexive triples of ``scm-cls``/``scm-op``/``scm-dp`` (``c1 owl:sameAs
c2`` for a declared class gives ``c1 rdfs:subClassOf c2`` and ``c1 owl:equivalentClass c2``).
Only ``scm-svf*``/``scm-avf*`` can have instance-level consequences the engine would not otherwise
draw (an individual typed with a restriction, without the property edge), so only subsumptions
between two such restrictions are fed back; the rest is added to the inferred set as is.

``eq-ref`` (``x owl:sameAs x`` for every term) is *virtual*: never materialised, see
:mod:`hybridkg.semantic.reasoning.normalize`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from itertools import product

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from hybridkg.semantic.reasoning.normalize import OWL, RDF_TYPE, RDFS
from hybridkg.semantic.vocab import (
    ALL,
    CHAIN,
    DOMAIN,
    EQ_CLASS,
    EQ_PROPERTY,
    HAS_KEY,
    HAS_VALUE,
    INTERSECTION,
    ON_CLASS,
    ON_PROPERTY,
    ONE_OF,
    RANGE,
    SOME,
    SUBCLASS,
    SUBPROPERTY,
    UNION,
)
from hybridkg.semantic.vocab import FIRST as RDF_FIRST
from hybridkg.semantic.vocab import MAX_CARD as MAX_C
from hybridkg.semantic.vocab import MAX_QCARD as MAX_QC
from hybridkg.semantic.vocab import NIL as RDF_NIL
from hybridkg.semantic.vocab import REST as RDF_REST
from hybridkg.semantic.vocab import SAME_AS as OWL_SAME_AS
from hybridkg.semantic.vocab import THING as OWL_THING

Node = NamedNode | BlankNode | Literal | Triple
_Index = dict[Node, dict[Node, set[Node]]]


def _owl(name: str) -> NamedNode:
    return NamedNode(OWL + name)

#: ``x rdf:type T`` with these ``T`` declare the terms whose reflexive axioms are virtual.
DECLARATIONS = {
    _owl("Class"): (EQ_CLASS, SUBCLASS),
    _owl("ObjectProperty"): (EQ_PROPERTY, SUBPROPERTY),
    _owl("DatatypeProperty"): (EQ_PROPERTY, SUBPROPERTY),
}


def is_schema_triple(t: Triple) -> bool:
    """True for the triples :func:`schema_rules` and :func:`requirements` read."""
    p = t.predicate
    if p == RDF_TYPE:
        return t.object in DECLARATIONS
    if p in (RDF_FIRST, RDF_REST, OWL_SAME_AS):
        return True
    return isinstance(p, NamedNode) and p.value.startswith((OWL, RDFS))


def _index(triples: Iterable[Triple]) -> _Index:
    """predicate -> subject -> objects."""
    idx: _Index = defaultdict(lambda: defaultdict(set))
    for t in triples:
        idx[t.predicate][t.subject].add(t.object)
    return idx


def _rdf_list(idx: _Index, head: Node) -> list[Node] | None:
    """The members of a well-formed RDF list, or ``None`` if it is broken or cyclic."""
    firsts, rests = idx.get(RDF_FIRST, {}), idx.get(RDF_REST, {})
    items: list[Node] = []
    seen: set[Node] = set()
    node = head
    while node != RDF_NIL:
        if node in seen:
            return None
        seen.add(node)
        first, rest = firsts.get(node), rests.get(node)
        if not first or not rest:
            return None
        items.append(next(iter(first)))
        node = next(iter(rest))
    return items


def _lists(idx: _Index, predicate: NamedNode) -> Iterator[tuple[Node, list[Node]]]:
    for subject, heads in idx.get(predicate, {}).items():
        for head in heads:
            items = _rdf_list(idx, head)
            if items:
                yield subject, items


def _is_one(value: Node) -> bool:
    return isinstance(value, Literal) and value.value.strip() == "1"


def _resource(x: Node) -> bool:
    return isinstance(x, NamedNode | BlankNode)


def _same_pairs(members: Iterable[Node]) -> set[Triple]:
    nodes = [m for m in members if _resource(m)]
    return {Triple(x, OWL_SAME_AS, y) for x in nodes for y in nodes if x != y}  # type: ignore[arg-type]


@dataclass
class Requirements:
    """Which data triples :func:`instance_rules` needs besides the schema triples."""

    predicates: set[Node] = field(default_factory=set)
    classes: set[Node] = field(default_factory=set)
    #: True when some instance rule has an axiom to work on (``cls-oo`` needs no data triples).
    active: bool = False


def requirements(schema: Iterable[Triple]) -> Requirements:
    """The properties whose triples and classes whose ``rdf:type`` triples instance rules read."""
    idx = _index(schema)
    req = Requirements()
    for prop, chain in _lists(idx, CHAIN):
        req.predicates.add(prop)
        req.predicates.update(chain)
    for cls, keys in _lists(idx, HAS_KEY):
        req.classes.add(cls)
        req.predicates.update(keys)
    for cardinality in (MAX_C, MAX_QC):
        for restriction, values in idx.get(cardinality, {}).items():
            if any(_is_one(v) for v in values):
                req.classes.add(restriction)
                req.classes.update(idx.get(ON_CLASS, {}).get(restriction, ()))
                req.predicates.update(idx.get(ON_PROPERTY, {}).get(restriction, ()))
    req.active = bool(req.predicates or req.classes or ONE_OF in idx)
    return req


def instance_rules(closure: Iterable[Triple]) -> set[Triple]:
    """``prp-spo2``, ``prp-key``, ``cls-maxc2``, ``cls-maxqc3/4``, ``cls-oo`` (new triples only)."""
    triples = closure if isinstance(closure, set | frozenset) else set(closure)
    idx = _index(triples)
    out: set[Triple] = set()
    for prop, chain in _lists(idx, CHAIN):
        if not isinstance(prop, NamedNode):
            continue
        for start, objects in idx.get(chain[0], {}).items():
            frontier = set(objects)
            for link in chain[1:]:
                step = idx.get(link, {})
                frontier = {z for y in frontier for z in step.get(y, ())}
            if _resource(start):
                out.update(Triple(start, prop, end) for end in frontier)  # type: ignore[arg-type]
    instances: dict[Node, set[Node]] = defaultdict(set)
    for subject, classes in idx.get(RDF_TYPE, {}).items():
        for cls in classes:
            instances[cls].add(subject)
    for cls, keys in _lists(idx, HAS_KEY):
        groups: dict[tuple[Node, ...], set[Node]] = defaultdict(set)
        for x in instances.get(cls, ()):
            key_values = [idx.get(p, {}).get(x, set()) for p in keys]
            for combo in product(*key_values):
                groups[combo].add(x)
        for group in groups.values():
            out |= _same_pairs(group)
    for cardinality in (MAX_C, MAX_QC):
        for restriction, values in idx.get(cardinality, {}).items():
            if not any(_is_one(v) for v in values):
                continue
            on_class = idx.get(ON_CLASS, {}).get(restriction)
            if cardinality == MAX_QC and not on_class:
                continue
            for prop in idx.get(ON_PROPERTY, {}).get(restriction, ()):
                for x in instances.get(restriction, ()):
                    ys = idx.get(prop, {}).get(x, set())
                    if on_class and OWL_THING not in on_class:
                        ys = {y for y in ys if any(y in instances.get(c, ()) for c in on_class)}
                    out |= _same_pairs(ys)
    for cls, members in _lists(idx, ONE_OF):
        out.update(Triple(m, RDF_TYPE, cls) for m in members if _resource(m))  # type: ignore[arg-type]
    return {t for t in out if t not in triples}


def _transitive(pairs: set[tuple[Node, Node]]) -> set[tuple[Node, Node]]:
    succ: dict[Node, set[Node]] = defaultdict(set)
    for a, b in pairs:
        succ[a].add(b)
    closed: set[tuple[Node, Node]] = set()
    for start in list(succ):
        seen: set[Node] = set()
        stack = list(succ[start])
        while stack:
            n = stack.pop()
            if n in seen:
                continue
            seen.add(n)
            stack.extend(succ.get(n, ()))
        closed.update((start, n) for n in seen)
    return closed


def schema_rules(schema: Iterable[Triple]) -> tuple[set[Triple], set[Triple]]:
    """The ``scm-*`` fixpoint over schema triples: ``(new triples, those to feed back)``."""
    given = set(schema)
    triples = set(given)
    feedback: set[Triple] = set()
    while True:
        idx = _index(triples)
        new: set[Triple] = set()
        sco = {(s, o) for s, os in idx.get(SUBCLASS, {}).items() for o in os}
        spo = {(s, o) for s, os in idx.get(SUBPROPERTY, {}).items() for o in os}
        for equivalence, subsumption, pairs in ((EQ_CLASS, SUBCLASS, sco), (EQ_PROPERTY, SUBPROPERTY, spo)):
            for s, os in idx.get(equivalence, {}).items():
                for o in os:
                    new.add(Triple(s, subsumption, o))  # type: ignore[arg-type]
                    new.add(Triple(o, subsumption, s))  # type: ignore[arg-type]
            for s, o in pairs:
                if s != o and (o, s) in pairs:
                    new.add(Triple(s, equivalence, o))  # type: ignore[arg-type]
            new.update(Triple(s, subsumption, o) for s, o in _transitive(pairs))  # type: ignore[arg-type]
        sub_classes = _transitive(sco) | sco
        sub_props = _transitive(spo) | spo
        supers: dict[Node, set[Node]] = defaultdict(set)
        for c1, c2 in sub_classes:
            supers[c1].add(c2)
        subs_of_prop: dict[Node, set[Node]] = defaultdict(set)
        for p1, p2 in sub_props:
            subs_of_prop[p2].add(p1)
        for restrictor in (DOMAIN, RANGE):
            for p, cs in idx.get(restrictor, {}).items():
                for c in cs:
                    new.update(Triple(p, restrictor, c2) for c2 in supers.get(c, ()))  # type: ignore[arg-type]
                    new.update(Triple(p1, restrictor, c) for p1 in subs_of_prop.get(p, ()))  # type: ignore[arg-type]
        by_property: dict[Node, set[Node]] = defaultdict(set)
        for r, ps in idx.get(ON_PROPERTY, {}).items():
            for p in ps:
                by_property[p].add(r)
        supers_of_prop: dict[Node, set[Node]] = defaultdict(set)
        for p1, p2 in sub_props:
            supers_of_prop[p1].add(p2)
        for p1, group in by_property.items():
            partners = [(r2, True) for r2 in group]
            partners += [(r2, False) for p2 in supers_of_prop.get(p1, ()) for r2 in by_property.get(p2, ())]
            for r1, (r2, same_p) in product(group, partners):
                if r1 == r2:
                    continue
                sub_p = not same_p
                for v in idx.get(HAS_VALUE, {}).get(r1, ()):
                    if v in idx.get(HAS_VALUE, {}).get(r2, ()):
                        new.add(Triple(r1, SUBCLASS, r2))  # type: ignore[arg-type]
                for y1 in idx.get(SOME, {}).get(r1, ()):
                    for y2 in idx.get(SOME, {}).get(r2, ()):
                        if (same_p and (y1 == y2 or (y1, y2) in sub_classes)) or (sub_p and y1 == y2):
                            link = Triple(r1, SUBCLASS, r2)  # type: ignore[arg-type]
                            new.add(link)
                            feedback.add(link)
                for y1 in idx.get(ALL, {}).get(r1, ()):
                    for y2 in idx.get(ALL, {}).get(r2, ()):
                        if same_p and (y1, y2) in sub_classes:
                            link = Triple(r1, SUBCLASS, r2)  # type: ignore[arg-type]
                            new.add(link)
                            feedback.add(link)
                        if sub_p and y1 == y2:
                            link = Triple(r2, SUBCLASS, r1)  # type: ignore[arg-type]
                            new.add(link)
                            feedback.add(link)
        for c, members in _lists(idx, INTERSECTION):
            new.update(Triple(c, SUBCLASS, m) for m in members if _resource(c) and _resource(m))  # type: ignore[arg-type]
        for c, members in _lists(idx, UNION):
            new.update(Triple(m, SUBCLASS, c) for m in members if _resource(c) and _resource(m))  # type: ignore[arg-type]
        declared: dict[Node, set[tuple[NamedNode, NamedNode]]] = defaultdict(set)
        for x, types in idx.get(RDF_TYPE, {}).items():
            for ty in types:
                if ty in DECLARATIONS:
                    declared[x].add(DECLARATIONS[ty])  # type: ignore[index]
        for x, ys in idx.get(OWL_SAME_AS, {}).items():
            for pair in declared.get(x, ()):
                new.update(Triple(x, p, y) for p in pair for y in ys if y != x and _resource(y))  # type: ignore[arg-type]
        new = {t for t in new if t not in triples and t.subject != t.object}
        if not new:
            break
        triples |= new
    derived = triples - given
    return derived, feedback & derived


def complete(closure: Iterable[Triple]) -> set[Triple]:
    """Everything the rules of this module add to a closure (new triples only, one round)."""
    triples = closure if isinstance(closure, set | frozenset) else set(closure)
    derived, _ = schema_rules(t for t in triples if is_schema_triple(t))
    return (instance_rules(triples) | derived) - triples
