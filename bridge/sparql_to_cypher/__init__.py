"""SPARQL 1.1 -> Cypher over the property graph an RDF graph maps to (issue 11 §2; the mapping's conventions are
:mod:`hybridkg.bridge.base`'s).

``translate(query, mapping)`` gives a :class:`CypherQuery`: the statement, its parameters (every IRI and literal
of the query; only names, backtick-quoted, are spliced), the SPARQL variables it returns in projection order and
how to read each column back into SPARQL terms (:meth:`CypherQuery.terms`). Anything outside the translated
fragment raises :class:`hybridkg.errors.Unsupported` naming the construct; a query the translator cannot answer
exactly is refused, never approximated.

Pipeline (one stage per module, as oxigraph splits SPARQL into parse -> optimise -> evaluate):

* ``parse``: rdflib's parser and algebra (SPARQL 1.1 §18.2), cached (LRU, 512 queries).
* ``plan`` (with ``bgp``, ``aggregates``, ``modifiers``, ``scope``): the algebra as a pipeline of Cypher clauses.
  A SPARQL variable is a Cypher variable holding a ``:Resource`` node (an IRI or a blank node) or a property value
  (a literal); which one is decided statically per variable (``query.Sort``). Joins reuse variables; OPTIONAL,
  UNION, MINUS, EXISTS, sub-SELECTs and ``p+`` paths run in ``CALL { WITH <shared> ... }`` subqueries.
* ``functions`` (with ``expr``, ``casts``, ``regex``, ``literals``, ``encoded``): FILTER/BIND expressions with
  SPARQL's error semantics as Cypher's ``null``.
* ``emit``: Cypher fragments, parameters, names, and the FalkorDB dialect assumptions (in its docstring).

Design decisions and refusal rules (the reasons are in each module's docstring):

1. Three-valued logic: SPARQL errors are Cypher ``null``; ``AND``/``OR``/``NOT`` agree on them. Effective boolean
   values follow §17.2.2 for native values (IRIs and blank nodes: an error).
2. Unbound variables: a join, OPTIONAL, UNION, MINUS, EXISTS or sub-SELECT sharing a variable that may be unbound
   on either side is refused (SPARQL joins unbound with anything; Cypher's ``null`` with nothing).
3. Literal values: the mapping's native values (Integer = xsd:integer, Float = xsd:double, Boolean = xsd:boolean,
   String = xsd:string) are compared, ordered and inspected exactly (numbers with promotion; ``=`` across classes
   false, ``<`` an error; a triple pattern's literal matches only the same type). Other literals are stored
   encoded (``Mapping.to_value``); where the encoding can be read off the mapping (``literals``), decimals of at
   most 15 significant digits compare and order by value, language-tagged and opaque literals compare with ``=``
   and the string functions take them apart and build them (``encoded``). A translated statement that meets
   another encoded literal in an expression, an ordering key or an aggregate stops with FalkorDB's "Division by
   zero" (``emit.RUNTIME_REFUSAL``), which callers report as Unsupported. Which strings are plain is the
   mapping's to say (the optional :class:`PlainStrings`); without it every string counts as encoded.
4. Term equality in patterns is sameTerm (``1`` never matches ``1.0``); ``=`` in FILTER is SPARQL's value equality.
   DISTINCT and GROUP BY carry each value's type beside it (Cypher's DISTINCT takes ``1`` and ``1.0`` for one).
   rdflib rewrites bare numbers (``007`` -> ``7``): decimals and doubles are never matched as terms, integers only
   when every bare integer of the query is canonical (``parse.integers_as_written``).
5. ORDER BY orders ranks (unbound < blank < IRI < number < string < boolean) then values, as Oxigraph does.
6. Bag semantics: ``UNION ALL``; relationship uniqueness avoided with one ``MATCH`` per triple; ``p+``, ``p*``,
   ``p?`` keep SPARQL's distinct-endpoint semantics.
7. Not translated (Unsupported): named graphs (GRAPH, FROM), SERVICE, AVG, division, date functions, hashes,
   most casts, string functions of non-ASCII or nested arguments, DESCRIBE; variable predicates and classes only
   where the mapping lists its names (``NameTable``): their terms, and the objects of predicates with IRI and
   literal objects, are of a kind known only at run time
   (``Sort.TERM``, tagged lists; ``bgp._any_triple``). See the module docstrings for each smaller rule.
8. Engine workarounds, each found by a random differential run against Oxigraph: WHERE conditions are projected
   first (FalkorDB folds a constant one away with a subquery's aggregate row); a UNION after other patterns inside
   OPTIONAL/MINUS/EXISTS is refused (FalkorDB nulls later rows' aggregates or crashes); ``FILTER(<falsy
   constant>)`` is refused (rdflib's algebra drops it); ``SELECT *`` projects the variables in scope (rdflib's list
   has MINUS's); FalkorDB's parse time doubles with each level an expression nests, so an operand nesting more than
   a few levels is bound in an ``UNWIND [x] AS v`` step first (``Compiler.shallow``: a 12-deep ``!(...)`` parses in
   milliseconds), and a statement nesting past ``emit.MAX_DEPTH`` levels, or over :data:`MAX_STATEMENT` characters,
   is refused.

Results: node columns hold the IRI, or ``_:`` and the blank node's key; value columns hold the property value
(``Mapping.to_literal``). ASK holds iff the statement returns a row. CONSTRUCT returns the template's variables
and :meth:`CypherQuery.triples` instantiates the template (deduplicate for the graph).
"""

