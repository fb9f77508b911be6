"""A Python client for hybridkg's gRPC API (``hybridkg.v1.KnowledgeService``).

>>> with Client("127.0.0.1:50051", key="hkg_...") as kb:
...     for row in kb.sparql("SELECT ?s WHERE { ?s a <https://hybridkg.dev/ns/clinical#Patient> }"):
...         print(row[0].value)
...     answer = kb.ask("Which patients take warfarin?")

``sparql`` returns a :class:`Rows` iterator (SELECT; each row a tuple of pyoxigraph terms, ``None`` where a
variable is unbound), a :class:`Triples` iterator (CONSTRUCT/DESCRIBE) or a ``bool`` (ASK). The bridge's
queries (``docs/bridge.md`` §5): ``cypher`` runs read-only Cypher on a bridge graph and returns a
:class:`CypherResult` (``columns``, then rows of the JSON values ``hybridkg cypher`` prints: nodes,
relationships and paths as objects with ``"element"``, see :func:`hybridkg.bridge.queries.json_value`);
``translate`` gives the object ``hybridkg translate --json`` prints. Cypher parameters are plain Python values
(None, bool, int, float, str, lists and str-keyed maps of them). The other methods return the JSON shapes of
the CLI (``ask`` exactly as ``hybridkg ask --json``) or a :class:`~hybridkg.semantic.base.ValidationReport`.
Errors raise the :mod:`hybridkg.errors` class the server raised, with its message: a rejected write raises
:class:`~hybridkg.errors.ShapeViolation` carrying the SHACL report, a broken document
:class:`~hybridkg.errors.ParseError` with its line and column, a query the bridge refuses
:class:`~hybridkg.errors.Unsupported` naming the construct.

>>> with Client("127.0.0.1:50051", key="hkg_...") as kb:
...     result = kb.cypher("MATCH (c:Company) WHERE c.city = $city RETURN c", domain="crm", params={"city": "Porto"})
...     for (company,) in result:
...         print(company["properties"]["uri"])
...     print(kb.translate("SELECT ?c WHERE { ?c a <https://hybridkg.dev/ns/crm#Company> }", to="cypher",
...                        domain="crm")["query"])
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self

import grpc
from google.protobuf import json_format
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from hybridkg import errors
from hybridkg.proto import cypher_value, wire
from hybridkg.proto.hybridkg.v1 import knowledge_pb2 as pb
from hybridkg.proto.hybridkg.v1 import knowledge_pb2_grpc as pb_grpc
from hybridkg.proto.hybridkg.v1 import rdf_pb2
from hybridkg.semantic.base import Severity, ValidationReport, ValidationResult

__all__ = ["Client", "CypherResult", "Rows", "Term", "Triples"]

Term = NamedNode | BlankNode | Literal | Triple

#: The Sparql RPC's path, read as raw bytes by :class:`hybridkg.proto.wire.SparqlDecoder`.
SPARQL_METHOD = "/" + pb.DESCRIPTOR.services_by_name["KnowledgeService"].full_name + "/Sparql"

#: Bytes per Ingest message.
CHUNK_BYTES = 1 << 20

#: The one reverse table: a status code -> the hybridkg error it stands for. The server's ErrorInfo detail
#: names the exact class of :mod:`hybridkg.errors` (e.g. InputTooLarge rather than ResultTooLarge for
#: RESOURCE_EXHAUSTED); the table is the fallback for servers or proxies that send none.
ERRORS: dict[grpc.StatusCode, type[errors.HybridKGError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: errors.InvalidInput,
    grpc.StatusCode.FAILED_PRECONDITION: errors.ShapeViolation,
    grpc.StatusCode.NOT_FOUND: errors.NotFound,
    grpc.StatusCode.RESOURCE_EXHAUSTED: errors.ResultTooLarge,
    grpc.StatusCode.UNAUTHENTICATED: errors.Unauthenticated,
    grpc.StatusCode.PERMISSION_DENIED: errors.PermissionDenied,
    grpc.StatusCode.DEADLINE_EXCEEDED: errors.DeadlineExceeded,
    grpc.StatusCode.CANCELLED: errors.Cancelled,
    grpc.StatusCode.UNIMPLEMENTED: errors.Unsupported,
    grpc.StatusCode.UNAVAILABLE: errors.BackendUnavailable,
}


def _report(msg: rdf_pb2.ValidationReport) -> ValidationReport:
    return ValidationReport(
        conforms=msg.conforms, engine=msg.engine,
        results=tuple(
            ValidationResult(
                focus=r.focus, path=r.path if r.HasField("path") else None, constraint=r.constraint,
                value=r.value if r.HasField("value") else None, severity=Severity(r.severity), message=r.message,
                source_shape=r.source_shape if r.HasField("source_shape") else None,
            )
            for r in msg.results
        ),
    )


def _error(e: grpc.RpcError) -> errors.HybridKGError:
    """The hybridkg error a failed call stands for, with the server's message and details."""
    code = e.code() if isinstance(e, grpc.Call) else grpc.StatusCode.UNKNOWN
    message = (e.details() if isinstance(e, grpc.Call) else None) or str(e)
    cls: type[errors.HybridKGError] = ERRORS.get(code, errors.HybridKGError)
    report: ValidationReport | None = None
    parse: rdf_pb2.ParseErrorDetail | None = None
    try:
        status = rpc_status.from_call(e) if isinstance(e, grpc.Call) else None
    except ValueError:  # the call ended here (its own deadline) while the server's status said it in other words
        status = None
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            named = getattr(errors, info.reason, None) if info.reason in errors.__all__ else None
            if isinstance(named, type) and issubclass(named, errors.HybridKGError):
                cls = named
        elif detail.Is(rdf_pb2.ValidationReport.DESCRIPTOR):
            msg = rdf_pb2.ValidationReport()
            detail.Unpack(msg)
            report = _report(msg)
        elif detail.Is(rdf_pb2.ParseErrorDetail.DESCRIPTOR):
            parse = rdf_pb2.ParseErrorDetail()
            detail.Unpack(parse)
    if issubclass(cls, errors.ShapeViolation):
        return errors.ShapeViolation(message, report)
    if parse is not None and issubclass(errors.ParseError, cls) or issubclass(cls, errors.ParseError):
        if parse is None:
            return errors.InvalidInput(message)
        error = errors.ParseError(parse.format, parse.line if parse.HasField("line") else None,
                                  parse.column if parse.HasField("column") else None, parse.detail)
        error.args = (message,)
        return error
    return cls(message)


