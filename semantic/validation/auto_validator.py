"""The ``auto`` SHACL validator: pyshacl-turbo where it agrees with pySHACL, pySHACL for the rest.

``routing.route`` splits the shapes graph into units (a shape with everything it references); units
that use a feature where turbo was measured to disagree with pySHACL (``docs/shacl.md``) go to
pySHACL, the rest to turbo, and the two reports are merged. Every unit sent to pySHACL is logged at
INFO with its shapes and the reason.

If turbo raises, pySHACL validates the whole shapes graph instead and the turbo error is logged at
WARNING: pySHACL is the reference, so a shapes graph that only turbo rejects still gets a report, and
one that pySHACL rejects raises :class:`~hybridkg.errors.InvalidInput` with pySHACL's message.
Errors from pySHACL propagate. Spec: https://www.w3.org/TR/shacl/.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from itertools import chain
from typing import TYPE_CHECKING

from pyoxigraph import NamedNode, Triple

from hybridkg.errors import InvalidInput
from hybridkg.semantic.base import ValidationReport
from hybridkg.semantic.validation.routing import TURBO_UNRELIABLE, route

if TYPE_CHECKING:
    from hybridkg.semantic.validation.pyshacl_validator import PyShaclValidator
    from hybridkg.semantic.validation.turbo_validator import TurboValidator

_log = logging.getLogger(__name__)


class AutoValidator:
    """turbo where it agrees with pySHACL, pySHACL for the rest; ``engine`` says which ran.

    ``report.engine`` is ``auto:turbo``, ``auto:pyshacl`` or, when the shapes were split,
    ``auto:turbo+pyshacl``. ``unreliable`` adds constraint parameters that always go to pySHACL.
    """

    name = "auto"

    def __init__(self, unreliable: frozenset[NamedNode] = TURBO_UNRELIABLE) -> None:
        self._unreliable = unreliable
        self._engines: tuple[TurboValidator, PyShaclValidator] | None = None

    @property
    def _turbo(self) -> TurboValidator:
        return self._both()[0]

    @property
    def _reference(self) -> PyShaclValidator:
        return self._both()[1]

    def _both(self) -> tuple[TurboValidator, PyShaclValidator]:
        """The two validators, made on first use: they import rdflib (0.05 s), which a process that never
        validates (``hybridkg load`` of a file outside any domain) does without."""
        if self._engines is None:
            from hybridkg.semantic.validation.pyshacl_validator import PyShaclValidator
            from hybridkg.semantic.validation.turbo_validator import TurboValidator

            self._engines = (TurboValidator(), PyShaclValidator())
        return self._engines

    def validate(
        self,
        data: Iterable[Triple],
        shapes: Iterable[Triple],
        ontology: Iterable[Triple] = (),
    ) -> ValidationReport:
        data, shapes, ontology = list(data), list(shapes), list(ontology)
        routing = route(shapes, chain(data, ontology), self._unreliable)
        for reason in routing.reasons:
            _log.info("auto: pySHACL validates %s", reason)
        if not routing.turbo and routing.pyshacl:
            return self._report("pyshacl", self._reference.validate(data, routing.pyshacl, ontology))
        try:
            turbo = self._turbo.validate(data, routing.turbo, ontology)
        except InvalidInput as e:
            _log.warning("auto: pyshacl-turbo failed (%s); pySHACL validates the whole shapes graph", e)
            return self._report("pyshacl", self._reference.validate(data, shapes, ontology))
        if not routing.pyshacl:
            return self._report("turbo", turbo)
        from hybridkg.semantic.validation.report import sorted_results

        reference = self._reference.validate(data, routing.pyshacl, ontology)
        return ValidationReport(
            conforms=turbo.conforms and reference.conforms,
            results=sorted_results((*turbo.results, *reference.results)),
            engine=f"{self.name}:turbo+pyshacl",
        )

    def _report(self, engine: str, report: ValidationReport) -> ValidationReport:
        return ValidationReport(report.conforms, report.results, f"{self.name}:{engine}")
