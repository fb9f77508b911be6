"""The SPARQL 1.1 Graph Store HTTP Protocol at ``/rdf-graphs``, indirect graph identification
(https://www.w3.org/TR/sparql11-http-rdf-update/#indirect-graph-identification).

``?graph=IRI`` names a named graph. ``?default`` names the knowledge base's default *data* graph,
``urn:hybridkg:graph:default`` (:data:`hybridkg.semantic.kb.DEFAULT_DATA_GRAPH`, where data loaded with neither
a graph nor a domain goes); it is not the union of all graphs that queries see as their default graph.

- ``GET`` / ``HEAD``: the graph in Turtle, N-Triples, JSON-LD or RDF/XML (``Accept``, or ``format=``); 404 for
  a named graph that does not exist, i.e. holds no triple (``?default`` always exists, perhaps empty).
  Reader role.
- ``PUT``: replace the graph's content; ``POST``: add to it; ``POST`` with neither parameter: a new graph
  ``urn:uuid:...`` (201, ``Location``). 201 when the graph was created, else 200; both with a JSON summary of
  the change. ``DELETE``: drop the graph (200 with the summary; 404 when absent). Writer role.
- Bodies: Turtle, N-Triples, RDF/XML or JSON-LD, by ``Content-Type``. Writes go through the knowledge base:
  a graph of a strict domain is checked against the domain's shapes (422 with the SHACL report), and the
  inferred graph ``urn:hybridkg:graph:inferred`` refuses writes (it is derived from the asserted graphs).
"""

from __future__ import annotations

import functools
import uuid
from urllib.parse import quote

from pyoxigraph import NamedNode
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from hybridkg.errors import InvalidInput, NotFound, UnsupportedFormat
from hybridkg.semantic.base import INFERRED_GRAPH
from hybridkg.semantic.kb import DEFAULT_DATA_GRAPH
from hybridkg.server.http_middleware import Params, caller_of, change_json, media_type, read_body
from hybridkg.server.runtime import Runtime
from hybridkg.server.settings import Role
from hybridkg.server.sparql_results import negotiate, offered_types

#: Request body media types -> the format name the knowledge base reads.
BODY_FORMATS = {
    "text/turtle": "turtle",
    "application/x-turtle": "turtle",
    "application/n-triples": "ntriples",
    "text/plain": "ntriples",
    "application/rdf+xml": "rdfxml",
    "application/xml": "rdfxml",
    "text/xml": "rdfxml",
    "application/ld+json": "jsonld",
    "application/json": "jsonld",
}


def _graph_of(params: Params, *, required: bool = True) -> str | None:
    """The graph IRI the request names (``?default`` -> the default data graph), or None for neither."""
    graph = params.one("graph")
    if params.has("default"):
        if graph is not None:
            raise InvalidInput("name one graph: `?graph=IRI` or `?default`, not both (Graph Store Protocol 4.2)")
        return DEFAULT_DATA_GRAPH.value
    if graph is None:
        if required:
            raise InvalidInput("name the graph: `?graph=IRI` or `?default` (Graph Store Protocol 4.2)")
        return None
    try:
        NamedNode(graph)
    except ValueError as e:
        raise InvalidInput(f"`graph` {graph!r} is not an IRI: {e}") from e
    return graph


def _body_format(request: Request) -> str:
    kind = media_type(request)
    fmt = BODY_FORMATS.get(kind)
    if fmt is None:
        raise UnsupportedFormat(
            f"cannot read a graph sent as {kind or 'a body without a Content-Type'}; send text/turtle, "
            "application/n-triples, application/rdf+xml or application/ld+json (one graph: no quad formats)"
        )
    return fmt


def _exists(runtime: Runtime, graph: str) -> bool:
    """A graph exists while it holds a triple (the store may keep an emptied graph's name)."""
    return next(iter(runtime.kb.store.quads(graph=NamedNode(graph))), None) is not None


async def graph_store(runtime: Runtime, request: Request) -> Response:
    caller = caller_of(request)
    params = Params.of(request)
    method = request.method
    if method in ("GET", "HEAD"):
        caller.require(Role.READER, "reading a graph")
        graph = _graph_of(params)
        assert graph is not None
        return await _get(runtime, request, params, graph)
    caller.require(Role.WRITER, f"{method} on the graph store")
    graph = _graph_of(params, required=method != "POST")
    if graph == INFERRED_GRAPH.value:
        raise InvalidInput(
            f"{graph} holds the triples the reasoner derives from the asserted graphs; it cannot be written. "
            "Write the asserted graph they come from"
        )
    token = runtime.token(None)
    created_location = None
    if graph is None:  # POST to the store itself: a new graph (Graph Store Protocol 5.5)
        graph = f"urn:uuid:{uuid.uuid4()}"
        created_location = f"{request.url.path}?graph={quote(graph, safe='')}"
    existed = await runtime.call(_exists, runtime, graph, token=token)
    if method == "DELETE":
        if not existed:
            raise NotFound(f"graph {graph} does not exist")
        change = await runtime.call(runtime.kb.drop_graph, graph, token=token)
        return JSONResponse(change_json(change))
    fmt = _body_format(request)
    body = await read_body(request, runtime.settings.server.max_message_bytes)
    if method == "PUT":
        replaced = await runtime.call(functools.partial(runtime.kb.replace_graph, graph, body, fmt=fmt), token=token)
        summary = change_json(replaced)
    else:
        loaded = await runtime.call(functools.partial(runtime.kb.load, body, fmt=fmt, graph=graph), token=token)
        summary = change_json(loaded)
    summary["graph"] = graph
    if existed:
        return JSONResponse(summary)
    location = created_location or f"{request.url.path}?graph={quote(graph, safe='')}"
    return JSONResponse(summary, 201, {"location": location})


async def _get(runtime: Runtime, request: Request, params: Params, graph: str) -> Response:
    fmt = negotiate("graph", request.headers.get("accept"), params.all("format"))
    if fmt is None:
        return Response(f"none of the accepted formats fits a graph; this endpoint offers {offered_types('graph')}\n",
                        406, {"vary": "Accept"}, "text/plain; charset=utf-8")
    token = runtime.token(None)
    if graph != DEFAULT_DATA_GRAPH.value and not await runtime.call(_exists, runtime, graph, token=token):
        raise NotFound(f"graph {graph} does not exist")
    # HEAD serialises too, for a true Content-Length; the server sends no body
    data = await runtime.call(runtime.kb.export, graph, fmt.name, token=token)
    return Response(data, 200, {"vary": "Accept"}, fmt.content_type)


__all__ = ["BODY_FORMATS", "graph_store"]
