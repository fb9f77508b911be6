"""The one place that maps hybridkg's errors to gRPC status codes and HTTP statuses.

Both front ends ask :func:`status_of`; anything that is not a :class:`~hybridkg.errors.HybridKGError` is a bug
and maps to INTERNAL / 500 (the front end logs it with its traceback and the request id).
"""

from __future__ import annotations

from dataclasses import dataclass

import grpc

from hybridkg.errors import (
    BackendUnavailable,
    Cancelled,
    DeadlineExceeded,
    HybridKGError,
    InputTooLarge,
    InvalidInput,
    NotFound,
    PermissionDenied,
    ResultTooLarge,
    ShapeViolation,
    Unauthenticated,
    Unsupported,
    UnsupportedFormat,
)


@dataclass(frozen=True)
class Status:
    grpc: grpc.StatusCode
    http: int
    message: str


# most specific first: the first class the error is an instance of decides
_TABLE: tuple[tuple[type[HybridKGError], grpc.StatusCode, int], ...] = (
    (ShapeViolation, grpc.StatusCode.FAILED_PRECONDITION, 422),
    (InputTooLarge, grpc.StatusCode.RESOURCE_EXHAUSTED, 413),
    (ResultTooLarge, grpc.StatusCode.RESOURCE_EXHAUSTED, 400),
    (UnsupportedFormat, grpc.StatusCode.INVALID_ARGUMENT, 415),
    (InvalidInput, grpc.StatusCode.INVALID_ARGUMENT, 400),
    (NotFound, grpc.StatusCode.NOT_FOUND, 404),
    (Unauthenticated, grpc.StatusCode.UNAUTHENTICATED, 401),
    (PermissionDenied, grpc.StatusCode.PERMISSION_DENIED, 403),
    (DeadlineExceeded, grpc.StatusCode.DEADLINE_EXCEEDED, 504),
    (Cancelled, grpc.StatusCode.CANCELLED, 499),
    (Unsupported, grpc.StatusCode.UNIMPLEMENTED, 501),
    (BackendUnavailable, grpc.StatusCode.UNAVAILABLE, 503),
)


def status_of(error: BaseException) -> Status:
    if isinstance(error, HybridKGError):
        for cls, code, http in _TABLE:
            if isinstance(error, cls):
                return Status(code, http, str(error))
        return Status(grpc.StatusCode.INTERNAL, 500, str(error))
    return Status(
        grpc.StatusCode.INTERNAL, 500,
        f"internal error ({type(error).__name__}); this is a bug in hybridkg, the server log has the details",
    )
