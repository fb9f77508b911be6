"""Helpers shared by the extractor tests: an extraction's relations as triples and its entity names; hand-made
parse tokens for :mod:`hybridkg.structural.syntax`."""

from __future__ import annotations

from hybridkg.structural.base import Extraction


def triples(found: Extraction) -> set[tuple[str, str, str]]:
    return {(r.src, r.type, r.dst) for r in found.relations}


def typed(found: Extraction) -> set[tuple[str, str, str]]:
    """The relations the patterns typed: every triple but the weak ``co_occurs`` edges."""
    return {t for t in triples(found) if t[1] != "co_occurs"}


def names(found: Extraction, *, named: bool = True) -> set[str]:
    return {e.name for e in found.entities if e.named is named}


def tokens(
    text: str, heads: list[int], adpositions: frozenset[int] = frozenset(), lemmas: dict[int, str] | None = None
) -> list[tuple[int, int, int, str, str, bool]]:
    """The whitespace tokens of ``text`` as :func:`~hybridkg.structural.syntax.encode` takes them, with the given
    heads (a root is its own head), adpositions and lemmas (the word itself unless given)."""
    out = []
    at = 0
    for i, word in enumerate(text.split()):
        start = text.index(word, at)
        at = start + len(word)
        out.append((start, at, heads[i], word, (lemmas or {}).get(i, word), i in adpositions))
    return out
