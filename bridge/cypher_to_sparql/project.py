"""Plan, continued: ``WITH``, ``RETURN`` and ``UNWIND`` (projection, implicit grouping, ordering, paging).

Cypher groups by the non-aggregate items of a projection; so does the SPARQL (``GROUP BY`` those items' variables).
ORDER BY follows Cypher's order (openCypher 9 "Ordering": strings < booleans < numbers < null ascending, strings by
their value's encoding), not SPARQL's (unbound first, §15.1). A returned node is its IRI (or blank node).
"""

from __future__ import annotations

from cypherast import ast

from hybridkg.bridge.cypher_to_sparql import emit
from hybridkg.bridge.cypher_to_sparql.emit import Bind, Filter, Group, Select, Values
from hybridkg.bridge.cypher_to_sparql.expr import AGGREGATES, aggregate
from hybridkg.bridge.cypher_to_sparql.plan import Binding, Planner
from hybridkg.errors import InvalidQuery, Unsupported


def unwind(planner: Planner, clause: ast.Unwind) -> None:
    """``UNWIND list AS x``: a list literal of constants or a list parameter, as ``VALUES ?x { ... }``."""
    name = clause.alias.this
    if name in planner.scope:
        raise InvalidQuery(f"variable {name!r} is already defined")
    terms: list[str | None] = []
    for op in planner.expr.items(clause.expression):
        if op.const is None and op.text != emit.NULL:
            raise Unsupported("UNWIND of a list holding something other than constants and parameters")
        terms.append(op.text if op.const is not None else None)
    var = planner.fresh(name)
    planner.group.items.append(Values(var, terms))
    planner.scope[name] = Binding(var, "value", nullable=True)


def _is_aggregate(e: ast.AstNode) -> bool:
    return isinstance(e, ast.FunctionCall) and e.name.lower() in AGGREGATES


def _int(planner: Planner, e: ast.AstNode | None, what: str) -> int | None:
    if e is None:
        return None
    value = planner.parameter(e.this.name) if isinstance(e.this, ast.Parameter) else getattr(e.this, "this", None)
    if isinstance(e.this, ast.Integer | ast.Parameter) and isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            raise InvalidQuery(f"{what} must not be negative")
        return value
    raise Unsupported(f"{what} other than an integer constant or parameter")


def project(planner: Planner, clause: ast.With | ast.Return) -> tuple[Select, list[str], list[int]]:
    """The select a WITH or RETURN makes of the current group, the Cypher names of its columns and which of them
    hold ``collect()`` lists; for WITH the planner's scope becomes the projected names."""
    items = list(clause.expressions or [])
    if any(isinstance(x, ast.Star) for x in items):
        raise Unsupported(f"{'WITH' if isinstance(clause, ast.With) else 'RETURN'} * (name the items)")
    if clause.group_by:
        raise Unsupported("GROUP BY (GQL)")
    group = planner.group
    aggregating = any(_is_aggregate(x.this if isinstance(x, ast.Alias) else x) for x in items)
    projection: list[tuple[str, str]] = []
    names: list[str] = []
    new_scope: dict[str, Binding] = {}
    keys: list[str] = []
    by_expr: list[tuple[ast.AstNode, str]] = []
    values: list[tuple[int, str]] = []  # value items: (index in projection, name)
    lists: list[int] = []
    for item in items:
        expr, alias = (item.this, item.alias.this) if isinstance(item, ast.Alias) else (item, None)
        name = alias if alias is not None else expr.cypher()
        if alias is None and isinstance(clause, ast.With) and not isinstance(expr, ast.Identifier):
            raise InvalidQuery(f"WITH item {name} needs an alias (AS name)")
        if _is_aggregate(expr):
            text = aggregate(expr, planner.expr.operand, planner.guard_numeric, lambda e: _bind(planner, e))
            var = planner.fresh(name)
            projection.append((text, var))
            collected = expr.name.lower() == "collect"
            new_scope[name] = Binding(var, "list" if collected else "value", nullable=True)
            if collected:
                lists.append(len(names))
        elif isinstance(expr, ast.Identifier) and getattr(planner.scope.get(expr.this), "kind", None) == "list":
            src = planner.scope[expr.this].var
            var = src if alias in (None, expr.this) else planner.fresh(name)
            projection.append((src, var))
            keys.append(src)
            new_scope[name] = Binding(var, "list", nullable=True)
            lists.append(len(names))
        else:
            if any(_is_aggregate(x) for x in expr.walk()):
                raise Unsupported("an aggregate inside an expression")
            op = planner.expr.operand(expr)
            if op.text.startswith("?") and op.text[1:].replace("_", "a").isalnum():
                src = op.text
            else:
                src = planner.internal("x")
                group.items.append(Bind(op.text, src))
            keys.append(src)
            old = planner.scope.get(expr.this) if isinstance(expr, ast.Identifier) else None
            var = src if old is not None and alias in (None, expr.this) else planner.fresh(name)
            projection.append((src, var) if var != src else (src, src))
            if old is not None and old.kind == "node":
                binding = Binding(var, "node", old.nullable, dict(old.props))
                for prop in old.props.values() if isinstance(clause, ast.With) else ():
                    if all(v != prop for _, v in projection):
                        projection.append((prop, prop))
                        keys.append(prop)
                new_scope[name] = binding
            else:
                new_scope[name] = Binding(var, "value", nullable=True)
                values.append((len(projection) - 1, name))
        names.append(name)
        by_expr.append((expr, var))
    grouping = aggregating or (bool(clause.distinct) and bool(values))
    if grouping:
        _group_values(planner, projection, keys, values, new_scope, by_expr)
    extra: list[str] = []
    order = _order(planner, clause, new_scope, by_expr, aggregating or bool(clause.distinct), extra)
    keys += [k for k in extra if k not in keys]
    select = Select(
        projection,
        group,
        distinct=bool(clause.distinct) and not grouping,
        group_by=keys if grouping else [],
        order=order,
        offset=_int(planner, clause.skip, "SKIP"),
        limit=_int(planner, clause.limit, "LIMIT"),
    )
    if isinstance(clause, ast.With):
        planner.scope = new_scope
        planner.group = Group([select])
        _rebind(planner, new_scope)
        if clause.where is not None:
            planner.group = Group([Group([*planner.group.items, Filter(planner.expr.condition(clause.where.this))])])
    return select, names, lists


