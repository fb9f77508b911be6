"""Build a :class:`~hybridkg.semantic.base.ShapeValidator` from its configured name."""

from __future__ import annotations

from enum import StrEnum

from ...errors import InvalidInput
from ..base import ShapeValidator


class ValidatorEngine(StrEnum):
    """The SHACL engines hybridkg ships; ``auto`` is turbo with a pySHACL fallback."""

    AUTO = "auto"
    PYSHACL = "pyshacl"
    TURBO = "turbo"


def make_validator(name: str = ValidatorEngine.AUTO) -> ShapeValidator:
    """The validator called ``name``; raises ``InvalidInput`` naming the accepted names otherwise."""
    try:
        engine = ValidatorEngine(name)
    except ValueError as e:
        accepted = ", ".join(e.value for e in ValidatorEngine)
        raise InvalidInput(f"unknown SHACL validator {name!r}; accepted: {accepted}") from e
    match engine:
        case ValidatorEngine.AUTO:
            from .turbo_validator import AutoValidator

            return AutoValidator()
        case ValidatorEngine.PYSHACL:
            from .pyshacl_validator import PyShaclValidator

            return PyShaclValidator()
        case ValidatorEngine.TURBO:
            from .turbo_validator import TurboValidator

            return TurboValidator()
