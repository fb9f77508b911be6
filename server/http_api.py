"""The HTTP front end: the SPARQL 1.1 Protocol (https://www.w3.org/TR/sparql11-protocol/), the Graph Store
HTTP Protocol (https://www.w3.org/TR/sparql11-http-rdf-update/, in :mod:`hybridkg.server.http_gsp`), health,
Prometheus metrics and a YASGUI page, served by uvicorn in the event loop the gRPC server shares.

Endpoints:

- ``GET|POST /sparql``: a query as ``query=`` (URL or form body) or an ``application/sparql-query`` body;
  ``default-graph-uri`` / ``named-graph-uri`` (repeatable) set the dataset; ``infer=false`` queries asserted
  triples only (the inferred graph is hidden). Results follow ``Accept`` (``format=json|xml|csv|tsv|turtle|
  ntriples|jsonld|rdfxml`` overrides it): SPARQL JSON, XML, CSV, TSV for SELECT/ASK; Turtle, N-Triples,
  JSON-LD, RDF/XML for CONSTRUCT/DESCRIBE; 406 when none fits. Results stream batch by batch; errors found
  before the first byte (syntax, unknown graph, the row cap in the first batch) get their status, a later
  one (deadline, row cap) cuts the body short. ``engine=cypher`` answers the query by running its Cypher
  translation on the bridge's property graph of the whole store (issue 11 §5; same result formats, terms read
  back through the mapping): a query without an exact translation is a 400 naming the construct. Reader role.
- ``POST /update``: ``update=`` (form) or an ``application/sparql-update`` body, through the SHACL gate of
  strict domains (422 with the report as JSON). 200 with a JSON summary of the change. Writer role.
- ``/rdf-graphs``: the Graph Store protocol (see :mod:`hybridkg.server.http_gsp`).
- ``GET /health``: JSON status and store sizes, no key. ``GET /metrics``: Prometheus text, no key.
- ``GET /``: YASGUI (vendored under ``static/yasgui``; nothing fetched from another origin, which the page's
  Content-Security-Policy enforces).

Errors map through :func:`hybridkg.server.status.status_of` in :class:`~hybridkg.server.http_middleware.
ServiceMiddleware`; stop the server with ``server.should_exit = True`` and await its task.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
import ssl
from pathlib import Path
from typing import Any

import uvicorn
from prometheus_client import CONTENT_TYPE_LATEST
from pyoxigraph import NamedNode
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from hybridkg.errors import InvalidInput, Unsupported
from hybridkg.server.auth import check_bind
from hybridkg.server.http_gsp import graph_store
from hybridkg.server.http_middleware import (
    Params,
    ServiceMiddleware,
    caller_of,
    change_json,
    decode_utf8,
    media_type,
    read_body,
)
from hybridkg.server.http_query import QuerySpec, start_cypher_query, start_query
from hybridkg.server.runtime import Runtime
from hybridkg.server.settings import Role, parse_hostport
from hybridkg.server.sparql_results import FORMATS, negotiate, offered_types

STATIC = Path(__file__).resolve().parent / "static"

#: The page's policy: scripts, styles, images and requests from this origin only.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
       "font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")

#: ``engine=`` of /sparql: the RDF store (default), or the query's Cypher translation on the bridge's graph.
ENGINES = ("sparql", "cypher")

#: How long /health and /metrics may spend counting the stores.
SIZES_TIMEOUT_S = 30.0


def make_app(runtime: Runtime) -> Starlette:
    """The Starlette application of ``runtime`` (no lifespan: the caller owns the runtime)."""

    async def sparql(request: Request) -> Response:
        return await _sparql(runtime, request)

    async def update(request: Request) -> Response:
        return await _update(runtime, request)

    async def rdf_graphs(request: Request) -> Response:
        return await graph_store(runtime, request)

    async def health(request: Request) -> Response:
        token = runtime.token(SIZES_TIMEOUT_S)
        sizes = await runtime.call(runtime.sizes, token=token)
        return JSONResponse({"status": "ok", "sizes": sizes, "structural_open": runtime.structural_open})

    async def metrics(request: Request) -> Response:
        token = runtime.token(SIZES_TIMEOUT_S)
        body = await runtime.call(runtime.metrics.exposition, token=token)
        return Response(body, media_type=CONTENT_TYPE_LATEST)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8",
                            headers={"content-security-policy": CSP, "x-content-type-options": "nosniff"})

    routes = [
        Route("/sparql", sparql, methods=["GET", "POST"]),
        Route("/update", update, methods=["POST"]),
        Route("/rdf-graphs", rdf_graphs, methods=["GET", "HEAD", "PUT", "POST", "DELETE"]),
        Route("/health", health, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
        Route("/", index, methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes, middleware=[Middleware(ServiceMiddleware, runtime=runtime)])


# --------------------------------------------------------------------------- /sparql


def _iris(values: list[str], name: str) -> list[str] | None:
    """Dataset IRIs of a protocol parameter, checked here so a bad one is a 400, not an error in a worker."""
    for value in values:
        try:
            NamedNode(value)
        except ValueError as e:
            raise InvalidInput(f"`{name}` {value!r} is not an IRI: {e}") from e
    return values or None


async def _sparql(runtime: Runtime, request: Request) -> Response:
    caller_of(request).require(Role.READER, "a SPARQL query")
    params = Params.of(request)
    query = None
    if request.method == "POST":
        kind = media_type(request)
        body = await read_body(request, runtime.settings.server.max_message_bytes)
        if kind == "application/x-www-form-urlencoded":
            params.add_form(body)
        elif kind == "application/sparql-query":
            if params.has("query"):
                raise InvalidInput("the query is the request body; do not also send `query=`")
            query = decode_utf8(body, "query")
        else:
            raise InvalidInput(
                f"a SPARQL query is POSTed as application/x-www-form-urlencoded (query=...) or "
                f"application/sparql-query, not {kind or 'a body without a Content-Type'} (SPARQL 1.1 Protocol 2.1)"
            )
    if query is None:
        query = params.one("query")
        if query is None:
            raise InvalidInput("no query: send `query=` (SPARQL 1.1 Protocol 2.1)")
    inference = params.flag("infer", True)
    default_graphs = _iris(params.all("default-graph-uri"), "default-graph-uri")
    named_graphs = _iris(params.all("named-graph-uri"), "named-graph-uri")
    engine = (params.one("engine") or "sparql").strip().lower()
    if engine not in ENGINES:
        raise InvalidInput(f"unknown engine {engine!r}: expected {' or '.join(ENGINES)}")
    token = runtime.token(None)
    formats = {kind: negotiate(kind, request.headers.get("accept"), params.all("format")) for kind in FORMATS}
    if engine == "cypher":
        if default_graphs or named_graphs or not inference:
            raise InvalidInput("engine=cypher answers over the bridge's property graph (the whole store, asserted + "
                               "inferred, as `bridge sync` exposes it): drop default-graph-uri, named-graph-uri and "
                               "infer=false, or use the default engine")
        started = await start_cypher_query(runtime, query, formats, token)
    else:
        started = await start_query(runtime, QuerySpec(query, inference, default_graphs, named_graphs), formats,
                                    token)
    if started.format is None or started.pieces is None:
        what = {"select": "SELECT", "ask": "ASK", "graph": "CONSTRUCT/DESCRIBE"}[started.kind]
        return Response(
            f"none of the accepted formats fits a {what} result; this endpoint offers "
            f"{offered_types(started.kind)} (set Accept or format=)\n",
            406, {"vary": "Accept"}, "text/plain; charset=utf-8",
        )
    return StreamingResponse(started.pieces, media_type=started.format.content_type, headers={"vary": "Accept"})


# --------------------------------------------------------------------------- /update


async def _update(runtime: Runtime, request: Request) -> Response:
    caller_of(request).require(Role.WRITER, "a SPARQL update")
    params = Params.of(request)
    kind = media_type(request)
    body = await read_body(request, runtime.settings.server.max_message_bytes)
    if kind == "application/x-www-form-urlencoded":
        params.add_form(body)
        text = params.one("update")
        if text is None:
            raise InvalidInput("no update: send `update=` (SPARQL 1.1 Protocol 2.2)")
    elif kind == "application/sparql-update":
        text = decode_utf8(body, "update")
    else:
        raise InvalidInput(
            f"a SPARQL update is POSTed as application/x-www-form-urlencoded (update=...) or "
            f"application/sparql-update, not {kind or 'a body without a Content-Type'} (SPARQL 1.1 Protocol 2.2)"
        )
    if params.has("using-graph-uri") or params.has("using-named-graph-uri"):
        raise Unsupported("using-graph-uri / using-named-graph-uri are not supported; write USING in the update")
    token = runtime.token(None)
    change = await runtime.call(functools.partial(runtime.update, text, token=token), token=token)
    return JSONResponse(change_json(change))


# --------------------------------------------------------------------------- server


class _EmbeddedServer(uvicorn.Server):
    """uvicorn inside someone else's event loop: the owner handles SIGINT/SIGTERM and sets ``should_exit``."""

    def capture_signals(self) -> Any:
        return contextlib.nullcontext()


