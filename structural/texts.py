"""Texts the structural layer embeds and hashes, and how an element's vector is made of them: one place, so
ingestion, curated inserts and reconcile agree.

A vector is described by a :class:`VectorRecipe`: the normalised sum of the unit embeddings of one or a few
texts.

* a chunk: its text;
* an entity: ``name: description``, at most :data:`VECTOR_TEXT_CHARS` (:func:`entity_text`);
* an extracted relation: its two names and its phrase (type words and the keywords that add a word), each
  embedded apart and summed: a phrase recurs across documents and a name is shared by all the relations of
  its entity, so the embedder's distinct-text rule and content cache make most of them free;
* a curated relation: one text with its own description (it says what no chunk says).

Measured on the ingestion bench (100 notes of ~82 words; ``bench/ingest.py``): 462 WordPiece tokens a note
with one text per relation, 376 with composed relations. Entity recipes that embed only ``name (type)`` and
the facts the chunks do not hold, plus the chunks' mean vector (211 tokens a note), were tried and dropped:
within two questions on ``bench/fuzzy_eval`` but 5 (Hits@1) and 9 (Hits@5) of 143 questions lost in hybrid
mode on the held-out set (bench/RESULTS.md).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

SYMMETRIC_TYPES = frozenset({"co_occurs", "related_to"})
VECTOR_TEXT_CHARS = 400
RECIPE_VERSION = "r1"  # part of a composed vector's hash: a change to the composition re-embeds on write

_WORDS = re.compile(r"\w+")


def content_hash(*parts: str) -> str:
    h = hashlib.blake2b(digest_size=10)
    for p in parts:
        h.update(p.encode("utf-8"))
        h.update(b"\x00")
    return h.hexdigest()


def entity_text(name: str, description: str) -> str:
    """One text for an entity (name and description): what the bench's flat comparisons embed."""
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


@dataclass(frozen=True, slots=True)
class VectorRecipe:
    """A vector: the normalised sum of the unit embeddings of ``texts``."""

    texts: tuple[str, ...]

    @property
    def vhash(self) -> str:
        """The hash stored as ``vhash``: of the text alone for a one-text recipe (as before recipes existed)."""
        if len(self.texts) == 1:
            return content_hash(self.texts[0])
        return content_hash(RECIPE_VERSION, *self.texts)


def entity_recipe(name: str, description: str) -> VectorRecipe:
    return VectorRecipe((entity_text(name, description),))


def _adding(src_name: str, rel_type: str, dst_name: str, keywords: Sequence[str]) -> list[str]:
    """The keywords that add a word to the names and the type ("security officer" in "X is a security officer"
    only lengthens the text)."""
    have = set(_WORDS.findall(f"{src_name} {rel_type.replace('_', ' ')} {dst_name}".casefold()))
    return [k for k in keywords if not set(_WORDS.findall(k.casefold())) <= have]


def relation_phrase(src_name: str, rel_type: str, dst_name: str, keywords: Sequence[str]) -> str:
    """Type words and the keywords that add a word."""
    extra = _adding(src_name, rel_type, dst_name, keywords)
    return rel_type.replace("_", " ") + (". " + ", ".join(extra) if extra else "")


def relation_recipe(
    src_name: str, rel_type: str, dst_name: str, keywords: Sequence[str], curated_description: str = ""
) -> VectorRecipe:
    if curated_description:
        extra = _adding(src_name, rel_type, dst_name, keywords)
        return VectorRecipe((relation_text(src_name, rel_type, dst_name, extra, curated_description),))
    return VectorRecipe((src_name, dst_name, relation_phrase(src_name, rel_type, dst_name, keywords)))
