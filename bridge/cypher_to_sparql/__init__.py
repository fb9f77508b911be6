"""Cypher -> SPARQL (issue 11 §3): read-only openCypher over the property graph an RDF graph maps to
(``docs/bridge.md`` §1), answered by SPARQL over the RDF store with the same result multiset.

Pipeline: ``parse.py`` (cypherast; syntax errors -> ``InvalidQuery`` with line and column; writes and constructs
outside the fragment -> ``Unsupported`` naming them) -> ``plan.py``/``project.py`` (clauses -> a small SPARQL
algebra through the reverse mapping :meth:`Mapping.iri`) -> ``emit.py`` (text; every constant through one escaping
function, pyoxigraph terms' N-Triples syntax). ``expr.py`` translates expressions.

What a query means in SPARQL:

* A node variable binds an IRI or blank node: any subject, or IRI/blank-node object of a statement that is not an
  ``rdf:type`` to an IRI. Returning a node returns its IRI (or blank node). ``n.uri`` is the IRI's string;
  ``(n {uri: $iri})`` is ``VALUES ?n { <iri> }``. A lone ``(n)`` means ``(n:Resource)``: the mapping's name table
  node is not data (raw Cypher on the graph sees it).
* ``(n:L)`` is ``?n rdf:type <iri(L)>`` (``:Resource`` adds nothing); ``-[:T]->`` is ``?a <iri(T)> ?b`` with
  ``?b`` not a literal (``:type`` relationships only reach blank nodes, §1.1); ``<-[:T]-`` and ``-[:T]-`` likewise
  (an undirected self-loop matches once, as in FalkorDB). An unknown label or type matches nothing.
* Relationships of one MATCH are different statements (Cypher's relationship isomorphism): a FILTER says so.
  ``*m..n`` with ``n <= 6`` is a union of chains of each length (same multiplicities as Cypher's paths, which are
  trails). Unbounded ``*``/``*1..``/``*0..`` is a property path ``(<p>|...)+``, only where that is exact: the query
  returns DISTINCT rows with no WITH or aggregate, the pattern is directed and typed, and it is the MATCH's only
  relationship (else refused: a property path loses path multiplicities and relationship uniqueness).
* ``n.k`` is the literal of ``?n <iri(k)> ?v`` when there is one, null when none. A node with several values has a
  list in the graph, which no SPARQL term can be: the translation is exact only when no subject has several
  literals for the key, and the query carries a *guard* for it (an ASK query in :attr:`SparqlQuery.guards`; run
  them first, e.g. with :meth:`SparqlQuery.check`: if any answers true, the translation does not hold for this
  data and is refused). Likewise
  ``sum``/``avg``/``min``/``max`` are translated for node properties whose values are all numbers (a guard).
  The mapping's shapes may make a key a list even with one value (no ``sh:maxCount 1``); the
  :class:`~hybridkg.bridge.base.Mapping` does not say which, so :func:`translate` takes the mapping's ``schema``
  and refuses such keys; without it, it assumes the schema-independent mapping (a scalar when one value).
* Values compare as Cypher compares them (``expr.py``): numbers by value, other values only when they are the same
  literal, strings by their Cypher string (a language-tagged literal's encoding), booleans false < true, null as
  SPARQL's error/unbound. A condition (WHERE, AND/OR/XOR/NOT) that is not a boolean is null, never SPARQL's
  effective boolean value.
* ``collect(x)`` is a string column listed in :attr:`SparqlQuery.lists`: :func:`decode_list` gives its terms
  (``lists.py``); a list from a WITH can be returned, but no list operation (``size``, ``IN``, ...) is translated.
* Parameters take the values given to :func:`translate` (escaped terms); ``UNWIND $list AS x`` is
  ``VALUES ?x { ... }``.
* Refused (``Unsupported``): writes, ``CALL``, ``UNION``, path and relationship variables in expressions,
  arithmetic, functions other than the aggregates, ``collect(DISTINCT ...)``, map values,
  label expressions, ``ORDER BY`` a node.

Assumptions: a literal is a Cypher number when it is an ``xsd:integer`` within int64 or a finite ``xsd:double``
(not -0), a boolean when ``xsd:boolean``, else a string: what ``values.to_value`` makes of the literal in the form
the store gives it (Oxigraph keeps numbers as values: ``"1.5E0"^^xsd:double`` reads back ``"1.5"``, ``"007"`` as
``"7"``), so the graph must have been mapped from the store's triples, as the sync does. DISTINCT, grouping and
``count(DISTINCT)`` take ``1`` and ``1.0`` for one value, as Cypher does (a normalised key, a sample of the values).
FalkorDB departs from openCypher in ways the translation does not follow (tests/integration/test_cypher_to_sparql.py
lists them: no relationship isomorphism, parallel relationships matched once, variable-length paths that skip node
revisits, ``sum`` of integers as a float, type errors where openCypher says null).
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping as AnyMapping
from dataclasses import dataclass

from cypherast import ast

from hybridkg.bridge.base import Mapping
from hybridkg.bridge.cypher_to_sparql.emit import render
from hybridkg.bridge.cypher_to_sparql.lists import decode_list
from hybridkg.bridge.cypher_to_sparql.parse import parse
from hybridkg.bridge.cypher_to_sparql.plan import Planner
from hybridkg.bridge.cypher_to_sparql.project import project, unwind
from hybridkg.bridge.mapping.model import Schema
from hybridkg.errors import Unsupported

__all__ = ["SparqlQuery", "decode_list", "translate"]


@dataclass(frozen=True, slots=True)
class SparqlQuery:
    """A SPARQL SELECT; ``columns`` are the Cypher column names of its result variables, in order; ``guards`` are
    ASK queries that must all answer false on the data for the translation to be exact."""

    text: str
    columns: tuple[str, ...]
    guards: tuple[str, ...] = ()
    lists: tuple[int, ...] = ()  # columns holding collect() lists: decode with decode_list

    def check(self, ask: Callable[[str], bool]) -> None:
        """Raise :class:`~hybridkg.errors.Unsupported` when a guard holds on the data ``ask`` queries (an ASK
        query's answer), i.e. when the translation would not give the Cypher query's answer there."""
        for guard in self.guards:
            if ask(guard):
                raise Unsupported(f"the translation does not hold on this data: {guard} is true")


def translate(
    query: str, mapping: Mapping, params: AnyMapping[str, object] | None = None, *, schema: Schema | None = None
) -> SparqlQuery:
    """The SPARQL over the RDF store that answers Cypher ``query`` over the graph ``mapping`` describes; give the
    ``schema`` the graph was mapped with (``MappedGraph.schema``) when shapes drove the mapping."""
    clauses = parse(query)
    planner = Planner(mapping, params or {}, _accessed(clauses))
    if schema is not None:
        planner.list_keys = {p.key: p.label for p in schema.properties if not p.scalar}
    final = clauses[-1]
    assert isinstance(final, ast.Return)
    planner.set_semantics = bool(final.distinct) and not any(
        isinstance(c, ast.With) or isinstance(n, ast.FunctionCall) for c in clauses for n in c.walk()
    )
    for clause in clauses[:-1]:
        if isinstance(clause, ast.Match):
            planner.match(clause)
        elif isinstance(clause, ast.Unwind):
            unwind(planner, clause)
        elif isinstance(clause, ast.With):
            project(planner, clause)
    select, names, lists = project(planner, final)
    return SparqlQuery(render(select), tuple(names), tuple(planner.guards), tuple(lists))


def _accessed(clauses: list[ast.AstNode]) -> dict[str, set[str]]:
    """Property keys read per variable name (looked up once where the node is bound)."""
    out: dict[str, set[str]] = {}
    for clause in clauses:
        for node in clause.walk():
            if isinstance(node, ast.Property) and isinstance(node.this, ast.Identifier):
                out.setdefault(node.this.this, set()).add(node.name)
            elif isinstance(node, ast.NodePattern) and node.variable is not None and node.properties is not None:
                out.setdefault(node.variable.this, set()).update(k for k, _ in node.properties.entries if k != "uri")
    return out