def _bind(planner: Planner, expression: str) -> str:
    var = planner.internal("a")
    planner.group.items.append(Bind(expression, var))
    return var


def _group_values(
    planner: Planner,
    projection: list[tuple[str, str]],
    keys: list[str],
    values: list[tuple[int, str]],
    scope: dict[str, Binding],
    by_expr: list[tuple[ast.AstNode, str]],
) -> None:
    """Group value items by Cypher equality (``1`` and ``1.0`` are one value), returning a sample of each group's
    values: DISTINCT becomes this grouping when it has value items."""
    key_of: dict[str, str] = {}
    for index, name in values:
        src, var = projection[index]
        if src not in key_of:
            key_of[src] = planner.internal("key")
            planner.group.items.append(Bind(emit.same_value(src), key_of[src]))
        if var == src:
            var = planner.fresh(name)
            scope[name].var = var
            by_expr[:] = [(e, var if v == src else v) for e, v in by_expr]
        projection[index] = (f"SAMPLE({src})", var)
    keys[:] = [key_of.get(k, k) for k in keys]


def _rebind(planner: Planner, scope: dict[str, Binding]) -> None:
    """Look up, after a WITH, the properties a node accessed under its new name needs."""
    for name, b in scope.items():
        missing = [k for k in planner.accessed.get(name, ()) if k not in b.props]
        if b.kind == "node" and missing and not b.nullable:
            planner.lookups(b, name, planner.group)


def _order(
    planner: Planner,
    clause: ast.With | ast.Return,
    scope: dict[str, Binding],
    by_expr: list[tuple[ast.AstNode, str]],
    projected_only: bool,
    extra: list[str],
) -> list[str]:
    """ORDER BY keys; ``extra`` receives the variables of projected nodes' properties ordered by (group keys)."""
    out: list[str] = []
    for ordered in clause.order.expressions if clause.order is not None else []:
        e = ordered.this
        var = None
        if isinstance(e, ast.Identifier) and e.this in scope:
            b = scope[e.this]
            if b.kind == "node":
                raise Unsupported("ORDER BY a node (Cypher orders nodes by internal id)")
            var = b.var
        for expr, v in by_expr:
            if var is None and expr == e:
                var = v
        owner = e.this if isinstance(e, ast.Property) and isinstance(e.this, ast.Identifier) else None
        if var is None and owner is not None and any(expr == owner for expr, _ in by_expr):
            var = planner.property(owner.this, e.name)  # a property of a projected node: one value per node
            extra.append(var)
        if var is None:
            if projected_only:
                raise Unsupported("ORDER BY an expression that is not projected, after DISTINCT or aggregation")
            op = planner.expr.operand(e)
            if op.node:
                raise Unsupported("ORDER BY a node (Cypher orders nodes by internal id)")
            var = op.text
            if not (var.startswith("?") and var[1:].replace("_", "a").isalnum()):
                var = planner.internal("k")
                planner.group.items.append(Bind(op.text, var))
        way = "DESC" if ordered.desc else "ASC"
        if ordered.nulls:
            raise Unsupported("NULLS FIRST/LAST")
        out += [f"{way}({emit.rank(var)})", f"{way}({emit.sort_value(var)})"]
    return out
