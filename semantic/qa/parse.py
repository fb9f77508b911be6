"""Stage 2: a linked question -> its form and an ordered list of slots (classes, entities, properties).

The form comes from English question words alone (which/what/who, how many, where, a leading auxiliary
for yes/no); the slots are the linker's mentions in question order, each slot holding every resource its
span names. What the parser cannot place (content words no label accounts for, a superlative, an opinion)
is recorded so the answerer can refuse with a reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from hybridkg.semantic.qa.lexicon import Lexicon, Mention
from hybridkg.semantic.qa.text import Token, is_function_word, superlative_or_opinion, tokenize

#: Leading words that make a yes/no question.
AUXILIARIES = frozenset(["is", "are", "was", "were", "does", "do", "did", "has", "have", "had", "can"])
#: Copulas: "is X a C" asks about X's type.
COPULAS = frozenset(["is", "are", "was", "were"])


class Form(StrEnum):
    SELECT = "select"  # which / what / who / list: a set of resources or values
    COUNT = "count"  # how many
    ASK = "ask"  # yes / no
    WHERE = "where"  # a place


@dataclass(frozen=True)
class Slot:
    """One linked span: every resource it may name (same span, best score first)."""

    mentions: tuple[Mention, ...]
    start: int
    end: int

    @property
    def kinds(self) -> set[str]:
        return {m.kind for m in self.mentions}

    def of_kind(self, kind: str) -> list[Mention]:
        return [m for m in self.mentions if m.kind == kind]

    @property
    def text(self) -> str:
        return self.mentions[0].text


@dataclass
class Parse:
    question: str
    form: Form
    copula: bool  # the question starts with is/are/was/were
    slots: list[Slot] = field(default_factory=list)
    unlinked: list[str] = field(default_factory=list)  # content words no mention covers
    unknown_names: list[str] = field(default_factory=list)  # capitalised unlinked words (names)
    judgement: str | None = None  # the superlative / opinion word, if any


def _form(tokens: list[Token]) -> tuple[Form, bool]:
    words = [t.text.casefold() for t in tokens]
    for i in range(len(words) - 1):
        if words[i] == "how" and words[i + 1] in {"many", "much"}:
            return Form.COUNT, False
    if "where" in words[:3]:
        return Form.WHERE, False
    if words and words[0] in AUXILIARIES:
        return Form.ASK, words[0] in COPULAS
    return Form.SELECT, False


def parse(question: str, lexicon: Lexicon) -> Parse:
    tokens = tokenize(question)
    form, copula = _form(tokens)
    mentions = lexicon.link(question, partial=True)
    slots: dict[tuple[int, int], list[Mention]] = {}
    for m in mentions:
        slots.setdefault((m.start, m.end), []).append(m)
    out = Parse(question, form, copula)
    out.slots = [
        Slot(tuple(sorted(ms, key=lambda m: (-m.score, m.iri))), s, e) for (s, e), ms in sorted(slots.items())
    ]
    covered = [(s.start, s.end) for s in out.slots]
    inside: set[str] = set()
    for i, tok in enumerate(tokens):
        if any(s <= tok.start and tok.end <= e for s, e in covered):
            inside.add(tok.norm)
            continue
        if is_function_word(tok.norm) or (form is Form.COUNT and tok.norm in {"many", "much"}):
            continue
        out.unlinked.append(tok.text)
        if tok.text[:1].isupper() and i > 0 or tok.text[:1].isdigit():
            out.unknown_names.append(tok.text)
    out.judgement = superlative_or_opinion(tokens, inside)
    return out
