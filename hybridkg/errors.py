"""The one error hierarchy of hybridkg.

Every layer raises subclasses of :class:`HybridKGError`; exactly one module in ``server/`` maps
them to exit codes, gRPC status codes and HTTP statuses.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "BackendUnavailable",
    "Cancelled",
    "DeadlineExceeded",
    "HybridKGError",
    "InputTooLarge",
    "InvalidInput",
    "InvalidQuery",
    "NotFound",
    "PermissionDenied",
    "ParseError",
    "ResponseTooLarge",
    "ResultTooLarge",
    "ShapeViolation",
    "Unauthenticated",
    "Unsupported",
    "UnsupportedFormat",
]


class HybridKGError(Exception):
    """Root of every error hybridkg raises on purpose."""


class InvalidInput(HybridKGError):
    """The caller's input is malformed, unsupported or too large; nothing was changed."""


class ParseError(InvalidInput):
    """An RDF document could not be parsed; names the format, line and column."""

    def __init__(self, fmt: str, line: int | None, column: int | None, detail: str) -> None:
        self.format = fmt
        self.line = line
        self.column = column
        self.detail = detail
        where = f"line {line}, column {column}" if line is not None else "unknown position"
        super().__init__(f"{fmt} parse error at {where}: {detail}; nothing was stored")


class UnsupportedFormat(InvalidInput):
    """The requested serialisation format is not one hybridkg reads or writes."""


class InputTooLarge(InvalidInput):
    """The input exceeds the configured size limit."""


class InvalidQuery(InvalidInput):
    """A SPARQL query or update is syntactically or semantically invalid."""


class NotFound(HybridKGError):
    """A named thing (graph, domain, file) does not exist."""


class Unsupported(HybridKGError):
    """The operation is valid but not supported by this backend or configuration."""


class BackendUnavailable(HybridKGError):
    """A backing service (remote SPARQL endpoint, graph database) cannot be reached."""


class ResponseTooLarge(BackendUnavailable):
    """A backing service sent more than the configured response limit; nothing was stored."""


class ShapeViolation(HybridKGError):
    """A write into a strict domain violates its SHACL shapes; nothing was stored."""

    def __init__(self, message: str, report: Any) -> None:
        self.report = report
        super().__init__(message)


class ResultTooLarge(HybridKGError):
    """A result exceeds the configured cap (rows or bytes); narrow the query or raise the limit."""


class Unauthenticated(HybridKGError):
    """The request carries no API key, or one the server does not know."""


class PermissionDenied(HybridKGError):
    """The caller's role does not allow the operation."""


class DeadlineExceeded(HybridKGError):
    """The operation ran past its deadline and was stopped; nothing was changed."""


class Cancelled(HybridKGError):
    """The caller cancelled the operation; it was stopped and nothing was changed."""
