"""Find mentions of entities the knowledge base already knows: one Aho–Corasick pass over a chunk.

Every label and altLabel of every :class:`KnownEntity` is a pattern, folded the same way as the text
(NFKC, case-folded, whitespace runs as one space), so matching is case-insensitive and survives line
wrapping. A match counts only at word boundaries ("ASA" is not found in "NASA"), overlapping matches
resolve leftmost-longest ("acetylsalicylic acid" beats "acid"), and short all-capital labels (acronyms of
up to five letters, e.g. "AS", "ACE") must match case exactly so they do not fire on ordinary words.
Lower-case labels (common nouns) also match their regular plural ("headache" finds "headaches").
When two entities share a label, the one whose preferred (first) label it is wins, then one with an IRI over
a name learned from the graph, then the first given. The gazetteer grows and shrinks in place
(:meth:`Gazetteer.add`, :meth:`Gazetteer.remove`) without rebuilding what did not change.
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import ahocorasick

from hybridkg.structural.base import KnownEntity

MIN_LABEL_CHARS = 2
EXACT_CASE_MAX = 5
MERGE_MIN = 1024  # labels changed since the last full merge that (at least) trigger a rebuild of the main tier
DELTA_MAX = 256  # labels in the newest tier before they move to the middle tier


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


def fold_label(label: str) -> str:
    """The key a label is matched by: folded as the text is (:func:`fold`), whitespace runs as one space."""
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
    """A multi-pattern matcher over the labels of known entities, growing by :meth:`add` and :meth:`remove`.

    Patterns live in three automatons (tiers, as in a log-structured merge): the main one over every label
    as of the last full merge, a middle one over labels changed since (up to an eighth of the main tier's, at
    least :data:`MERGE_MIN`) and a small one over the latest changes (up to :data:`DELTA_MAX`); a newer tier's
    entry for a label masks the older ones'. A change rebuilds only the small tier, lazily on the next
    :meth:`find`; a full small tier moves into the middle one, a full middle tier into the main one. Adding a
    few names to a 100k-label gazetteer then finding costs about a millisecond, and a long run of additions
    costs amortised O(1) rebuild work per label.

    Entities are told apart by IRI, or by value when the IRI is ``None`` (names learned from the graph): two
    learned entities are the same only when equal in every field. When entities share a label, a preferred
    (first) label beats an alternative label, which beats a plural variant; then an entity with an IRI (the
    curated RDF layer) beats a learned one; then the first given wins.
    """

    def __init__(self, known: Iterable[KnownEntity] = ()) -> None:
        self._lock = threading.Lock()
        self._ranked: dict[str, list[tuple[tuple[int, int, int], _Pattern]]] = {}
        self._order = 0
        # tiers, oldest first: every label as of the last full merge; labels changed since, up to an eighth of
        # those; the latest changes, up to DELTA_MAX. A tier's entry for a label masks the older tiers' entries.
        self._keys: list[set[str]] = [set(), set(), set()]
        self._stale = [False, False, False]
        self._tiers: tuple[tuple[Any, frozenset[str]], ...] = ()
        self.add(known)
        with self._lock:
            self._merge()

    def __len__(self) -> int:
        """The number of distinct folded labels (plural variants included)."""
        return len(self._ranked)

    def add(self, known: Iterable[KnownEntity]) -> None:
        """Add the labels of ``known``; an entity already present (same IRI, or equal when it has none) gains
        only the labels it did not have."""
        with self._lock:
            for entity in known:
                ident = _identity(entity)
                for rank, raw in enumerate(entity.labels):
                    label, key = raw.strip(), fold_label(raw)
                    if len(key) < MIN_LABEL_CHARS:
                        continue
                    exact = _is_acronym(label)
                    learned = 1 if entity.iri is None else 0
                    bucket = self._ranked.setdefault(key, [])
                    if any(_identity(p.entity) == ident and p.exact_case == exact for _, p in bucket):
                        continue
                    pattern = _Pattern(label, len(key), exact, entity, key[0].isalnum(), key[-1].isalnum())
                    self._put(key, (0 if rank == 0 else 1, learned, self._next()), pattern)
                    if label.islower():
                        for plural in _plurals(key):
                            variant = _Pattern(label, len(plural), False, entity, pattern.word_start, True)
                            if not any(_identity(p.entity) == ident for _, p in self._ranked.get(plural, ())):
                                self._put(plural, (2, learned, self._next()), variant)

    def remove(self, entities: Iterable[KnownEntity]) -> None:
        """Forget the labels of these entities (each matched by IRI, or by value when the IRI is ``None``)."""
        with self._lock:
            for entity in entities:
                ident = _identity(entity)
                keys = {k for raw in entity.labels for k in (fold_label(raw),) if k}
                keys.update(p for k in list(keys) for p in _plurals(k))
                for key in keys:
                    bucket = self._ranked.get(key)
                    if bucket is None:
                        continue
                    kept = [entry for entry in bucket if _identity(entry[1].entity) != ident]
                    if len(kept) == len(bucket):
                        continue
                    if kept:
                        self._ranked[key] = kept
                    else:
                        del self._ranked[key]
                    self._touch(key)

    def build(self) -> None:
        """Build the automata for the names added so far now (a service's start-up) rather than on the next
        :meth:`find`."""
        self._current()

    def find(self, text: str) -> list[Mention]:
        """Mentions of known entities in ``text``, in order, non-overlapping."""
        if not text:
            return []
        tiers = self._current()
        if all(automaton is None for automaton, _ in tiers):
            return []
        folded, pos = fold(text)
        candidates: list[tuple[int, int, _Pattern]] = []
        n = len(folded)
        for automaton, masked in tiers:
            if automaton is None:
                continue
            for end_index, (key, bucket) in automaton.iter(folded):
                if key in masked or not bucket:
                    continue
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

    def _next(self) -> int:
        self._order += 1
        return self._order

    def _put(self, key: str, priority: tuple[int, int, int], pattern: _Pattern) -> None:
        bucket = self._ranked.setdefault(key, [])
        bucket.append((priority, pattern))
        bucket.sort(key=lambda entry: entry[0])
        self._touch(key)

    def _touch(self, key: str) -> None:
        self._keys[-1].add(key)
        self._stale[-1] = True

    def _current(self) -> tuple[tuple[Any, frozenset[str]], ...]:
        """The tiers as ``(automaton, labels masked by newer tiers)``, rebuilding those that changed."""
        with self._lock:
            if any(self._stale):
                self._rebuild()
            return self._tiers

    def _merge(self) -> None:
        self._keys = [set(self._ranked), set(), set()]
        self._stale = [True, True, True]
        self._rebuild()

    def _rebuild(self) -> None:
        main, middle, latest = self._keys
        if len(latest) > DELTA_MAX:
            middle |= latest
            latest.clear()
            self._stale[1] = self._stale[2] = True
        if len(middle) > max(MERGE_MIN, len(main) // 8):
            main.clear()
            main.update(self._ranked)
            middle.clear()
            self._stale = [True, True, True]
        old = list(self._tiers) or [(None, frozenset())] * 3
        tiers = []
        for level, keys in enumerate(self._keys):
            automaton = old[level][0]
            if self._stale[level]:
                automaton = _build({k: self._ranked[k] for k in keys if k in self._ranked})
            newer = frozenset().union(*self._keys[level + 1 :])
            tiers.append((automaton, newer))
        self._tiers = tuple(tiers)
        self._stale = [False, False, False]


def _identity(entity: KnownEntity) -> object:
    return entity.iri if entity.iri is not None else entity


def _build(ranked: dict[str, list[tuple[tuple[int, int, int], _Pattern]]]) -> Any:
    """An automaton whose value for each label is ``(label, its patterns best first)``; ``None`` when empty."""
    if not ranked:
        return None
    automaton = ahocorasick.Automaton()
    for key, entries in ranked.items():
        automaton.add_word(key, (key, tuple(p for _, p in entries)))
    automaton.make_automaton()
    return automaton


def _span(pos: list[int], start: int, end: int) -> tuple[int, int]:
    if not pos:
        return start, end
    return pos[start], pos[end - 1] + 1


def _original(text: str, pos: list[int], start: int, end: int) -> str:
    lo, hi = _span(pos, start, end)
    return " ".join(text[lo:hi].split())
