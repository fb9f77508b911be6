"""What every HTTP request goes through: a request id, the API key, metrics, one log line, and the mapping of
errors to statuses (:func:`hybridkg.server.status.status_of`). Plus the request helpers the endpoints share
(request parameters, the capped body, the caller).

Endpoints without a key: ``/health``, ``/metrics`` (a scraper has no key; the listener is loopback-only unless
keys are configured, and the metrics hold only counts), ``/`` and ``/static/`` (the YASGUI page; its queries
send the key). Every other path needs ``authorization: Bearer KEY`` when keys are configured.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from hybridkg.errors import InputTooLarge, InvalidInput, ShapeViolation, Unauthenticated
from hybridkg.semantic.base import ChangeSet
from hybridkg.semantic.kb import LoadResult
from hybridkg.server.auth import Caller
from hybridkg.server.logs import REQUEST_ID, new_request_id
from hybridkg.server.runtime import Runtime
from hybridkg.server.status import status_of

log = logging.getLogger("hybridkg.server.http")

#: Paths served without an API key.
PUBLIC_PATHS = frozenset({"/health", "/metrics", "/", "/favicon.ico"})
PUBLIC_PREFIX = "/static/"

#: Paths counted under their own name in the metrics; anything else is "other" (bounded label values).
ENDPOINTS = frozenset({"/sparql", "/update", "/rdf-graphs", "/health", "/metrics", "/"})


def endpoint_label(method: str, path: str) -> str:
    if path in ENDPOINTS:
        name = path
    elif path.startswith(PUBLIC_PREFIX):
        name = "/static"
    else:
        name = "other"
    return f"{method} {name}"


class ServiceMiddleware:
    """Pure ASGI (so streamed responses stay streamed): request id, auth, metrics, log line, error mapping."""

    def __init__(self, app: ASGIApp, runtime: Runtime) -> None:
        self.app = app
        self.runtime = runtime

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = new_request_id()
        reset = REQUEST_ID.set(request_id)
        start = time.perf_counter()
        sent: dict[str, Any] = {"status": 0, "started": False, "bytes": 0}
        caller_name = "-"

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                sent["status"] = message["status"]
                sent["started"] = True
                MutableHeaders(scope=message).append("x-request-id", request_id)
            elif message["type"] == "http.response.body":
                sent["bytes"] += len(message.get("body", b""))
            await send(message)

        path: str = scope["path"]
        try:
            if path not in PUBLIC_PATHS and not path.startswith(PUBLIC_PREFIX):
                header = dict(scope["headers"]).get(b"authorization")
                caller = self.runtime.auth.caller(header.decode("latin-1") if header is not None else None)
                caller_name = caller.name
                scope.setdefault("state", {})["caller"] = caller
            await self.app(scope, receive, send_wrapper)
        except BaseException as raised:  # every error becomes a status here, nowhere else
            if isinstance(raised, asyncio.CancelledError | KeyboardInterrupt | SystemExit):
                raise
            exc = _unwrap(raised)
            status = status_of(exc)
            if sent["started"]:
                # the status line is gone: stop the body short so the client sees a broken transfer
                sent["status"] = status.http
                log.warning("%s %s: response stopped after %d bytes: %s", scope["method"], path, sent["bytes"],
                            status.message, exc_info=status.http == 500)
                return
            if status.http == 500:
                log.error("%s %s failed (request %s)", scope["method"], path, request_id, exc_info=exc)
            headers = dict(scope["headers"])
            await error_response(exc, request_id, headers.get(b"accept", b"").decode("latin-1"))(
                scope, receive, send_wrapper
            )
        finally:
            seconds = time.perf_counter() - start
            code = sent["status"] or 500
            self.runtime.metrics.observe(
                "http", endpoint_label(scope["method"], path), str(code), seconds, ok=code < 400
            )
            log.info("%s %s -> %d (%.1f ms)", scope["method"], path, code, seconds * 1000,
                     extra={"api": "http", "method": scope["method"], "route": path, "code": code,
                            "ms": round(seconds * 1000, 3), "caller": caller_name})
            REQUEST_ID.reset(reset)


def _unwrap(exc: BaseException) -> BaseException:
    """The one error inside the exception groups that task groups (streamed responses) wrap errors in."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc


