"""The bridge's queries as the interfaces offer them (issue 11 §5; ``docs/bridge.md`` §5): translate a query either
way with a bridge graph's stored names, and run read-only Cypher on a bridge graph. The CLI (``hybridkg translate``,
``hybridkg cypher``), the gRPC ``Translate``/``Cypher`` RPCs and the SPARQL endpoint's ``engine=cypher`` share it.

* :func:`translate` gives a :class:`Translation` (text, Cypher parameters, columns, the SPARQL's guards).
* :func:`check_read_only` parses Cypher with cypherast (a syntax error is ``InvalidQuery`` with line and column) and
  refuses, before anything is sent, writes, procedures outside :data:`READ_PROCEDURES`, ``CALL ... IN
  TRANSACTIONS``, and a ``UNION`` subquery inside an aggregating ``CALL {}`` unless it is that subquery's first
  clause (FalkorDB 4.x then nulls the aggregate of later rows or its server process dies; the SPARQL -> Cypher
  translator never writes that shape).
* :func:`run_cypher` then runs it through the store's :class:`~hybridkg.structural.base.ReadOnlyGraph` (FalkorDB's
  ``GRAPH.RO_QUERY``: the server refuses a write too) under the caller's deadline and row cap, and
  :func:`json_value` renders each value as JSON:

  - null, booleans, integers, strings as themselves; a float as a JSON number, except NaN and the infinities,
    which JSON cannot hold: the strings ``"NaN"``, ``"Infinity"``, ``"-Infinity"``;
  - a list as an array, a map as an object;
  - a node as ``{"element": "node", "id": "<element id>", "labels": [...], "properties": {...}}``;
  - a relationship as ``{"element": "relationship", "id", "type", "start", "end", "properties"}`` (``start`` and
    ``end`` are the element ids of its nodes, in stored direction);
  - a path as ``{"element": "path", "nodes": [...], "relationships": [...]}``.

  Property values are the graph's raw values: a language-tagged or typed literal is its encoded string
  (``docs/bridge.md`` §1.4).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from cypherast import ast

from hybridkg.bridge import cypher_to_sparql, sparql_to_cypher
from hybridkg.bridge.cypher_to_sparql.parse import WRITES, syntax_tree
from hybridkg.bridge.mapping import NameRegistry, RdfMapping, Shapes, read_registry
from hybridkg.bridge.mapping.model import Schema
from hybridkg.bridge.mapping.shapes import schema_of
from hybridkg.bridge.sparql_to_cypher import RUNTIME_REFUSAL, CypherQuery
from hybridkg.bridge.sync import BridgeSync
from hybridkg.errors import InvalidInput, InvalidQuery, NotFound, ResultTooLarge, Unsupported
from hybridkg.structural.base import GraphNode, GraphPath, GraphRelationship, GraphStore, ReadOnlyGraph

__all__ = [
    "READ_PROCEDURES", "BridgeNames", "CypherRows", "Language", "Translation", "check_read_only", "json_value",
    "names_of", "names_of_sync", "parse_params", "read_only", "run_cypher", "translate",
]

#: FalkorDB procedures that only read; any other ``CALL proc()`` is refused before it is sent.
READ_PROCEDURES = frozenset({
    "db.labels", "db.relationshiptypes", "db.propertykeys", "db.indexes", "db.constraints", "dbms.procedures",
    "db.idx.fulltext.querynodes", "db.idx.fulltext.queryrelationships", "db.idx.vector.querynodes",
    "db.idx.vector.queryrelationships",
})
AGGREGATES = frozenset({"count", "sum", "avg", "min", "max", "collect", "stdev", "stdevp", "percentilecont",
                        "percentiledisc"})


class Language(StrEnum):
    CYPHER = "cypher"
    SPARQL = "sparql"


@dataclass(frozen=True)
class BridgeNames:
    """What translating against one bridge graph needs: its stored names and the shapes it was mapped with."""

    graph_name: str
    registry: NameRegistry
    shapes: Shapes | None = None

    @property
    def mapping(self) -> RdfMapping:
        return RdfMapping(self.registry)

    @property
    def schema(self) -> Schema | None:
        return schema_of(self.shapes, self.registry) if self.shapes is not None else None


def names_of_sync(sync: BridgeSync) -> BridgeNames:
    """The names of the graph a service's :class:`~hybridkg.bridge.sync.BridgeSync` keeps (``Runtime.bridge``)."""
    return _checked(BridgeNames(sync.scope.graph_name, sync.registry, sync.scope.shapes))


def names_of(graph: GraphStore, graph_name: str, shapes: Shapes | None = None) -> BridgeNames:
    """The names stored in the bridge graph ``graph``; NotFound when it holds none (nothing was synced)."""
    registry = read_registry(graph)
    return _checked(BridgeNames(graph_name, registry, shapes))


