"""Helpers of the gRPC integration tests: a real ``grpc.aio`` server on 127.0.0.1 port 0, on its own
event-loop thread, over a Runtime built on the in-memory store with the clinical and crm demo domains
loaded; clients are the generated stub and ``hybridkg.client.Client``.
"""

from __future__ import annotations

import asyncio
import hashlib
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc

from hybridkg.proto.hybridkg.v1 import knowledge_pb2_grpc as pb_grpc
from hybridkg.semantic.settings import StoreBackend
from hybridkg.server.config import Settings
from hybridkg.server.runtime import Runtime
from hybridkg.server.settings import ApiKey, Role
from hybridkg.structural.settings import EmbedderKind, GraphBackend, VectorBackend

#: Rows per Cypher/Sparql message on the bridge fixture's server (small, so results span several messages).
BRIDGE_BATCH_ROWS = 4
KEYS = {Role.READER: "reader-key-0123456789", Role.WRITER: "writer-key-0123456789", Role.ADMIN: "admin-key-0123456789"}


def settings_for(tmp: Path, *, keys: bool = True) -> Settings:
    s = Settings()
    s.store.backend = StoreBackend.MEMORY
    s.structural.path = tmp / "structural"
    s.structural.graph.backend = GraphBackend.MEMORY
    s.structural.embedder.kind = EmbedderKind.HASH
    s.structural.vectors.backend = VectorBackend.EXACT
    if keys:
        s.server.auth.keys = [
            ApiKey(name=f"{role.value}-test", sha256=hashlib.sha256(key.encode()).hexdigest(), role=role)
            for role, key in KEYS.items()
        ]
    return s


def demo_runtime(settings: Settings) -> Runtime:
    runtime = Runtime(settings)
    for name in ("clinical", "crm"):
        runtime.kb.ensure_domain(name, with_demo_data=True)
    return runtime


class LoopThread:
    """An asyncio event loop on a daemon thread, for servers under test."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="grpc-test-loop", daemon=True)
        self.thread.start()

    def run(self, coro: Any, timeout: float = 60) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@dataclass
class Server:
    runtime: Runtime
    target: str
    server: grpc.aio.Server

    def channel(self, **options: Any) -> grpc.Channel:
        return grpc.insecure_channel(self.target, options=list(options.items()))

    def stub(self, channel: grpc.Channel) -> pb_grpc.KnowledgeServiceStub:
        return pb_grpc.KnowledgeServiceStub(channel)


def auth(role: Role) -> tuple[tuple[str, str]]:
    return (("authorization", f"Bearer {KEYS[role]}"),)


@dataclass(frozen=True)
class Pki:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)
