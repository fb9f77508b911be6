"""A chunk's dependency parse, kept with the chunk so that retrieval's reader can tell which entity of a sentence
answers a question without parsing at query time.

The spaCy extractor (:mod:`.extract.nlp`) parses every chunk anyway; :func:`encode` keeps, per token, its
character span in the chunk's text, its syntactic head, its lemma and whether it is an adposition, as one
compact JSON string (the chunk's ``syntax`` property, about 13 bytes a token). :func:`decode` reads it back as
a :class:`Parse`; an empty, foreign or damaged value reads as ``None`` (a chunk written by the rules or LLM
extractor, or by an older version, has none, and the reader then does without).

Format, version 1: ``{"v": 1, "t": [start, end, head, ...], "l": [lemma, ...], "a": "-a--"}`` with three
integers a token (character offsets into the chunk's text, the head's token index; a sentence's root is its own
head), the lemma in lower case (``""`` when it is the token's own text in lower case) and one character a token,
``a`` for an adposition (``ADP``: "in", "by", "of") and ``-`` otherwise.

Distances (:meth:`Parse.distance`) count dependency edges with the adpositions inside the path collapsed, as
the Stanford collapsed dependencies (de Marneffe & Manning 2008) turn ``based -prep-> in -pobj-> Lisbon`` into
one edge ``prep_in(based, Lisbon)``: a preposition is part of the relation, not a step away from it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

VERSION = 1
ADPOSITION, OTHER = "a", "-"


def encode(tokens: Iterable[tuple[int, int, int, str, str, bool]]) -> str:
    """The ``syntax`` value of a chunk from its tokens ``(start, end, head, text, lemma, is_adposition)`` in
    order; ``""`` for no tokens."""
    flat: list[int] = []
    lemmas: list[str] = []
    kinds: list[str] = []
    for start, end, head, text, lemma, adposition in tokens:
        flat += (start, end, head)
        folded = lemma.casefold()
        lemmas.append("" if folded == text.casefold() else folded)
        kinds.append(ADPOSITION if adposition else OTHER)
    if not lemmas:
        return ""
    return json.dumps({"v": VERSION, "t": flat, "l": lemmas, "a": "".join(kinds)}, separators=(",", ":"),
                      ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class Parse:
    """Tokens of one chunk: ``starts``/``ends`` (character offsets), ``heads`` (token indexes) and ``lemmas``
    (lower case, ``""`` for the token's own text)."""

    starts: tuple[int, ...]
    ends: tuple[int, ...]
    heads: tuple[int, ...]
    lemmas: tuple[str, ...]
    kinds: str

    def __len__(self) -> int:
        return len(self.heads)

    def tokens_in(self, start: int, end: int) -> range:
        """Indexes of the tokens that start inside ``[start, end)`` (tokens are in text order)."""
        lo = _first_at_or_after(self.starts, start)
        hi = _first_at_or_after(self.starts, end)
        return range(lo, hi)

    def root_of(self, start: int, end: int) -> int | None:
        """The token of the span ``[start, end)`` whose head lies outside it (the first such), ``None`` when no
        token starts inside the span."""
        span = self.tokens_in(start, end)
        for i in span:
            if self.heads[i] == i or self.heads[i] not in span:
                return i
        return span[0] if span else None

    def path_to_root(self, i: int) -> dict[int, int]:
        """Each ancestor of token ``i`` (``i`` included) with its number of steps from ``i``."""
        out: dict[int, int] = {}
        steps = 0
        while i not in out and 0 <= i < len(self.heads) and steps <= len(self.heads):
            out[i] = steps
            head = self.heads[i]
            if head == i:
                break
            i, steps = head, steps + 1
        return out

    def distance(self, a: int, b: int, up: dict[int, int] | None = None) -> int | None:
        """Dependency edges between tokens ``a`` and ``b``, an adposition inside the path collapsed into its edge
        (see the module docstring); ``None`` when they are in different trees (another sentence). ``up`` is
        :meth:`path_to_root` of ``a`` when the caller has it."""
        ancestors = self.path_to_root(a) if up is None else up
        down: list[int] = []
        seen: set[int] = set()
        while b not in ancestors:
            if b in seen or not 0 <= b < len(self.heads) or self.heads[b] == b:
                return None
            seen.add(b)
            down.append(b)
            b = self.heads[b]
        meet = b
        rising = sorted((x for x, steps in ancestors.items() if steps <= ancestors[meet]), key=ancestors.__getitem__)
        path = rising + down[::-1]  # a ... meet ... (b's side), endpoints included
        inner = path[1:-1]
        return len(path) - 1 - sum(1 for x in inner if self.kinds[x] == ADPOSITION)


def _first_at_or_after(values: Sequence[int], x: int) -> int:
    lo, hi = 0, len(values)
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def decode(value: object) -> Parse | None:
    """The :class:`Parse` a ``syntax`` value holds; ``None`` for anything else (no value, another version, a value
    whose offsets or heads do not hold together)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        data = json.loads(value)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("v") != VERSION:
        return None
    flat, lemmas, kinds = data.get("t"), data.get("l"), data.get("a")
    if not isinstance(flat, list) or not isinstance(lemmas, list) or len(flat) != 3 * len(lemmas):
        return None
    if not isinstance(kinds, str) or len(kinds) != len(lemmas) or set(kinds) - {ADPOSITION, OTHER}:
        return None
    n = len(lemmas)
    starts, ends, heads = tuple(flat[0::3]), tuple(flat[1::3]), tuple(flat[2::3])
    if not all(isinstance(x, int) for x in flat) or not all(isinstance(x, str) for x in lemmas):
        return None
    if any(not 0 <= h < n for h in heads) or any(s > e for s, e in zip(starts, ends, strict=True)):
        return None
    if any(starts[i] > starts[i + 1] for i in range(n - 1)):
        return None
    return Parse(starts, ends, heads, tuple(lemmas), kinds)
