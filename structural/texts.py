"""Texts the structural layer embeds and hashes: one place, so ingestion and curated inserts agree."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

SYMMETRIC_TYPES = frozenset({"co_occurs", "related_to"})
VECTOR_TEXT_CHARS = 400


def content_hash(*parts: str) -> str:
    h = hashlib.blake2b(digest_size=10)
    for p in parts:
        h.update(p.encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()


def entity_text(name: str, description: str) -> str:
    return f"{name}: {description}"[:VECTOR_TEXT_CHARS] if description else name


def relation_text(
    src_name: str, rel_type: str, dst_name: str, keywords: Sequence[str], description: str = ""
) -> str:
    """Names, type and keywords; ``description`` only for a curated relation's own description. An extracted
    relation's description is the sentence it came from, which the chunk's vector already carries: leaving it
    out keeps the text short and lets relations stated by one sentence share no text."""
    text = f"{src_name} {rel_type.replace('_', ' ')} {dst_name}"
    if keywords:
        text += ". " + ", ".join(keywords)
    if description:
        text += ". " + description
    return text[:VECTOR_TEXT_CHARS]
