"""Conversions from the service's typed results to the ``hybridkg.v1`` messages (server side).

Sparql's rows are written by :mod:`hybridkg.proto.wire`; Cypher values (both ways, shared with the client) by
:mod:`hybridkg.proto.cypher_value`. JSON-shaped results (retrieval, explanations) go
through ``json_format.ParseDict`` into messages whose fields mirror their ``to_json`` keys one to one.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import json_format, struct_pb2

from hybridkg.bridge.queries import Language, Translation
from hybridkg.proto import cypher_value as codec
from hybridkg.proto.hybridkg.v1 import knowledge_pb2 as pb
from hybridkg.proto.hybridkg.v1 import rdf_pb2
from hybridkg.semantic.base import ChangeSet, ValidationReport, ValidationResult
from hybridkg.server.ask.answer import AskAnswer
from hybridkg.server.runtime import IngestReport


def validation_result(r: ValidationResult) -> rdf_pb2.ValidationResult:
    msg = rdf_pb2.ValidationResult(focus=r.focus, constraint=r.constraint, severity=str(r.severity),
                                   message=r.message)
    if r.path is not None:
        msg.path = r.path
    if r.value is not None:
        msg.value = r.value
    if r.source_shape is not None:
        msg.source_shape = r.source_shape
    return msg


def validation_report(report: ValidationReport, *, max_bytes: int | None = None) -> rdf_pb2.ValidationReport:
    """The report as a message; with ``max_bytes``, results past that encoded size are counted, not sent."""
    msg = rdf_pb2.ValidationReport(conforms=report.conforms, engine=report.engine)
    size = msg.ByteSize()
    for i, r in enumerate(report.results):
        item = validation_result(r)
        size += item.ByteSize() + 4
        if max_bytes is not None and size > max_bytes:
            msg.results_omitted = len(report.results) - i
            break
        msg.results.append(item)
    return msg


def ingest_response(report: IngestReport) -> pb.IngestResponse:
    msg = pb.IngestResponse(
        kind=report.kind, graph=report.graph, format=report.format,
        triples_asserted=report.triples_asserted, triples_inferred=report.triples_inferred,
        documents_added=report.documents_added, chunks_added=report.chunks_added,
        entities_added=report.entities_added, relations_added=report.relations_added, took_ms=report.took_ms,
    )
    if report.domain is not None:
        msg.domain = report.domain
    if report.shacl is not None:
        msg.shacl.CopyFrom(validation_report(report.shacl))
    return msg


def update_response(change: ChangeSet) -> pb.UpdateResponse:
    msg = pb.UpdateResponse(
        asserted_added=len(change.asserted_added), asserted_removed=len(change.asserted_removed),
        inferred_added=len(change.inferred_added), inferred_removed=len(change.inferred_removed),
        warnings=[validation_result(w) for w in change.warnings],
    )
    if change.domain is not None:
        msg.domain = change.domain
    return msg


def _struct(value: dict[str, Any]) -> struct_pb2.Struct:
    out = struct_pb2.Struct()
    out.update(value)
    return out


def ask_response(answer: AskAnswer) -> pb.AskResponse:
    """``AskResponse`` field for field from the answer's JSON (trees and evidence as Structs)."""
    data = answer.to_json()
    msg = pb.AskResponse(
        question=data["question"], route=data["route"], abstained=data["abstained"], reason=data["reason"] or "",
        answers=[pb.Answer(value=a["value"], label=a["label"] or "", score=a["score"]) for a in data["answers"]],
        sparql=data["sparql"] or "", explanations=[_struct(t) for t in data["explanations"]],
        evidence=_struct(data["evidence"] or {}), took_ms=data["took_ms"],
    )
    if data["domain"] is not None:
        msg.domain = data["domain"]
    return msg


def explanation(tree: dict[str, Any]) -> pb.Explanation:
    return json_format.ParseDict(tree, pb.Explanation(), ignore_unknown_fields=True)


def retrieve_response(result: dict[str, Any]) -> pb.RetrieveResponse:
    return json_format.ParseDict(result, pb.RetrieveResponse(), ignore_unknown_fields=True)


def feedback_response(result: dict[str, Any]) -> pb.FeedbackResponse:
    return pb.FeedbackResponse(epoch=int(result.get("epoch", 0)), edges_updated=int(result.get("edges_updated", 0)),
                               nodes=int(result.get("nodes", 0)))


def stats_response(stats: dict[str, Any]) -> pb.StatsResponse:
    return pb.StatsResponse(
        sizes={k: int(v) for k, v in stats.get("sizes", {}).items()},
        domains={k: str(v) for k, v in stats.get("domains", {}).items()},
        reasoner=str(stats.get("reasoner", "")), validator=str(stats.get("validator", "")),
    )


# ------------------------------------------------------------------------------------------- Cypher, Translate


#: The CypherValue codec, one module for the client and the server (:mod:`hybridkg.proto.cypher_value`).
cypher_value = codec.message
cypher_params = codec.param_values


def translate_response(t: Translation) -> pb.TranslateResponse:
    language = pb.QUERY_LANGUAGE_CYPHER if t.to is Language.CYPHER else pb.QUERY_LANGUAGE_SPARQL
    msg = pb.TranslateResponse(query=t.text, language=language, columns=list(t.columns), kind=t.kind,
                               guards=list(t.guards))
    codec.properties(msg.params, t.params)
    return msg