def _checked(names: BridgeNames) -> BridgeNames:
    if not names.registry.record().names:
        raise NotFound(f"the bridge graph {names.graph_name} is empty: run `hybridkg bridge sync` first")
    return names


@dataclass(frozen=True)
class Translation:
    """A query translated into ``to``: its text, its parameters (Cypher: every IRI and literal is one), its result
    columns, its kind (select, ask, construct), and for SPARQL the guards: ASK queries that must all answer false
    on the data for the translation to hold (``docs/bridge.md`` §3)."""

    to: Language
    text: str
    columns: tuple[str, ...]
    kind: str = "select"
    params: dict[str, Any] = field(default_factory=dict)
    guards: tuple[str, ...] = ()
    cypher: CypherQuery | None = None  # the SPARQL -> Cypher translation, to read rows back into terms

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"to": str(self.to), "query": self.text, "params": self.params,
                               "columns": list(self.columns), "kind": self.kind}
        if self.to is Language.SPARQL:
            out["guards"] = list(self.guards)
        return out

    def to_text(self) -> str:
        """The query, runnable as printed: Cypher with its parameters on a ``// params:`` comment line (JSON),
        SPARQL with each guard on a ``# guard:`` comment line."""
        import json

        if self.to is Language.CYPHER:
            params = json.dumps(self.params, ensure_ascii=False, sort_keys=True)
            return f"{self.text}\n// params: {params}\n"
        guards = "".join(f"# guard (must be false): {' '.join(g.split())}\n" for g in self.guards)
        return f"{self.text.rstrip()}\n{guards}"


def translate(query: str, to: Language, names: BridgeNames, params: Mapping[str, Any] | None = None) -> Translation:
    """``query`` (SPARQL when ``to`` is Cypher, Cypher when ``to`` is SPARQL) translated with ``names``; refusals
    are :class:`~hybridkg.errors.Unsupported` naming the construct, syntax errors ``InvalidQuery``."""
    if not query.strip():
        raise InvalidQuery("the query is empty")
    if to is Language.CYPHER:
        if params:
            raise InvalidInput("parameters go with Cypher; a SPARQL query states its values itself")
        c = sparql_to_cypher.translate(query, names.mapping)
        return Translation(to, c.text, c.columns, str(c.kind), dict(c.params), cypher=c)
    s = cypher_to_sparql.translate(query, names.mapping, dict(params or {}), schema=names.schema)
    return Translation(to, s.text, s.columns, "select", {}, s.guards)


# ------------------------------------------------------------------------------------------ read-only Cypher


def check_read_only(query: str) -> None:
    """Refuse, before it is sent, a Cypher statement that writes or that FalkorDB cannot run safely."""
    if not query.strip():
        raise InvalidQuery("the Cypher query is empty")
    tree = syntax_tree(query)
    for node in tree.walk():
        for kind, name in WRITES.items():
            if isinstance(node, kind):
                raise Unsupported(f"{name} is a write: the bridge's property graph is read-only (it mirrors the RDF "
                                  "store); write RDF through the semantic layer (load, Ingest, SPARQL Update)")
        if isinstance(node, ast.CallProcedure):
            proc = _procedure_name(node)
            if proc.lower() not in READ_PROCEDURES:
                raise Unsupported(f"CALL {proc}(): only read-only procedures are allowed "
                                  f"({', '.join(sorted(READ_PROCEDURES))})")
        if isinstance(node, ast.CallSubquery):
            if node.args.get("in_transactions"):
                raise Unsupported("CALL { ... } IN TRANSACTIONS (a write form)")
            _check_union_in_aggregate(node)


def _procedure_name(node: ast.AstNode) -> str:
    name = node.args.get("name")
    return name if isinstance(name, str) else str(name)


def _aggregates(query: ast.AstNode) -> bool:
    """Whether a subquery's own RETURN aggregates (not a nested subquery's)."""
    clauses = query.args.get("clauses") if isinstance(query, ast.Query) else None
    if not clauses or not isinstance(clauses[-1], ast.Return):
        return False
    return any(isinstance(n, ast.FunctionCall) and str(n.args.get("name", "")).lower() in AGGREGATES
               for n in clauses[-1].walk())


def _check_union_in_aggregate(call: ast.AstNode) -> None:
    query = call.args.get("query")
    if query is None or not _aggregates(query):
        return
    clauses = list(query.args.get("clauses") or [])
    lead = 1 if clauses and isinstance(clauses[0], ast.With) else 0
    first = clauses[lead] if len(clauses) > lead else None
    for node in _own_nodes(query):
        if node is first:
            continue
        if isinstance(node, ast.CallSubquery) and isinstance(node.args.get("query"), ast.Union):
            raise Unsupported(
                "a UNION subquery after other clauses inside an aggregating CALL { } subquery: FalkorDB 4.x nulls "
                "the aggregate of later rows or its server stops; put the UNION subquery first in the CALL body"
            )


