"""Stage 3: a parse -> candidate readings, each a basic graph pattern over the domain's schema.

The slots become a chain of nodes (the answer variable, typed by a leading class mention; entities;
class-typed variables) joined by edges. An edge is the property mentioned between two nodes, or, when
none is, every property whose declared domain and range fit the two nodes (one hop; two hops through an
unnamed intermediate only if no single property fits). Direction comes from domain/range; when both
directions fit (a property from a class to itself) the word order decides: the node written before the
property is its subject, except for a property the question ends with ("what does X take"), whose
subject is the node before it. A named property is used as named; for unnamed links, ``owl:inverseOf`` pairs
are one reading (the closure holds both).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.qa.lexicon import KIND_CLASS, KIND_ENTITY, KIND_PROPERTY, Mention
from hybridkg.semantic.qa.parse import Form, Parse
from hybridkg.semantic.qa.schema import RDF_TYPE, Schema

#: Each property the question does not name costs this factor: an inferred link is a guess about meaning.
CONNECTOR_FACTOR = 0.9
#: Longest chain (edges) a reading may have.
MAX_EDGES = 4
#: At most this many readings are built per question (slot alternatives multiply).
MAX_READINGS = 64

Pattern = tuple[str, str, str]  # subject, predicate, object: "?var" or an IRI


class PlanError(Exception):
    """No reading fits the schema; ``reason`` says why."""


@dataclass(frozen=True)
class Node:
    term: str  # "?var" or an entity IRI
    classes: frozenset[str] = frozenset()  # class constraints of a variable / types of an entity
    entity: bool = False
    place: bool = False  # the answer of a "where" question: only place-like ranges fit
    literal: bool = False


@dataclass(frozen=True)
class Reading:
    patterns: tuple[Pattern, ...]
    target: str | None  # the answer variable (None: yes/no)
    literal: bool  # the answer variable holds literals
    score: float
    mentions: tuple[Mention, ...] = ()

    def key(self) -> tuple[Pattern, ...]:
        return tuple(sorted(self.patterns))


@dataclass
class _Ctx:
    kb: KnowledgeBase
    schema: Schema
    counter: itertools.count = field(default_factory=lambda: itertools.count(1))

    def var(self) -> str:
        return f"?m{next(self.counter)}"


def _fits(ctx: _Ctx, node: Node, classes: set[str], *, as_range: bool) -> bool:
    """Whether ``node`` may be a subject (``as_range=False``) or object of a property with these classes.

    The answer of a "where" question is only ever the object of a property with a place-like range.
    """
    if node.place and not (as_range and classes and any(ctx.schema.place_like(c) for c in classes)):
        return False
    if node.literal:
        return False  # object properties never end in a literal
    if not classes:
        return True
    if node.entity:
        return classes <= node.classes
    return not node.classes or all(any(ctx.schema.related(t, c) for t in node.classes) for c in classes)


def _canonical(s: str, p: str, o: str, schema: Schema) -> Pattern:
    inv = schema.props[p].inverse if p in schema.props else None
    return (o, inv, s) if inv is not None and inv < p else (s, p, o)


def _one_hop(ctx: _Ctx, a: Node, b: Node) -> list[list[Pattern]]:
    out: dict[Pattern, None] = {}
    for p in ctx.schema.props.values():
        if p.datatype:
            continue
        if _fits(ctx, a, p.domains, as_range=False) and _fits(ctx, b, p.ranges, as_range=True):
            out[_canonical(a.term, p.iri, b.term, ctx.schema)] = None
        if _fits(ctx, b, p.domains, as_range=False) and _fits(ctx, a, p.ranges, as_range=True):
            out[_canonical(b.term, p.iri, a.term, ctx.schema)] = None
    return [[pat] for pat in out]


def _connect(ctx: _Ctx, a: Node, b: Node) -> tuple[list[list[Pattern]], int]:
    """Patterns linking two nodes with no property named between them, and how many hops they take."""
    direct = _one_hop(ctx, a, b)
    if direct:
        return direct, 1
    out: list[list[Pattern]] = []
    for c in sorted(ctx.schema.classes):
        mid = Node(ctx.var(), frozenset([c]))
        firsts = _one_hop(ctx, a, mid)
        if not firsts:
            continue
        for first, second in itertools.product(firsts, _one_hop(ctx, mid, b)):
            out.append(first + second)
    return out, 2


def _explicit(ctx: _Ctx, a: Node, b: Node, m: Mention, a_is_subject: bool) -> tuple[list[list[Pattern]], int]:
    """Patterns for property ``m`` between ``a`` and ``b``; connector hops added when types need them."""
    p = ctx.schema.props.get(m.iri)
    if p is None:
        return [], 0
    if p.datatype:
        subj, value = (b, a) if a.literal else (a, b)
        if value.literal and not subj.literal and _fits(ctx, subj, p.domains, as_range=False):
            return [[(subj.term, p.iri, value.term)]], 0
        return [], 0
    fwd = _fits(ctx, a, p.domains, as_range=False) and _fits(ctx, b, p.ranges, as_range=True)
    bwd = _fits(ctx, b, p.domains, as_range=False) and _fits(ctx, a, p.ranges, as_range=True)
    if fwd and (a_is_subject or not bwd):
        return [[(a.term, p.iri, b.term)]], 0
    if bwd:
        return [[(b.term, p.iri, a.term)]], 0
    if a.place or b.place:
        return [], 0  # the named relation itself must end in the place asked for
    out: list[list[Pattern]] = []
    for subj, obj in ((a, b), (b, a)):
        dom, rng = Node(ctx.var(), frozenset(p.domains)), Node(ctx.var(), frozenset(p.ranges))
        if _fits(ctx, obj, p.ranges, as_range=True) and p.domains:
            out.extend(c + [(dom.term, p.iri, obj.term)] for c in _one_hop(ctx, subj, dom))
        if _fits(ctx, subj, p.domains, as_range=False) and p.ranges:
            out.extend([(subj.term, p.iri, rng.term)] + c for c in _one_hop(ctx, rng, obj))
    return out, 1


def _node(ctx: _Ctx, m: Mention, types: dict[str, frozenset[str]]) -> Node:
    if m.kind == KIND_ENTITY:
        return Node(m.iri, types.get(m.iri, frozenset()), entity=True)
    return Node(ctx.var(), frozenset([m.iri]))


def _combos(parse: Parse) -> list[tuple[Mention, ...]]:
    choices = [list(s.mentions) for s in parse.slots]
    out = []
    for combo in itertools.product(*choices):
        out.append(combo)
        if len(out) >= MAX_READINGS:
            break
    return out


def plan(parse: Parse, ctx_kb: KnowledgeBase, schema: Schema) -> list[Reading]:
    """Every reading of the parse that fits the schema, best score first."""
    ctx = _Ctx(ctx_kb, schema)
    entity_iris = [m.iri for s in parse.slots for m in s.mentions if m.kind == KIND_ENTITY]
    types = schema.types_of(ctx_kb, entity_iris) if entity_iris else {}
    readings: dict[tuple[Pattern, ...], Reading] = {}
    reasons: list[str] = []
    for combo in _combos(parse):
        try:
            for r in _readings(ctx, parse, combo, types):
                if r.key() not in readings or readings[r.key()].score < r.score:
                    readings[r.key()] = r
        except PlanError as e:
            reasons.append(str(e))
    if not readings:
        raise PlanError(reasons[0] if reasons else "no reading of the question fits the schema")
    return sorted(readings.values(), key=lambda r: (-r.score, r.key()))


def _readings(ctx: _Ctx, parse: Parse, combo: tuple[Mention, ...], types: dict[str, frozenset[str]]) -> list[Reading]:
    items = list(combo)
    if not items:
        raise PlanError("nothing in the question links to the domain")
    base = 1.0
    for m in items:
        base *= m.score
    # yes/no "is X a C": a type check
    if parse.form is Form.ASK and parse.copula and [m.kind for m in items] == [KIND_ENTITY, KIND_CLASS]:
        return [Reading(((items[0].iri, RDF_TYPE, items[1].iri),), None, False, base, combo)]
    seq: list[Node | tuple[Mention, bool]] = []
    target: Node | None = None
    if parse.form is not Form.ASK:
        literal = any(m.kind == KIND_PROPERTY and ctx.schema.props.get(m.iri, None) is not None
                      and ctx.schema.props[m.iri].datatype for m in items[:2])
        if items[0].kind == KIND_CLASS and not literal:
            target = Node("?x", frozenset([items.pop(0).iri]), place=parse.form is Form.WHERE)
        else:
            target = Node("?x", place=parse.form is Form.WHERE, literal=literal)
        seq.append(target)
    for m in items:
        seq.append((m, True) if m.kind == KIND_PROPERTY else _node(ctx, m, types))
    # a property the question ends with belongs between the answer and the node before it
    last = seq[-1]
    if target is not None and len(seq) > 2 and isinstance(last, tuple) and isinstance(seq[-2], Node):
        seq.pop()
        seq.insert(1, (last[0], False))
    edges: list[tuple[Node, Node, Mention | None, bool]] = []
    prev: Node | None = None
    pending: tuple[Mention, bool] | None = None
    for item in seq:
        if isinstance(item, tuple):
            if pending is not None or prev is None:
                raise PlanError(f"cannot tell what {item[0].text!r} links")
            pending = item
            continue
        if prev is not None:
            edges.append((prev, item, pending[0] if pending else None, pending[1] if pending else True))
        prev, pending = item, None
    if pending is not None:
        raise PlanError(f"nothing follows {pending[0].text!r}")
    if not edges:
        if target is not None and target.classes and not target.literal and parse.form is not Form.WHERE:
            return [Reading((("?x", RDF_TYPE, next(iter(target.classes))),), "?x", False, base, combo)]
        raise PlanError("the question names no relation the schema could answer")
    if parse.form is Form.WHERE and edges[0][2] is None and any(m.kind == KIND_PROPERTY for m in combo):
        named = next(m for m in combo if m.kind == KIND_PROPERTY)
        raise PlanError(f"the place asked for is not what {named.label!r} relates to")
    options: list[list[list[Pattern]]] = []
    hops = 0
    for a, b, named_edge, a_subj in edges:
        if named_edge is not None:
            opts, extra = _explicit(ctx, a, b, named_edge, a_subj)
            if not opts:
                raise PlanError(f"the property {named_edge.label!r} does not link {_show(ctx, a)} and {_show(ctx, b)}")
        else:
            opts, extra = _connect(ctx, a, b)
            if not opts:
                raise PlanError(f"no property of the schema links {_show(ctx, a)} and {_show(ctx, b)}")
        options.append(opts)
        hops += extra
    out = []
    typing = [(n.term, RDF_TYPE, c) for n in _nodes(seq) if not n.entity and n.term != "?x" for c in n.classes]
    if target is not None and target.classes:
        typing.append(("?x", RDF_TYPE, next(iter(target.classes))))
    for chosen in itertools.product(*options):
        pats = [p for group in chosen for p in group]
        if len(pats) > MAX_EDGES:
            continue
        out.append(Reading(tuple(dict.fromkeys(pats + typing)), target.term if target else None,
                           bool(target and target.literal), base * CONNECTOR_FACTOR ** hops, combo))
        if len(out) >= MAX_READINGS:
            break
    if not out:
        raise PlanError(f"the question needs a chain longer than {MAX_EDGES} relations")
    return out


def _nodes(seq: list[Node | tuple[Mention, bool]]) -> list[Node]:
    return [n for n in seq if isinstance(n, Node)]


def _show(ctx: _Ctx, n: Node) -> str:
    if n.entity:
        return f"<{n.term}>"
    if n.classes:
        c = next(iter(n.classes))
        return repr(ctx.schema.class_labels.get(c, [c])[0])
    return "the answer"
