"""An in-memory :class:`~hybridkg.semantic.base.GraphView`: an asserted set and its inferred set,
indexed by subject, predicate and object so that every triple pattern is answered by dict lookups."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator

from pyoxigraph import NamedNode, Triple

from hybridkg.semantic.base import Object, Subject

_Index = dict[object, dict[object, set[object]]]


def _nested() -> defaultdict[object, set[object]]:
    return defaultdict(set)


class MemoryGraphView:
    """Asserted ∪ inferred triples held in Python sets, with SPO, POS and OSP indexes."""

    def __init__(self, asserted: Iterable[Triple], inferred: Iterable[Triple] = ()) -> None:
        self._asserted: set[Triple] = set(asserted)
        self._inferred: set[Triple] = set(inferred) - self._asserted
        spo: defaultdict[object, defaultdict[object, set[object]]] = defaultdict(_nested)
        pos: defaultdict[object, defaultdict[object, set[object]]] = defaultdict(_nested)
        osp: defaultdict[object, defaultdict[object, set[object]]] = defaultdict(_nested)
        for triples in (self._asserted, self._inferred):
            for t in triples:
                s, p, o = t.subject, t.predicate, t.object
                spo[s][p].add(o)
                pos[p][o].add(s)
                osp[o][s].add(p)
        self._spo: _Index = {k: dict(v) for k, v in spo.items()}
        self._pos: _Index = {k: dict(v) for k, v in pos.items()}
        self._osp: _Index = {k: dict(v) for k, v in osp.items()}

    def __len__(self) -> int:
        return len(self._asserted) + len(self._inferred)

    @property
    def asserted(self) -> frozenset[Triple]:
        return frozenset(self._asserted)

    @property
    def inferred(self) -> frozenset[Triple]:
        return frozenset(self._inferred)

    def is_asserted(self, triple: Triple) -> bool:
        return triple in self._asserted

    def holds(self, triple: Triple) -> bool:
        return triple in self._asserted or triple in self._inferred

    def match(
        self,
        subject: Subject | None,
        predicate: NamedNode | None,
        object: Object | None,  # noqa: A002 - RDF vocabulary
    ) -> Iterator[Triple]:
        s, p, o = subject, predicate, object
        if s is not None and p is not None and o is not None:
            t = Triple(s, p, o)
            if self.holds(t):
                yield t
            return
        if s is not None:
            by_p = self._spo.get(s)
            if not by_p:
                return
            if p is not None:
                for o2 in by_p.get(p, ()):
                    yield Triple(s, p, o2)  # type: ignore[arg-type]
            elif o is not None:
                for p2 in self._osp.get(o, {}).get(s, ()):
                    yield Triple(s, p2, o)  # type: ignore[arg-type]
            else:
                for p2, objects in by_p.items():
                    for o2 in objects:
                        yield Triple(s, p2, o2)  # type: ignore[arg-type]
            return
        if p is not None:
            by_o = self._pos.get(p)
            if not by_o:
                return
            if o is not None:
                for s2 in by_o.get(o, ()):
                    yield Triple(s2, p, o)  # type: ignore[arg-type]
            else:
                for o2, subjects in by_o.items():
                    for s2 in subjects:
                        yield Triple(s2, p, o2)  # type: ignore[arg-type]
            return
        if o is not None:
            for s2, predicates in self._osp.get(o, {}).items():
                for p2 in predicates:
                    yield Triple(s2, p2, o)  # type: ignore[arg-type]
            return
        yield from self._asserted
        yield from self._inferred
