"""Parse a SPARQL 1.1 Update request into typed operations (https://www.w3.org/TR/sparql11-update/).

Syntax is checked by oxigraph (the store's own parser, so its messages and ``line:column`` positions
are what the user sees) by running the request on an empty in-memory store: nothing there to read,
nothing kept, and LOAD and SERVICE are refused before that (no network fetches). The structure of
each operation (its kind, graph IRIs, WITH/USING, SILENT and the text of its data, templates and
WHERE clause) comes from :mod:`hybridkg.semantic.update.tokens`; graph IRIs written as prefixed or
relative names are resolved by oxigraph with the request's own prologue. Templates and data are kept
as SPARQL text and instantiated by oxigraph too (:mod:`hybridkg.semantic.update.apply`), so every term
is read exactly as the store reads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal as TypingLiteral

from pyoxigraph import NamedNode, QuerySolutions, Store

from hybridkg.errors import InvalidInput, InvalidQuery, Unsupported
from hybridkg.semantic.update.tokens import OperationText, Token, split_request, uses_service


@dataclass(frozen=True)
class DataOp:
    """INSERT DATA / DELETE DATA; ``data`` is the quad data's text, braces included."""

    kind: TypingLiteral["insert", "delete"]
    prologue: str
    data: str


@dataclass(frozen=True)
class ModifyOp:
    """DELETE/INSERT ... WHERE, and DELETE WHERE (whose pattern is also its delete template).

    Templates and ``where`` are SPARQL text (braces included). ``where_graphs`` are the IRIs the WHERE
    names in ``GRAPH`` patterns, ``None`` if some ``GRAPH`` takes a variable; ``reads_default`` is
    False when the WHERE holds nothing but ``GRAPH`` patterns.
    """

    delete: str | None
    insert: str | None
    prologue: str
    where: str
    with_graph: NamedNode | None = None
    using: tuple[NamedNode, ...] = ()
    using_named: tuple[NamedNode, ...] = ()
    where_graphs: frozenset[NamedNode] | None = frozenset()
    reads_default: bool = True

    @property
    def has_dataset(self) -> bool:
        return bool(self.using or self.using_named)


#: ``None`` is the default graph; NAMED and ALL as in CLEAR/DROP.
GraphRef = NamedNode | None | TypingLiteral["NAMED", "ALL"]


@dataclass(frozen=True)
class GraphOp:
    """CLEAR, DROP, CREATE."""

    kind: TypingLiteral["clear", "drop", "create"]
    target: GraphRef
    silent: bool


@dataclass(frozen=True)
class TransferOp:
    """ADD, MOVE, COPY (``None``: the default graph)."""

    kind: TypingLiteral["add", "move", "copy"]
    source: NamedNode | None
    destination: NamedNode | None
    silent: bool


Operation = DataOp | ModifyOp | GraphOp | TransferOp

_LOAD = (
    "SPARQL Update LOAD (section 3.1.4) is not supported: the knowledge base does not fetch documents "
    "over the network; load the file with KnowledgeBase.load or `hybridkg load`"
)
_SERVICE = (
    "SERVICE (SPARQL 1.1 Federated Query) is not supported in updates: the knowledge base does not "
    "query other endpoints"
)


def parse_update(sparql: str, *, base_iri: str | None = None) -> list[Operation]:
    """The request's operations in order; raises InvalidQuery (syntax) or Unsupported (LOAD, SERVICE).

    ``base_iri`` resolves relative IRIs of a request that declares no BASE.
    """
    try:
        base = f"BASE {NamedNode(base_iri)}" if base_iri is not None else None
    except ValueError as e:
        raise InvalidInput(f"base IRI {base_iri!r} is not a valid IRI: {e}") from e
    ops = split_request(sparql, base=base)
    if any(op.words and op.words[0].keyword("LOAD") for op in ops):
        raise Unsupported(_LOAD)
    if uses_service(sparql):
        raise Unsupported(_SERVICE)
    check_syntax(sparql, base_iri)
    return [_operation(op) for op in ops]


def check_syntax(sparql: str, base_iri: str | None = None) -> None:
    """Raise InvalidQuery with oxigraph's message (line:column) if the request does not parse."""
    try:
        Store().update(sparql, base_iri=base_iri)
    except SyntaxError as e:
        raise InvalidQuery(f"SPARQL update syntax error: {e.msg}") from e
    except (ValueError, RuntimeError, OSError):
        pass  # an evaluation error on the empty store (e.g. DROP of a missing graph) says nothing here


class _Words:
    """A cursor over an operation's top-level tokens."""

    def __init__(self, op: OperationText) -> None:
        self.op = op
        self.tokens = op.words
        self.i = 0

    def peek(self, *words: str) -> bool:
        return self.i < len(self.tokens) and self.tokens[self.i].keyword(*words)

    def take(self, *words: str) -> bool:
        if self.peek(*words):
            self.i += 1
            return True
        return False

    def term(self) -> Token:
        if self.i >= len(self.tokens):
            raise InvalidQuery("SPARQL update syntax error: a graph IRI is missing")
        tok = self.tokens[self.i]
        self.i += 1
        return tok


