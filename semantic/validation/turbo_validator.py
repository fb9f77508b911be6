"""SHACL Core validation with pyshacl-turbo, a native engine with pySHACL's ``validate()``.

Spec: https://www.w3.org/TR/shacl/. The ``auto`` validator (``auto_validator.py``) runs this engine
wherever the audit found it agreeing with pySHACL.
"""

from __future__ import annotations

from collections.abc import Iterable

import rdflib
from pyoxigraph import Literal, Quad, Store, Triple

from hybridkg.errors import InvalidInput
from hybridkg.semantic.base import ValidationReport
from hybridkg.semantic.convert import to_rdflib_graph
from hybridkg.semantic.validation.pyshacl_validator import require_rdf11, shapes_graph
from hybridkg.semantic.validation.report import report_from_graph


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
        try:
            graph = store if store is not None else to_rdflib_graph(triples, normalize=False)
            return self.validate_graph(graph, shapes_graph(shapes))
        except (InvalidInput, TypeError):
            require_rdf11(triples, "data")  # a clearer message when an RDF 1.2 triple term is the cause
            raise

    def validate_graph(self, data: Store | rdflib.Graph, shapes: rdflib.Graph) -> ValidationReport:
        """Validate a pyoxigraph store or rdflib graph (the ontology already in it) against ``shapes``."""
        import pyshacl_turbo
        from pyshacl_turbo.errors import ReportableRuntimeError

        try:
            _, report, _ = pyshacl_turbo.validate(
                data, shacl_graph=shapes, inference="none", advanced=False, allow_warnings=False
            )
        except (ReportableRuntimeError, pyshacl_turbo.ValidationFailure) as e:
            raise InvalidInput(f"invalid SHACL shapes graph: {e}") from e
        except Exception as e:  # the native engine also raises bare ValueError, RuntimeError, ...
            raise InvalidInput(f"pyshacl-turbo failed on these shapes and data: {type(e).__name__}: {e}") from e
        if not isinstance(report, rdflib.Graph):
            raise InvalidInput(f"pyshacl-turbo could not validate: {report}")
        return report_from_graph(report, self.name)
