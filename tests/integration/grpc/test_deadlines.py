"""Deadlines and cancellation really stop the query: on a server with ONE worker, the next call succeeds fast
only if the worker that ran the slow query was freed."""

from __future__ import annotations

import time

import grpc
import pytest
from integration.grpc.service import KEYS, Server, auth

from hybridkg.client import Client
from hybridkg.errors import DeadlineExceeded
from hybridkg.proto.hybridkg.v1 import knowledge_pb2 as pb
from hybridkg.server.settings import Role

#: ~1,500 triples cubed: billions of rows, far more than any deadline here allows
CROSS_PRODUCT = "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }"


def quick_query_succeeds(server: Server) -> float:
    start = time.monotonic()
    with Client(server.target, KEYS[Role.READER], timeout=5) as client:
        assert client.sparql("ASK { ?s ?p ?o }") is True
        assert len(list(client.sparql("SELECT * WHERE { ?s ?p ?o } LIMIT 10"))) == 10
    return time.monotonic() - start


def test_slow_query_is_stopped_at_the_deadline_and_frees_its_worker(single_worker: Server) -> None:
    start = time.monotonic()
    with single_worker.channel() as channel, pytest.raises(grpc.RpcError) as failed:
        for _ in single_worker.stub(channel).Sparql(pb.SparqlRequest(query=CROSS_PRODUCT), timeout=1.0,
                                                    metadata=auth(Role.READER)):
            pass
    assert failed.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
    assert time.monotonic() - start < 3.0, "answered promptly at the deadline"
    assert quick_query_succeeds(single_worker) < 2.0, "the only worker is free again"


def test_deadline_through_the_client(single_worker: Server) -> None:
    with Client(single_worker.target, KEYS[Role.READER]) as client, pytest.raises(DeadlineExceeded):
        for _ in client.sparql(CROSS_PRODUCT, timeout=0.5):  # type: ignore[union-attr]
            pass
    assert quick_query_succeeds(single_worker) < 2.0


def test_slow_client_that_stops_reading_is_stopped_at_the_deadline(single_worker: Server) -> None:
    with single_worker.channel() as channel:
        call = single_worker.stub(channel).Sparql(pb.SparqlRequest(query=CROSS_PRODUCT), timeout=1.0,
                                                  metadata=auth(Role.READER))
        next(call)
        time.sleep(1.5)  # the server blocks on flow control, then hits the deadline
        with pytest.raises(grpc.RpcError) as failed:
            for _ in call:
                pass
    assert failed.value.code() is grpc.StatusCode.DEADLINE_EXCEEDED
    assert quick_query_succeeds(single_worker) < 2.0


def test_cancelled_stream_stops_the_query_and_frees_the_worker(single_worker: Server) -> None:
    metrics = single_worker.runtime.metrics.registry

    def cancelled() -> float:
        return metrics.get_sample_value("hybridkg_requests_total", {"api": "grpc", "method": "Sparql", "route": "-",
                                                                    "code": "CANCELLED"}) or 0.0

    before = cancelled()
    with single_worker.channel() as channel:
        call = single_worker.stub(channel).Sparql(pb.SparqlRequest(query=CROSS_PRODUCT), metadata=auth(Role.READER))
        assert next(call).rows
        call.cancel()
    assert quick_query_succeeds(single_worker) < 2.0, "no deadline was set: only the cancellation freed it"
    deadline = time.monotonic() + 5
    while cancelled() < before + 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert cancelled() >= before + 1, "the server saw the call end as CANCELLED"


def test_client_leaving_a_result_unread_cancels_it(single_worker: Server) -> None:
    with Client(single_worker.target, KEYS[Role.READER]) as client:
        rows = client.sparql(CROSS_PRODUCT)
        first = next(iter(rows))  # type: ignore[arg-type]
        assert len(first) == 9
        rows.close()  # type: ignore[union-attr]
    assert quick_query_succeeds(single_worker) < 2.0
