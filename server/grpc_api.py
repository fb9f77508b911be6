"""The gRPC front end: ``hybridkg.v1.KnowledgeService`` on ``grpc.aio`` over a :class:`Runtime`, plus the
standard health service and server reflection (neither needs a key).

Every RPC goes through one wrapper (:func:`_rpc`) that authenticates the caller (metadata
``authorization: Bearer KEY``), checks the role, sets the request id (the caller's ``x-request-id`` when it
sends a sane one, else a fresh one; returned in trailing metadata), logs one line per call, records
metrics, and maps every error through :func:`hybridkg.server.status.status_of`: a ``google.rpc.Status``
with an ``ErrorInfo`` naming the error class, the SHACL report of a rejected write, the line and column
of an RDF parse error. Anything unexpected is INTERNAL and logged with its traceback; the server keeps
serving. Store work runs on the runtime's workers under the call's deadline (:meth:`Runtime.call`), so a
deadline or a cancelled call stops the query at its next row and frees the worker.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import logging
import re
import time
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import grpc
from google.protobuf import any_pb2, message_factory
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from hybridkg.bridge.queries import Language, Translation, check_read_only, names_of_sync, run_cypher, translate
from hybridkg.errors import HybridKGError, InputTooLarge, InvalidInput, ParseError, ShapeViolation
from hybridkg.proto.hybridkg.v1 import knowledge_pb2 as pb
from hybridkg.proto.hybridkg.v1 import knowledge_pb2_grpc as pb_grpc
from hybridkg.proto.hybridkg.v1 import rdf_pb2
from hybridkg.proto.wire import SparqlEncoder, varint
from hybridkg.server import grpc_convert as convert
from hybridkg.server.auth import Caller, check_bind
from hybridkg.server.logs import REQUEST_ID, new_request_id
from hybridkg.server.runtime import CancelToken, QueryCursor, QuerySpec, Runtime, row_too_large
from hybridkg.server.settings import Role, parse_hostport
from hybridkg.server.status import status_of
from hybridkg.structural.settings import Mode

log = logging.getLogger(__name__)
T = TypeVar("T")

SERVICE_NAME: str = pb.DESCRIPTOR.services_by_name["KnowledgeService"].full_name
#: ``domain`` of the ErrorInfo detail every error carries (its ``reason`` is the hybridkg error class).
ERROR_DOMAIN = "hybridkg.dev"
#: Encoded size a SHACL report in the status details may take: trailers are limited (8 KiB by default
#: in most clients), so a longer report is cut and says how many results it left out.
DETAILS_MAX_BYTES = 4000
_REQUEST_ID_OK = re.compile(r"[A-Za-z0-9._:-]{1,64}")


@dataclass
class _Call:
    method: str
    request_id: str
    caller: str = "-"
    route: str = "-"
    who: Caller | None = None  # the authenticated caller, for checks that depend on the request

    def require(self, role: Role, what: str) -> None:
        assert self.who is not None
        self.who.require(role, what)


def _metadata(context: grpc.aio.ServicerContext, key: str) -> str | None:
    for k, v in context.invocation_metadata() or ():
        if k == key:
            return v if isinstance(v, str) else None
    return None


def _any(message: Any) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def error_status(error: BaseException, request_id: str) -> tuple[grpc.StatusCode, str, tuple[tuple[str, Any], ...]]:
    """The status code, message and trailing metadata (``google.rpc.Status`` details) of an error."""
    st = status_of(error)
    details = []
    if isinstance(error, HybridKGError):
        details.append(_any(error_details_pb2.ErrorInfo(
            reason=type(error).__name__, domain=ERROR_DOMAIN, metadata={"request_id": request_id})))
    if isinstance(error, ShapeViolation) and error.report is not None:
        details.append(_any(convert.validation_report(error.report, max_bytes=DETAILS_MAX_BYTES)))
    if isinstance(error, ParseError):
        detail = rdf_pb2.ParseErrorDetail(format=error.format, detail=error.detail)
        if error.line is not None:
            detail.line = error.line
        if error.column is not None:
            detail.column = error.column
        details.append(_any(detail))
    status = status_pb2.Status(code=st.grpc.value[0], message=st.message, details=details)
    return st.grpc, st.message, (("x-request-id", request_id), ("grpc-status-details-bin", status.SerializeToString()))


def _rpc(role: Role, what: str, *, streaming: bool = False) -> Callable[[Any], Any]:
    """Wrap a servicer method ``(self, request, context, call)``: auth, request id, logs, metrics, errors."""

    def decorate(fn: Any) -> Any:
        method = fn.__name__

        def begin(context: grpc.aio.ServicerContext) -> _Call:
            offered = _metadata(context, "x-request-id")
            rid = offered if offered and _REQUEST_ID_OK.fullmatch(offered) else new_request_id()
            REQUEST_ID.set(rid)
            return _Call(method, rid)

        def authorize(self: KnowledgeServicer, call: _Call, context: grpc.aio.ServicerContext) -> None:
            caller = self.runtime.auth.caller(_metadata(context, "authorization"))
            call.caller, call.who = caller.name, caller
            caller.require(role, what)

        def finish(self: KnowledgeServicer, call: _Call, start: float, code: grpc.StatusCode) -> None:
            seconds = time.perf_counter() - start
            ok = code is grpc.StatusCode.OK
            self.runtime.metrics.observe("grpc", method, code.name, seconds, route=call.route, ok=ok)
            level = logging.INFO if ok or code is not grpc.StatusCode.INTERNAL else logging.ERROR
            log.log(level, "grpc %s %s %.1f ms caller=%s", method, code.name, seconds * 1000, call.caller,
                    extra={"api": "grpc", "method": method, "code": code.name, "ms": round(seconds * 1000, 3),
                           "caller": call.caller, "route": call.route})

        async def fail(self: KnowledgeServicer, call: _Call, start: float, context: grpc.aio.ServicerContext,
                       error: BaseException) -> None:
            code, message, trailers = error_status(error, call.request_id)
            if code is grpc.StatusCode.INTERNAL:
                log.error("grpc %s failed unexpectedly", method, exc_info=error)
            finish(self, call, start, code)
            await context.abort(code, message, trailing_metadata=trailers)

        @contextlib.asynccontextmanager
        async def guarded(self: KnowledgeServicer, context: grpc.aio.ServicerContext) -> AsyncIterator[_Call]:
            """The call's frame, for unary and streaming RPCs alike: auth first, then the status it ends with."""
            call, start = begin(context), time.perf_counter()
            try:
                authorize(self, call, context)
                yield call
            except grpc.aio.AbortError:
                raise
            except BaseException as e:
                if _is_cancel(e):
                    finish(self, call, start, grpc.StatusCode.CANCELLED)
                    raise
                await fail(self, call, start, context, e)
            context.set_trailing_metadata((("x-request-id", call.request_id),))
            finish(self, call, start, grpc.StatusCode.OK)

        if streaming:
            @functools.wraps(fn)
            async def stream_wrapper(self: KnowledgeServicer, request: Any,
                                     context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
                async with guarded(self, context) as call:
                    async for message in fn(self, request, context, call):
                        yield message

            return stream_wrapper

        @functools.wraps(fn)
        async def wrapper(self: KnowledgeServicer, request: Any, context: grpc.aio.ServicerContext) -> Any:
            async with guarded(self, context) as call:
                return await fn(self, request, context, call)

        return wrapper

    return decorate


def _is_cancel(error: BaseException) -> bool:
    import asyncio

    return isinstance(error, asyncio.CancelledError | GeneratorExit | KeyboardInterrupt | SystemExit)


def _optional_int(message: Any, name: str) -> int | None:
    return int(getattr(message, name)) if message.HasField(name) else None


def _check_top_k(top_k: int | None) -> None:
    if top_k is not None and top_k <= 0:
        raise InvalidInput(f"top_k must be a positive number, not {top_k}")


def _check_mode(mode: str) -> str | None:
    if not mode:
        return None
    names = [m.value for m in Mode]
    if mode.strip().lower() not in names:
        raise InvalidInput(f"unknown retrieval mode {mode!r}; expected one of {', '.join(names)}")
    return mode.strip().lower()


class KnowledgeServicer(pb_grpc.KnowledgeServiceServicer):
    """``hybridkg.v1.KnowledgeService`` over one :class:`Runtime`."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def _token(self, context: grpc.aio.ServicerContext) -> CancelToken:
        token = self.runtime.token(context.time_remaining())
        context.add_done_callback(lambda _ctx: token.cancel())
        return token

    async def _work(self, token: CancelToken, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """``fn(*args, **kwargs)`` on a worker, in this call's context (its logs carry the request id)."""
        ctx = contextvars.copy_context()
        return await self.runtime.call(ctx.run, functools.partial(fn, *args, **kwargs), token=token)

    # ------------------------------------------------------------------------------------ writes
    @_rpc(Role.WRITER, "Ingest")
    async def Ingest(self, requests: AsyncIterator[pb.IngestRequest], context: grpc.aio.ServicerContext,
                     call: _Call) -> pb.IngestResponse:
        token = self._token(context)
        limit = self.runtime.kb.max_input_bytes
        meta: pb.IngestMetadata | None = None
        data = bytearray()
        count = 0
        async for request in requests:
            if request.HasField("metadata"):
                if count:
                    raise InvalidInput("Ingest: metadata goes in the first message only; later messages carry chunks")
                meta = request.metadata
            count += 1
            if len(data) + len(request.chunk) > limit:
                raise InputTooLarge(
                    f"the upload has more than {limit} bytes (store.max_input_bytes); nothing was stored. "
                    "Split it or raise the limit"
                )
            data += request.chunk
        if not data:
            raise InvalidInput("Ingest: the upload is empty; send the file's bytes in `chunk`")
        meta = meta or pb.IngestMetadata()
        report = await self._work(
            token, self.runtime.ingest, bytes(data), token=token, domain=meta.domain or None,
            graph=meta.graph or None, fmt=meta.format or None, name=meta.name or None,
        )
        return convert.ingest_response(report)

    @_rpc(Role.WRITER, "Update")
    async def Update(self, request: pb.UpdateRequest, context: grpc.aio.ServicerContext,
                     call: _Call) -> pb.UpdateResponse:
        token = self._token(context)
        change = await self._work(token, self.runtime.update, request.update, token=token)
        return convert.update_response(change)

    @_rpc(Role.WRITER, "Feedback")
    async def Feedback(self, request: pb.FeedbackRequest, context: grpc.aio.ServicerContext,
                       call: _Call) -> pb.FeedbackResponse:
        token = self._token(context)
        result = await self._work(token, self.runtime.feedback, dict(request.scores), token=token)
        return convert.feedback_response(result)

    # ------------------------------------------------------------------------------------ reads
    @_rpc(Role.READER, "Sparql", streaming=True)
    async def Sparql(self, request: pb.SparqlRequest, context: grpc.aio.ServicerContext,
                     call: _Call) -> AsyncIterator[bytes]:
        # Messages are written as bytes on the worker that reads the query (proto/wire.py): the first carries
        # the kind, the variables and ASK's boolean; each carries up to server.batch_rows rows and at most
        # server.max_message_bytes.
        token = self._token(context)
        spec = QuerySpec(request.query, request.inference if request.HasField("inference") else True,
                         list(request.default_graph_uri) or None, list(request.named_graph_uri) or None)
        cfg = self.runtime.settings.server
        encode = functools.partial(_produce, rows=cfg.batch_rows, max_bytes=cfg.max_message_bytes,
                                   text=request.encoding == pb.RESULT_ENCODING_TEXT)
        async with contextlib.aclosing(self.runtime.stream_query(spec, encode, token=token)) as messages:
            async for message in messages:
                yield message

    @_rpc(Role.READER, "Ask")
    async def Ask(self, request: pb.AskRequest, context: grpc.aio.ServicerContext, call: _Call) -> pb.AskResponse:
        token = self._token(context)
        top_k = _optional_int(request, "top_k")
        _check_top_k(top_k)
        mode = _check_mode(request.mode)
        if not request.question.strip():
            raise InvalidInput("the question is empty")
        if request.domain:
            self.runtime.kb.policy.get(request.domain)  # NotFound names the known domains
        answer = await self._work(token, self.runtime.ask, request.question, domain=request.domain or None,
                                  mode=mode, top_k=top_k, token=token)
        call.route = str(answer.route)
        return convert.ask_response(answer)

    @_rpc(Role.READER, "Explain")
    async def Explain(self, request: pb.ExplainRequest, context: grpc.aio.ServicerContext,
                      call: _Call) -> pb.ExplainResponse:
        token = self._token(context)
        if not request.triple.strip():
            raise InvalidInput("Explain needs a triple in N-Triples syntax, e.g. <s> <p> <o> .")
        tree = await self._work(token, self.runtime.explain, request.triple, token=token)
        return pb.ExplainResponse(explanation=convert.explanation(tree))

    @_rpc(Role.READER, "Validate")
    async def Validate(self, request: pb.ValidateRequest, context: grpc.aio.ServicerContext,
                       call: _Call) -> pb.ValidateResponse:
        token = self._token(context)
        if not request.domain:
            raise InvalidInput("Validate needs a domain: whose shapes should the data meet?")
        report = await self._work(token, self.runtime.validate, request.data, domain=request.domain,
                                  fmt=request.format or None, graph=request.graph or None, token=token)
        return pb.ValidateResponse(report=convert.validation_report(report))

    @_rpc(Role.READER, "Retrieve")
    async def Retrieve(self, request: pb.RetrieveRequest, context: grpc.aio.ServicerContext,
                       call: _Call) -> pb.RetrieveResponse:
        token = self._token(context)
        top_k = _optional_int(request, "top_k")
        _check_top_k(top_k)
        mode = _check_mode(request.mode)
        if request.domain:
            self.runtime.kb.policy.get(request.domain)  # NotFound names the known domains
        result = await self._work(token, self.runtime.retrieve, request.query, mode=mode, top_k=top_k,
                                  domain=request.domain or None, token=token)
        return convert.retrieve_response(result)

    @_rpc(Role.ADMIN, "Stats")
    async def Stats(self, request: pb.StatsRequest, context: grpc.aio.ServicerContext,
                    call: _Call) -> pb.StatsResponse:
        token = self._token(context)
        return convert.stats_response(await self._work(token, self.runtime.stats, token=token))

    # ------------------------------------------------------------------------------------ the bridge
    @_rpc(Role.READER, "Cypher", streaming=True)
    async def Cypher(self, request: pb.CypherRequest, context: grpc.aio.ServicerContext,
                     call: _Call) -> AsyncIterator[pb.CypherResponse]:
        # read-only Cypher on a bridge graph: the whole store's needs admin, a domain's the reader role (as its
        # triples through Sparql); all rows are read on a worker (FalkorDB answers whole), then sent in batches
        domain = request.domain or None
        _require_bridge_role(call, domain, "Cypher")
        token = self._token(context)
        params = convert.cypher_params(request.params)
        cfg = self.runtime.settings.server
        messages = await self._work(token, _cypher_messages, self.runtime, request.query, params, domain, token,
                                    rows=cfg.batch_rows, max_bytes=cfg.max_message_bytes)
        for message in messages:
            yield message

    @_rpc(Role.READER, "Translate")
    async def Translate(self, request: pb.TranslateRequest, context: grpc.aio.ServicerContext,
                        call: _Call) -> pb.TranslateResponse:
        domain = request.domain or None
        _require_bridge_role(call, domain, "Translate")
        if request.to == pb.QUERY_LANGUAGE_UNSPECIFIED:
            raise InvalidInput("Translate needs `to`: QUERY_LANGUAGE_CYPHER (the query is SPARQL) or "
                               "QUERY_LANGUAGE_SPARQL (the query is Cypher)")
        to = Language.CYPHER if request.to == pb.QUERY_LANGUAGE_CYPHER else Language.SPARQL
        params = convert.cypher_params(request.params)
        token = self._token(context)
        result = await self._work(token, _translate, self.runtime, request.query, to, domain, params, token)
        return convert.translate_response(result)


def _require_bridge_role(call: _Call, domain: str | None, what: str) -> None:
    if domain is None:
        call.require(Role.ADMIN, f"{what} on the whole store's bridge graph (no domain)")


def _translate(runtime: Runtime, query: str, to: Language, domain: str | None, params: dict[str, Any],
               token: CancelToken) -> Translation:
    if not query.strip():
        raise InvalidInput("the query is empty")
    token.check()
    return translate(query, to, names_of_sync(runtime.bridge(domain)), params)


def _cypher_messages(runtime: Runtime, query: str, params: dict[str, Any], domain: str | None, token: CancelToken,
                     *, rows: int, max_bytes: int) -> list[pb.CypherResponse]:
    """The Cypher stream's messages: the columns with the first batch, then batches of up to ``rows`` rows, each
    message under ``max_bytes``."""
    check_read_only(query)  # before anything is opened
    token.check()
    graph = runtime.bridge(domain).graph
    result = run_cypher(graph, query, params, max_rows=runtime.settings.server.max_result_rows,
                        timeout_s=token.remaining)
    out = [pb.CypherResponse(columns=list(result.columns))]
    size = out[0].ByteSize()
    for row in result.rows:
        token.check()
        item = pb.CypherRow(values=[convert.cypher_value(v) for v in row])
        n = item.ByteSize() + _HEADROOM
        if n > max_bytes:
            raise row_too_large(n, max_bytes)
        if len(out[-1].rows) >= rows or size + n > max_bytes:
            out.append(pb.CypherResponse())
            size = 0
        out[-1].rows.append(item)
        size += n
    return out


#: Room left in a message for framing beside its rows.
_HEADROOM = 64


def _messages(cursor: QueryCursor, *, rows: int, max_bytes: int) -> Iterator[bytes]:
    """One query's stream, encoded on its worker: the header (kind, variables, ASK's boolean) with the first
    batch, then one message per batch of ``rows`` rows, each under ``max_bytes`` (what a client accepts by
    default); a single row above that cannot be sent and fails the call with ResultTooLarge."""
    encoder = SparqlEncoder(cursor.kind, cursor.variables, cursor.boolean)
    pending = [encoder.header()]
    size, sent = len(pending[0]), False
    while batch := cursor.next_batch(rows):
        for row in encoder.rows(batch):
            if len(row) + _HEADROOM > max_bytes:
                raise row_too_large(len(row), max_bytes)
            if pending and size + len(row) + _HEADROOM > max_bytes:
                yield b"".join(pending)
                pending, size, sent = [], 0, True
            pending.append(row)
            size += len(row)
        yield b"".join(pending)
        pending, size, sent = [], 0, True
    if not sent:
        yield b"".join(pending)


#: Text per message with encoding TEXT (fewer, larger messages; each still under max_message_bytes).
TEXT_CHUNK_BYTES = 256 << 10
_TEXT = b"\x2a"  # SparqlResponse.text = 5, length-delimited


def _produce(cursor: QueryCursor, emit: Callable[[bytes], None], *, rows: int, max_bytes: int, text: bool) -> None:
    """One query's stream, encoded on its worker: with ``text`` (and a store that writes lines itself) the
    header with whole lines of TSV / N-Triples; otherwise typed rows."""
    if text:
        header = [SparqlEncoder(cursor.kind, cursor.variables, cursor.boolean).header()]

        def message(lines: bytes) -> None:
            emit(b"".join([*header, _TEXT, varint(len(lines)), lines]))
            header.clear()

        limit = max_bytes - _HEADROOM - len(header[0])
        lines = "tsv" if cursor.kind == "select" else "ntriples"
        if cursor.write_native(message, lines, chunk_bytes=min(TEXT_CHUNK_BYTES, limit), max_line_bytes=limit):
            if header:  # nothing was written (ASK has no lines)
                emit(header[0])
            return
    for m in _messages(cursor, rows=rows, max_bytes=max_bytes):
        emit(m)


def _serialize(message: Any) -> bytes:
    """Messages already written as bytes (the Sparql stream) go as they are."""
    return message if isinstance(message, bytes) else message.SerializeToString()


def _add_service(servicer: KnowledgeServicer, server: grpc.aio.Server) -> None:
    """Register every RPC of ``KnowledgeService`` (from its descriptor, as the generated code does) with a
    response serializer that also takes pre-encoded bytes."""
    factories = {
        (False, False): grpc.unary_unary_rpc_method_handler, (False, True): grpc.unary_stream_rpc_method_handler,
        (True, False): grpc.stream_unary_rpc_method_handler, (True, True): grpc.stream_stream_rpc_method_handler,
    }
    handlers = {}
    for method in pb.DESCRIPTOR.services_by_name["KnowledgeService"].methods:
        request_class = message_factory.GetMessageClass(method.input_type)
        factory = factories[(method.client_streaming, method.server_streaming)]
        handlers[method.name] = factory(getattr(servicer, method.name), request_deserializer=request_class.FromString,
                                        response_serializer=_serialize)
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))


