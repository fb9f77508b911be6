"""Schema-level entailments that normalisation keeps out of the store but explanations still use.

Normalisation (see :mod:`hybridkg.semantic.reasoning.normalize`) drops the reflexive and trivial
schema triples every OWL 2 RL engine derives (scm-cls: ``C rdfs:subClassOf C``, ``C
owl:equivalentClass C``, ``C rdfs:subClassOf owl:Thing``, ``owl:Nothing rdfs:subClassOf C``;
scm-op/scm-dp: ``p rdfs:subPropertyOf p``, ``p owl:equivalentProperty p``) and the axiomatic
cls-thing / cls-nothing1 triples. They are still entailed, and proofs need them (``x rdf:type
owl:Thing`` is cax-sco over ``C rdfs:subClassOf owl:Thing``), so :class:`VirtualSchemaView` puts
them back, computed on demand from the class and property declarations of the wrapped view.
"""

from __future__ import annotations

from collections.abc import Iterator

from pyoxigraph import NamedNode, Triple

from hybridkg.semantic.base import GraphView, Object, Subject
from hybridkg.semantic.vocab import (
    CLASS as OWL_CLASS,
)
from hybridkg.semantic.vocab import (
    DATATYPE_PROPERTY,
    EQ_CLASS,
    NOTHING,
    OBJECT_PROPERTY,
    SUBCLASS,
    SUBPROPERTY,
    THING,
    TYPE,
)
from hybridkg.semantic.vocab import (
    EQ_PROPERTY as EQ_PROPERTY,
)

PROPERTY_KINDS = (OBJECT_PROPERTY, DATATYPE_PROPERTY)
AXIOMS = frozenset({Triple(THING, TYPE, OWL_CLASS), Triple(NOTHING, TYPE, OWL_CLASS)})
_VIRTUAL_PREDICATES = frozenset({TYPE, SUBCLASS, SUBPROPERTY, EQ_CLASS, EQ_PROPERTY})


class VirtualSchemaView:
    """A GraphView that also answers the schema triples normalisation leaves out."""

    def __init__(self, view: GraphView) -> None:
        self._view = view

    def is_asserted(self, triple: Triple) -> bool:
        return self._view.is_asserted(triple)

    def holds(self, triple: Triple) -> bool:
        return self._view.holds(triple) or self._is_virtual(triple)

    def match(
        self, subject: Subject | None, predicate: NamedNode | None, object: Object | None  # noqa: A002
    ) -> Iterator[Triple]:
        seen: set[Triple] = set()
        for t in self._view.match(subject, predicate, object):
            seen.add(t)
            yield t
        if predicate is not None and predicate not in _VIRTUAL_PREDICATES:
            return
        for t in self._virtual_candidates(subject, predicate, object):
            if t not in seen and _fits(t, subject, predicate, object) and self._is_virtual(t):
                seen.add(t)
                yield t

    # ------------------------------------------------------------------ internals
    def _is_class(self, term: object) -> bool:
        return isinstance(term, NamedNode) and (
            term in (THING, NOTHING) or self._view.holds(Triple(term, TYPE, OWL_CLASS))
        )

    def _is_property(self, term: object) -> bool:
        return isinstance(term, NamedNode) and any(
            self._view.holds(Triple(term, TYPE, kind)) for kind in PROPERTY_KINDS
        )

    def _is_virtual(self, t: Triple) -> bool:
        if t in AXIOMS:
            return True
        s, p, o = t.subject, t.predicate, t.object
        if p in (SUBCLASS, EQ_CLASS) and s == o:
            return self._is_class(s)
        if p == SUBCLASS and o == THING:
            return self._is_class(s)
        if p == SUBCLASS and s == NOTHING:
            return self._is_class(o)
        if p in (SUBPROPERTY, EQ_PROPERTY) and s == o:
            return self._is_property(s)
        return False

    def _classes(self) -> Iterator[NamedNode]:
        yield THING
        yield NOTHING
        for t in self._view.match(None, TYPE, OWL_CLASS):
            if isinstance(t.subject, NamedNode):
                yield t.subject

    def _virtual_candidates(
        self, s: Subject | None, p: NamedNode | None, o: Object | None
    ) -> Iterator[Triple]:
        if p in (None, TYPE):
            yield from AXIOMS
        if s is not None or o is not None:
            for term in {x for x in (s, o) if isinstance(x, NamedNode)}:
                yield Triple(term, SUBCLASS, term)
                yield Triple(term, EQ_CLASS, term)
                yield Triple(term, SUBCLASS, THING)
                yield Triple(NOTHING, SUBCLASS, term)
                yield Triple(term, SUBPROPERTY, term)
                yield Triple(term, EQ_PROPERTY, term)
            if s == NOTHING or o == THING:
                for c in self._classes():
                    yield Triple(c, SUBCLASS, THING)
                    yield Triple(NOTHING, SUBCLASS, c)
            return
        if p in (None, SUBCLASS, EQ_CLASS):
            for c in self._classes():
                yield Triple(c, SUBCLASS, c)
                yield Triple(c, EQ_CLASS, c)
                yield Triple(c, SUBCLASS, THING)
                yield Triple(NOTHING, SUBCLASS, c)
        if p in (None, SUBPROPERTY, EQ_PROPERTY):
            for kind in PROPERTY_KINDS:
                for t in self._view.match(None, TYPE, kind):
                    if isinstance(t.subject, NamedNode):
                        yield Triple(t.subject, SUBPROPERTY, t.subject)
                        yield Triple(t.subject, EQ_PROPERTY, t.subject)


def _fits(t: Triple, s: Subject | None, p: NamedNode | None, o: Object | None) -> bool:
    return (s is None or t.subject == s) and (p is None or t.predicate == p) and (o is None or t.object == o)
