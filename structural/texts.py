"""Texts the structural layer embeds and hashes, and how an element's vector is made of them: one place, so
ingestion, curated inserts and reconcile agree.

A vector is described by a :class:`VectorRecipe`: the normalised sum of the unit embeddings of a few texts
and of :class:`Span` s, character ranges of a context pooled from that context's own forward passes (one per
sentence, :meth:`~.embedding.sentence.SentenceEmbedder.embed_with_spans`).

* a chunk: its whole text as one span (:func:`chunk_recipe`): the mean of its sentences' token states;
* an extracted entity (:func:`entity_recipe`): ``name: facts`` as a text, and as spans the sentences of its
  first :data:`ENTITY_CONTEXTS` chunks that extraction quoted in its description, weighted by their share of
  the characters, as mean pooling over one text ``name: facts. sentences`` would weigh them. The sentences'
  token states come from the passes that embed the chunks, so an entity costs the model only its name and its
  facts; "facts" are the parts of the description no chunk holds word for word (a role, a type the patterns
  learned). An entity no chunk quotes (curated, or its chunks gone) is ``name: description`` as one text;
* an extracted relation: its two names and its phrase (type words and the keywords that add a word), each
  embedded apart and summed: a phrase recurs across documents and a name is shared by all the relations of
  its entity, so the embedder's distinct-text rule and content cache make most of them free;
* a curated relation: one text with its own description (it says what no chunk says).

Measured on the ingestion bench (100 notes of ~82 words; ``bench/ingest.py``): 462 WordPiece tokens a note
with one text per relation, 376 with composed relations, 169 with entities pooled from the chunks' passes
(bench/RESULTS.md has the quality on our set and the held-out set for each). Pooling the sentences from one
pass over the whole chunk instead of one per sentence was as good on our set but lost 6 of 143 held-out
questions at Hits@5: every entity of a chunk drifts towards the chunk's topic.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from hybridkg.structural.extract.sentences import sentence_spans

SYMMETRIC_TYPES = frozenset({"co_occurs", "related_to"})
VECTOR_TEXT_CHARS = 400
RECIPE_VERSION = "r1"  # part of a composed vector's hash: a change to the composition re-embeds on write

ENTITY_CONTEXTS = 4  # an entity's vector reads its first chunks only: it stops changing once it has these

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
class Span:
    """Characters ``start:end`` of ``context``, pooled from the context's own forward pass."""

    context: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class VectorRecipe:
    """A vector: the normalised sum of the unit embeddings of ``texts`` and of the mean of ``spans``' pooled
    rows (one unit term for all the spans together)."""

    texts: tuple[str, ...]
    spans: tuple[Span, ...] = ()

    @property
    def vhash(self) -> str:
        """The hash stored as ``vhash``: of the text alone for a one-text recipe (as before recipes existed)."""
        if len(self.texts) == 1 and not self.spans:
            return content_hash(self.texts[0])
        parts = [f"{content_hash(s.context)}:{s.start}:{s.end}" for s in self.spans]
        return content_hash(RECIPE_VERSION, *self.texts, *parts)


def _words_pattern(text: str) -> re.Pattern[str] | None:
    words = text.split()
    return re.compile(r"\s+".join(re.escape(w) for w in words)) if words else None


def quoted_spans(pairs: Sequence[tuple[str, str]]) -> tuple[tuple[Span, ...], list[str]]:
    """For each ``(chunk text, the description extraction gave the entity in that chunk)``: the parts of the
    description (its sentences, split at ``"; "``) that the chunk holds word for word, as spans of the chunk,
    and the parts it does not hold (facts the patterns learned, such as a role or a type), in order."""
    spans: list[Span] = []
    facts: list[str] = []
    for context, description in pairs:
        for lo, hi in sentence_spans(description):
            for part in description[lo:hi].split("; "):
                part = part.strip()
                found = None
                for form in (part, part.rstrip(".")):  # a quoted sentence, or one the description's "; " joined
                    pattern = _words_pattern(form)
                    found = pattern.search(context) if pattern is not None else None
                    if found is not None:
                        break
                if found is not None:
                    span = Span(context, found.start(), found.end())
                    if span not in spans:
                        spans.append(span)
                elif part and part.rstrip(".") not in facts:
                    facts.append(part.rstrip("."))
    return tuple(spans), facts


def chunk_recipe(text: str) -> VectorRecipe:
    """A chunk's vector: its whole text pooled from its sentences' forward passes (the entities' spans come
    from the same passes)."""
    return VectorRecipe((), (Span(text, 0, len(text)),))


def entity_recipe(name: str, description: str, pairs: Sequence[tuple[str, str]] = ()) -> VectorRecipe:
    """``name: facts`` and the description's quoted sentences pooled from their chunks' own forward passes,
    when ``pairs`` (chunk text, that chunk's description) are given; else ``name: description``."""
    spans, facts = quoted_spans(pairs[:ENTITY_CONTEXTS])
    if spans:
        return VectorRecipe((entity_text(name, "; ".join(facts)),), spans)
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
