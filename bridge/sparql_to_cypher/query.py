"""The typed result of a SPARQL -> Cypher translation, and the way back from a Cypher row to SPARQL terms.

A column holds either a node (an IRI or a blank node: the Cypher value is the IRI, or ``_:`` and the node's
``bnode`` key, so that ``DISTINCT`` and ``ORDER BY`` on the string act on the term) or a property value (read
back with :meth:`hybridkg.bridge.base.Mapping.to_literal`). ``None`` is an unbound variable.
"""

from __future__ import annotations

from collections.abc import Mapping as RowMapping
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from hybridkg.bridge.base import Mapping, Value
from hybridkg.errors import InvalidInput

Term = NamedNode | BlankNode | Literal

#: The prefix that marks a blank node in a node column (no IRI starts with it: an IRI's scheme starts with a letter).
BNODE_PREFIX = "_:"


class Sort(StrEnum):
    """What a SPARQL variable is bound to in the property graph."""

    NODE = "node"  # an IRI or a blank node: a :Resource node
    VALUE = "value"  # a literal: a property value
    TERM = "term"  # any term (what a variable predicate binds): a tagged list, see :func:`term_list`


class Kind(StrEnum):
    SELECT = "select"
    ASK = "ask"
    CONSTRUCT = "construct"


@dataclass(frozen=True)
class TemplateTerm:
    """One position of a CONSTRUCT template: a variable (``var``), a blank node label (``bnode``, fresh per row)
    or a constant term (``term``)."""

    var: str | None = None
    bnode: str | None = None
    term: Term | None = None


@dataclass(frozen=True)
class CypherQuery:
    """A Cypher statement for the mapped property graph and what its rows mean.

    ``columns`` are the SPARQL variables in projection order (each the name of a Cypher result column; a row may
    hold further columns, such as ordering keys, to ignore); ``sorts`` says for each whether it holds nodes or
    property values. ``params`` carries every IRI and literal of the query. An ASK query has no columns: it
    holds iff the statement returns a row. A CONSTRUCT query selects the template's variables; :meth:`triples`
    instantiates the template."""

    text: str
    params: dict[str, Any]
    columns: tuple[str, ...]
    sorts: tuple[Sort, ...]
    kind: Kind = Kind.SELECT
    template: tuple[tuple[TemplateTerm, TemplateTerm, TemplateTerm], ...] = field(default=())

    def terms(self, row: RowMapping[str, Any], mapping: Mapping) -> tuple[Term | None, ...]:
        """The SPARQL terms of one Cypher result row, in column order (``None``: unbound)."""
        return tuple(_term(row.get(c), s, mapping) for c, s in zip(self.columns, self.sorts, strict=True))

    def solutions(self, rows: Sequence[RowMapping[str, Any]], mapping: Mapping) -> list[tuple[Term | None, ...]]:
        return [self.terms(r, mapping) for r in rows]

    def triples(self, rows: Sequence[RowMapping[str, Any]], mapping: Mapping) -> list[Triple]:
        """The CONSTRUCT template instantiated on each row; a triple with an unbound or ill-placed term is left
        out (SPARQL 1.1 §16.2)."""
        out: list[Triple] = []
        for i, row in enumerate(rows):
            binding = dict(zip(self.columns, self.terms(row, mapping), strict=True))
            for s, p, o in self.template:
                ts, tp, to = (_instantiate(t, binding, i) for t in (s, p, o))
                if isinstance(ts, NamedNode | BlankNode) and isinstance(tp, NamedNode) and to is not None:
                    out.append(Triple(ts, tp, to))
        return out


def _instantiate(t: TemplateTerm, binding: dict[str, Term | None], row: int) -> Term | None:
    if t.var is not None:
        return binding.get(t.var)
    if t.bnode is not None:
        return BlankNode(f"c{row}x{t.bnode}")
    return t.term


#: The tags of a :data:`Sort.TERM` value: ``['i', iri]``, ``['b', blank node key]``, ``['l', typeOf(value), value]``
#: (the type keeps ``1`` and ``1.0`` apart in Cypher's list equality and DISTINCT; only a literal's list has a third
#: item, so ``x[2]`` is its value, and null for an IRI or blank node).
IRI_TAG, BNODE_TAG, LITERAL_TAG = "i", "b", "l"


def _any_term(value: Any, mapping: Mapping) -> Term:
    if isinstance(value, list) and len(value) == 2 and value[0] == IRI_TAG and isinstance(value[1], str):
        return NamedNode(value[1])
    if isinstance(value, list) and len(value) == 2 and value[0] == BNODE_TAG and isinstance(value[1], str):
        return BlankNode(value[1])
    if isinstance(value, list) and len(value) == 3 and value[0] == LITERAL_TAG and isinstance(value[2], Value):
        return mapping.to_literal(value[2])
    raise InvalidInput(f"a term column holds {value!r}, not a tagged term")


def _term(value: Any, sort: Sort, mapping: Mapping) -> Term | None:
    if value is None:
        return None
    if sort is Sort.TERM:
        return _any_term(value, mapping)
    if sort is Sort.NODE:
        if not isinstance(value, str):
            raise InvalidInput(f"a node column holds {type(value).__name__}, not a string")
        if value.startswith(BNODE_PREFIX):
            return BlankNode(value[len(BNODE_PREFIX) :])
        return NamedNode(value)
    if not isinstance(value, str | int | float | bool):
        raise InvalidInput(f"a value column holds {type(value).__name__}, not a property value")
    return mapping.to_literal(value)
