"""TLS and mutual TLS on the gRPC listener, with certificates made for the test by a throwaway CA."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from integration.grpc.service import KEYS, Pki, Server, demo_runtime, settings_for

from hybridkg.client import Client
from hybridkg.errors import BackendUnavailable, InvalidInput
from hybridkg.server.runtime import Runtime
from hybridkg.server.settings import Role


def test_tls(pki: Pki, tmp_path: Path, start_server: Callable[[Runtime], Server]) -> None:
    settings = settings_for(tmp_path)
    settings.server.tls.cert, settings.server.tls.key = pki.server_cert, pki.server_key
    server = start_server(demo_runtime(settings))
    with Client(server.target, KEYS[Role.READER], tls_ca=pki.ca, timeout=10) as client:
        assert client.sparql("ASK { ?s ?p ?o }") is True
    with Client(server.target, KEYS[Role.READER], timeout=3) as plaintext, pytest.raises(BackendUnavailable):
        plaintext.sparql("ASK { ?s ?p ?o }")
    with Client(server.target, KEYS[Role.READER], tls_ca=pki.client_cert, timeout=3) as untrusted, \
            pytest.raises(BackendUnavailable):
        untrusted.sparql("ASK { ?s ?p ?o }")


def test_mutual_tls_needs_a_client_certificate(pki: Pki, tmp_path: Path,
                                               start_server: Callable[[Runtime], Server]) -> None:
    settings = settings_for(tmp_path)
    settings.server.tls.cert, settings.server.tls.key = pki.server_cert, pki.server_key
    settings.server.tls.client_ca = pki.ca
    server = start_server(demo_runtime(settings))
    with Client(server.target, KEYS[Role.READER], tls_ca=pki.ca, client_cert=pki.client_cert,
                client_key=pki.client_key, timeout=10) as client:
        assert client.sparql("ASK { ?s ?p ?o }") is True
    with Client(server.target, KEYS[Role.READER], tls_ca=pki.ca, timeout=3) as anonymous, \
            pytest.raises(BackendUnavailable):
        anonymous.sparql("ASK { ?s ?p ?o }")


def test_non_loopback_address_without_keys_is_refused(tmp_path: Path,
                                                      start_server: Callable[..., Server]) -> None:
    runtime = Runtime(settings_for(tmp_path, keys=False))
    try:
        with pytest.raises(InvalidInput, match="without API keys"):
            start_server(runtime, "0.0.0.0:0")
    finally:
        runtime.close()
