"""SHACL Core validation with pySHACL, the reference engine (https://www.w3.org/TR/shacl/)."""

from __future__ import annotations

import re
from collections.abc import Iterable

import rdflib
from pyoxigraph import Literal, NamedNode, Triple

from hybridkg.errors import InvalidInput
from hybridkg.semantic.base import ValidationReport
from hybridkg.semantic.convert import to_rdflib_graph
from hybridkg.semantic.validation.report import report_from_graph


def require_rdf11(triples: Iterable[Triple], what: str) -> None:
    """Raise :class:`InvalidInput` if ``triples`` hold an RDF 1.2 triple term: SHACL 1.0 validates RDF 1.1."""
    for t in triples:
        if isinstance(t.object, Triple):
            raise InvalidInput(f"SHACL validation reads RDF 1.1 graphs; the {what} holds a triple term: {t}")


def _rdflib(triples: Iterable[Triple], what: str, graph: rdflib.Graph | None = None) -> rdflib.Graph:
    triples = list(triples)
    try:
        return to_rdflib_graph(triples, graph, normalize=False)
    except TypeError:  # rdflib has no triple terms
        require_rdf11(triples, what)
        raise


def data_graph(data: Iterable[Triple], ontology: Iterable[Triple] = ()) -> rdflib.Graph:
    """The data graph an engine sees: ``data`` with ``ontology`` mixed in (pySHACL's ont_graph mixin)."""
    return _rdflib(ontology, "ontology", _rdflib(data, "data"))


_UNIQUE_LANG = NamedNode("http://www.w3.org/ns/shacl#uniqueLang")
_TRUE = Literal("true", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#boolean"))


def shapes_graph(shapes: Iterable[Triple]) -> rdflib.Graph:
    """The shapes graph an engine sees.

    ``sh:uniqueLang`` is dropped unless its value is exactly ``true`` (SHACL 4.4.4 activates it
    for ``true`` only; the W3C test ``property/uniqueLang-002`` checks that ``"1"^^xsd:boolean``
    does not, and both engines treat it as ``true``).
    """
    return _rdflib((t for t in shapes if t.predicate != _UNIQUE_LANG or t.object == _TRUE), "shapes graph")


class PyShaclValidator:
    """The reference validator: slow, but the behaviour every other engine is measured against."""

    name = "pyshacl"

    def validate(
        self,
        data: Iterable[Triple],
        shapes: Iterable[Triple],
        ontology: Iterable[Triple] = (),
    ) -> ValidationReport:
        return self.validate_graphs(data_graph(data, ontology), shapes_graph(shapes))

    def validate_graphs(self, data: rdflib.Graph, shapes: rdflib.Graph) -> ValidationReport:
        """Validate prebuilt rdflib graphs (see :func:`data_graph` and :func:`shapes_graph`)."""
        import pyshacl
        from pyshacl.errors import ConstraintLoadError, ReportableRuntimeError, ShapeLoadError

        try:
            _, report, _ = pyshacl.validate(
                data, shacl_graph=shapes, inference="none", advanced=False, allow_warnings=False
            )
        except (ShapeLoadError, ConstraintLoadError, re.error) as e:
            raise InvalidInput(f"invalid SHACL shapes graph: {e}") from e
        except ReportableRuntimeError as e:
            raise InvalidInput(f"pySHACL could not validate this data: {e}") from e
        except Exception as e:  # pySHACL raises bare errors on some inputs (a cyclic list, NaN against a decimal)
            raise InvalidInput(f"pySHACL failed on these shapes and data: {type(e).__name__}: {e}") from e
        if not isinstance(report, rdflib.Graph):
            raise InvalidInput(f"pySHACL could not validate: {report}")
        return report_from_graph(report, self.name)
