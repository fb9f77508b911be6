"""Structured logs with a request id per call (text, or one JSON object per line)."""

from __future__ import annotations

import contextvars
import json
import logging
import secrets
import sys
import time

from hybridkg.server.settings import LogFormat

REQUEST_ID: contextvars.ContextVar[str] = contextvars.ContextVar("hybridkg_request_id", default="-")


def new_request_id() -> str:
    return secrets.token_hex(8)


class _RequestId(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = REQUEST_ID.get()
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        out = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "request_id": getattr(record, "request_id", "-"),
            "msg": record.getMessage(),
        }
        for key in ("api", "method", "code", "ms", "caller", "route"):
            if hasattr(record, key):
                out[key] = getattr(record, key)
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


def configure(fmt: LogFormat, level: int = logging.INFO) -> None:
    """Send hybridkg's logs to stderr in the chosen format (called once by ``hybridkg serve``)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(_RequestId())
    if fmt is LogFormat.JSON:
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"))
    root = logging.getLogger("hybridkg")
    root.handlers[:] = [handler]
    root.setLevel(level)
    root.propagate = False
