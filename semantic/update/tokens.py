"""A small SPARQL tokenizer: enough to find the text of each WHERE clause of an update request.

It knows IRIs (``<...>``), the four string forms, comments and brace depth, so a ``}`` inside a string
or a ``#`` inside an IRI never confuses it; everything else is a run of other characters. It is run
only on requests the SPARQL parser has accepted. One ambiguity is resolved the way SPARQL parsers
do: ``<`` followed by IRI characters up to a ``>`` is an IRI, so a comparison written without spaces
such as ``?a<?b`` reads as an IRI token, which never holds a brace, quote or comment and so never
changes the brace depth.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from hybridkg.errors import InvalidQuery

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>\#[^\n\r]*)
  | (?P<iri><[^<>"{}|^`\\\x00-\x20]*>)
  | (?P<string>\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"|'''(?:[^'\\]|\\.|'(?!''))*'''
               |"(?:[^"\\\n\r]|\\.)*"|'(?:[^'\\\n\r]|\\.)*')
  | (?P<open>\{)
  | (?P<close>\})
  | (?P<semicolon>;)
  | (?P<word>(?:\\.|[^\s{};"'\#<])+)
  | (?P<other>.)
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True)
class Token:
    kind: str
    text: str
    start: int
    end: int
    depth: int

    def keyword(self, *words: str) -> bool:
        return self.kind == "word" and self.text.upper() in words


def tokenize(text: str) -> Iterator[Token]:
    """Tokens without whitespace and comments; ``depth`` is the brace depth the token starts at."""
    depth = 0
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup or "other"
        if kind in ("ws", "comment"):
            continue
        if kind == "close":
            depth -= 1
        yield Token(kind, m.group(), m.start(), m.end(), depth)
        if kind == "open":
            depth += 1


@dataclass(frozen=True)
class OperationText:
    """One operation of a request, as text.

    ``prologue`` holds the PREFIX/BASE declarations in force (they accumulate over a request, as in
    the SPARQL grammar); ``words`` the operation's tokens outside braces; ``groups`` the text (braces
    included) of each top-level group, keyed by the keyword before it (``DATA``, ``DELETE``,
    ``INSERT``, ``WHERE``); ``where_tokens`` the tokens inside the WHERE group.
    """

    prologue: str
    words: tuple[Token, ...]
    groups: dict[str, str]
    where_tokens: tuple[Token, ...] = ()


def split_request(text: str, *, base: str | None = None) -> list[OperationText]:
    """The request's operations in order (prologue-only segments, e.g. after a final ``;``, dropped).

    ``base`` is a ``BASE`` declaration (SPARQL text) put before the request's own prologue.
    """
    tokens = list(tokenize(text))
    prologue: list[str] = [base] if base else []
    ops: list[OperationText] = []
    words: list[Token] = []
    groups: dict[str, str] = {}
    where_tokens: tuple[Token, ...] = ()
    i = 0

    def flush() -> None:
        nonlocal words, groups, where_tokens
        if words or groups:
            ops.append(OperationText("\n".join(prologue), tuple(words), groups, where_tokens))
        words, groups, where_tokens = [], {}, ()

    while i < len(tokens):
        tok = tokens[i]
        if tok.kind == "semicolon" and tok.depth == 0:
            flush()
            i += 1
        elif not words and not groups and tok.keyword("PREFIX") and i + 2 < len(tokens):
            prologue.append(text[tok.start : tokens[i + 2].end])
            i += 3
        elif not words and not groups and tok.keyword("BASE") and i + 1 < len(tokens):
            prologue.append(text[tok.start : tokens[i + 1].end])
            i += 2
        elif tok.kind == "open":
            end = _group_end(tokens, i)
            key = words[-1].text.upper() if words else ""
            groups[key] = text[tok.start : tokens[end].end]
            if key == "WHERE":
                where_tokens = tuple(tokens[i : end + 1])
            i = end + 1
        else:
            words.append(tok)
            i += 1
    flush()
    return ops


def _group_end(tokens: list[Token], open_index: int) -> int:
    depth = tokens[open_index].depth
    for j in range(open_index + 1, len(tokens)):
        if tokens[j].kind == "close" and tokens[j].depth == depth:
            return j
    raise InvalidQuery("SPARQL update syntax error: unbalanced braces")


def uses_service(text: str) -> bool:
    """True if the request has a SERVICE pattern anywhere."""
    return any(tok.keyword("SERVICE") for tok in tokenize(text))