from __future__ import annotations

from typing import Any

from rdflib import BNode, Literal, URIRef, Variable

from hybridkg.bridge.base import Mapping
from hybridkg.bridge.sparql_to_cypher import emit
from hybridkg.bridge.sparql_to_cypher.functions import PlainStrings, to_oxigraph
from hybridkg.bridge.sparql_to_cypher.modifiers import solution
from hybridkg.bridge.sparql_to_cypher.parse import parse
from hybridkg.bridge.sparql_to_cypher.plan import Planner
from hybridkg.bridge.sparql_to_cypher.query import CypherQuery, Kind, Sort, TemplateTerm, Term
from hybridkg.bridge.sparql_to_cypher.scope import cypher
from hybridkg.errors import Unsupported

__all__ = ["CypherQuery", "Kind", "PlainStrings", "RUNTIME_REFUSAL", "Sort", "TemplateTerm", "Term", "translate"]

RUNTIME_REFUSAL = emit.RUNTIME_REFUSAL

#: The longest statement returned: the run-time checks repeat an operand's text (a few levels at most, as deeper
#: operands are bound in WITH steps), and FalkorDB fails on statements far shorter than its limits.
MAX_STATEMENT = 20_000


def translate(query: str, mapping: Mapping) -> CypherQuery:
    """The Cypher for ``query`` (SELECT, ASK or CONSTRUCT) on the graph ``mapping`` describes."""
    c = _translate(query, mapping)
    if len(c.text) > MAX_STATEMENT:
        raise Unsupported(f"a query whose translation exceeds {MAX_STATEMENT} characters (deeply nested expressions)")
    if (depth := emit.depth(c.text)) > emit.MAX_DEPTH:
        raise Unsupported(
            f"an expression nested {depth} levels deep in the translation (FalkorDB's parse time doubles with each "
            f"level; at most {emit.MAX_DEPTH})"
        )
    return c


def _translate(query: str, mapping: Mapping) -> CypherQuery:
    parsed = parse(query)
    algebra = parsed.algebra
    if algebra.get("datasetClause"):
        raise Unsupported("FROM / FROM NAMED (the property graph has one default graph)")
    planner = Planner(mapping, integers_as_written=parsed.integers_as_written)
    out: list[str] = []
    if algebra.name == "AskQuery":
        planner.pattern(_unproject(algebra.p), {}, out)
        out.append("RETURN true AS ask LIMIT 1")
        return CypherQuery(" ".join(out), planner.params.values, (), (), Kind.ASK)
    if algebra.name not in ("SelectQuery", "ConstructQuery"):
        raise Unsupported(f"{algebra.name.removesuffix('Query').upper()} queries")
    sol = solution(planner, algebra.p, {}, out)
    if parsed.select_star and algebra.name == "SelectQuery":
        sol.columns = [c for c in sol.columns if c in sol.scope]
    items = []
    for c in sol.columns:
        b = sol.scope.get(c)
        v = cypher(c)
        if b is None:
            items.append(f"null AS {emit.name(c)}")
        elif b.sort is Sort.NODE:
            items.append(f"{emit.node_term(v)} AS {emit.name(c)}")
        else:
            items.append(f"{v} AS {emit.name(c)}")
    out.append(sol.returns(items))
    sorts = tuple(sol.scope[c].sort if c in sol.scope else Sort.VALUE for c in sol.columns)
    if algebra.name == "ConstructQuery":
        if algebra.template is None:
            raise Unsupported("CONSTRUCT WHERE (the short form without a template)")
        template = tuple(tuple(_template(t, mapping) for t in triple) for triple in algebra.template)
        return CypherQuery(" ".join(out), planner.params.values, tuple(sol.columns), sorts, Kind.CONSTRUCT, template)  # type: ignore[arg-type]
    return CypherQuery(" ".join(out), planner.params.values, tuple(sol.columns), sorts)


def _unproject(node: Any) -> Any:
    return node.p if node.name == "Project" else node


def _template(t: Any, mapping: Mapping) -> TemplateTerm:
    from pyoxigraph import NamedNode

    if isinstance(t, Variable):
        return TemplateTerm(var=str(t))
    if isinstance(t, BNode):
        return TemplateTerm(bnode=str(t))
    if isinstance(t, URIRef):
        return TemplateTerm(term=NamedNode(str(t)))
    if isinstance(t, Literal):
        return TemplateTerm(term=to_oxigraph(t))
    raise Unsupported(f"the CONSTRUCT template term {t!r}")
