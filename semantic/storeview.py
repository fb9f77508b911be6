"""A GraphView over a TripleStore: asserted graphs plus the inferred graph."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from pyoxigraph import NamedNode, Triple

from hybridkg.semantic.base import INFERRED_GRAPH, Object, Subject, TripleStore


class StoreGraphView:
    """Read the closure (asserted ∪ inferred) of a store for explanations."""

    def __init__(self, store: TripleStore) -> None:
        self._store = store

    def is_asserted(self, triple: Triple) -> bool:
        return any(
            q.graph_name != INFERRED_GRAPH
            for q in self._store.quads(triple.subject, triple.predicate, triple.object)
        )

    def holds(self, triple: Triple) -> bool:
        return next(iter(self._store.quads(triple.subject, triple.predicate, triple.object)), None) is not None

    def match(
        self, subject: Subject | None, predicate: NamedNode | None, object: Object | None  # noqa: A002
    ) -> Iterator[Triple]:
        seen: set[Triple] = set()
        for q in self._store.quads(subject, predicate, object):
            t = q.triple
            if t not in seen:
                seen.add(t)
                yield t


class Unstored(Protocol):
    """Inferred triples a reasoning session holds but the store does not, matching a pattern (``None``: any)."""

    def __call__(self, subject: Subject | None, predicate: NamedNode | None, object_: Object | None,
                 /) -> list[Triple]: ...


class SessionGraphView(StoreGraphView):
    """The store's closure plus the inferred triples the session keeps out of the store (the duckdb engine's
    ``x rdf:type _:c`` for a restriction ``_:c``, unless ``reasoning.store_blank_node_types``): proofs through a
    restriction need them as premises."""

    def __init__(self, store: TripleStore, unstored: Unstored) -> None:
        super().__init__(store)
        self._unstored = unstored

    def holds(self, triple: Triple) -> bool:
        return super().holds(triple) or bool(self._unstored(triple.subject, triple.predicate, triple.object))

    def match(
        self, subject: Subject | None, predicate: NamedNode | None, object: Object | None  # noqa: A002
    ) -> Iterator[Triple]:
        seen: set[Triple] = set()
        for t in super().match(subject, predicate, object):
            seen.add(t)
            yield t
        for t in self._unstored(subject, predicate, object):
            if t not in seen:
                seen.add(t)
                yield t
