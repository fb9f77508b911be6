"""Bounded reads of HTTP responses, shared by every layer that talks HTTP (remote SPARQL, LLM APIs)."""

from __future__ import annotations

from typing import Protocol

from hybridkg.errors import ResponseTooLarge

_BLOCK = 1 << 16


class _Readable(Protocol):
    def read(self, amt: int = ..., /) -> bytes: ...


def read_capped(response: _Readable, limit: int, what: str, setting: str) -> bytes:
    """The whole body of ``response``, or :class:`ResponseTooLarge` once it passes ``limit`` bytes.

    ``what`` names the peer in the message and ``setting`` the configuration key that raises the cap.
    Reads in blocks, so an endless or huge body costs at most ``limit`` bytes of memory.
    """
    parts: list[bytes] = []
    size = 0
    while True:
        block = response.read(min(_BLOCK, limit + 1 - size))
        if not block:
            return b"".join(parts)
        size += len(block)
        if size > limit:
            raise ResponseTooLarge(
                f"the response from {what} is larger than {limit:,} bytes; "
                f"raise {setting} if this is expected"
            )
        parts.append(block)
