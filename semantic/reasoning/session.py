"""Incremental reasoning sessions: the inferred set kept up to date as asserted triples change.

:class:`RecomputingSession` works for any :class:`~hybridkg.semantic.base.Reasoner` by
re-materialising and diffing. :class:`ReasonableSession` keeps a ``reasonable`` reasoner alive:
additions reason incrementally; removals re-materialise from the new asserted set, so every
inference that only the removed triples supported is retracted and every other one stays.
Either way the inferred set is the closure minus the asserted set: a triple that becomes asserted
leaves it, and a removed asserted triple that is still entailed joins it.
"""

from __future__ import annotations

from collections.abc import Iterable

from pyoxigraph import Triple

from hybridkg.semantic.base import InferenceDelta, Reasoner
from hybridkg.semantic.perf import gc_paused
from hybridkg.semantic.reasoning.reasonable_engine import ReasonableClosure


def _delta(before: frozenset[Triple], after: frozenset[Triple]) -> InferenceDelta:
    return InferenceDelta(added=after - before, removed=before - after)


def _changes(
    asserted: set[Triple], added: Iterable[Triple], removed: Iterable[Triple]
) -> tuple[set[Triple], set[Triple]]:
    """The effective change: removals win over additions of the same triple in one call."""
    gone = set(removed)
    new = set(added) - gone
    return new - asserted, gone & asserted


class RecomputingSession:
    """A session for any reasoner: re-materialise from scratch after every change and diff."""

    def __init__(self, reasoner: Reasoner, triples: Iterable[Triple]) -> None:
        self._reasoner = reasoner
        self._asserted = set(triples)
        self._inferred = frozenset(reasoner.materialize(self._asserted))

    def close(self) -> None:
        """Nothing to free: every materialisation releases its engine as it ends."""

    @property
    def inferred(self) -> frozenset[Triple]:
        return self._inferred

    def apply(self, added: Iterable[Triple] = (), removed: Iterable[Triple] = ()) -> InferenceDelta:
        new, gone = _changes(self._asserted, added, removed)
        if not new and not gone:
            return InferenceDelta()
        self._asserted = (self._asserted - gone) | new
        before = self._inferred
        self._inferred = frozenset(self._reasoner.materialize(self._asserted))
        return _delta(before, self._inferred)


class ReasonableSession:
    """A session over a live ``reasonable`` reasoner (incremental on additions)."""

    def __init__(self, triples: Iterable[Triple]) -> None:
        with gc_paused():
            self._closure = ReasonableClosure(triples)
            self._inferred = frozenset(self._closure.inferred())

    def close(self) -> None:
        """Free the live engine now, on this thread (it is thread-bound; the kb calls this on its writer)."""
        self._closure.close()

    @property
    def inferred(self) -> frozenset[Triple]:
        return self._inferred

    def apply(self, added: Iterable[Triple] = (), removed: Iterable[Triple] = ()) -> InferenceDelta:
        new, gone = _changes(self._closure.asserted, added, removed)
        if not new and not gone:
            return InferenceDelta()
        with gc_paused():
            if gone:
                self._closure.asserted.difference_update(gone)
                self._closure.asserted.update(new)
                self._closure.rebuild()
            else:
                self._closure.add(new)
            before = self._inferred
            self._inferred = frozenset(self._closure.inferred())
        return _delta(before, self._inferred)
