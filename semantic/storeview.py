"""A GraphView over a TripleStore: asserted graphs plus the inferred graph."""

from __future__ import annotations

from collections.abc import Iterator

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