def _credentials(runtime: Runtime) -> grpc.ServerCredentials | None:
    tls = runtime.settings.server.tls
    if tls.cert is None or tls.key is None:
        return None

    def read(path: Path, what: str) -> bytes:
        try:
            return path.read_bytes()
        except OSError as e:
            raise InvalidInput(f"cannot read server.tls.{what} {path}: {e.strerror}") from e

    client_ca = read(tls.client_ca, "client_ca") if tls.client_ca is not None else None
    return grpc.ssl_server_credentials(
        [(read(tls.key, "key"), read(tls.cert, "cert"))], root_certificates=client_ca,
        require_client_auth=client_ca is not None,
    )


async def start_grpc(runtime: Runtime, address: str) -> tuple[grpc.aio.Server, int]:
    """Bind ``address`` (HOST:PORT, port 0 for any), start the server and return it with its bound port.

    TLS (and mutual TLS with ``server.tls.client_ca``) from the settings; a non-loopback address without
    API keys is refused. The caller stops it with ``await server.stop(grace)``.
    """
    cfg = runtime.settings.server
    host, _ = parse_hostport(address)
    check_bind(host, runtime.auth, "gRPC")
    credentials = _credentials(runtime)
    server = grpc.aio.server(options=[
        ("grpc.max_receive_message_length", cfg.max_message_bytes),
        ("grpc.max_send_message_length", cfg.max_message_bytes),
    ])
    _add_service(KnowledgeServicer(runtime), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME), server
    )
    try:
        port = server.add_secure_port(address, credentials) if credentials else server.add_insecure_port(address)
    except RuntimeError as e:
        raise InvalidInput(f"cannot bind the gRPC listener to {address}: {e}") from e
    await server.start()
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    log.info("gRPC listening on %s (port %d, %s)", address, port, "TLS" if credentials else "plaintext")
    return server, port


__all__ = ["SERVICE_NAME", "KnowledgeServicer", "error_status", "start_grpc"]