async def start_http(runtime: Runtime, address: str) -> tuple[uvicorn.Server, int, asyncio.Task[None]]:
    """Serve ``make_app(runtime)`` on ``address`` (HOST:PORT, port 0: any free port) in the running event loop.

    Returns once the socket listens: the server (set ``should_exit = True`` to stop it, then await the task),
    the bound port, and the task serving it. TLS comes from ``server.tls`` (mutual TLS with ``client_ca``).
    """
    host, port = parse_hostport(address)
    check_bind(host, runtime.auth, "http")
    tls = runtime.settings.server.tls
    options: dict[str, Any] = {}
    if tls.enabled:
        options.update(ssl_certfile=str(tls.cert), ssl_keyfile=str(tls.key))
        if tls.client_ca is not None:
            options.update(ssl_ca_certs=str(tls.client_ca), ssl_cert_reqs=ssl.CERT_REQUIRED)
    config = uvicorn.Config(
        make_app(runtime), host=host, port=port, lifespan="off", log_config=None, access_log=False,
        server_header=False, ws="none", timeout_graceful_shutdown=max(1, round(runtime.settings.server.grace_s)),
        **options,
    )
    config.load()  # TLS files are read here, so a bad one fails the caller, not the serving task
    # the socket is bound here too: uvicorn answers a bind error with sys.exit, which would stop the shared loop
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        sock = socket.create_server((host, port), family=family, backlog=config.backlog)
    except OSError as e:
        raise OSError(f"cannot listen on {address} for HTTP: {e.strerror or e}") from e
    # asyncio turns Nagle off only for sockets whose proto is IPPROTO_TCP, and create_server's are proto 0: without
    # this, a keep-alive client waits ~40 ms (Nagle against delayed ACK) for the end of each streamed response.
    # Accepted sockets inherit the option on Linux.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    bound = int(sock.getsockname()[1])
    server = _EmbeddedServer(config)
    task = asyncio.get_running_loop().create_task(server.serve(sockets=[sock]), name=f"hybridkg-http-{address}")
    while not server.started:
        if task.done():
            sock.close()
            error = task.exception()
            raise OSError(f"the HTTP listener on {address} did not start: {error}") from error
        await asyncio.sleep(0.01)
    return server, bound, task


__all__ = ["make_app", "start_http"]
