"""The ``server:`` section of the settings: listeners, API keys, TLS, limits, logging."""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

DEFAULT_GRPC = "127.0.0.1:50051"
DEFAULT_HTTP = "127.0.0.1:8080"


class Role(StrEnum):
    """What an API key may do; each role includes the ones before it."""

    READER = "reader"  # queries, Ask, Explain, Retrieve, Validate
    WRITER = "writer"  # also Ingest, Update, Feedback, Graph Store writes
    ADMIN = "admin"  # also Stats (and later raw Cypher)

    @property
    def rank(self) -> int:
        return list(Role).index(self)

    def allows(self, needed: Role) -> bool:
        return self.rank >= needed.rank


class ApiKey(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="Who holds the key (shown in logs, never the key itself).")
    sha256: str = Field(description="Hex SHA-256 digest of the key; `hybridkg keys new --role R` prints one.")
    role: Role = Field(description="reader | writer | admin.")

    @field_validator("sha256")
    @classmethod
    def _hex(cls, v: str) -> str:
        v = v.strip().lower()
        if not re.fullmatch(r"[0-9a-f]{64}", v):
            raise ValueError("must be the 64-character hex SHA-256 digest of the key (hybridkg keys new prints it)")
        return v


class AuthConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    keys: list[ApiKey] = Field(default_factory=list, description="API keys; none: loopback-only, no auth.")


class TlsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cert: Path | None = Field(default=None, description="PEM certificate chain for both listeners.")
    key: Path | None = Field(default=None, description="PEM private key of `cert`.")
    client_ca: Path | None = Field(default=None, description="PEM CA bundle: when set, clients must present a cert.")

    @model_validator(mode="after")
    def _pair(self) -> TlsConfig:
        if (self.cert is None) != (self.key is None):
            raise ValueError("tls.cert and tls.key go together: set both or neither")
        if self.client_ca is not None and self.cert is None:
            raise ValueError("tls.client_ca needs tls.cert and tls.key (mutual TLS is on top of TLS)")
        return self

    @property
    def enabled(self) -> bool:
        return self.cert is not None


class LogFormat(StrEnum):
    TEXT = "text"
    JSON = "json"


class ServerConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    grpc: str = Field(default=DEFAULT_GRPC, description="gRPC listener HOST:PORT (port 0: any free port).")
    http: str = Field(default=DEFAULT_HTTP, description="HTTP listener HOST:PORT (SPARQL protocol, YASGUI, metrics).")
    auth: AuthConfig = Field(default_factory=lambda: AuthConfig(), description="API keys and roles.")
    tls: TlsConfig = Field(default_factory=lambda: TlsConfig(), description="TLS for both listeners.")
    workers: int = Field(default=8, ge=1, le=256, description="Threads running store work (queries, writes).")
    max_message_bytes: int = Field(
        default=16 << 20, ge=1024, description="Largest single gRPC message or HTTP request body accepted."
    )
    max_result_rows: int = Field(
        default=1_000_000, ge=1, description="Rows (or triples) one query may return before RESOURCE_EXHAUSTED."
    )
    batch_rows: int = Field(default=256, ge=1, le=100_000, description="Rows per Sparql stream message.")
    query_timeout_s: float = Field(
        default=300.0, gt=0, description="Deadline for a request that sets none (seconds)."
    )
    log_format: LogFormat = Field(default=LogFormat.TEXT, description="text, or json (one JSON object per line).")
    grace_s: float = Field(default=10.0, ge=0, description="How long in-flight requests may finish on shutdown.")

    @field_validator("grpc", "http")
    @classmethod
    def _hostport(cls, v: str) -> str:
        parse_hostport(v)
        return v


def parse_hostport(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (IPv6 hosts in brackets) -> (host, port)."""
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{value!r} is not HOST:PORT (e.g. 127.0.0.1:50051; port 0 picks a free one)")
    return host.strip("[]"), int(port)
