"""Graph patterns (SPARQL 1.1 §18.2) as a pipeline of Cypher clauses over the mapped property graph.

Each algebra node appends clauses that extend the current rows (the *row scope*: the SPARQL variables bound so
far, each a Cypher variable ``v_<name>``) and returns the variables it binds itself (its *own scope*, which is
what its filters see: SPARQL evaluates patterns bottom-up, so a FILTER never sees a variable bound outside its
group). Joins reuse Cypher variables; a sub-pattern that must be evaluated apart (OPTIONAL, UNION, MINUS, EXISTS,
sub-SELECT, ``p+``) runs in a ``CALL { WITH <imports> ... }`` subquery that imports only the variables it shares.

Refusal rules (each because Cypher's answer could differ):

* A join on a variable that may be unbound on either side (after OPTIONAL, UNION, BIND, VALUES UNDEF): SPARQL's
  compatible-mapping join lets an unbound variable match anything, Cypher's ``null`` matches nothing.
* A variable that is a node in one place and a literal in another; a variable predicate or class without the
  mapping's ``NameTable``; a term of run-time kind (``Sort.TERM``) where IRIs and literals behave differently and
  the translation cannot tell them apart (``functions._SENSITIVE``), or shared as a node with another group.
* An OPTIONAL sharing a variable with the patterns outside its group but not with its own left side (SPARQL
  evaluates the group first).
* Property paths over predicates with literal objects or absent from the mapped data; ``p*``/``p?`` with a
  constant end or with both ends unbound (their zero-length matches reach terms that are not nodes); nested
  paths other than sequences of (alternatives of) links.
* Aggregates over a group joined with other rows, ``AVG``, ``COUNT(DISTINCT *)``; ``LIMIT`` inside a sub-SELECT
  that shares variables with its outer pattern (Cypher would limit per outer row); ``ORDER BY`` with ``DISTINCT``
  on an unprojected expression; ``BIND`` of an IRI; ``VALUES`` binding IRIs that no earlier pattern binds.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from rdflib import Literal, URIRef, Variable

from hybridkg.bridge.base import Mapping, Value
from hybridkg.bridge.sparql_to_cypher import emit
from hybridkg.bridge.sparql_to_cypher.aggregates import aggregate
from hybridkg.bridge.sparql_to_cypher.bgp import bgp
from hybridkg.bridge.sparql_to_cypher.functions import Compiler, EKind, to_oxigraph
from hybridkg.bridge.sparql_to_cypher.modifiers import solution
from hybridkg.bridge.sparql_to_cypher.query import IRI_TAG, LITERAL_TAG, Sort
from hybridkg.bridge.sparql_to_cypher.scope import (
    Binding,
    Scope,
    binds,
    carried,
    cypher,
    expr_vars,
    merge,
    require_certain,
    sorts,
)
from hybridkg.errors import Unsupported


class Planner:
    """Translates the patterns of one query; ``params`` collects every value the statement needs."""

    def __init__(self, mapping: Mapping, *, integers_as_written: bool = True) -> None:
        self.mapping = mapping
        self.integers_as_written = integers_as_written
        self.params = emit.Params()
        self._ids = itertools.count()
        self.aliases: dict[str, str] = {}  # an aggregate's variable -> the imported group key it samples
        self.counted: list[list[str]] = []  # the bodies of the aggregating subqueries being written, innermost last

    def fresh(self, stem: str) -> str:
        return f"_{stem}{next(self._ids)}"

    def compiler(self, scope: Scope, out: list[str], temps: list[str]) -> Compiler:
        def exists(graph: Any) -> str:
            return self.exists(graph, scope, out, temps)

        return Compiler(self.mapping, self.params, sorts(scope), exists, self.fresh)

    # ------------------------------------------------------------------------------------------ dispatch

    def pattern(self, node: Any, row: Scope, out: list[str]) -> Scope:
        """Append the clauses of ``node`` joined with the rows of ``row``; return the variables it binds."""
        name = node.name
        if name == "BGP":
            return bgp(self, node.triples, row, out)
        if name == "Join":
            return self.join(node, row, out)
        if name == "Filter":
            own = self.pattern(node.p, row, out)
            temps: list[str] = []
            comp = self.compiler(own, out, temps)
            cond = comp.condition(node.expr)
            comp.flush(out, cond)
            out.append(emit.with_clause(carried(merge(row, own)), temps, where=cond))
            return own
        if name == "LeftJoin":
            return self.left_join(node, row, out)
        if name == "Union":
            return self.union(node, row, out)
        if name == "Minus":
            return self.minus(node, row, out)
        if name == "Extend":
            return self.extend(node, row, out)
        if name == "ToMultiSet":
            return self.pattern(node.p, row, out)
        if name == "values":
            return self.values(node, row, out)
        if name == "AggregateJoin":
            return aggregate(self, node, row, out)
        if name in ("Project", "Distinct", "Reduced", "Slice", "OrderBy"):
            return self.subquery(node, row, out)
        raise Unsupported(f"the SPARQL algebra operator {name}")

    # ------------------------------------------------------------------------------------------ operators

    def join(self, node: Any, row: Scope, out: list[str]) -> Scope:
        p1, p2 = node.p1, node.p2
        if _is_values(p1) and not _is_values(p2):
            p1, p2 = p2, p1  # a join is commutative; VALUES after the pattern binding its IRIs
        own1 = self.pattern(p1, row, out)
        row1 = merge(row, own1)
        own2 = self.pattern(p2, row1, out)
        shared = own2.keys() & row1.keys()
        require_certain(shared, own2, row1, what="a join")
        return merge(own1, own2)

    def call(self, imports: list[str], body: list[str], returns: str) -> str:
        head = f"WITH {', '.join(cypher(k) for k in imports)} " if imports else ""
        return "CALL { " + head + " ".join(body) + (" " if body else "") + returns + " }"

    def left_join(self, node: Any, row: Scope, out: list[str]) -> Scope:
        own1 = self.pattern(node.p1, row, out)
        outside = sorted((binds(node.p2) & row.keys()) - own1.keys())
        if outside:
            # SPARQL evaluates the group holding the OPTIONAL first, where ?x is unbound, and joins after; run in
            # line, the OPTIONAL would see the outer ?x
            raise Unsupported(f"OPTIONAL sharing ?{outside[0]} with patterns outside its group but not with its own")
        row1 = merge(row, own1)
        expr = None if getattr(node.expr, "name", "") == "TrueFilter" else node.expr
        imports = sorted(
            (binds(node.p2) & row1.keys()) | ((expr_vars(expr) if expr is not None else set()) & own1.keys())
        )
        require_certain(imports, row1, what="OPTIONAL")
        inner_row = {k: row1[k] for k in imports}
        body: list[str] = []
        own2 = self.counted_pattern(node.p2, inner_row, body)
        require_certain(own2.keys() & inner_row.keys(), own2, what="OPTIONAL")
        if expr is not None:
            scope = merge({k: own1[k] for k in imports if k in own1}, own2)
            temps: list[str] = []
            comp = self.compiler(scope, body, temps)
            cond = comp.condition(expr)
            comp.flush(body, cond)
            body.append(emit.with_clause(carried(merge(inner_row, own2)), temps, where=cond))
        new = sorted(own2.keys() - inner_row.keys())
        rows, one = self.fresh("o"), self.fresh("r")
        out.append(self.call(imports, body, f"RETURN collect([{', '.join(cypher(k) for k in new)}]) AS {rows}"))
        out.append(f"UNWIND CASE WHEN size({rows}) = 0 THEN [null] ELSE {rows} END AS {one}")
        out.append(emit.with_clause(carried(row1), [f"{one}[{i}] AS {cypher(k)}" for i, k in enumerate(new)]))
        return merge(own1, {k: Binding(own2[k].sort, False) for k in new})

    def counted_pattern(self, node: Any, row: Scope, body: list[str]) -> Scope:
        """:meth:`pattern` as the body of a subquery that aggregates (OPTIONAL, MINUS, EXISTS)."""
        self.counted.append(body)
        try:
            return self.pattern(node, row, body)
        finally:
            self.counted.pop()

    def union(self, node: Any, row: Scope, out: list[str]) -> Scope:
        if self.counted and (out is not self.counted[-1] or out):
            # FalkorDB 4.x: a UNION subquery reached by no row inside an aggregating subquery makes the aggregate
            # null for later rows, or stops the server
            raise Unsupported("UNION after other patterns inside OPTIONAL, MINUS or EXISTS")
        branches = list(_union_branches(node))
        imports = sorted(set().union(*(binds(b) for b in branches)) & row.keys())
        require_certain(imports, row, what="UNION")
        inner_row = {k: row[k] for k in imports}
        owns, bodies = [], []
        for b in branches:
            body: list[str] = []
            own = self.pattern(b, inner_row, body)
            require_certain(own.keys() & inner_row.keys(), own, what="UNION")
            owns.append({k: v for k, v in own.items() if k not in inner_row})
            bodies.append(body)
        new = sorted(set().union(*(o.keys() for o in owns)))
        result: Scope = {}
        for k in new:
            kinds = {o[k].sort for o in owns if k in o}
            if len(kinds) > 1:
                raise Unsupported(f"?{k} is a node in one UNION branch and a literal in another")
            result[k] = Binding(kinds.pop(), all(k in o and o[k].certain for o in owns))
        parts, unit = [], self.fresh("u")
        for own, body in zip(owns, bodies, strict=True):
            items = [cypher(k) if k in own else f"null AS {cypher(k)}" for k in new] or [f"true AS {unit}"]
            head = f"WITH {', '.join(cypher(k) for k in imports)} " if imports else ""
            parts.append(head + " ".join([*body, "RETURN " + ", ".join(items)]))
        out.append("CALL { " + " UNION ALL ".join(parts) + " }")
        return result

    def minus(self, node: Any, row: Scope, out: list[str]) -> Scope:
        own1 = self.pattern(node.p1, row, out)
        shared = sorted(binds(node.p2) & own1.keys())
        if not shared:
            return own1  # no shared variable: MINUS removes nothing (SPARQL 1.1 §18.5)
        require_certain(shared, own1, what="MINUS")
        body: list[str] = []
        own2 = self.counted_pattern(node.p2, {k: own1[k] for k in shared}, body)
        require_certain(shared, own2, what="MINUS")
        count = self.fresh("m")
        out.append(self.call(shared, body, f"RETURN count(*) AS {count}"))
        out.append(emit.with_clause([*carried(merge(row, own1)), count], where=f"{count} = 0"))
        return own1

    def extend(self, node: Any, row: Scope, out: list[str]) -> Scope:
        own = self.pattern(node.p, row, out)
        var = str(node.var)
        if isinstance(node.expr, Variable) and self.aliases.get(str(node.expr)) == var and var in row:
            return {**own, var: row[var]}  # a sub-SELECT's group key that its outer pattern binds
        if var in row or var in own:
            raise Unsupported(f"BIND of ?{var}, which the pattern around it binds too")
        if isinstance(node.expr, Variable) and str(node.expr) in own and own[str(node.expr)].sort is Sort.TERM:
            out.append(emit.with_clause(carried(merge(row, own)), [f"{cypher(str(node.expr))} AS {cypher(var)}"]))
            return {**own, var: own[str(node.expr)]}
        temps: list[str] = []
        comp = self.compiler(own, out, temps)
        x = comp.compile(node.expr)
        if x.kind is EKind.IRI:
            raise Unsupported("BIND of an IRI (the property graph has no node for an arbitrary IRI)")
        comp.flush(out, x.text)
        certain = isinstance(node.expr, Variable) and str(node.expr) in own and own[str(node.expr)].certain
        out.append(emit.with_clause(carried(merge(row, own)), [*temps, f"{x.text} AS {cypher(var)}"]))
        sort = Sort.NODE if x.kind is EKind.NODE else Sort.VALUE
        return {**own, var: Binding(sort, certain)}

    def values(self, node: Any, row: Scope, out: list[str]) -> Scope:
        names = sorted({str(v) for r in node.res for v in r})
        table: list[list[Any]] = []
        for r in node.res:
            terms = {str(k): v for k, v in r.items()}
            table.append([self.value_cell(terms.get(n)) for n in names])
        one = self.fresh("r")
        conds, new, own = [], [], {}
        for i, n in enumerate(names):
            col = [r[i] for r in table]
            is_iri = any(isinstance(dict((str(k), v) for k, v in r.items()).get(n), URIRef) for r in node.res)
            has_undef = any(c is None for c in col)
            cell = f"{one}[{i}]"
            if n in row and row[n].sort is Sort.TERM:
                # a term of unknown kind (a tagged list): the cells become tagged lists, compared by list equality
                if not row[n].certain:
                    raise Unsupported(f"VALUES joined on ?{n}, which may be unbound")
                for r, cells in zip(node.res, table, strict=True):
                    cells[i] = self.tagged_cell(dict((str(k), v) for k, v in r.items()).get(n), cells[i])
                conds.append(f"({cell} IS NULL OR {cypher(n)} = {cell})")
                own[n] = Binding(Sort.TERM, not has_undef)
            elif is_iri:
                if n not in row or row[n].sort is not Sort.NODE or not row[n].certain:
                    raise Unsupported(f"VALUES binding IRIs to ?{n}, which no earlier pattern binds to a node")
                conds.append(f"({cell} IS NULL OR {emit.uri_of(cypher(n))} = {cell})")
                own[n] = Binding(Sort.NODE, not has_undef)
            elif n in row:
                if row[n].sort is not Sort.VALUE or not row[n].certain:
                    raise Unsupported(f"VALUES joined on ?{n}, which is a node or may be unbound")
                conds.append(f"({cell} IS NULL OR {emit.same_term(cell, cypher(n))})")
                own[n] = Binding(Sort.VALUE, not has_undef)
            else:
                new.append(f"{cell} AS {cypher(n)}")
                own[n] = Binding(Sort.VALUE, not has_undef)
        out.append(f"UNWIND {self.params.add(table)} AS {one}")
        out.append(emit.with_clause([*carried(row), one], where=" AND ".join(conds) or None))
        out.append(emit.with_clause(carried(row), new))
        return own

    @staticmethod
    def tagged_cell(term: Any, cell: Any) -> list[Any] | None:
        """A VALUES cell as a term of unknown kind holds it (``query.Sort.TERM``)."""
        if cell is None:
            return None
        if isinstance(term, URIRef):
            return [IRI_TAG, cell]
        return [LITERAL_TAG, emit.type_name(cell), cell]

    def value_cell(self, term: Any) -> Any:
        if term is None or term == "UNDEF":
            return None
        if isinstance(term, URIRef):
            return str(term)
        if isinstance(term, Literal):
            return self.term_value(term)
        raise Unsupported(f"the VALUES term {term!r}")

    def term_value(self, lit: Literal) -> Value:
        """The property value a literal of the query matches as a term (in a triple pattern or VALUES)."""
        dt = str(lit.datatype) if lit.datatype else ""
        if dt in _REWRITTEN:
            raise Unsupported(f"a literal of <{dt}> matched as a term (rdflib's parser rewrites its lexical form)")
        if dt == _INTEGER and not self.integers_as_written:
            raise Unsupported("an integer literal matched as a term in a query with non-canonical numbers")
        return self.mapping.to_value(to_oxigraph(lit))

    def exists(self, graph: Any, scope: Scope, out: list[str], temps: list[str]) -> str:
        imports = sorted(binds(graph) & scope.keys())
        require_certain(imports, scope, what="EXISTS")
        body: list[str] = []
        self.counted_pattern(graph, {k: scope[k] for k in imports}, body)
        flag = self.fresh("x")
        out.append(self.call(imports, body, f"RETURN count(*) > 0 AS {flag}"))
        temps.append(flag)
        return flag

    def subquery(self, node: Any, row: Scope, out: list[str]) -> Scope:
        projected = {str(v) for v in _project(node).PV}
        imports = sorted(projected & row.keys())
        require_certain(imports, row, what="a sub-SELECT")
        body: list[str] = []
        sol = solution(self, node, {k: row[k] for k in imports}, body, correlated=bool(imports))
        require_certain(imports, sol.scope, what="a sub-SELECT")
        new = [c for c in sol.columns if c not in row]
        items = [cypher(k) if k in sol.scope else f"null AS {cypher(k)}" for k in new] or [f"true AS {self.fresh('u')}"]
        out.append(self.call(imports, body, sol.returns(items)))
        return {k: sol.scope.get(k, Binding(Sort.VALUE, False)) for k in sol.columns}


_XSD = "http://www.w3.org/2001/XMLSchema#"
_INTEGER = _XSD + "integer"
_REWRITTEN = {_XSD + "decimal", _XSD + "double", _XSD + "float"}


def _is_values(node: Any) -> bool:
    return node.name == "values" or (node.name == "ToMultiSet" and node.p.name == "values")


def _union_branches(node: Any) -> Iterator[Any]:
    for p in (node.p1, node.p2):
        if p.name == "Union":
            yield from _union_branches(p)
        else:
            yield p


def _project(node: Any) -> Any:
    while node.name in ("Slice", "Distinct", "Reduced"):
        node = node.p
    if node.name != "Project":
        raise Unsupported(f"a sub-query shaped {node.name}")
    return node
