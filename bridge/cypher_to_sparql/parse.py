"""Parse openCypher with ``cypherast`` (pinned 0.1.12) and check the query is inside the translated fragment.

Syntax errors become :class:`~hybridkg.errors.InvalidQuery` naming line and column. Writes (``CREATE``, ``MERGE``,
``SET``, ``DELETE``, ``REMOVE``, ``FOREACH``, procedure calls) are refused with
:class:`~hybridkg.errors.Unsupported`: writes go through the semantic layer's SHACL gate, never through a query.
"""

from __future__ import annotations

import cypherast
from cypherast import ast

from hybridkg.errors import InvalidQuery, Unsupported

WRITES: dict[type[ast.AstNode], str] = {
    ast.Create: "CREATE",
    ast.Merge: "MERGE",
    ast.Set: "SET",
    ast.Delete: "DELETE",
    ast.Remove: "REMOVE",
    ast.Foreach: "FOREACH",
    ast.Insert: "INSERT",
    ast.LoadCsv: "LOAD CSV",
}
READS = (ast.Match, ast.With, ast.Unwind, ast.Return)
WRITE_REFUSAL = "is a write: Cypher writes are not translated; write RDF through the semantic layer (its SHACL gate)"


def syntax_tree(query: str) -> ast.AstNode:
    """cypherast's tree of one Cypher statement; a syntax error is InvalidQuery with its line and column."""
    try:
        return cypherast.parse_one(query)
    except cypherast.CypherastError as e:
        pos = getattr(e, "position", None)
        where = f"line {pos.line}, column {pos.col}" if pos is not None else "an unknown position"
        detail = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise InvalidQuery(f"Cypher syntax error at {where}: {detail}") from e


def parse(query: str) -> list[ast.AstNode]:
    """The clauses of a single read query ``MATCH``/``OPTIONAL MATCH``/``WITH``/``UNWIND`` ... ``RETURN``."""
    tree = syntax_tree(query)
    body = tree.this if isinstance(tree, ast.Cypher) else tree
    for node in body.walk():
        for kind, name in WRITES.items():
            if isinstance(node, kind):
                raise Unsupported(f"{name} {WRITE_REFUSAL}")
        if isinstance(node, ast.CallProcedure | ast.CallSubquery):
            raise Unsupported(f"CALL {WRITE_REFUSAL} or a procedure; neither is translated")
    if isinstance(body, ast.Union):
        raise Unsupported("UNION of Cypher queries (not in the translated fragment)")
    if not isinstance(body, ast.Query):
        raise Unsupported(f"Cypher statement {type(body).__name__} (only read queries are translated)")
    clauses: list[ast.AstNode] = list(body.clauses or [])
    for c in clauses:
        if not isinstance(c, READS):
            raise Unsupported(f"Cypher clause {type(c).__name__} (not in the translated fragment)")
    if not clauses or not isinstance(clauses[-1], ast.Return):
        raise Unsupported("a Cypher query that does not end with RETURN")
    if any(isinstance(c, ast.Return) for c in clauses[:-1]):
        raise InvalidQuery("RETURN before the end of the query")
    return clauses
