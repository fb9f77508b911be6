"""GROUP BY and aggregates (SPARQL 1.1 §11, §18.5) as two ``WITH`` steps: the first groups (Cypher groups by the
non-aggregated items: the group keys) and collects, the second computes each aggregate from its collection.

* ``COUNT``: Cypher's ``count`` (``DISTINCT`` over ``[typeOf(x), x]`` for values, since ``1 = 1.0`` in Cypher).
* ``SUM``: ``reduce`` over the collected values (integers stay integers); a non-numeric native value makes it an
  error (unbound), an encoded one stops the statement.
* ``MIN``/``MAX``: over values of one native class (numbers, plain strings or booleans); a group mixing classes
  stops the statement (SPARQL orders across types, Cypher's ``<`` does not).
* ``SAMPLE``: the first collected value. ``GROUP_CONCAT``: plain strings joined in collection order (the order is
  unspecified in SPARQL too); anything else makes it an error.
* ``AVG`` is refused: the mean of integers is an xsd:decimal, which the property graph has no type for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rdflib import Variable

from hybridkg.bridge.sparql_to_cypher import emit
from hybridkg.bridge.sparql_to_cypher.functions import VALUES, EKind
from hybridkg.bridge.sparql_to_cypher.query import Sort
from hybridkg.bridge.sparql_to_cypher.scope import Binding, Scope, cypher, expr_vars
from hybridkg.errors import Unsupported

if TYPE_CHECKING:
    from hybridkg.bridge.sparql_to_cypher.plan import Planner


def aggregate(planner: Planner, node: Any, row: Scope, out: list[str]) -> Scope:
    """Append the grouping of ``node`` (an AggregateJoin); ``row`` holds what a sub-SELECT imports, which must be
    group keys (grouping the rows of one key value is then grouping all rows and keeping that key's group)."""
    group = node.p
    if group.name != "Group":
        raise Unsupported(f"aggregation over {group.name}")
    own = planner.pattern(group.p, row, out)
    keys: list[str] = []
    for k in group.expr or []:
        if not isinstance(k, Variable):
            raise Unsupported("GROUP BY an expression")
        if str(k) not in own:
            raise Unsupported(f"GROUP BY ?{k}, which the pattern does not bind")
        keys.append(str(k))
    if not row.keys() <= set(keys):
        raise Unsupported("aggregation in a group joined with other patterns on variables it does not group by")
    temps: list[str] = []
    comp = planner.compiler(own, out, temps)
    # a value key is grouped with its type: Cypher groups 1 with 1.0, SPARQL does not
    first: list[str] = [cypher(k) for k in keys]
    first += [f"typeOf({cypher(k)}) AS {planner.fresh('g')}" for k in keys if own[k].sort is Sort.VALUE]
    second: list[str] = []
    checks: list[str] = []
    result: Scope = {}
    for agg in node.A:
        res, name = str(agg.res), agg.name
        target = cypher(res)
        distinct = agg.get("distinct") == "DISTINCT"
        tmp = planner.fresh("a")
        if name == "Aggregate_Count" and agg.vars == "*":
            if distinct:
                raise Unsupported("COUNT(DISTINCT *)")
            first.append(f"count(*) AS {tmp}")
            second.append(f"{tmp} AS {target}")
            result[res] = Binding(Sort.VALUE, True)
            continue
        if name == "Aggregate_Sample" and isinstance(agg.vars, Variable) and str(agg.vars) in keys:
            key = str(agg.vars)
            second.append(f"{cypher(key)} AS {target}")
            if key in row:
                planner.aliases[res] = key
            result[res] = Binding(own[key].sort, own[key].certain)
            continue
        if name == "Aggregate_Count" and isinstance(agg.vars, Variable) and _is_term(own, agg.vars):
            # a tagged term: null when unbound, and its tags keep distinct terms distinct (1 and 1.0 too)
            first.append(f"count({'DISTINCT ' if distinct else ''}{cypher(str(agg.vars))}) AS {tmp}")
            second.append(f"{tmp} AS {target}")
            result[res] = Binding(Sort.VALUE, True)
            continue
        if name != "Aggregate_Count" and any(_is_term(own, Variable(v)) for v in expr_vars(agg.vars)):
            # SPARQL's aggregate errs on an IRI or blank node, where Cypher's collect() would drop the null
            raise Unsupported(f"{name[10:].upper()} over a variable that may be an IRI, a blank node or a literal")
        x = comp.compile(agg.vars)
        if name == "Aggregate_Count":
            item = _distinct_item(x) if distinct else x.text
            first.append(f"count({'DISTINCT ' if distinct else ''}{item}) AS {tmp}")
            second.append(f"{tmp} AS {target}")
            result[res] = Binding(Sort.VALUE, True)
            continue
        if name == "Aggregate_Sample":
            first.append(f"head(collect({x.text})) AS {tmp}")
            second.append(f"{tmp} AS {target}")
            result[res] = Binding(Sort.NODE if x.kind is EKind.NODE else Sort.VALUE, False)
            continue
        if name == "Aggregate_Avg":
            raise Unsupported("AVG (the mean of integers is an xsd:decimal, which the property graph has no type for)")
        if x.kind not in VALUES:
            raise Unsupported(f"{name[10:].upper()} over IRIs or blank nodes")
        if distinct:
            first.append(f"collect(DISTINCT {_distinct_item(x)}) AS {tmp}")
            values = f"[_p IN {tmp} | _p[1]]"
        else:
            first.append(f"collect({x.text}) AS {tmp}")
            values = tmp
        guard = planner.fresh("c")  # its own step: nested in the aggregate's, FalkorDB's parse time doubles a level
        check = emit.refuse_if(f"any(_v IN {values} WHERE {comp.foreign('_v')})")
        checks.append(f"UNWIND [{check}] AS {guard}")
        second.append(f"CASE WHEN {guard} THEN {_compute(planner, name, agg, values)} END AS {target}")
        result[res] = Binding(Sort.VALUE, False)
    if temps:
        raise Unsupported("EXISTS in an aggregate")
    comp.flush(out, *first)
    out.append(emit.with_clause(first))
    out.extend(checks)
    out.append(emit.with_clause([*(cypher(k) for k in sorted(row)), *second]))
    return result


def _is_term(scope: Scope, v: Variable) -> bool:
    return str(v) in scope and scope[str(v)].sort is Sort.TERM


def _distinct_item(x: Any) -> str:
    if x.kind is EKind.NODE:
        return x.text
    return f"CASE WHEN {x.text} IS NULL THEN null ELSE [typeOf({x.text}), {x.text}] END"


_NUM = "['Integer', 'Float']"


def _compute(planner: Planner, name: str, agg: Any, values: str) -> str:
    if name == "Aggregate_Sum":
        numbers = f"[_n IN {values} WHERE typeOf(_n) IN {_NUM}]"
        total = f"reduce(_s = 0, _v IN {numbers} | _s + _v)"
        return f"CASE WHEN all(_v IN {values} WHERE typeOf(_v) IN {_NUM}) THEN {total} END"
    if name in ("Aggregate_Min", "Aggregate_Max"):
        op = "<" if name == "Aggregate_Min" else ">"
        one_class = (
            f"all(_v IN {values} WHERE typeOf(_v) IN {_NUM}) OR all(_v IN {values} WHERE typeOf(_v) = 'String') "
            f"OR all(_v IN {values} WHERE typeOf(_v) = 'Boolean')"
        )
        best = f"reduce(_m = head({values}), _v IN {values} | CASE WHEN _v {op} _m THEN _v ELSE _m END)"
        return f"CASE WHEN {emit.refuse_if(f'NOT ({one_class})')} THEN {best} END"
    if name == "Aggregate_GroupConcat":
        # rdflib's CompValue.get returns the key itself when absent; the default separator is one space. Values
        # are joined by their lexical forms (SPARQL's STR): exact for strings, integers and booleans (native only
        # in canonical form), not for doubles (Cypher writes 1.5, xsd:double 1.5E0), which stop the statement
        separator = agg["separator"] if "separator" in agg else " "  # noqa: SIM401 (CompValue.get differs)
        sep = planner.params.add(str(separator))
        joined = f"reduce(_s = toString(head({values})), _v IN {values}[1..] | _s + {sep} + toString(_v))"
        floats = emit.refuse_if(f"any(_v IN {values} WHERE typeOf(_v) = 'Float')")
        return f"CASE WHEN {floats} THEN CASE WHEN size({values}) = 0 THEN '' ELSE {joined} END END"
    raise Unsupported(f"the aggregate {name[10:].upper()}")