def error_response(exc: BaseException, request_id: str, accept: str = "") -> Response:
    """The response for an error: a plain-text message, or JSON when asked for (a SHACL rejection is always
    JSON, with its report)."""
    status = status_of(exc)
    headers = {"www-authenticate": "Bearer"} if isinstance(exc, Unauthenticated) else {}
    if isinstance(exc, ShapeViolation) or "application/json" in accept.lower():
        body: dict[str, Any] = {"error": status.message, "status": status.http, "request_id": request_id}
        report = getattr(exc, "report", None)
        if isinstance(exc, ShapeViolation) and report is not None:
            body["report"] = report.to_json()
        return Response(json.dumps(body, ensure_ascii=False), status.http, headers, "application/json")
    return Response(status.message + "\n", status.http, headers, "text/plain; charset=utf-8")


def change_json(change: ChangeSet | LoadResult) -> dict[str, Any]:
    """What a committed write changed, in counts (the JSON body of /update and Graph Store writes)."""
    if isinstance(change, LoadResult):
        added, removed = change.asserted_added, 0
        inferred_added, inferred_removed = change.inferred_added, change.inferred_removed
    else:
        added, removed = len(change.asserted_added), len(change.asserted_removed)
        inferred_added, inferred_removed = len(change.inferred_added), len(change.inferred_removed)
    return {
        "asserted_added": added, "asserted_removed": removed,
        "inferred_added": inferred_added, "inferred_removed": inferred_removed,
        "domain": change.domain, "warnings": [w.to_json() for w in change.warnings],
    }


# --------------------------------------------------------------------------- request helpers


def caller_of(request: Request) -> Caller:
    """The caller the middleware authenticated (public paths have none)."""
    caller = request.scope.get("state", {}).get("caller")
    if not isinstance(caller, Caller):
        raise Unauthenticated("this endpoint needs an API key")
    return caller


def media_type(request: Request) -> str:
    """The request's Content-Type without parameters, lower case ('' when absent)."""
    return request.headers.get("content-type", "").split(";", 1)[0].strip().lower()


async def read_body(request: Request, limit: int) -> bytes:
    """The whole request body, refused (413) past ``limit`` bytes (``server.max_message_bytes``)."""
    too_large = InputTooLarge(
        f"the request body is larger than {limit} bytes (server.max_message_bytes); "
        "send less, or load big files with `hybridkg load`"
    )
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise too_large
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large
        chunks.append(chunk)
    return b"".join(chunks)


def decode_utf8(body: bytes, what: str) -> str:
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InvalidInput(f"the {what} is not UTF-8 text: {e}") from e


@dataclass
class Params:
    """Request parameters (URL query string, plus a form body), repeatable."""

    items: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def of(cls, request: Request) -> Params:
        return cls(parse_qsl(request.url.query, keep_blank_values=True))

    def add_form(self, body: bytes) -> None:
        self.items.extend(parse_qsl(decode_utf8(body, "form body"), keep_blank_values=True))

    def all(self, name: str) -> list[str]:
        return [v for k, v in self.items if k == name]

    def has(self, name: str) -> bool:
        return any(k == name for k, _ in self.items)

    def one(self, name: str) -> str | None:
        """The parameter's value; None when absent, 400 when given more than once."""
        values = self.all(name)
        if len(values) > 1:
            raise InvalidInput(f"`{name}` was given {len(values)} times; send it once")
        return values[0] if values else None

    def flag(self, name: str, default: bool) -> bool:
        value = self.one(name)
        if value is None or value == "":
            return default
        lowered = value.strip().lower()
        if lowered in ("true", "1", "yes", "on"):
            return True
        if lowered in ("false", "0", "no", "off"):
            return False
        raise InvalidInput(f"`{name}` must be true or false, not {value!r}")


__all__ = [
    "PUBLIC_PATHS", "Params", "ServiceMiddleware", "caller_of", "change_json", "decode_utf8", "endpoint_label",
    "error_response", "media_type", "read_body",
]
