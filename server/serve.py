"""``hybridkg serve``: the gRPC service and the SPARQL-protocol HTTP endpoint on one event loop, sharing one
:class:`~hybridkg.server.runtime.Runtime` (stores, worker pool, keys, metrics).

Start-up prints ``grpc: HOST:PORT`` and ``http: http://HOST:PORT`` on their own lines once both listeners
accept connections (port 0: the port the OS chose). Then, on a thread of its own, the bridge's property graphs (each
domain's and the whole store's; ``bridge:`` settings) are brought in line with the RDF store and follow every
committed write and retraction from then on (:meth:`~hybridkg.server.runtime.Runtime.start_bridge`): the listeners
answer meanwhile, and this catches up what CLI commands wrote while no service ran. SIGINT/SIGTERM stop it cleanly:
the listeners stop taking calls, in-flight requests get ``server.grace_s`` to finish, then the stores are closed
and managed servers (FalkorDB) stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hybridkg.semantic.domains import DomainPolicy
from hybridkg.semantic.settings import StoreBackend
from hybridkg.server.auth import check_bind
from hybridkg.server.config import Settings
from hybridkg.server.runtime import Runtime
from hybridkg.server.settings import parse_hostport

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Endpoints:
    grpc: str  # HOST:PORT for a gRPC channel
    http: str  # base URL, http(s)://HOST:PORT

    @property
    def sparql(self) -> str:
        return f"{self.http}/sparql"


def _display_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


class Service:
    """Both listeners over one runtime, on the running event loop."""

    def __init__(self, runtime: Runtime, *, bridge: bool = False) -> None:
        self.runtime = runtime
        self.bridge = bridge  # start the bridge's sync once the listeners are up
        self._grpc: Any = None
        self._http: Any = None
        self._http_task: asyncio.Task[Any] | None = None

    async def start(self, grpc_address: str | None = None, http_address: str | None = None) -> Endpoints:
        from hybridkg.server.grpc_api import start_grpc
        from hybridkg.server.http_api import start_http

        cfg = self.runtime.settings.server
        grpc_address = grpc_address or cfg.grpc
        http_address = http_address or cfg.http
        ghost, _ = parse_hostport(grpc_address)
        hhost, _ = parse_hostport(http_address)
        check_bind(ghost, self.runtime.auth, "gRPC")
        check_bind(hhost, self.runtime.auth, "HTTP")
        self._grpc, gport = await start_grpc(self.runtime, grpc_address)
        try:
            self._http, hport, self._http_task = await start_http(self.runtime, http_address)
        except BaseException:
            await self._grpc.stop(0)
            raise
        if self.bridge:
            self.runtime.start_bridge()
        scheme = "https" if cfg.tls.enabled else "http"
        return Endpoints(f"{_display_host(ghost)}:{gport}", f"{scheme}://{_display_host(hhost)}:{hport}")

    async def stop(self, grace: float | None = None) -> None:
        """Stop taking calls, let in-flight ones finish (up to ``grace`` seconds), then stop the listeners."""
        grace = self.runtime.settings.server.grace_s if grace is None else grace
        waits = []
        if self._grpc is not None:
            waits.append(self._grpc.stop(grace))
        if self._http is not None:
            self._http.should_exit = True
            if self._http_task is not None:
                waits.append(asyncio.wait_for(asyncio.shield(self._http_task), grace + 5))
        for result in await asyncio.gather(*waits, return_exceptions=True):
            if isinstance(result, BaseException) and not isinstance(result, asyncio.CancelledError):
                log.warning("listener did not stop cleanly: %s", result)


class BackgroundService:
    """The service on its own event-loop thread: for the demo walk-through, tests and benchmarks.

    ``with BackgroundService(runtime) as svc: svc.endpoints.grpc ...``; leaving the block stops it (the
    runtime is the caller's to close). ``bridge=True`` starts the bridge's sync as ``hybridkg serve`` does.
    """

    def __init__(self, runtime: Runtime, grpc_address: str = "127.0.0.1:0", http_address: str = "127.0.0.1:0", *,
                 bridge: bool = False):
        self.runtime = runtime
        self._addresses = (grpc_address, http_address)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="hybridkg-service", daemon=True)
        self._service = Service(runtime, bridge=bridge)
        self.endpoints: Endpoints

    def __enter__(self) -> BackgroundService:
        self._thread.start()
        try:
            self.endpoints = asyncio.run_coroutine_threadsafe(
                self._service.start(*self._addresses), self._loop
            ).result(timeout=120)
        except BaseException:
            self._shutdown_loop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            asyncio.run_coroutine_threadsafe(self._service.stop(5.0), self._loop).result(timeout=60)
        finally:
            self._shutdown_loop()

    def _shutdown_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        if not self._thread.is_alive():
            self._loop.close()


# ---------------------------------------------------------------------------------------------- demo KB


def demo_documents(policy: DomainPolicy) -> list[tuple[str, Path]]:
    """(domain, file) for every file in each domain's ``demo_documents`` folder."""
    out: list[tuple[str, Path]] = []
    for name, domain in policy.domains.items():
        folder = domain.path_of(domain.demo_documents)
        if folder is not None and folder.is_dir():
            out.extend((name, p) for p in sorted(folder.iterdir()) if p.is_file())
    return out


@contextlib.contextmanager
def demo_runtime(settings: Settings, *, say: Callable[[str], None] = print) -> Iterator[Runtime]:
    """A runtime over the bundled demo knowledge base: every domain's ontology and demo data (validated,
    reasoned) and the demo documents. With the memory store backend the structural layer lives in a scratch
    folder, removed afterwards."""
    settings = settings.model_copy(deep=True)
    with tempfile.TemporaryDirectory(prefix="hybridkg-demo-") as scratch:
        if settings.store.backend == StoreBackend.MEMORY and settings.structural.path is None:
            settings.structural.path = Path(scratch) / "structural"
        runtime = Runtime(settings)
        try:
            for name, domain in runtime.kb.policy.domains.items():
                for r in runtime.kb.ensure_domain(name, with_demo_data=True):
                    say(f"  {name:9s} {domain.mode:6s} {r.graph}: {r.asserted_added} asserted, "
                        f"{r.inferred_added} inferred, {len(r.warnings)} warnings ({r.seconds:.2f} s)")
            docs = demo_documents(runtime.kb.policy)
            if docs:
                skb = runtime.structural()
                for domain_name, path in docs:
                    c = skb.put_document(f"demo/{domain_name}/{path.name}", path.read_bytes(),
                                         domain=domain_name, name=path.name)
                    say(f"  {domain_name:9s} document {path.name}: {c.chunks_added} chunks, "
                        f"{c.entities_added} entities, {c.relations_added} relations")
            yield runtime
        finally:
            runtime.close()


# ---------------------------------------------------------------------------------------------- serve


async def _serve_forever(runtime: Runtime, grpc_address: str | None, http_address: str | None,
                         on_ready: Callable[[Endpoints], None]) -> None:
    service = Service(runtime, bridge=True)
    endpoints = await service.start(grpc_address, http_address)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    on_ready(endpoints)
    try:
        await stop.wait()
    finally:
        log.info("stopping: letting in-flight requests finish (up to %.0f s)", runtime.settings.server.grace_s)
        await service.stop()


def run_serve(settings: Settings, *, demo: bool, grpc_address: str | None, http_address: str | None) -> int:
    from hybridkg.server.logs import configure

    configure(settings.server.log_format)

    def ready(endpoints: Endpoints) -> None:
        print(f"grpc: {endpoints.grpc}", flush=True)
        print(f"http: {endpoints.http}", flush=True)
        print(f"YASGUI: {endpoints.http}/  (SPARQL endpoint {endpoints.sparql})", flush=True)
        if not settings.server.auth.keys:
            print("no API keys configured: listening on loopback addresses only, every caller is admin",
                  flush=True)

    if demo:
        settings = settings.model_copy(deep=True)
        settings.store.backend = StoreBackend.MEMORY
        print("serving the bundled demo knowledge base (in memory; pass --store or --config to serve your own)",
              flush=True)
        with demo_runtime(settings) as runtime:
            asyncio.run(_serve_forever(runtime, grpc_address, http_address, ready))
        return 0
    runtime = Runtime(settings)
    try:
        asyncio.run(_serve_forever(runtime, grpc_address, http_address, ready))
    finally:
        runtime.close()
    return 0
