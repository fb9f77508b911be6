"""Basic graph patterns and property paths (SPARQL 1.1 §18.2.1, §9) as ``MATCH`` clauses in the conventions of
:mod:`hybridkg.bridge.base`: ``rdf:type`` is a label, an IRI object a relationship, a literal object a value of
a node property (one value, or a list of them).

One ``MATCH`` per triple pattern (Cypher never binds one relationship twice within a ``MATCH``; a BGP may). A
property's values are unwound from its scalar-or-list (:func:`emit.values_of`) and a literal matches a value of
the same type (``1`` never matches ``1.0``: they are different RDF terms). Arbitrary-length paths keep SPARQL's
set semantics (§18.4: each reachable node once per start) with ``RETURN DISTINCT`` in a ``CALL`` subquery.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rdflib import RDF, Literal, URIRef, Variable
from rdflib.paths import AlternativePath, InvPath, MulPath, Path, SequencePath

from hybridkg.bridge.base import BNODE, RESOURCE, URI
from hybridkg.bridge.sparql_to_cypher import emit, query
from hybridkg.bridge.sparql_to_cypher.functions import NameTable
from hybridkg.bridge.sparql_to_cypher.query import Sort
from hybridkg.bridge.sparql_to_cypher.scope import (
    Binding,
    NoMatch,
    Scope,
    Temp,
    carried,
    cypher,
    key_of,
    require_certain,
)
from hybridkg.errors import Unsupported

if TYPE_CHECKING:
    from hybridkg.bridge.sparql_to_cypher.plan import Planner

_LENGTHS = {"+": "*1..", "*": "*0..", "?": "*0..1"}

#: Written after each run of ``MATCH`` clauses holding a relationship: FalkorDB fuses consecutive traversals through
#: a node nothing later reads (``(a)-[:p]->(m)``, ``(m)-[:q]->(x)``, ``m`` unused) into one reachability step
#: ``(a)->(x)``, which counts ``x`` once however many ``m`` lead to it, where SPARQL's join counts each; a projection
#: of every variable reads ``m``. One at the end of the run, not one per relationship (speed, task E): pinned
#: clause by clause, FalkorDB had to join in the written order (LUBM Q7 95 ms, Q8 300 ms, Q12 25 ms inside FalkorDB;
#: 1.0, 15 and 0.6 ms when it orders the run itself).
PIN = "WITH *"


def _plain_match(clause: str) -> bool:
    """A ``MATCH`` clause with nothing but its pattern, which FalkorDB plans together with the run it follows (a
    ``WHERE`` keeps its pin before it, as when every relationship was pinned: FalkorDB may evaluate a condition
    before an earlier ``UNWIND`` binds what it reads)."""
    return clause.startswith("MATCH ") and not any(k in clause for k in (" WHERE ", " UNWIND ", " CALL ", " WITH "))


def bgp(planner: Planner, triples: list[tuple[Any, Any, Any]], row: Scope, out: list[str]) -> Scope:
    """Append the ``MATCH`` clauses of ``triples`` joined with ``row``; return the variables they bind."""
    keys = {k for t in triples for x in t if (k := key_of(x))}
    require_certain(keys & row.keys(), row, what="a join")
    clauses: list[str] = []
    known: dict[str, Sort] = {}
    try:
        known = _sorts(planner, triples, row)
        done: set[str] = set(row)
        for s, p, o in triples:
            _triple(planner, s, p, o, known, done, clauses)
    except NoMatch:
        out.append(f"UNWIND [] AS {planner.fresh('e')}")
        out.append(emit.with_clause(carried(row), [f"null AS {cypher(k)}" for k in sorted(keys - row.keys())]))
        return {k: Binding(row[k].sort if k in row else known.get(k, Sort.VALUE), True) for k in keys}
    pending = False  # a relationship MATCH since the last projection
    for i, clause in enumerate(clauses):
        out.append(clause)
        pending |= clause.startswith("MATCH") and "]-" in clause
        following = clauses[i + 1] if i + 1 < len(clauses) else ""
        if pending and not _plain_match(following) and not following.startswith("WITH "):
            out.append(PIN)
            pending = False
    return {k: Binding(known.get(k, Sort.VALUE), True) for k in keys}


def _names(planner: Planner, p: URIRef) -> tuple[str | None, str | None]:
    from pyoxigraph import NamedNode

    iri = NamedNode(str(p))
    return planner.mapping.relationship_type(iri), planner.mapping.property_key(iri)


def _sorts(planner: Planner, triples: list[tuple[Any, Any, Any]], row: Scope) -> dict[str, Sort]:
    """What each variable of the pattern is (node or literal), from the positions it takes."""
    known = {k: b.sort for k, b in row.items()}

    def note(key: str | None, sort: Sort) -> bool:
        if key is None:
            return False
        if known.get(key, sort) is not sort:
            if Sort.TERM in (sort, known[key]):
                raise Unsupported(f"?{key} bound by a variable predicate and used elsewhere")
            raise NoMatch  # a node in one triple pattern, a literal in another: no term is both
        changed = key not in known
        known[key] = sort
        return changed

    changed = True
    while changed:
        changed = False
        for s, p, o in triples:
            if isinstance(p, Path) and _may_be_empty(p):
                for end in (s, o):
                    if isinstance(end, Literal) or known.get(key_of(end) or "") is Sort.VALUE:
                        raise Unsupported(f"{p} from or to a literal (its zero-length match is the literal itself)")
            changed |= note(key_of(s), Sort.NODE)
            if isinstance(p, Variable):
                continue  # ?p and ?o: what other patterns say, else any term (below)
            if isinstance(p, Path):
                changed |= note(key_of(o), Sort.NODE)
            elif isinstance(p, URIRef) and p != RDF.type:
                rt, pk = _names(planner, p)
                if rt is not None and pk is None:
                    changed |= note(key_of(o), Sort.NODE)
                elif pk is not None and rt is None:
                    changed |= note(key_of(o), Sort.VALUE)
    for _, p, o in triples:  # a variable predicate, its object, and the object of a predicate with IRI and literal
        # objects, known from nowhere else: any term
        k = key_of(o)
        if isinstance(p, Variable):
            known.setdefault(str(p), Sort.TERM)
        either = isinstance(p, Variable) or p == RDF.type or (isinstance(p, URIRef) and all(_names(planner, p)))
        if k is not None and k not in known and either:
            known[k] = Sort.TERM
    return known


def _may_be_empty(p: Any) -> bool:
    """Whether a path can match with length zero (then it relates any term, a literal too, to itself)."""
    if isinstance(p, MulPath):
        return p.mod != "+" or _may_be_empty(p.path)
    if isinstance(p, SequencePath):
        return all(_may_be_empty(a) for a in p.args)
    if isinstance(p, AlternativePath):
        return any(_may_be_empty(a) for a in p.args)
    if isinstance(p, InvPath):
        return _may_be_empty(p.arg)
    return False


def _node(planner: Planner, term: Any, done: set[str], clauses: list[str]) -> tuple[str, str]:
    """The Cypher variable of a subject or object node and its pattern (binding a constant IRI first)."""
    key = key_of(term)
    if key is not None:
        v = cypher(key)
        return v, f"({v})" if key in done else emit.node_pattern(v)
    if isinstance(term, URIRef):
        v = planner.fresh("n")
        clauses.append("MATCH " + emit.node_pattern(v, uri_param=planner.params.add(str(term))))
        return v, f"({v})"
    raise NoMatch  # a literal subject


def _triple(
    planner: Planner, s: Any, p: Any, o: Any, known: dict[str, Sort], done: set[str], clauses: list[str]
) -> None:
    if isinstance(p, Variable):
        _any_triple(planner, s, p, o, known, done, clauses)
        return
    if isinstance(p, Path):
        _path(planner, s, p, o, done, clauses)
        return
    sv, spat = _node(planner, s, done, clauses)
    if p == RDF.type:
        if key_of(o) is not None:
            _any_triple(planner, s, p, o, known, done, clauses)
            return
        if not isinstance(o, URIRef):
            raise Unsupported("a variable class (?s rdf:type ?c)") if not isinstance(o, Literal) else NoMatch
        from pyoxigraph import NamedNode

        label = planner.mapping.label(NamedNode(str(o)))
        if label is None:
            raise NoMatch
        clauses.append(f"MATCH {emit.node_pattern(sv, (label,))}")
        _mark(s, done)
        return
    rt, pk = _names(planner, p)
    okey = key_of(o)
    if okey is not None and known.get(okey) is Sort.TERM:
        if okey in done or rt is None or pk is None:
            raise Unsupported(f"?{okey}, which may be an IRI or a literal, in two triple patterns")
        _either(planner, sv, spat, rt, pk, okey, clauses)
        _mark(s, done)
        _mark(o, done)
        return
    node_object = isinstance(o, URIRef) or (okey is not None and known.get(okey) is Sort.NODE)
    if okey is not None and okey not in known:
        if rt is not None and pk is not None:
            raise Unsupported(f"<{p}> is both a relationship type and a property key: ?{okey} could be either")
        raise NoMatch
    if node_object:
        if rt is None:
            raise NoMatch
        ov, opat = _node(planner, o, done, clauses)
        clauses.append(f"MATCH {spat}-[:{emit.name(rt)}]->{opat}")
    else:
        if pk is None:
            raise NoMatch
        values = emit.values_of(sv, pk)
        if isinstance(o, Literal):
            value = planner.term_value(o)
            cond = (
                f"any(_x IN {values} WHERE _x = {planner.params.add(value)} AND typeOf(_x) = '{emit.type_name(value)}')"
            )
            clauses.append(f"MATCH {spat} WHERE {cond}")
        elif okey is None:
            raise NoMatch  # an IRI object of a literal-valued predicate
        elif okey in done:
            # a WITH, not MATCH ... WHERE: FalkorDB evaluated that WHERE before the UNWIND binding ?o when the
            # subject was bound already (?x :k ?v ; :m ?v answered nothing)
            if spat != f"({sv})":
                clauses.append(f"MATCH {spat}")
            clauses.append(_where(planner, f"any(_x IN {values} WHERE {emit.same_term('_x', cypher(okey))})"))
        else:
            clauses.append(f"MATCH {spat} UNWIND {values} AS {cypher(okey)}")
    _mark(s, done)
    _mark(o, done)


def _node_tag(n: str) -> str:
    """A node as a :data:`Sort.TERM` value."""
    return (f"CASE WHEN {emit.uri_of(n)} IS NULL THEN ['{query.BNODE_TAG}', {emit.bnode_of(n)}] "
            f"ELSE ['{query.IRI_TAG}', {emit.uri_of(n)}] END")


def _either(planner: Planner, sv: str, spat: str, rt: str, pk: str, okey: str, clauses: list[str]) -> None:
    """``?s p ?o`` for a predicate with IRI and literal objects: its relationships and its values, ``?o`` a tagged
    term (:data:`Sort.TERM`)."""
    if spat != f"({sv})":
        clauses.append(f"MATCH {spat}")
    n, v = planner.fresh("n"), planner.fresh("v")
    ov = cypher(okey)
    rel = f"MATCH ({sv})-[:{emit.name(rt)}]->{emit.node_pattern(n)} RETURN {_node_tag(n)} AS {ov}"
    val = (f"UNWIND {emit.values_of(sv, pk)} AS {v} "
           f"RETURN ['{query.LITERAL_TAG}', typeOf({v}), {v}] AS {ov}")
    clauses.append(f"CALL {{ WITH {sv} {rel} UNION ALL WITH {sv} {val} }}")


def _any_triple(
    planner: Planner, s: Any, p: Any, o: Any, known: dict[str, Sort], done: set[str], clauses: list[str]
) -> None:
    """``?s ?p ?o``: the subject's relationships, property values and labels (``rdf:type``), as a ``UNION ALL`` of
    three branches. A new ``?p``/``?o`` is a tagged term (:data:`Sort.TERM`) unless other patterns make it a node
    (then a branch returns the predicate's or class's own node, which exists when it is a subject or object anywhere)
    or ``?o`` a literal; one bound before is checked against instead (node identity, same term, list equality);
    a branch that cannot give the object's kind is left out. With ``p`` = ``rdf:type`` (``?s a ?c``) the branches
    are the labels and ``rdf:type``'s own relationships and values."""
    if not isinstance(planner.mapping, NameTable):
        what = "a variable predicate (?s ?p ?o)" if isinstance(p, Variable) else "a variable class (?s rdf:type ?c)"
        raise Unsupported(f"{what}: the mapping does not list its names")
    pk, ok, sk = key_of(p), key_of(o), key_of(s)
    named = [k for k in (pk, ok, sk) if k is not None]
    if len(set(named)) < len(named):
        raise Unsupported("a variable predicate (?s ?p ?o) with a variable in two of its places")
    rdf_type_only = pk is None  # ?s rdf:type ?c
    type_rel, type_key = _names(planner, URIRef(str(RDF.type)))
    p_sort = known.get(pk, Sort.TERM) if pk is not None else Sort.TERM
    o_sort = known.get(ok, Sort.TERM) if ok is not None else Sort.TERM
    if p_sort is Sort.VALUE:
        raise NoMatch  # a predicate is an IRI, never a literal
    sv, spat = _node(planner, s, done, clauses)
    if spat != f"({sv})":
        clauses.append(f"MATCH {spat}")
    table = planner.params.add(planner.mapping.names())
    rdf_type = planner.params.add(str(RDF.type))
    pv = cypher(pk) if pk is not None else ""
    ov = cypher(ok) if ok is not None else planner.fresh("o")
    p_bound, o_bound = pk is not None and pk in done, ok is not None and ok in done
    imports = [sv, *([pv] if p_bound else []), *([ov] if o_bound else [])]
    unit = planner.fresh("u")
    r, n, k, v, lab = (planner.fresh(x) for x in ("r", "n", "k", "v", "c"))

    def by_iri(var: str, sort: Sort, bound: bool, expr: str) -> tuple[str, str | None]:
        """(clauses, returned item) for a term given by its IRI ``expr``."""
        if not var:
            return "", None  # the constant rdf:type
        tagged = f"['{query.IRI_TAG}', {expr}]"
        if bound and sort is Sort.NODE:
            return _where(planner, f"{emit.uri_of(var)} = {expr}") + " ", None
        if bound:
            return _where(planner, f"{var} = {tagged}") + " ", None
        if sort is Sort.NODE:
            node = planner.fresh("d")
            return f"MATCH {emit.node_pattern(node)} WHERE {emit.uri_of(node)} = {expr} ", f"{node} AS {var}"
        return "", f"{tagged} AS {var}"

    def branch(head: str, parts: list[tuple[str, str | None]]) -> str:
        items = [item for _, item in parts if item is not None]
        checks = "".join(c for c, _ in parts)
        return f"WITH {', '.join(imports)} {head} {checks}RETURN {', '.join(items or [f'true AS {unit}'])}"

    branches = []
    if o_sort is not Sort.VALUE:
        if o_bound:
            same = f"{n} = {ov}" if o_sort is Sort.NODE else f"{_node_tag(n)} = {ov}"
            o_part: tuple[str, str | None] = (_where(planner, same) + " ", None)
        else:
            o_part = ("", f"{n if o_sort is Sort.NODE else _node_tag(n)} AS {ov}")
        if not rdf_type_only or type_rel is not None:
            rel = f"[{r}:{emit.name(type_rel)}]" if rdf_type_only and type_rel else f"[{r}]"
            head = f"MATCH ({sv})-{rel}->{emit.node_pattern(n)}"
            branches.append(branch(head, [by_iri(pv, p_sort, p_bound, f"{table}[type({r})]"), o_part]))
        head = f"UNWIND [{lab} IN labels({sv}) WHERE {lab} <> '{RESOURCE}'] AS {lab}"
        parts = [by_iri(pv, p_sort, p_bound, rdf_type), by_iri(ov, o_sort, o_bound, f"{table}[{lab}]")]
        branches.append(branch(head, parts))
    if o_sort is not Sort.NODE and (not rdf_type_only or type_key is not None):
        value = f"{sv}[{k}]"
        tagged = f"['{query.LITERAL_TAG}', typeOf({v}), {v}]"
        if o_bound:
            same = emit.same_term(v, ov) if o_sort is Sort.VALUE else f"{tagged} = {ov}"
            o_part = (_where(planner, same) + " ", None)
        else:
            o_part = ("", f"{v if o_sort is Sort.VALUE else tagged} AS {ov}")
        keys = f"[{planner.params.add(type_key)}]" if rdf_type_only else f"keys({sv})"
        head = (f"UNWIND [{k} IN {keys} WHERE NOT {k} IN ['{URI}', '{BNODE}']] AS {k} "
                f"UNWIND CASE WHEN typeOf({value}) = 'List' THEN {value} ELSE [{value}] END AS {v}")
        branches.append(branch(head, [by_iri(pv, p_sort, p_bound, f"{table}[{k}]"), o_part]))
    clauses.append("CALL { " + " UNION ALL ".join(branches) + " }")
    if ok is None:
        if isinstance(o, URIRef):
            const: list[Any] = [query.IRI_TAG, str(o)]
        elif isinstance(o, Literal):
            val = planner.term_value(o)
            const = [query.LITERAL_TAG, emit.type_name(val), val]
        else:
            raise Unsupported(f"the object {o!r} of a variable predicate")
        clauses.append(_where(planner, f"{ov} = {planner.params.add(const)}"))
    _mark(s, done)
    _mark(p, done)
    _mark(o, done)


