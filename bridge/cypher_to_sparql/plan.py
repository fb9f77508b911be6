"""Plan: Cypher clauses -> the SPARQL algebra of ``emit.py``, through the reverse mapping (``bridge/base.py``).

One pass over the clauses keeps a scope (Cypher variable -> SPARQL variable) and the group being built:

* ``MATCH`` adds its patterns to the group, ``OPTIONAL MATCH`` adds them as an ``OPTIONAL`` group whose FILTER is
  the clause's WHERE (a left join's condition, as in Cypher). A node variable that may be null (bound by an
  earlier ``OPTIONAL MATCH``) is renamed in a later pattern and tied back with ``sameTerm``: a null node matches
  nothing in Cypher, while an unbound SPARQL variable would join with anything.
* A node's accessed properties are looked up once, where the node is bound:
  ``OPTIONAL { ?n <p> ?n_k FILTER(isLiteral(?n_k)) }``.
* Relationships of one MATCH are pairwise different RDF statements (Cypher's relationship isomorphism).
* ``WITH`` closes the group into a sub-select (grouping, DISTINCT, ORDER BY, SKIP, LIMIT) that the next clauses
  join with; ``RETURN`` is the outer select.
"""

from __future__ import annotations

import re
from collections.abc import Mapping as AnyMapping
from dataclasses import dataclass, field

from cypherast import ast
from pyoxigraph import Literal, NamedNode

from hybridkg.bridge.base import BNODE, RESOURCE, URI, Mapping
from hybridkg.bridge.cypher_to_sparql import emit
from hybridkg.bridge.cypher_to_sparql.emit import (
    NULL,
    RDF_TYPE,
    Bind,
    Element,
    Filter,
    Group,
    Optional,
    Select,
    Triple,
    Union,
    Values,
)
from hybridkg.bridge.cypher_to_sparql.expr import Operand, Translator, equals
from hybridkg.errors import InvalidInput, InvalidQuery, Unsupported

#: Longest bounded variable-length pattern translated (as a union of chains: size grows with the square).
MAX_HOPS = 6
_VAR = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


@dataclass(slots=True)
class Binding:
    var: str
    kind: str  # "node", "value", "list" (collect()'s) or "rel"
    nullable: bool = False
    props: dict[str, str] = field(default_factory=dict)  # property key -> variable (nodes)


@dataclass(frozen=True, slots=True)
class Edge:
    """The RDF statement a relationship matched; ``marker``: a variable bound only in the union branch that binds
    the statement (a step of a variable-length relationship)."""

    s: str
    p: str
    o: str
    marker: str | None = None


@dataclass(frozen=True, slots=True)
class Plan:
    select: Select
    columns: tuple[str, ...]
    guards: tuple[str, ...]


