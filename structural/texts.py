"""Texts the structural layer embeds and hashes, and how an element's vector is made of them: one place, so
ingestion, curated inserts and reconcile agree.

A vector is described by a :class:`VectorRecipe`: the normalised sum of the unit embeddings of a few short
texts and, weighted, the mean of the vectors of chunks already embedded. The recipes keep the model's work
near the document's own length (the chunk is embedded once; everything else is short or recurs):

* a chunk: its text;
* an entity: ``name (type)`` plus what its description says that its chunks do not (an extracted entity's
  description is the sentence naming it, which the chunk's vector carries, after the facts the extractor
  learned: only those facts are embedded), capped at :data:`ENTITY_HEAD_CHARS`; plus the mean vector of its
  first :data:`CONTEXT_CHUNKS` chunks weighted :data:`CHUNK_CONTEXT`, which carries the sentence and the rest
  of the context at no model cost (an entity no chunk supports keeps up to :data:`VECTOR_TEXT_CHARS`);
* an extracted relation: its two names and its phrase (type words and the keywords that add a word), each
  embedded apart: a phrase recurs across documents and a name is shared by all the relations of its entity,
  so the embedder's distinct-text rule and content cache make most of them free;
* a curated relation: one text with its own description (it says what no chunk says).

Measured on the ingestion bench (100 notes of ~82 words; ``bench/ingest.py``): 462 WordPiece tokens a note
with one text per element, 211 with these recipes; on ``bench/fuzzy_eval`` retrieval stays within a question
or two per mode (bench/RESULTS.md).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

SYMMETRIC_TYPES = frozenset({"co_occurs", "related_to"})
VECTOR_TEXT_CHARS = 400
ENTITY_HEAD_CHARS = 120  # ``name (type): facts`` of an entity's vector, at most
CHUNK_CONTEXT = 1.0  # weight of an entity's chunks' mean vector against its head's (both unit length)
CONTEXT_CHUNKS = 8  # an entity's first chunks that make its context (later ones leave its vector as it is)
RECIPE_VERSION = "r1"  # part of a composed vector's hash: a change to the composition re-embeds on write

_WORDS = re.compile(r"\w+")
_SENTENCE = re.compile(r"(?<=[.!?…])\s+(?=[\"'“(\[]?[A-Z0-9À-Þ])|\n+")


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
    """A vector: the normalised sum of the unit embeddings of ``texts`` and ``context`` times the mean of the
    stored vectors of the chunks ``chunks`` (those the chunk index holds)."""

    texts: tuple[str, ...]
    chunks: tuple[str, ...] = ()
    context: float = 0.0

    @property
    def vhash(self) -> str:
        """The hash stored as ``vhash``: of the text alone for a one-text recipe (as before recipes existed)."""
        if len(self.texts) == 1 and not self.chunks:
            return content_hash(self.texts[0])
        return content_hash(RECIPE_VERSION, repr(self.context), *self.texts, "\x01", *self.chunks)


def _key(text: str) -> str:
    return " " + " ".join(_WORDS.findall(text.casefold())) + " "


def unsaid(description: str, chunk_texts: Sequence[str]) -> str:
    """The sentences of ``description`` that none of ``chunk_texts`` holds word for word (case and punctuation
    aside), joined: what an element's description adds to the chunks that support it."""
    keys = [_key(t) for t in chunk_texts]
    kept = [s.strip() for s in _SENTENCE.split(description) if s and s.strip()]
    return " ".join(s for s in kept if _key(s).strip() and not any(_key(s) in k for k in keys))


def entity_recipe(
    name: str, type: str, description: str, source_chunks: Sequence[str], chunk_texts: Mapping[str, str]
) -> VectorRecipe:
    """The first :data:`CONTEXT_CHUNKS` of ``source_chunks`` lend their vectors; ``chunk_texts`` gives their
    texts (one it lacks still lends its vector; the description's sentences are checked against the others)."""
    head = f"{name} ({type})" if type else name
    ids = tuple(dict.fromkeys(source_chunks))[:CONTEXT_CHUNKS]
    texts = [chunk_texts[c] for c in ids if chunk_texts.get(c)]
    facts = unsaid(description, texts) if texts else description
    if facts:
        head = f"{head}: {facts}"
    if not ids:  # nothing lends context (a curated entity no document mentions): the description is all there is
        return VectorRecipe((head[:VECTOR_TEXT_CHARS],))
    return VectorRecipe((head[:ENTITY_HEAD_CHARS],), ids, CHUNK_CONTEXT)


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
