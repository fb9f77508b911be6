"""A TripleStore over a remote SPARQL 1.1 endpoint (Protocol: query and update URLs).

Terms travel in N-Triples syntax produced by pyoxigraph, so every IRI and literal is escaped.
Each ``add``/``remove`` is one SPARQL update request, which the endpoint applies atomically.
Blank nodes cannot be addressed across requests (SPARQL gives them no stable identity), so quads
with blank nodes are inserted with fresh labels and cannot be deleted one by one.
"""

from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Iterator, Sequence

from pyoxigraph import (
    BlankNode,
    DefaultGraph,
    NamedNode,
    Quad,
    QueryResultsFormat,
    QuerySolutions,
    RdfFormat,
    parse,
    parse_query_results,
)

from hybridkg.errors import BackendUnavailable, InvalidQuery, Unsupported
from hybridkg.httpio import read_capped
from hybridkg.semantic.base import GraphName, Object, QueryResult, QueryStream, Subject
from hybridkg.semantic.settings import DEFAULT_MAX_HTTP_BYTES
from hybridkg.semantic.store.results import stream_of, to_query_result

_ACCEPT = "application/sparql-results+json, application/n-triples;q=0.9"
_LIST_GRAPHS = "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }"
_MAX_UPDATE_CHARS = 64 << 20