class Planner:
    def __init__(self, mapping: Mapping, params: AnyMapping[str, object], accessed: dict[str, set[str]]) -> None:
        self.mapping = mapping
        self.params = params
        self.accessed = accessed
        self.scope: dict[str, Binding] = {}
        self.group = Group()
        self.guards: dict[str, None] = {}
        self.used: set[str] = set()
        self.expr = Translator(self)
        #: The answer is a set (RETURN DISTINCT, no WITH, no aggregate): path multiplicities do not show.
        self.set_semantics = False
        #: Property keys the shapes make lists (on nodes of a label) even with one value.
        self.list_keys: dict[str, str] = {}

    # -- Resolver ------------------------------------------------------------------------------------------------

    def variable(self, name: str) -> Operand:
        b = self.scope.get(name)
        if b is None:
            raise InvalidQuery(f"variable {name!r} is not defined")
        if b.kind == "rel":
            raise Unsupported(f"relationship variable {name!r} in an expression (RDF statements are not values)")
        if b.kind == "list":
            raise Unsupported(f"list operations on {name!r} (a collect() list; only returning it is translated)")
        return Operand(b.var, node=b.kind == "node")

    def property(self, name: str, key: str) -> str:
        b = self.scope.get(name)
        if b is None:
            raise InvalidQuery(f"variable {name!r} is not defined")
        if b.kind != "node":
            raise Unsupported(f"property {key!r} of {name!r}, which is not a node")
        if key not in b.props:
            raise Unsupported(f"property {name}.{key} of a node renamed by WITH after it could be null")
        return b.props[key]

    def parameter(self, name: str) -> object:
        if name not in self.params:
            raise InvalidQuery(f"parameter ${name} has no value")
        return self.params[name]

    def has_labels(self, node: Operand, labels: list[str]) -> str:
        conds = []
        for lb in labels:
            cls = self.mapping.iri(lb) if lb != RESOURCE else None
            if lb == RESOURCE:
                continue  # every node is a Resource
            conds.append(f"EXISTS {{ {node.text} {emit.term(RDF_TYPE)} {emit.term(cls)} }}" if cls else "false")
        return "(" + " && ".join(conds) + ")" if conds else "true"

    def literal(self, value: object) -> Literal:
        if not isinstance(value, str | int | float | bool):
            raise Unsupported(f"a {type(value).__name__} value (only strings, numbers and booleans are translated)")
        try:
            return self.mapping.to_literal(value)
        except InvalidInput as e:
            raise InvalidQuery(str(e)) from e

    # -- names ---------------------------------------------------------------------------------------------------

    def fresh(self, hint: str) -> str:
        """A new SPARQL variable named after ``hint`` (internal ones start with ``_``, user names never do)."""
        base = re.sub(r"[^A-Za-z0-9_]", "_", hint.lstrip("_")) or "v"
        base = ("_" if hint.startswith("_") else "") + (base if base[0].isalpha() else "v" + base)
        name, i = base, 1
        while name in self.used:
            i += 1
            name = f"{base}_{i}"
        self.used.add(name)
        return "?" + name

    def internal(self, hint: str) -> str:
        return self.fresh("_" + hint)

    def guard_single(self, iri: NamedNode) -> None:
        p = emit.term(iri)
        ask = f"ASK {{ ?s {p} ?a, ?b . FILTER(isLiteral(?a) && isLiteral(?b) && !sameTerm(?a, ?b)) }}"
        self.guards[ask] = None

    def guard_numeric(self, op: Operand) -> None:
        for b in self.scope.values():
            for key, var in b.props.items():
                if var != op.text or key == URI:
                    continue
                iri = self.mapping.iri(key)
                if iri is not None:  # else always null: nothing to check
                    p = emit.term(iri)
                    self.guards[f"ASK {{ ?s {p} ?a . FILTER(isLiteral(?a) && !{emit.num('?a')}) }}"] = None
                return
        raise Unsupported("sum/avg/min/max of something other than a node property (its values must be numbers)")

    # -- MATCH ---------------------------------------------------------------------------------------------------

    def match(self, clause: ast.Match) -> None:
        if clause.hints or clause.search:
            raise Unsupported("MATCH hints and SEARCH")
        target = Group()
        edges: list[list[Edge]] = []  # per relationship pattern
        new: list[str] = []
        rels: list[str] = []
        pending: list[tuple[str, str, str, ast.AstNode]] = []  # (node var, node name, key, value) of {key: value}
        optional = bool(clause.optional)
        for path in clause.pattern.paths:
            if path.variable is not None:
                raise Unsupported("path variables (p = ...)")
            elements = path.elements
            if any(not isinstance(x, ast.NodePattern | ast.RelationshipPattern) for x in elements):
                raise Unsupported("shortestPath and quantified path patterns")
            nodes = [self.node(n, target, new, pending, optional, alone=len(elements) == 1) for n in elements[0::2]]
            for i, rel in enumerate(elements[1::2]):
                if rel.variable is not None:
                    rels.append(rel.variable.this)
                edges.append(self.relationship(rel, nodes[i], nodes[i + 1], target))
        if len(edges) > 1 and any(e.marker == "unbounded" for r in edges for e in r):
            raise Unsupported("an unbounded variable-length relationship beside other relationships of one MATCH")
        for i, r1 in enumerate(edges):
            for r2 in edges[i + 1 :]:
                for e1 in r1:
                    for e2 in r2:
                        cond = _different(e1, e2)
                        if cond is not None:
                            target.items.append(Filter(cond))
        for name in new:
            self.lookups(self.scope[name], name, target)
        for var, name, key, value in pending:
            self.property_equals(var, name, key, value, target)
        for name in rels:
            if name in self.scope:
                raise Unsupported(f"relationship variable {name!r} bound twice")
            self.scope[name] = Binding("", "rel")
        if clause.where is not None:
            target.items.append(Filter(self.expr.condition(clause.where.this)))
        if optional:
            for name in new:
                self.scope[name].nullable = True
            self.group.items.append(Optional(target))
        else:
            self.group.items += target.items

    def node(
        self,
        np: ast.NodePattern,
        target: Group,
        new: list[str],
        pending: list[tuple[str, str, str, ast.AstNode]],
        optional: bool,
        alone: bool,
    ) -> str:
        if np.where is not None:
            raise Unsupported("WHERE inside a node pattern")
        name = np.variable.this if np.variable is not None else None
        labels: list[str] = []
        if np.labels is not None:
            if np.labels.expression:
                raise Unsupported(f"label expression {np.labels.expression!r}")
            labels = list(np.labels.labels)
        entries: list[tuple[str, ast.AstNode]] = list(np.properties.entries) if np.properties is not None else []
        b = self.scope.get(name) if name is not None else None
        if b is not None and b.kind != "node":
            raise InvalidQuery(f"variable {name!r} is not a node")
        fresh = b is None
        if b is not None:
            var = b.var
            if b.nullable:
                var = self.internal(name or "n")
                target.items.append(Filter(f"sameTerm({b.var}, {var})"))
                if not optional:
                    b.nullable = False
        else:
            if name is None:
                name = self.internal("anon")[1:]
                self.accessed.setdefault(name, set()).update(k for k, _ in entries if k != URI)
            var = self.fresh(name)
            b = Binding(var, "node")
            self.scope[name] = b
            new.append(name)
        assert name is not None  # an anonymous node got an internal name
        typed = [lb for lb in labels if lb != RESOURCE]
        by_uri = False
        for key, value in entries:
            if key == URI:
                by_uri = True
                target.items.insert(0, self._uri_values(var, value))
            else:
                pending.append((var, name, key, value))
        if fresh and alone and not typed:
            target.items.append(_any_node(var, self, exists=by_uri))
        for lb in typed:
            cls = self.mapping.iri(lb)
            target.items.append(Triple(var, emit.term(RDF_TYPE), emit.term(cls)) if cls else Filter("false"))
        return var

    def _uri_values(self, var: str, value: ast.AstNode) -> Element:
        op = self.expr.operand(value)
        if op.const is None:
            raise Unsupported("{uri: ...} with a value other than a constant or a parameter")
        if not isinstance(self.mapping.to_value(op.const), str) or op.const.language is not None:
            return Filter("false")
        try:
            return Values(var, [emit.term(NamedNode(op.const.value))])
        except ValueError:
            return Filter("false")

    def property_equals(self, var: str, name: str, key: str, value: ast.AstNode, target: Group) -> None:
        """``{key: value}`` in a node pattern: Cypher ``n.key = value``."""
        prop = self.property(name, key)
        op = self.expr.operand(value)
        target.items.append(Filter(equals(Operand(prop), op)))
        iri = self.mapping.iri(key)
        if op.const is not None and iri is not None:
            v = self.mapping.to_value(op.const)
            if isinstance(v, str | bool):  # same single value <=> same term (numbers compare by value)
                target.items.append(Triple(var, emit.term(iri), op.text))

    def lookups(self, b: Binding, name: str, target: Group) -> None:
        """Bind each accessed property of new node ``name`` once, after the patterns that bind the node."""
        for key in sorted(self.accessed.get(name, ())):
            if key in b.props:
                continue
            if key == BNODE:
                raise Unsupported("the bnode property (blank node identifiers are not stable across stores)")
            if key in self.list_keys:
                raise Unsupported(
                    f"property {key!r}: a list on :{self.list_keys[key]} nodes (the shapes give it no sh:maxCount 1)"
                )
            var = self.internal(f"{name}_{key}" if _VAR.match(f"{name}_{key}") else "p")
            b.props[key] = var
            if key == URI:
                target.items.append(Bind(f"IF(isIRI({b.var}), STR({b.var}), {NULL})", var))
                continue
            iri = self.mapping.iri(key)
            if iri is None:
                continue  # a key the mapped data does not have: always null
            self.guard_single(iri)
            target.items.append(Optional(Group([Triple(b.var, emit.term(iri), var), Filter(f"isLiteral({var})")])))

    def relationship(self, rp: ast.RelationshipPattern, a: str, b: str, target: Group) -> list[Edge]:
        if rp.properties is not None:
            raise Unsupported("relationship property maps (RDF statements have no properties)")
        if rp.where is not None or rp.memgraph_quantifier or rp.memgraph_weight_expr:
            raise Unsupported("WHERE or weights inside a relationship pattern")
        if rp.variable is not None and rp.variable_length:
            raise Unsupported("a variable on a variable-length relationship (a list of relationships)")
        iris = [self.mapping.iri(t) for t in rp.types or []]
        known = [i for i in iris if i is not None]
        low = 1 if rp.min_hops is None else int(rp.min_hops)
        if rp.types and not known:  # no such relationships: only a path of length 0 can match
            if rp.variable_length and low == 0:
                target.items.append(Group([_any_node(a, self), Bind(a, b)]))
            else:
                target.items.append(Filter("false"))
            return []
        types = known if rp.types else None
        if not rp.variable_length:
            return [self.step(a, b, rp.direction, types, target)]
        if rp.max_hops is None:
            return self.unbounded(rp, low, a, b, types, target)
        high = int(rp.max_hops)
        if high > MAX_HOPS or low > high or low < 0:
            raise Unsupported(f"variable-length bounds *{low}..{high} (translated: 0 <= m <= n <= {MAX_HOPS})")
        branches: list[Group] = []
        edges: list[Edge] = []
        for k in range(low, high + 1):
            marker = self.internal("branch")
            g = Group([Bind("true", marker)])
            if k == 0:
                g.items += [_any_node(a, self), Bind(a, b)]
            else:
                chain = [a] + [self.internal("hop") for _ in range(k - 1)] + [b]
                steps = [self.step(chain[i], chain[i + 1], rp.direction, types, g) for i in range(k)]
                for i, e1 in enumerate(steps):
                    for e2 in steps[i + 1 :]:
                        cond = _different(e1, e2)
                        if cond is not None:
                            g.items.append(Filter(cond))
                edges += [Edge(e.s, e.p, e.o, marker) for e in steps]
            branches.append(g)
        target.items.append(branches[0] if len(branches) == 1 else Union(branches))
        return edges

    def unbounded(
        self, rp: ast.RelationshipPattern, low: int, a: str, b: str, types: list[NamedNode] | None, target: Group
    ) -> list[Edge]:
        """``*`` / ``*1..`` / ``*0..`` as a SPARQL property path ``(<p>|...)+``: exact only where the answer is a
        set (a directed walk of one or more steps exists exactly when such a trail does) and no other relationship
        of the MATCH must differ from the path's."""
        why = None
        if not self.set_semantics:
            why = "outside RETURN DISTINCT without WITH or aggregates (a property path loses path multiplicities)"
        elif low > 1:
            why = f"with a lower bound {low} > 1 (a walk may reuse a relationship where a trail may not)"
        elif rp.direction == ast.Direction.BOTH:
            why = "undirected (a walk may go back over the relationship it came by)"
        elif types is None or RDF_TYPE in types:
            why = "without a relationship type, or of type rdf:type (name the types)"
        if why is not None:
            raise Unsupported(f"unbounded variable-length relationship {why}; give an upper bound *m..n")
        assert types is not None
        alternatives = "|".join(emit.term(t) for t in types)
        path = f"({alternatives})+"
        s, o = (a, b) if rp.direction == ast.Direction.OUTGOING else (b, a)
        more = Group([Triple(s, path, o), Filter(f"!isLiteral({o})")])
        if low == 0:
            target.items.append(Union([Group([_any_node(a, self), Bind(a, b)]), more]))
        else:
            target.items += more.items
        return [Edge("?", "?", "?", marker="unbounded")]

    def step(self, a: str, b: str, direction: ast.Direction, types: list[NamedNode] | None, g: Group) -> Edge:
        """One relationship ``a -> b`` (or ``<-``, or either way) as RDF statements; its identity as an Edge."""
        if types is not None and len(types) == 1:
            p = emit.term(types[0])
            pre: list[Element] = []
        else:
            p = self.internal("p")
            pre = [Values(p, [emit.term(t) for t in types])] if types is not None else []
        maybe_type = types is None or RDF_TYPE in types

        def branch(s: str, o: str) -> list[Element]:
            cond = f"!isLiteral({o})"
            if maybe_type and p.startswith("?"):
                cond += f" && ({p} != {emit.term(RDF_TYPE)} || isBlank({o}))"
            elif maybe_type:
                cond += f" && isBlank({o})"
            return [*pre, Triple(s, p, o), Filter(cond)]

        if direction == ast.Direction.OUTGOING:
            g.items += branch(a, b)
            return Edge(a, p, b)
        if direction == ast.Direction.INCOMING:
            g.items += branch(b, a)
            return Edge(b, p, a)
        s, o = self.internal("s"), self.internal("o")
        forward = Group([*branch(a, b), Bind(a, s), Bind(b, o)])
        back = Group([*branch(b, a), Filter(f"!sameTerm({a}, {b})"), Bind(b, s), Bind(a, o)])
        g.items.append(Union([forward, back]))
        return Edge(s, p, o)