class _Streaming:
    """A server stream being read, its first message already in; closing it (or the client) cancels the call."""

    def __init__(self, call: Any, first: Any) -> None:
        self._call = call
        self._first: Any = first

    def _messages(self) -> Iterator[Any]:
        try:
            if self._first is not None:
                first, self._first = self._first, None
                yield first
            yield from self._call
        except grpc.RpcError as e:
            raise _error(e) from None
        finally:
            self.close()

    def close(self) -> None:
        self._call.cancel()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Stream(_Streaming):
    """A Sparql response stream."""

    def __init__(self, call: Any, first: wire.Decoded) -> None:
        super().__init__(call, first)
        self._kind = first.kind

    def _items(self) -> Iterator[Any]:
        lines = wire.TextRows(self._kind)
        for message in self._messages():
            if message.text:
                try:
                    yield from lines(message.text)
                except wire.MalformedMessage as e:
                    raise errors.HybridKGError(f"the server sent {e}") from None
            yield from message.rows


class Rows(_Stream):
    """SELECT results: iterate for tuples of terms in the order of :attr:`variables`."""

    def __init__(self, call: Any, first: wire.Decoded) -> None:
        super().__init__(call, first)
        self.variables: tuple[str, ...] = tuple(first.variables)

    def __iter__(self) -> Iterator[tuple[Term | None, ...]]:
        return self._items()


class Triples(_Stream):
    """CONSTRUCT/DESCRIBE results: iterate for pyoxigraph triples."""

    def __iter__(self) -> Iterator[Triple]:
        return self._items()


class CypherResult(_Streaming):
    """A read-only Cypher result: :attr:`columns`, then iterate for rows (one list of JSON values per row, in the
    order of the columns) as they stream in; :meth:`to_json` reads the rest into ``hybridkg cypher``'s object."""

    def __init__(self, call: Any, first: pb.CypherResponse) -> None:
        super().__init__(call, first)
        self.columns: tuple[str, ...] = tuple(first.columns)

    def __iter__(self) -> Iterator[list[Any]]:
        from hybridkg.bridge.queries import json_value  # the one definition of the JSON shapes (imports the bridge)

        for message in self._messages():
            for row in message.rows:
                yield [json_value(cypher_value.value(v)) for v in row.values]

    def to_json(self) -> dict[str, Any]:
        """``{"columns": [...], "rows": [[...], ...]}`` with the rows not yet read."""
        return {"columns": list(self.columns), "rows": list(self)}