class RemoteSparqlStore:
    """A :class:`~hybridkg.semantic.base.TripleStore` over HTTP (SPARQL 1.1 Protocol)."""

    def __init__(
        self,
        query_url: str,
        update_url: str | None = None,
        *,
        timeout: float = 60.0,
        max_response_bytes: int = DEFAULT_MAX_HTTP_BYTES,
    ) -> None:
        self.query_url = query_url
        self.update_url = update_url or query_url
        self.timeout = timeout
        self.max_response_bytes = max_response_bytes

    def __repr__(self) -> str:
        return f"RemoteSparqlStore({self.query_url})"

    # ------------------------------------------------------------------ HTTP
    def _post(self, url: str, body: bytes, content_type: str, accept: str | None = None,
              params: list[tuple[str, str]] | None = None) -> tuple[str, bytes]:
        if params:
            url = f"{url}{'&' if '?' in url else '?'}{urllib.parse.urlencode(params)}"
        headers = {"Content-Type": content_type}
        if accept:
            headers["Accept"] = accept
        req = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                body = read_capped(
                    resp, self.max_response_bytes, f"the SPARQL endpoint {url}", "store.max_response_bytes"
                )
                return resp.headers.get("Content-Type", ""), body
        except urllib.error.HTTPError as e:
            detail = e.read(2000).decode("utf-8", "replace").strip()
            if 400 <= e.code < 500:
                raise InvalidQuery(f"the SPARQL endpoint {url} rejected the request ({e.code}): {detail}") from e
            raise BackendUnavailable(f"the SPARQL endpoint {url} failed ({e.code}): {detail}") from e
        except (urllib.error.URLError, OSError) as e:
            raise BackendUnavailable(
                f"cannot reach the SPARQL endpoint at {url}: {e}; check that it is running and the URL is right"
            ) from e

    # ------------------------------------------------------------------ TripleStore
    def query(
        self,
        sparql: str,
        *,
        default_graphs: Sequence[NamedNode] | None = None,
        named_graphs: Sequence[NamedNode] | None = None,
    ) -> QueryResult:
        graphs = list(default_graphs) if default_graphs is not None else self.graphs()
        params = [("default-graph-uri", g.value) for g in graphs if isinstance(g, NamedNode)]
        params += [("named-graph-uri", g.value) for g in named_graphs or () if isinstance(g, NamedNode)]
        ctype, body = self._post(
            self.query_url, sparql.encode("utf-8"), "application/sparql-query", _ACCEPT, params
        )
        ctype = ctype.split(";")[0].strip().lower()
        if ctype in ("application/sparql-results+json", "application/json"):
            return to_query_result(parse_query_results(body, format=QueryResultsFormat.JSON))
        if ctype in ("application/sparql-results+xml",):
            return to_query_result(parse_query_results(body, format=QueryResultsFormat.XML))
        fmt = {
            "application/n-triples": RdfFormat.N_TRIPLES,
            "text/turtle": RdfFormat.TURTLE,
            "application/rdf+xml": RdfFormat.RDF_XML,
        }.get(ctype)
        if fmt is None:
            raise BackendUnavailable(f"the SPARQL endpoint answered with unsupported content type {ctype!r}")
        triples = tuple(q.triple for q in parse(body, format=fmt))
        return QueryResult(kind="graph", triples=triples)

    def stream(
        self,
        sparql: str,
        *,
        default_graphs: Sequence[NamedNode] | None = None,
        named_graphs: Sequence[NamedNode] | None = None,
    ) -> QueryStream:
        """The remote endpoint's answer, read whole (within ``max_response_bytes``) and then iterated."""
        return stream_of(self.query(sparql, default_graphs=default_graphs, named_graphs=named_graphs))

    def update(self, sparql: str) -> None:
        if len(sparql) > _MAX_UPDATE_CHARS:
            raise Unsupported("update too large for one request; load it in smaller files")
        self._post(self.update_url, sparql.encode("utf-8"), "application/sparql-update")

    def _data_update(self, verb: str, quads: list[Quad]) -> None:
        parts = []
        for q in quads:
            triple = f"{q.subject} {q.predicate} {q.object} ."
            if isinstance(q.graph_name, DefaultGraph):
                parts.append(triple)
            else:
                parts.append(f"GRAPH {q.graph_name} {{ {triple} }}")
        self.update(f"{verb} {{\n" + "\n".join(parts) + "\n}")

    def add(self, quads: Iterable[Quad], *, bulk: bool = False) -> int:
        items = list(quads)
        if items:
            self._data_update("INSERT DATA", items)
        return len(items)

    def remove(self, quads: Iterable[Quad]) -> int:
        items = list(quads)
        if any(isinstance(t, BlankNode) for q in items for t in (q.subject, q.object, q.graph_name)):
            raise Unsupported(
                "a remote SPARQL endpoint cannot delete individual blank-node triples; "
                "replace or drop the whole named graph instead"
            )
        if items:
            self._data_update("DELETE DATA", items)
        return len(items)

    def quads(
        self,
        subject: Subject | None = None,
        predicate: NamedNode | None = None,
        object: Object | None = None,  # noqa: A002
        graph: GraphName | None = None,
    ) -> Iterator[Quad]:
        s = str(subject) if subject is not None else "?s"
        p = str(predicate) if predicate is not None else "?p"
        o = str(object) if object is not None else "?o"
        if isinstance(graph, DefaultGraph):
            sparql = f"SELECT ?s ?p ?o WHERE {{ {s} {p} {o} }}"
            graph_term = None
        elif graph is not None:
            sparql = f"SELECT ?s ?p ?o WHERE {{ GRAPH {graph} {{ {s} {p} {o} }} }}"
            graph_term = graph
        else:
            sparql = f"SELECT ?s ?p ?o ?g WHERE {{ GRAPH ?g {{ {s} {p} {o} }} }}"
            graph_term = None
        ctype, body = self._post(
            self.query_url, sparql.encode(), "application/sparql-query", "application/sparql-results+json"
        )
        for sol in _solutions(body):
            g = sol["g"] if graph is None else (graph_term or DefaultGraph())
            yield Quad(
                subject if subject is not None else sol["s"],
                predicate if predicate is not None else sol["p"],
                object if object is not None else sol["o"],
                g,
            )

    def graphs(self) -> list[NamedNode | BlankNode]:
        ctype, body = self._post(
            self.query_url, _LIST_GRAPHS.encode(), "application/sparql-query", "application/sparql-results+json"
        )
        return [sol["g"] for sol in _solutions(body)]

    def clear_graph(self, graph: NamedNode) -> None:
        self.update(f"DROP SILENT GRAPH {graph}")

    def flush(self) -> None:
        return None


def _solutions(body: bytes) -> QuerySolutions:
    parsed = parse_query_results(body, format=QueryResultsFormat.JSON)
    if not isinstance(parsed, QuerySolutions):
        raise BackendUnavailable("the SPARQL endpoint answered a SELECT query with a boolean")
    return parsed
