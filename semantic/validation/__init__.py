"""SHACL validators: pySHACL, pyshacl-turbo and ``auto`` (turbo where it agrees with pySHACL)."""

from hybridkg.semantic.validation.factory import make_validator

__all__ = ["make_validator"]
