"""Build a :class:`~hybridkg.semantic.base.ShapeValidator` from its settings section."""

from __future__ import annotations

from typing import assert_never

from hybridkg.semantic.base import ShapeValidator
from hybridkg.semantic.settings import ValidationConfig, ValidatorEngine


def make_validator(config: ValidationConfig) -> ShapeValidator:
    """The validator ``config.engine`` names: ``auto`` (default), ``pyshacl`` or ``turbo``."""
    match config.engine:
        case ValidatorEngine.AUTO:
            from hybridkg.semantic.validation.auto_validator import AutoValidator

            return AutoValidator()
        case ValidatorEngine.PYSHACL:
            from hybridkg.semantic.validation.pyshacl_validator import PyShaclValidator

            return PyShaclValidator()
        case ValidatorEngine.TURBO:
            from hybridkg.semantic.validation.turbo_validator import TurboValidator

            return TurboValidator()
        case _:
            assert_never(config.engine)