def _read(source: str | os.PathLike[str] | bytes | IO[bytes], chunk: int) -> tuple[Iterator[bytes], str | None]:
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source)
        return (data[i:i + chunk] for i in range(0, max(len(data), 1), chunk)), None
    if isinstance(source, str | os.PathLike):
        path = Path(source)

        def from_file() -> Iterator[bytes]:
            with path.open("rb") as f:
                while block := f.read(chunk):
                    yield block

        return from_file(), path.name
    stream = source

    def from_stream() -> Iterator[bytes]:
        while block := stream.read(chunk):
            yield block

    return from_stream(), getattr(stream, "name", None) if isinstance(getattr(stream, "name", None), str) else None


class Client:
    """A connection to a hybridkg server. ``key``: an API key (sent as ``authorization: Bearer KEY``);
    ``tls_ca``: the PEM CA (path or bytes) to trust, which turns TLS on; ``client_cert``/``client_key``:
    this client's certificate for mutual TLS; ``timeout``: the default deadline of each call in seconds."""

    def __init__(
        self,
        target: str,
        key: str | None = None,
        *,
        tls_ca: str | os.PathLike[str] | bytes | None = None,
        client_cert: str | os.PathLike[str] | bytes | None = None,
        client_key: str | os.PathLike[str] | bytes | None = None,
        timeout: float | None = None,
        options: Iterable[tuple[str, Any]] = (),
    ) -> None:
        self.timeout = timeout
        self._metadata: tuple[tuple[str, str], ...] = (("authorization", f"Bearer {key}"),) if key else ()
        opts = [("grpc.max_receive_message_length", 64 << 20), ("grpc.max_metadata_size", 1 << 20), *options]
        if tls_ca is not None or client_cert is not None:
            creds = grpc.ssl_channel_credentials(
                root_certificates=_pem(tls_ca), private_key=_pem(client_key), certificate_chain=_pem(client_cert)
            )
            self._channel = grpc.secure_channel(target, creds, options=opts)
        else:
            self._channel = grpc.insecure_channel(target, options=opts)
        self.stub = pb_grpc.KnowledgeServiceStub(self._channel)

    # ------------------------------------------------------------------------------------ plumbing
    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def _call(self, method: Any, request: Any, timeout: float | None) -> Any:
        try:
            return method(request, timeout=timeout if timeout is not None else self.timeout, metadata=self._metadata)
        except grpc.RpcError as e:
            raise _error(e) from None

    # ------------------------------------------------------------------------------------ queries
    def sparql(
        self,
        query: str,
        *,
        inference: bool = True,
        default_graph_uri: Iterable[str] = (),
        named_graph_uri: Iterable[str] = (),
        timeout: float | None = None,
        text: bool = True,
    ) -> Rows | Triples | bool:
        """Run a query: SELECT gives :class:`Rows`, CONSTRUCT/DESCRIBE :class:`Triples`, ASK a bool.

        ``text``: results travel as TSV / N-Triples lines written by the server's store and read here by
        pyoxigraph (the fast way, and the default); False asks for typed ``rows`` (what clients without an RDF
        parser read). Either way the rows come back as the same pyoxigraph terms."""
        request = pb.SparqlRequest(query=query, inference=inference, default_graph_uri=list(default_graph_uri),
                                   named_graph_uri=list(named_graph_uri),
                                   encoding=pb.RESULT_ENCODING_TEXT if text else pb.RESULT_ENCODING_ROWS)
        # the rows are read straight from the wire, each distinct term decoded once (hybridkg.proto.wire)
        method = self._channel.unary_stream(SPARQL_METHOD, request_serializer=pb.SparqlRequest.SerializeToString,
                                            response_deserializer=wire.SparqlDecoder())
        call = self._call(method, request, timeout)
        try:
            first = next(call)
        except grpc.RpcError as e:
            raise _error(e) from None
        except StopIteration:
            raise errors.HybridKGError("the server ended the Sparql stream without a result") from None
        if first.kind == pb.QUERY_KIND_ASK:
            if first.boolean is None:
                raise errors.HybridKGError("the server answered an ASK query without its boolean")
            try:
                for _ in call:  # the stream ends after its one message; read to the end, do not cancel
                    pass
            except grpc.RpcError as e:
                raise _error(e) from None
            return bool(first.boolean)
        if first.kind == pb.QUERY_KIND_GRAPH:
            return Triples(call, first)
        return Rows(call, first)

    def cypher(self, query: str, *, domain: str | None = None, params: Mapping[str, Any] | None = None,
               timeout: float | None = None) -> CypherResult:
        """Read-only Cypher on a bridge graph: ``domain``'s (reader role) or, without one, the whole store's (admin
        role). Writes are refused (:class:`~hybridkg.errors.Unsupported`) and a syntax error is
        :class:`~hybridkg.errors.InvalidQuery` with line and column, both raised here, before any row is read."""
        request = pb.CypherRequest(query=query, domain=domain or "", params=cypher_value.param_messages(params))
        call = self._call(self.stub.Cypher, request, timeout)
        try:
            first = next(call)
        except grpc.RpcError as e:
            raise _error(e) from None
        except StopIteration:
            raise errors.HybridKGError("the server ended the Cypher stream without its columns") from None
        return CypherResult(call, first)

    def translate(self, query: str, *, to: str, domain: str | None = None, params: Mapping[str, Any] | None = None,
                  timeout: float | None = None) -> dict[str, Any]:
        """``query`` translated over a bridge graph's names, as ``hybridkg translate --json`` prints it (``to``,
        ``query``, ``params``, ``columns``, ``kind``, and ``guards`` for SPARQL). ``to``: ``"cypher"`` (the query is
        SPARQL) or ``"sparql"`` (the query is Cypher, with its ``params``). Roles and graphs as :meth:`cypher`; a
        refused translation raises :class:`~hybridkg.errors.Unsupported` naming the construct."""
        language = _LANGUAGES.get(to)
        if language is None:
            raise errors.InvalidInput(f"translate: to={to!r}; expected 'cypher' (the query is SPARQL) or 'sparql' "
                                      "(the query is Cypher)")
        request = pb.TranslateRequest(query=query, to=language, domain=domain or "",
                                      params=cypher_value.param_messages(params))
        msg = self._call(self.stub.Translate, request, timeout)
        sparql = msg.language == pb.QUERY_LANGUAGE_SPARQL
        out: dict[str, Any] = {"to": "sparql" if sparql else "cypher", "query": msg.query,
                               "params": {k: cypher_value.value(v) for k, v in msg.params.items()},
                               "columns": list(msg.columns), "kind": msg.kind}
        if sparql:
            out["guards"] = list(msg.guards)
        return out

    def ask(self, question: str, *, domain: str | None = None, mode: str | None = None, top_k: int | None = None,
            timeout: float | None = None) -> dict[str, Any]:
        """The answer as ``hybridkg ask --json`` prints it (numbers in evidence/trees come back as floats)."""
        request = pb.AskRequest(question=question, domain=domain or "", mode=mode or "")
        if top_k is not None:
            request.top_k = top_k
        msg = self._call(self.stub.Ask, request, timeout)
        return {
            "question": msg.question, "route": msg.route, "domain": msg.domain if msg.HasField("domain") else None,
            "abstained": msg.abstained, "reason": msg.reason,
            "answers": [{"value": a.value, "label": a.label, "score": a.score} for a in msg.answers],
            "sparql": msg.sparql, "explanations": [json_format.MessageToDict(t) for t in msg.explanations],
            "evidence": json_format.MessageToDict(msg.evidence), "took_ms": msg.took_ms,
        }

    def explain(self, triple_text: str, *, timeout: float | None = None) -> dict[str, Any]:
        """Why a triple (N-Triples syntax) holds: the tree ``hybridkg explain`` prints, as JSON."""
        msg = self._call(self.stub.Explain, pb.ExplainRequest(triple=triple_text), timeout)
        return _explanation(msg.explanation)

    def validate(self, data: bytes | str, *, domain: str, format: str | None = None,  # noqa: A002
                 graph: str | None = None, timeout: float | None = None) -> ValidationReport:
        """Would this RDF be accepted into ``domain``? A dry run: nothing is written."""
        payload = data.encode("utf-8") if isinstance(data, str) else data
        request = pb.ValidateRequest(data=payload, domain=domain, format=format or "", graph=graph or "")
        return _report(self._call(self.stub.Validate, request, timeout).report)

    def retrieve(self, query: str, *, mode: str | None = None, top_k: int | None = None, domain: str | None = None,
                 timeout: float | None = None) -> dict[str, Any]:
        """Graph + vector retrieval: the JSON of ``RetrievalResult.to_json`` (mode, items, relations, chunks...)."""
        request = pb.RetrieveRequest(query=query, mode=mode or "", domain=domain or "")
        if top_k is not None:
            request.top_k = top_k
        msg = self._call(self.stub.Retrieve, request, timeout)
        return json_format.MessageToDict(msg, preserving_proto_field_name=True,
                                         always_print_fields_with_no_presence=True)

    def stats(self, *, timeout: float | None = None) -> dict[str, Any]:
        msg = self._call(self.stub.Stats, pb.StatsRequest(), timeout)
        return {"sizes": dict(msg.sizes), "domains": dict(msg.domains), "reasoner": msg.reasoner,
                "validator": msg.validator}

    # ------------------------------------------------------------------------------------ writes
    def ingest(
        self,
        source: str | os.PathLike[str] | bytes | IO[bytes],
        *,
        domain: str | None = None,
        graph: str | None = None,
        format: str | None = None,  # noqa: A002
        name: str | None = None,
        chunk_size: int = CHUNK_BYTES,
        timeout: float | None = None,
    ) -> dict[str, Any]:
        """Upload a file (path, bytes or binary stream) in chunks; returns the ingest report as JSON."""
        blocks, filename = _read(source, chunk_size)
        meta = pb.IngestMetadata(domain=domain or "", graph=graph or "", format=format or "",
                                 name=name or filename or "")

        def requests() -> Iterator[pb.IngestRequest]:
            first = True
            for block in blocks:
                yield pb.IngestRequest(metadata=meta, chunk=block) if first else pb.IngestRequest(chunk=block)
                first = False
            if first:
                yield pb.IngestRequest(metadata=meta)

        msg = self._call(self.stub.Ingest, requests(), timeout)
        return {
            "kind": msg.kind, "graph": msg.graph, "domain": msg.domain if msg.HasField("domain") else None,
            "format": msg.format, "triples_asserted": msg.triples_asserted, "triples_inferred": msg.triples_inferred,
            "shacl": _report(msg.shacl).to_json() if msg.HasField("shacl") else None,
            "documents_added": msg.documents_added, "chunks_added": msg.chunks_added,
            "entities_added": msg.entities_added, "relations_added": msg.relations_added, "took_ms": msg.took_ms,
        }

    def update(self, sparql: str, *, timeout: float | None = None) -> dict[str, Any]:
        """A SPARQL 1.1 Update through the SHACL gate; returns what changed."""
        msg = self._call(self.stub.Update, pb.UpdateRequest(update=sparql), timeout)
        return {
            "asserted_added": msg.asserted_added, "asserted_removed": msg.asserted_removed,
            "inferred_added": msg.inferred_added, "inferred_removed": msg.inferred_removed,
            "domain": msg.domain if msg.HasField("domain") else None,
            "warnings": [r.to_json() for r in _report(rdf_pb2.ValidationReport(results=msg.warnings)).results],
        }

    def feedback(self, scores: Mapping[str, float], *, timeout: float | None = None) -> dict[str, Any]:
        """Relevance feedback (node id -> score) on retrieved nodes."""
        msg = self._call(self.stub.Feedback, pb.FeedbackRequest(scores=dict(scores)), timeout)
        return {"epoch": msg.epoch, "edges_updated": msg.edges_updated, "nodes": msg.nodes}


_LANGUAGES = {"cypher": pb.QUERY_LANGUAGE_CYPHER, "sparql": pb.QUERY_LANGUAGE_SPARQL}


def _explanation(msg: pb.Explanation) -> dict[str, Any]:
    node: dict[str, Any] = {"triple": msg.triple, "status": msg.status}
    if msg.HasField("rule"):
        node["rule"] = msg.rule
    if msg.status == "inferred":
        node["premises"] = [_explanation(p) for p in msg.premises]
    return node


def _pem(value: str | os.PathLike[str] | bytes | None) -> bytes | None:
    if value is None or isinstance(value, bytes):
        return value
    return Path(value).read_bytes()
