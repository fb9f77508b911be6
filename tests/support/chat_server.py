"""A small OpenAI-compatible chat-completions server for tests: canned replies, recorded requests, a real socket.

``with ChatServer([reply, ...]) as server:`` serves ``POST /v1/chat/completions`` on 127.0.0.1 (a free
port) from a thread; each request takes the next canned reply (a string is a 200 completion with that
content) and is recorded with its headers and JSON body. When the replies run out it answers HTTP 500.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Canned:
    """One reply: the assistant ``content`` (HTTP 200), or an HTTP ``status`` with a raw ``body``."""

    content: str | None = None
    status: int = 200
    body: str | None = None
    delay_s: float = 0.0


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, str]]:
        return list(self.body.get("messages") or [])

    @property
    def prompt(self) -> str:
        return "\n".join(str(m.get("content")) for m in self.messages)


def completion(content: str, model: str = "test-model") -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


def closed_port() -> int:
    """A local port nothing listens on (connections to it are refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class ChatServer:
    replies: Iterable[Canned | str] = ()
    requests: list[Received] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._queue: deque[Canned] = deque(self._canned(r) for r in self.replies)
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @staticmethod
    def _canned(reply: Canned | str) -> Canned:
        return Canned(content=reply) if isinstance(reply, str) else reply

    def push(self, *replies: Canned | str) -> None:
        with self._lock:
            self._queue.extend(self._canned(r) for r in replies)

    @property
    def url(self) -> str:
        """The API base URL (what ``structural.extractor.base_url`` takes)."""
        assert self._server is not None, "the server is not running"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def _next(self) -> Canned | None:
        with self._lock:
            return self._queue.popleft() if self._queue else None

    def __enter__(self) -> ChatServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw.decode("utf-8"))
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                owner.requests.append(Received(self.path, dict(self.headers.items()), body))
                reply = owner._next()
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, json.dumps({"error": {"message": f"no route {self.path}"}}))
                elif reply is None:
                    self._send(500, json.dumps({"error": {"message": "no canned reply left"}}))
                else:
                    if reply.delay_s:
                        time.sleep(reply.delay_s)
                    text = reply.body if reply.body is not None else json.dumps(completion(reply.content or ""))
                    self._send(reply.status, text)

            def _send(self, status: int, text: str) -> None:
                data = text.encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                return

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, args=(0.02,), name="chat-server", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