def _where(planner: Planner, condition: str) -> str:
    """Keep the rows where ``condition`` holds, without a ``WHERE``: FalkorDB moved a plain ``WITH ... WHERE`` on a
    property list before the ``UNWIND`` binding a variable it reads (so it never held); and cypherast, the read-only
    check's parser, rejects ``WITH *, x AS v``."""
    return f"UNWIND CASE WHEN {condition} THEN [true] ELSE [] END AS {planner.fresh('w')}"


def _mark(term: Any, done: set[str]) -> None:
    if (k := key_of(term)) is not None:
        done.add(k)


# ---------------------------------------------------------------------------------------------- paths


def _link(planner: Planner, p: Any) -> tuple[list[str], bool]:
    """The relationship types of a link, an inverse link or an alternative of them, and whether inverted."""
    if isinstance(p, URIRef):
        rt, pk = _names(planner, p)
        if pk is not None:
            raise Unsupported(f"a property path over <{p}>, which has literal objects")
        if rt is None:
            raise Unsupported(f"a property path over <{p}>, which is not in the mapped data")
        return [rt], False
    if isinstance(p, InvPath):
        types, inv = _link(planner, p.arg)
        return types, not inv
    if isinstance(p, AlternativePath):
        parts = [_link(planner, a) for a in p.args]
        if len({inv for _, inv in parts}) > 1:
            raise Unsupported("an alternative path mixing directions")
        return [t for types, _ in parts for t in types], parts[0][1]
    raise Unsupported(f"the property path {p}")


