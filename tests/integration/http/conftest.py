"""A real HTTP front end (uvicorn on 127.0.0.1, port 0) over a Runtime on an in-memory store with the demo
clinical and CRM domains, served from an event loop on a background thread."""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from hybridkg.semantic.settings import StoreBackend
from hybridkg.server.config import Settings
from hybridkg.server.http_api import start_http
from hybridkg.server.runtime import Runtime
from hybridkg.server.settings import ApiKey, Role

KEYS = {Role.READER: "reader-key-123", Role.WRITER: "writer-key-456", Role.ADMIN: "admin-key-789"}
CLINICAL_DATA = "https://hybridkg.dev/graph/clinical/data"
CRM_DATA = "https://hybridkg.dev/graph/crm/data"


class HttpServer:
    """start_http on its own event-loop thread; ``url`` is ``http://127.0.0.1:PORT``."""

    def __init__(self, settings: Settings, address: str = "127.0.0.1:0") -> None:
        self.runtime = Runtime(settings)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="test-http", daemon=True)
        self.thread.start()
        try:
            # loaded on a runtime worker: the reasoner's session may only be used on the thread that made it
            self.run(self.runtime.call(_load_demo, self.runtime, token=self.runtime.token(120)))
            self.server, self.port, self.task = self.run(start_http(self.runtime, address))
        except BaseException:
            self.close()
            raise
        scheme = "https" if settings.server.tls.enabled else "http"
        self.url = f"{scheme}://127.0.0.1:{self.port}"

    def run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=60)

    def close(self) -> None:
        server = getattr(self, "server", None)
        if server is not None:
            server.should_exit = True
            self.run(asyncio.wait_for(asyncio.shield(self.task), 30))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=30)
        self.runtime.close()


def _load_demo(runtime: Runtime) -> None:
    for domain in ("clinical", "crm"):
        runtime.kb.ensure_domain(domain, with_demo_data=True)


def memory_settings(**server: Any) -> Settings:
    settings = Settings()
    settings.store.backend = StoreBackend.MEMORY
    for key, value in server.items():
        setattr(settings.server, key, value)
    return settings


def keyed_settings() -> Settings:
    settings = memory_settings()
    settings.server.auth.keys = [
        ApiKey(name=role.value, sha256=hashlib.sha256(key.encode()).hexdigest(), role=role)
        for role, key in KEYS.items()
    ]
    return settings


@pytest.fixture
def make_server() -> Iterator[Callable[..., HttpServer]]:
    """Start a server on given settings; every one started is stopped after the test."""
    started: list[HttpServer] = []

    def make(settings: Settings | None = None, *, keyed: bool = False, address: str = "127.0.0.1:0",
             **server_fields: Any) -> HttpServer:
        """``keyed``: API keys for the roles in KEYS; ``server_fields``: ServerConfig fields to set."""
        if settings is None:
            settings = keyed_settings() if keyed else memory_settings()
            for key, value in server_fields.items():
                setattr(settings.server, key, value)
        server = HttpServer(settings, address)
        started.append(server)
        return server

    yield make
    for server in reversed(started):
        server.close()


@pytest.fixture
def new_settings() -> Callable[[], Settings]:
    """Settings for an in-memory store, to adjust before ``make_server(settings)``."""
    return memory_settings


@pytest.fixture
def keys() -> dict[Role, str]:
    return dict(KEYS)


@pytest.fixture(scope="module")
def shared() -> Iterator[HttpServer]:
    """One server per module for tests that only read."""
    server = HttpServer(memory_settings())
    yield server
    server.close()


@pytest.fixture
def fresh(make_server: Callable[..., HttpServer]) -> HttpServer:
    """A server of its own, for tests that write. One worker: the reasoner ("reasonable") keeps its session on
    the thread that created it and panics when another thread writes (reported; Runtime needs one writer
    thread)."""
    return make_server(workers=1)
