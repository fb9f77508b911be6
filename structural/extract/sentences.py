"""Sentence and word spans of a chunk, for the offline extractor (no model: punctuation, case and a few lists).

A sentence ends at ``.``/``!``/``?``/``…`` (plus closing quotes or brackets) before whitespace and a
capital, digit, quote or line break, unless the word before the dot is a known abbreviation ("Dr.",
"e.g.") or a single initial ("J. Smith"). A blank line always ends a sentence; a single line break does
too, unless it looks like a hard wrap inside a paragraph (a long line not ending in punctuation, continued
in lower case), so list items and table rows each stand alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ABBREVIATIONS = frozenset(
    {
        "dr", "mr", "mrs", "ms", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "eg", "ie", "fig", "figs", "al",
        "no", "nos", "vol", "vols", "approx", "inc", "ltd", "co", "corp", "dept", "univ", "jan", "feb", "mar", "apr",
        "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "u.s", "u.k", "mt", "gen", "col", "lt", "sgt", "rev",
        "ca", "cf", "eq", "ref", "refs", "p", "pp", "ed", "eds", "est", "min", "max", "avg", "dose", "mg", "ml"
    }
)
WRAP_MIN_CHARS = 40

_END = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s|$)|\n")
_WORD = re.compile(r"[^\W_](?:[\w&'’-]*[^\W_])?")
_BEFORE_DOT = re.compile(r"([\w.]+)$")
_NEXT = re.compile(r"[ \t]*(.?)", re.S)


@dataclass(slots=True)
class Word:
    """``text`` is ``source[start:end]`` without a trailing possessive ``'s``; ``possessive`` says one was cut."""

    start: int
    end: int
    text: str
    possessive: bool = False


def _is_abbreviation(text: str, dot: int) -> bool:
    m = _BEFORE_DOT.search(text, max(0, dot - 12), dot)
    if m is None:
        return False
    word = m.group(1).lower().strip(".")
    if word in ABBREVIATIONS:
        return True
    return len(word) == 1 and word.isalpha() and text[dot - 1].isupper()


def _sentence_end(text: str, m: re.Match[str]) -> bool:
    start, end = m.span()
    following = _NEXT.match(text, end)
    nxt = following.group(1) if following else ""
    if m.group() == "\n":
        if nxt == "\n":
            return True
        line = text[text.rfind("\n", 0, start) + 1 : start].rstrip()
        wrapped = (len(line) >= WRAP_MIN_CHARS and line[-1:].isalnum()) or line.endswith((",", "-"))
        return not (wrapped and nxt.islower())
    if not nxt or nxt == "\n":
        return True
    if text[start] == "." and _is_abbreviation(text, start):
        return False
    return nxt.isupper() or nxt.isdigit() or nxt in "\"'“‘([*-•"


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of every sentence, trimmed of surrounding whitespace, in order."""
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _END.finditer(text):
        if not _sentence_end(text, m):
            continue
        end = m.start() if m.group() == "\n" else m.end()
        _append(text, spans, start, end)
        start = m.end()
    _append(text, spans, start, len(text))
    return spans


def _append(text: str, spans: list[tuple[int, int]], start: int, end: int) -> None:
    piece = text[start:end]
    stripped = piece.strip()
    if stripped:
        lead = len(piece) - len(piece.lstrip())
        spans.append((start + lead, start + lead + len(stripped)))


def words(text: str, start: int = 0, end: int | None = None) -> list[Word]:
    """Word tokens of ``text[start:end]`` (letters/digits with inner hyphens, apostrophes, ``&``)."""
    out: list[Word] = []
    for m in _WORD.finditer(text, start, len(text) if end is None else end):
        w = m.group()
        if len(w) > 2 and w[-2] in "'’" and w[-1] in "sS":
            out.append(Word(m.start(), m.end() - 2, w[:-2], True))
        else:
            out.append(Word(m.start(), m.end(), w))
    return out
