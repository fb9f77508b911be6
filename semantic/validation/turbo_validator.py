"""SHACL Core validation with pyshacl-turbo (a Rust engine), and the ``auto`` fast path.

``auto`` runs turbo unless the shapes graph uses a feature where turbo was measured to disagree
with pySHACL on the W3C SHACL Core suite (see ``docs/shacl.md``), or turbo raises; then it runs
pySHACL. Spec: https://www.w3.org/TR/shacl/.
"""

from __future__ import annotations

from collections.abc import Iterable

import rdflib
from pyoxigraph import Literal, NamedNode, Quad, Store, Triple

from hybridkg.errors import InvalidInput
from hybridkg.semantic.base import ValidationReport
from hybridkg.semantic.convert import to_rdflib_graph
from hybridkg.semantic.validation.pyshacl_validator import PyShaclValidator, shapes_graph
from hybridkg.semantic.validation.report import report_from_graph

_SH = "http://www.w3.org/ns/shacl#"

#: Shapes-graph predicates for which turbo's results differ from pySHACL's on the W3C suite.
TURBO_UNRELIABLE: frozenset[NamedNode] = frozenset()


def _store(triples: list[Triple]) -> Store | None:
    """An in-memory store holding ``triples``, or None if storing would rewrite a literal.

    pyoxigraph stores some literals in canonical form (``"01"^^xsd:integer`` becomes ``"1"``,
    an out-of-range ``"300"^^xsd:byte`` becomes an ``xsd:integer``); validating that copy would
    check different values from the caller's.
    """
    store = Store()  # extend() keeps blank node labels, so report focus nodes match the caller's
    store.extend(Quad(t.subject, t.predicate, t.object) for t in triples)
    given = {t.object for t in triples if isinstance(t.object, Literal)}
    if not given:
        return store
    kept = {q.object for q in store if isinstance(q.object, Literal)}
    return store if given == kept else None


class TurboValidator:
    """pyshacl-turbo: pySHACL-compatible reports from a native engine."""

    name = "turbo"

    def validate(
        self,
        data: Iterable[Triple],
        shapes: Iterable[Triple],
        ontology: Iterable[Triple] = (),
    ) -> ValidationReport:
        triples = [*data, *ontology]
        store = _store(triples)
        graph = store if store is not None else to_rdflib_graph(triples, normalize=False)
        return self.validate_graph(graph, shapes_graph(shapes))

    def validate_graph(self, data: Store | rdflib.Graph, shapes: rdflib.Graph) -> ValidationReport:
        """Validate a pyoxigraph store or rdflib graph (the ontology already in it) against ``shapes``."""
        import pyshacl_turbo
        from pyshacl_turbo.errors import ReportableRuntimeError

        try:
            _, report, _ = pyshacl_turbo.validate(
                data, shacl_graph=shapes, inference="none", advanced=False, allow_warnings=False
            )
        except (ReportableRuntimeError, pyshacl_turbo.ValidationFailure, ValueError) as e:
            raise InvalidInput(f"invalid SHACL shapes graph: {e}") from e
        if not isinstance(report, rdflib.Graph):
            raise InvalidInput(f"pyshacl-turbo could not validate: {report}")
        return report_from_graph(report, self.name)


def uses_unreliable_features(shapes: Iterable[Triple]) -> bool:
    """True if a shapes graph uses a feature turbo is known to get wrong (see ``TURBO_UNRELIABLE``)."""
    return any(t.predicate in TURBO_UNRELIABLE for t in shapes)


class AutoValidator:
    """turbo where it agrees with pySHACL, pySHACL for the rest (and whenever turbo fails)."""

    name = "auto"

    def __init__(self) -> None:
        self._turbo = TurboValidator()
        self._reference = PyShaclValidator()

    def validate(
        self,
        data: Iterable[Triple],
        shapes: Iterable[Triple],
        ontology: Iterable[Triple] = (),
    ) -> ValidationReport:
        data, shapes, ontology = list(data), list(shapes), list(ontology)
        if not uses_unreliable_features(shapes):
            try:
                report = self._turbo.validate(data, shapes, ontology)
            except Exception:  # noqa: BLE001 - any turbo failure means: ask the reference engine
                pass
            else:
                return ValidationReport(report.conforms, report.results, f"{self.name}:turbo")
        report = self._reference.validate(data, shapes, ontology)
        return ValidationReport(report.conforms, report.results, f"{self.name}:pyshacl")
