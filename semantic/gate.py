"""The SHACL gate: validate a prospective write against its domain's shapes before commit.

The data validated is the domain's graphs after the write, plus their OWL 2 RL closure, so a
shape such as ``sh:class clin:Drug`` is satisfied by a subclass instance.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property

from pyoxigraph import NamedNode, Quad, RdfFormat, Triple

from hybridkg.semantic.base import Reasoner, Severity, ShapeValidator, TripleStore, ValidationReport, ValidationResult
from hybridkg.semantic.domains import Domain
from hybridkg.semantic.formats import parse_document


class DomainShapes:
    """A domain's shapes, parsed once."""

    def __init__(self, domain: Domain) -> None:
        self.domain = domain

    @cached_property
    def triples(self) -> tuple[Triple, ...]:
        path = self.domain.path_of(self.domain.shapes)
        if path is None:
            return ()
        doc = parse_document(path, RdfFormat.TURTLE, NamedNode("urn:hybridkg:shapes"))
        return tuple(q.triple for q in doc.quads)


def prospective_domain_triples(
    store: TripleStore, domain: Domain, added: Iterable[Quad], removed: Iterable[Quad]
) -> set[Triple]:
    """The triples of the domain's graphs as they would be after the write."""
    graphs = [NamedNode(g) for g in domain.graphs]
    current: set[Quad] = set()
    for g in graphs:
        current.update(store.quads(graph=g))
    current.difference_update(removed)
    triples = {q.triple for q in current}
    triples.update(q.triple for q in added)
    return triples


def check_write(
    *,
    store: TripleStore,
    domain: Domain,
    shapes: DomainShapes,
    reasoner: Reasoner,
    validator: ShapeValidator,
    added: list[Quad],
    removed: list[Quad],
) -> ValidationReport:
    """Validate the domain as it would be after the write; the report decides commit or reject."""
    if not shapes.triples:
        return ValidationReport(conforms=True, engine=validator.name)
    data = prospective_domain_triples(store, domain, added, removed)
    closure = reasoner.materialize(data)
    return validator.validate(data | closure, shapes.triples)


def as_warnings(report: ValidationReport) -> tuple[ValidationResult, ...]:
    """Fuzzy domains keep every result, reported at most as a warning."""
    out = []
    for r in report.results:
        if r.severity == Severity.VIOLATION:
            r = ValidationResult(
                focus=r.focus, path=r.path, constraint=r.constraint, value=r.value,
                severity=Severity.WARNING, message=r.message, source_shape=r.source_shape,
            )
        out.append(r)
    return tuple(out)