def _own_nodes(node: ast.AstNode) -> Iterator[ast.AstNode]:
    """The nodes under ``node``, but not inside a nested aggregating ``CALL { }``: a UNION there is that subquery's to
    place (:func:`_check_union_in_aggregate` checks each aggregating subquery), as the SPARQL -> Cypher translator
    places it (first in its own, innermost aggregating subquery: W3C exists04/05 nest one EXISTS in another)."""
    yield node
    for value in node.args.values():
        for item in value if isinstance(value, list) else [value]:
            if not isinstance(item, ast.AstNode):
                continue
            inner = item.args.get("query") if isinstance(item, ast.CallSubquery) else None
            if inner is not None and _aggregates(inner):
                yield item  # the CALL itself (a UNION CALL is never aggregating: its query is a Union)
                continue
            yield from _own_nodes(item)


@dataclass(frozen=True)
class CypherRows:
    """A read-only Cypher result: column names and rows of the store's values (graph values as
    :class:`~hybridkg.structural.base.GraphNode`, ``GraphRelationship``, ``GraphPath``)."""

    columns: tuple[str, ...]
    rows: list[list[Any]]

    def json_rows(self) -> list[list[Any]]:
        return [[json_value(v) for v in row] for row in self.rows]

    def to_json(self) -> dict[str, Any]:
        return {"columns": list(self.columns), "rows": self.json_rows()}

    def batches(self, size: int) -> Iterator[list[list[Any]]]:
        for i in range(0, len(self.rows), max(size, 1)):
            yield self.rows[i:i + max(size, 1)]


def run_cypher(
    graph: GraphStore, query: str, params: Mapping[str, Any] | None = None, *, max_rows: int | None = None,
    timeout_s: float | None = None,
) -> CypherRows:
    """Run Cypher ``query`` read-only (:func:`check_read_only`, then the store's read-only path) on a bridge graph;
    more than ``max_rows`` rows is ResultTooLarge, ``timeout_s`` the store's own timeout."""
    check_read_only(query)
    try:
        raw = read_only(graph, query, params, timeout_s=timeout_s)
    except InvalidQuery as e:
        if RUNTIME_REFUSAL in str(e):  # how a translation from SPARQL stops (docs/bridge.md §2); say so
            raise InvalidQuery(
                f"{e} (a statement translated from SPARQL stops this way when the data holds a value it cannot "
                "evaluate exactly, e.g. a language-tagged or typed literal in a comparison or ORDER BY; run the SPARQL "
                "itself instead)"
            ) from None
        raise
    if max_rows is not None and len(raw.rows) > max_rows:
        raise ResultTooLarge(f"the result has more than {max_rows} rows (server.max_result_rows); add a LIMIT or "
                             "narrow the query")
    return CypherRows(raw.columns, raw.rows)


def read_only(graph: GraphStore, query: str, params: Mapping[str, Any] | None = None, *,
              timeout_s: float | None = None) -> Any:
    if not isinstance(graph, ReadOnlyGraph):
        raise Unsupported(
            f"read-only Cypher needs a graph store whose server enforces reads (FalkorDB); {type(graph).__name__} "
            "does not: set structural.graph.backend to falkordb"
        )
    return graph.read_query(query, params, timeout_s=timeout_s)


def json_value(value: Any) -> Any:
    """One Cypher value as JSON (the shapes are in the module docstring)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if isinstance(value, GraphNode):
        return {"element": "node", "id": value.element_id, "labels": list(value.labels),
                "properties": {k: json_value(v) for k, v in value.props.items()}}
    if isinstance(value, GraphRelationship):
        return {"element": "relationship", "id": value.element_id, "type": value.type, "start": value.start,
                "end": value.end, "properties": {k: json_value(v) for k, v in value.props.items()}}
    if isinstance(value, GraphPath):
        return {"element": "path", "nodes": [json_value(n) for n in value.nodes],
                "relationships": [json_value(r) for r in value.relationships]}
    if isinstance(value, Mapping):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, Sequence):
        return [json_value(v) for v in value]
    return str(value)


def parse_params(items: Sequence[str]) -> dict[str, Any]:
    """``NAME=JSON`` pairs (the CLI's ``--param``) as Cypher parameters; a value that is not JSON is InvalidInput."""
    import json

    out: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name:
            raise InvalidInput(f"--param {item!r}: expected NAME=JSON, e.g. --param min=30 or --param 'name=\"Ann\"'")
        try:
            out[name] = json.loads(text)
        except json.JSONDecodeError as e:
            raise InvalidInput(f"--param {name}: {text!r} is not JSON ({e.msg} at column {e.colno}); a string "
                               "needs quotes: --param 'name=\"Ann\"'") from e
    return out
