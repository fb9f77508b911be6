"""Cypher text for generated test queries, shaped so cypherast 0.1.12 parses it as meant."""

from __future__ import annotations

import re


def cypher_not(c: str) -> str:
    """``NOT c``; cypherast 0.1.12 cannot parse ``NOT ((...``, and reads ``(x:A)`` as a pattern."""
    if c.startswith("("):
        return f"NOT (true AND {c})"
    return f"NOT {c}" if re.fullmatch(r"\w+(:\w+)+", c) else f"NOT ({c})"
