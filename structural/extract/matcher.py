"""Find mentions of entities the knowledge base already knows: one Aho–Corasick pass over a chunk.

Every label and altLabel of every :class:`KnownEntity` is a pattern, folded the same way as the text
(NFKC, case-folded, whitespace runs as one space), so matching is case-insensitive and survives line
wrapping. A match counts only at word boundaries ("ASA" is not found in "NASA"), overlapping matches
resolve leftmost-longest ("acetylsalicylic acid" beats "acid"), and short all-capital labels (acronyms of
up to five letters, e.g. "AS", "ACE") must match case exactly so they do not fire on ordinary words.
Lower-case labels (common nouns) also match their regular plural ("headache" finds "headaches").
When two entities share a label, the one whose preferred (first) label it is wins, then the first given.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

import ahocorasick

from hybridkg.structural.base import KnownEntity

MIN_LABEL_CHARS = 2
EXACT_CASE_MAX = 5


@dataclass(frozen=True, slots=True)
class Mention:
    """``text[start:end]`` names ``entity``; ``label`` is the known label it matched."""

    start: int
    end: int
    text: str
    label: str
    entity: KnownEntity


@dataclass(frozen=True, slots=True)
class _Pattern:
    label: str
    length: int
    exact_case: bool
    entity: KnownEntity
    word_start: bool
    word_end: bool


@lru_cache(maxsize=65_536)
def _fold_char(c: str) -> str:
    return unicodedata.normalize("NFKC", c).casefold()


def fold(text: str) -> tuple[str, list[int]]:
    """``text`` folded for matching, with the original offset of every folded character (plus the end)."""
    if text.isascii() and "  " not in text and "\n" not in text and "\t" not in text and "\r" not in text:
        return text.lower(), []
    out: list[str] = []
    pos: list[int] = []
    space = False
    for i, c in enumerate(text):
        if c.isspace():
            if not space:
                out.append(" ")
                pos.append(i)
            space = True
            continue
        space = False
        f = _fold_char(c) if not c.isascii() else c.lower()
        out.append(f)
        pos.extend([i] * len(f))
    pos.append(len(text))
    return "".join(out), pos


def _fold_label(label: str) -> str:
    return " ".join(fold(label)[0].split())


def _plurals(key: str) -> tuple[str, ...]:
    """Regular plurals of a lower-case label's last word ("headache" -> "headaches", "artery" -> "arteries")."""
    if len(key) < 3 or not key[-1].isalpha():
        return ()
    if key.endswith(("s", "x", "z", "ch", "sh")):
        return (key + "es",)
    if key.endswith("y") and key[-2] not in "aeiou":
        return (key[:-1] + "ies",)
    return (key + "s",)


def _is_acronym(label: str) -> bool:
    letters = [c for c in label if c.isalpha()]
    return bool(letters) and len(label) <= EXACT_CASE_MAX and all(c.isupper() for c in letters)


class Gazetteer:
    """A multi-pattern matcher over the labels of known entities."""

    def __init__(self, known: Iterable[KnownEntity]) -> None:
        self._automaton = ahocorasick.Automaton()
        ranked: dict[str, list[tuple[int, int, _Pattern]]] = {}
        order = 0
        for entity in known:
            for rank, raw in enumerate(entity.labels):
                label, key = raw.strip(), _fold_label(raw)
                if len(key) < MIN_LABEL_CHARS:
                    continue
                exact = _is_acronym(label)
                bucket = ranked.setdefault(key, [])
                if any(p.entity.iri == entity.iri and p.exact_case == exact for _, _, p in bucket):
                    continue
                pattern = _Pattern(label, len(key), exact, entity, key[0].isalnum(), key[-1].isalnum())
                bucket.append((0 if rank == 0 else 1, order, pattern))
                order += 1
                if label.islower():
                    for plural in _plurals(key):
                        variant = _Pattern(label, len(plural), False, entity, pattern.word_start, True)
                        ranked.setdefault(plural, []).append((2, order, variant))
                        order += 1
        for key, entries in ranked.items():
            self._automaton.add_word(key, tuple(p for _, _, p in sorted(entries, key=lambda t: t[:2])))
        self._size = len(ranked)
        if self._size:
            self._automaton.make_automaton()

    def __len__(self) -> int:
        """The number of distinct folded labels."""
        return self._size

    def find(self, text: str) -> list[Mention]:
        """Mentions of known entities in ``text``, in order, non-overlapping."""
        if not self._size or not text:
            return []
        folded, pos = fold(text)
        candidates: list[tuple[int, int, _Pattern]] = []
        n = len(folded)
        for end_index, bucket in self._automaton.iter(folded):
            end = end_index + 1
            start = end - bucket[0].length
            left_ok = start == 0 or not folded[start - 1].isalnum()
            right_ok = end == n or not folded[end].isalnum()
            for p in bucket:
                if (p.word_start and not left_ok) or (p.word_end and not right_ok):
                    continue
                if p.exact_case and _original(text, pos, start, end) != p.label:
                    continue
                candidates.append((start, end, p))
                break
        candidates.sort(key=lambda c: (c[0], -(c[1] - c[0])))
        mentions: list[Mention] = []
        last_end = -1
        for start, end, p in candidates:
            if start < last_end:
                continue
            lo, hi = _span(pos, start, end)
            mentions.append(Mention(lo, hi, text[lo:hi], p.label, p.entity))
            last_end = end
        return mentions


def _span(pos: list[int], start: int, end: int) -> tuple[int, int]:
    if not pos:
        return start, end
    return pos[start], pos[end - 1] + 1


def _original(text: str, pos: list[int], start: int, end: int) -> str:
    lo, hi = _span(pos, start, end)
    return " ".join(text[lo:hi].split())