def _path(planner: Planner, s: Any, p: Path, o: Any, done: set[str], clauses: list[str]) -> None:
    steps = list(p.args) if isinstance(p, SequencePath) else [p]
    ends: list[Any] = [s, *(Temp(planner.fresh("m")[1:]) for _ in steps[1:]), o]
    for i, step in enumerate(steps):
        a, b = ends[i], ends[i + 1]
        if isinstance(step, MulPath):
            _repeat(planner, a, step, b, done, clauses)
        else:
            types, inv = _link(planner, step)
            av, apat = _node(planner, a, done, clauses)
            bv, bpat = _node(planner, b, done, clauses)
            # an alternative names its relationship and reads its type: else FalkorDB matches two relationships
            # between the same nodes once (``a p|q b`` is two solutions when both triples hold)
            r = planner.fresh("l") if len(types) > 1 else ""
            rel = f"[{r}:" + "|".join(emit.name(t) for t in types) + "]"
            clauses.append(f"MATCH {apat}<-{rel}-{bpat}" if inv else f"MATCH {apat}-{rel}->{bpat}")
            if r:
                clauses.append(f"UNWIND [type({r})] AS {planner.fresh('y')}")
        _mark(a, done)
        _mark(b, done)


def _repeat(planner: Planner, a: Any, step: MulPath, b: Any, done: set[str], clauses: list[str]) -> None:
    types, inv = _link(planner, step.path)
    length = _LENGTHS[step.mod]
    zero = step.mod != "+"
    if zero and (not key_of(a) or not key_of(b)):
        raise Unsupported(f"{step.mod} with a constant end (its zero-length match need not be a node)")
    ka, kb = key_of(a), key_of(b)
    a_bound = ka is None or ka in done
    b_bound = kb is None or kb in done
    if zero and not a_bound and not b_bound:
        raise Unsupported(f"{step.mod} with both ends unbound (its zero-length matches include literals)")
    rel = f"[:{'|'.join(emit.name(t) for t in types)}{length}]"
    if a_bound and b_bound:
        av, _ = _node(planner, a, done, clauses)
        bv, _ = _node(planner, b, done, clauses)
        link = f"({av})<-{rel}-({bv})" if inv else f"({av})-{rel}->({bv})"
        clauses.append(f"MATCH ({av}) WHERE {link}")
        return
    src, dst = planner.fresh("s"), planner.fresh("t")
    imports: list[str] = []
    if a_bound:
        av, _ = _node(planner, a, done, clauses)
        imports.append(av)
        head, returns = f"({av})", f"{dst} AS {cypher(kb)}" if kb else ""
    elif b_bound:
        bv, _ = _node(planner, b, done, clauses)
        imports.append(bv)
        head, returns = emit.node_pattern(src), f"{src} AS {cypher(ka)}" if ka else ""
    else:
        head = emit.node_pattern(src)
        returns = (
            f"{src} AS {cypher(ka or '')}" if ka == kb else f"{src} AS {cypher(ka or '')}, {dst} AS {cypher(kb or '')}"
        )
    tail = f"({imports[0]})" if b_bound and not a_bound else emit.node_pattern(dst)
    if ka == kb and not a_bound:
        tail = f"({src})"
    link = f"{head}<-{rel}-{tail}" if inv else f"{head}-{rel}->{tail}"
    with_ = f"WITH {', '.join(imports)} " if imports else ""
    clauses.append(f"CALL {{ {with_}MATCH {link} RETURN DISTINCT {returns} }}")