def _any_node(var: str, planner: Planner, exists: bool = False) -> Element:
    """``var`` is any node: the subject of a statement, or the IRI or blank-node object of one that is not an
    ``rdf:type`` to an IRI (a class that is only a type has no node)."""
    p, o, s = planner.internal("p"), planner.internal("o"), planner.internal("s")
    t = emit.term(RDF_TYPE)
    either = Union(
        [
            Group([Triple(var, p, o)]),
            Group([Triple(s, p, var), Filter(f"!isLiteral({var}) && ({p} != {t} || isBlank({var}))")]),
        ]
    )
    if exists:  # var is bound already (by VALUES): check it rather than list every node
        s_, p_, o_ = (x[1:] for x in (s, p, o))
        return Filter(
            f"EXISTS {{ {{ {var} ?{p_} ?{o_} }} UNION {{ ?{s_} ?{p_} {var} "
            f"FILTER(!isLiteral({var}) && (?{p_} != {t} || isBlank({var}))) }} }}"
        )
    return Select([(var, var)], Group([either]), distinct=True)


def _different(e1: Edge, e2: Edge) -> str | None:
    """The condition that two relationships are different statements (None: they always are)."""
    parts: list[str] = []
    for x, y in ((e1.s, e2.s), (e1.p, e2.p), (e1.o, e2.o)):
        if not x.startswith("?") and not y.startswith("?"):
            if x != y:
                return None
            continue
        parts.append(f"sameTerm({x}, {y})")
    cond = f"!({' && '.join(parts)})" if parts else "false"
    unbound = [f"!BOUND({e.marker})" for e in (e1, e2) if e.marker is not None]
    return " || ".join([*unbound, cond]) if unbound else cond
