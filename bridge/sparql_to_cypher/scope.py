"""The variables a pattern binds, and how they are carried through Cypher: shared by the planner's modules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rdflib import BNode, Variable

from hybridkg.bridge.sparql_to_cypher import emit
from hybridkg.bridge.sparql_to_cypher.query import Sort
from hybridkg.errors import Unsupported


@dataclass(frozen=True)
class Binding:
    sort: Sort
    certain: bool  # bound in every row


Scope = dict[str, Binding]


class NoMatch(Exception):
    """A basic graph pattern names something absent from the mapped data: it has no solutions."""


class Temp(str):
    """A variable the translation introduces (a path's intermediate node): never a SPARQL variable."""


def cypher(key: str) -> str:
    """The Cypher variable of a scope key (a SPARQL variable, ``_:label`` for a query's blank node, ``~name`` for a
    :class:`Temp`)."""
    if key.startswith("~"):
        return "_" + emit.var(key[1:])[2:]
    return "b_" + emit.var(key[2:])[2:] if key.startswith("_:") else emit.var(key)


def carried(scope: Scope) -> list[str]:
    return [cypher(k) for k in sorted(scope)]


def merge(a: Scope, b: Scope) -> Scope:
    out = dict(a)
    for k, v in b.items():
        out[k] = Binding(v.sort, v.certain or (k in a and a[k].certain))
    return out


def sorts(scope: Scope) -> dict[str, Sort]:
    return {k: v.sort for k, v in scope.items()}


def key_of(term: Any) -> str | None:
    if isinstance(term, Temp):
        return "~" + term
    if isinstance(term, Variable):
        return str(term)
    if isinstance(term, BNode):
        return "_:" + str(term)
    return None


def expr_vars(e: Any) -> set[str]:
    """The variables an expression mentions (EXISTS patterns included)."""
    if isinstance(e, Variable):
        return {str(e)}
    if isinstance(e, dict):
        return set().union(*(expr_vars(v) for k, v in e.items() if k != "_vars")) if e else set()
    if isinstance(e, list | tuple):
        return set().union(*(expr_vars(v) for v in e)) if e else set()
    return set()


def binds(node: Any) -> set[str]:
    """The variables a pattern can bind (what it shares with the patterns it is joined with)."""
    name = node.name
    if name == "BGP":
        return {k for t in node.triples for x in t if (k := key_of(x))}
    if name in ("Join", "LeftJoin", "Union"):
        return binds(node.p1) | binds(node.p2)
    if name == "Minus":
        return binds(node.p1)
    if name == "Extend":
        return binds(node.p) | {str(node.var)}
    if name == "values":
        return {str(v) for row in node.res for v in row}
    if name == "Project":
        return {str(v) for v in node.PV}
    if name == "AggregateJoin":
        return {str(a.res) for a in node.A}
    if name in ("Filter", "ToMultiSet", "Distinct", "Reduced", "Slice", "OrderBy", "Group"):
        return binds(node.p)
    raise Unsupported(f"the SPARQL algebra operator {name}")


def require_certain(keys: Any, *scopes: Scope, what: str) -> None:
    for k in sorted(keys):
        for scope in scopes:
            if k in scope and not scope[k].certain:
                raise Unsupported(f"{what} on ?{k}, which may be unbound (SPARQL and Cypher join unbound differently)")