def _operation(op: OperationText) -> Operation:
    w = _Words(op)
    first = w.term().text.upper()
    match first:
        case "INSERT" | "DELETE" if w.peek("DATA"):
            return DataOp("insert" if first == "INSERT" else "delete", op.prologue, op.groups["DATA"])
        case "DELETE" if w.peek("WHERE") and "DELETE" not in op.groups:
            where = op.groups["WHERE"]
            graphs, reads_default = _where_graphs(op)
            return ModifyOp(where, None, op.prologue, where, where_graphs=graphs, reads_default=reads_default)
        case "WITH" | "DELETE" | "INSERT":
            with_token = w.term() if first == "WITH" else None
            using: list[Token] = []
            using_named: list[Token] = []
            while w.i < len(w.tokens):
                if w.take("USING"):
                    (using_named if w.take("NAMED") else using).append(w.term())
                else:
                    w.i += 1
            names = _resolve(op.prologue, [t for t in (with_token, *using, *using_named) if t is not None])
            with_graph = names.pop(0) if with_token is not None else None
            graphs, reads_default = _where_graphs(op)
            return ModifyOp(
                op.groups.get("DELETE"), op.groups.get("INSERT"), op.prologue, op.groups["WHERE"],
                with_graph=with_graph, using=tuple(names[: len(using)]), using_named=tuple(names[len(using) :]),
                where_graphs=graphs, reads_default=reads_default,
            )
        case "CLEAR" | "DROP" | "CREATE":
            silent = w.take("SILENT")
            target: GraphRef
            if w.take("DEFAULT"):
                target = None
            elif w.peek("NAMED", "ALL"):
                target = "NAMED" if w.take("NAMED") else "ALL"
            else:
                w.take("GRAPH")
                target = _resolve(op.prologue, [w.term()])[0]
            return GraphOp(first.lower(), target, silent)  # type: ignore[arg-type]
        case "ADD" | "MOVE" | "COPY":
            silent = w.take("SILENT")
            ends: list[NamedNode | None] = []
            for _ in range(2):
                if w.take("DEFAULT"):
                    ends.append(None)
                else:
                    w.take("GRAPH")
                    ends.append(_resolve(op.prologue, [w.term()])[0])
                w.take("TO")
            return TransferOp(first.lower(), ends[0], ends[1], silent)  # type: ignore[arg-type]
        case "LOAD":
            raise Unsupported(_LOAD)
    raise InvalidQuery(f"SPARQL update syntax error: unknown operation {first}")


def _where_graphs(op: OperationText) -> tuple[frozenset[NamedNode] | None, bool]:
    """(IRIs named by GRAPH in the WHERE or None if one is a variable, whether it reads the default graph)."""
    tokens = op.where_tokens
    names: list[Token] = []
    variable = False
    for i, tok in enumerate(tokens[:-1]):
        if tok.keyword("GRAPH"):
            nxt = tokens[i + 1]
            if nxt.text.startswith(("?", "$")):
                variable = True
            else:
                names.append(nxt)
    # the WHERE reads the default graph unless it is only `GRAPH term { ... } .?` blocks
    top = tokens[0].depth + 1 if tokens else 1
    only_graphs = True
    i = 1
    while i < len(tokens) - 1:
        tok = tokens[i]
        if tok.depth == top and tok.keyword("GRAPH") and i + 2 < len(tokens) and tokens[i + 2].kind == "open":
            j = i + 3
            while not (tokens[j].kind == "close" and tokens[j].depth == top):
                j += 1
            i = j + 1
            if i < len(tokens) - 1 and tokens[i].text == ".":
                i += 1
            continue
        only_graphs = False
        break
    graphs = None if variable else frozenset(_resolve(op.prologue, names))
    return graphs, not only_graphs


def _resolve(prologue: str, tokens: Sequence[Token]) -> list[NamedNode]:
    """Resolve IRI tokens of the (already parsed) request against its own prologue, with oxigraph."""
    if not tokens:
        return []
    names = " ".join(f"?t{i}" for i in range(len(tokens)))
    values = " ".join(t.text for t in tokens)
    query = f"{prologue}\nSELECT {names} WHERE {{ VALUES ({names}) {{ ({values}) }} }}"
    try:
        result = Store().query(query)
    except (SyntaxError, ValueError) as e:
        raise InvalidQuery(f"SPARQL update syntax error: not a graph IRI among {values}: {e}") from e
    assert isinstance(result, QuerySolutions)
    row = next(iter(result))
    out = []
    for i in range(len(tokens)):
        term = row[i]
        if not isinstance(term, NamedNode):
            raise InvalidQuery(f"SPARQL update: {tokens[i].text} is not a graph IRI")
        out.append(term)
    return out
