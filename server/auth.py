"""API keys with roles: ``authorization: Bearer KEY`` on gRPC metadata and HTTP headers alike.

The config holds only each key's SHA-256 digest. With no keys configured every caller is admin, and the
service binds loopback addresses only (:func:`check_bind`).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
import socket
from dataclasses import dataclass

from hybridkg.errors import InvalidInput, PermissionDenied, Unauthenticated
from hybridkg.server.settings import ApiKey, AuthConfig, Role


@dataclass(frozen=True)
class Caller:
    name: str
    role: Role

    def require(self, needed: Role, what: str) -> None:
        if not self.role.allows(needed):
            raise PermissionDenied(
                f"{what} needs the {needed.value} role; key {self.name!r} has {self.role.value}. "
                f"Use a key with role {needed.value} or higher"
            )


ANONYMOUS = Caller("anonymous (no keys configured)", Role.ADMIN)


class Authenticator:
    def __init__(self, config: AuthConfig) -> None:
        self._keys: dict[str, ApiKey] = {k.sha256: k for k in config.keys}

    @property
    def enabled(self) -> bool:
        return bool(self._keys)

    def caller(self, authorization: str | None) -> Caller:
        """The caller an ``authorization`` header value names; raises Unauthenticated."""
        if not self._keys:
            return ANONYMOUS
        if not authorization:
            raise Unauthenticated("no API key: send the header `authorization: Bearer KEY`")
        scheme, _, key = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not key.strip():
            raise Unauthenticated("malformed authorization header: expected `Bearer KEY`")
        digest = hashlib.sha256(key.strip().encode("utf-8")).hexdigest()
        for known, entry in self._keys.items():
            if hmac.compare_digest(known, digest):
                return Caller(entry.name, entry.role)
        raise Unauthenticated("unknown API key; ask the operator for a key (hybridkg keys new --role R)")


def new_key(role: Role, name: str) -> tuple[str, str]:
    """A fresh random key and its config line (YAML flow mapping for ``server.auth.keys``)."""
    key = "hkg_" + secrets.token_urlsafe(32)
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
    return key, f'- {{name: "{name}", sha256: "{digest}", role: {role.value}}}'


def is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return host == "localhost"
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        try:
            infos = socket.getaddrinfo(host, None)
        except OSError:
            return False
        return bool(infos) and all(ipaddress.ip_address(i[4][0]).is_loopback for i in infos)


def check_bind(host: str, auth: Authenticator, listener: str) -> None:
    """Refuse a non-loopback address when no API keys are configured."""
    if not auth.enabled and not is_loopback(host):
        raise InvalidInput(
            f"refusing to bind the {listener} listener to {host!r} without API keys: anyone on the network "
            "could read and write. Add keys under server.auth.keys (hybridkg keys new --role R) "
            "or bind 127.0.0.1"
        )
