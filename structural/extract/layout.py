"""The layout of a chunk's text before it is parsed: which lines are prose, headings, table rows or ``key: value``
fields, so that no sentence, name or relation runs across a line break, a table cell or a heading.

The text is what :mod:`hybridkg.structural.ingest.markup` makes of a document (rows of a Markdown or HTML table
as ``a | b | c`` lines, headings and paragraphs apart by blank lines) or plain text as written. Lines are read
block by block (blocks are apart by a blank line):

* **Table rows**: lines with `` | `` between cells. Two or more rows in a row make a table; its first row is the
  header. Each cell is a segment of its own; each data row is a :class:`Record` whose fields are named by the
  header's cells (the records from which :mod:`.relations` reads relations).
* **Fields**: a line starting with a short label and a colon (``Customer: Pembury Foods``, ``- Owner: Ana Ruiz``
  after a list item's marker, at most
  :data:`MAX_LABEL_WORDS` words, no sentence punctuation in the label) is a label segment and a value segment;
  fields on consecutive lines make one record (their description; relations only where what they are about is
  clear, see :mod:`.relations`), and several on one line apart by `` · `` or `` • `` too.
* **Prose**: the other lines. A line break inside a block is a hard wrap (it becomes a space) when the line
  before is long (at least :data:`WRAP_MIN_CHARS` characters and :data:`WRAP_SHARE` of the block's longest
  line) and does not end a sentence or with a colon; otherwise it ends the segment.
* **Headings**: a prose segment of one line that ends with no sentence punctuation and has at most
  :data:`MAX_HEADING_WORDS` words.

A segment whose letters are all capitals (at least two words) is marked ``caps``: a heading or label written in
capitals, whose words are not names.

:func:`analyse` returns the text with the wraps made spaces (same length, so offsets hold) and the segments and
records in character offsets.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

WRAP_MIN_CHARS = 40
WRAP_SHARE = 0.6
MAX_LABEL_WORDS = 4
MAX_LABEL_CHARS = 40
MAX_HEADING_WORDS = 12

_CELL_SEP = " | "
_CELL_SPLIT = re.compile(r" \|(?: |$)")  # a trailing empty cell's separator has no space after it
_FIELD_SEP = re.compile(r"\s+[·•]\s+")
_LABEL = re.compile(r"([^\W\d_][^:.!?;|()\[\]\"]*?)[ \t]*:(?:[ \t]+|$)")
_BULLET = re.compile(r"(?:[-*•–]|\d{1,2}[.)])[ \t]+")  # a list item's marker before a field ("- Owner: ...")
_ENDS_SENTENCE = re.compile(r"[.!?…:;][\"'”’)\]]*$")
_WORD = re.compile(r"[^\W_]+")


class Kind(StrEnum):
    PROSE = "prose"
    HEADING = "heading"
    LABEL = "label"  # the label of a field ("Customer" in "Customer: Pembury Foods")
    VALUE = "value"  # the value of a field
    HEADER = "header"  # a cell of a table's header row
    CELL = "cell"  # a cell of a table's data row


@dataclass(frozen=True, slots=True)
class Segment:
    """A stretch of text nothing runs out of (``text[start:end]``, trimmed)."""

    start: int
    end: int
    kind: Kind
    caps: bool = False


@dataclass(frozen=True, slots=True)
class Field:
    """One field of a record: its name (a table header cell or a label) and its value's ``(start, end)``."""

    name: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Record:
    """A table row or a block of ``label: value`` lines; ``text`` reads it as ``name: value; name: value``."""

    fields: tuple[Field, ...]
    text: str
    table: bool = False


@dataclass(frozen=True, slots=True)
class Layout:
    text: str
    segments: tuple[Segment, ...]
    records: tuple[Record, ...]


@dataclass(slots=True)
class _Line:
    start: int
    end: int
    text: str
    cells: list[tuple[int, int]]  # table cells, or empty
    fields: list[tuple[tuple[int, int], tuple[int, int]]]  # (label span, value span), or empty


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _cells(text: str, start: int, end: int) -> list[tuple[int, int]]:
    line = text[start:end]
    if _CELL_SEP not in line:
        return []
    out: list[tuple[int, int]] = []
    pos = start
    for sep in _CELL_SPLIT.finditer(line):
        out.append(_trimmed(text, pos, start + sep.start()))
        pos = start + sep.end()
    out.append(_trimmed(text, pos, end))
    return out


def _fields(text: str, start: int, end: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """``label: value`` fields of a line (several when apart by `` · ``/`` • ``); empty when any part is not one."""
    line = text[start:end]
    parts: list[tuple[int, int]] = []
    pos = 0
    for sep in _FIELD_SEP.finditer(line):
        parts.append((pos, sep.start()))
        pos = sep.end()
    parts.append((pos, len(line)))
    out = []
    for a, b in parts:
        lead = len(line[a:b]) - len(line[a:b].lstrip())
        bullet = _BULLET.match(line, a + lead, b)
        m = _LABEL.match(line, bullet.end() if bullet else a + lead, b)
        if m is None:
            return []
        label = m.group(1)
        if len(label) > MAX_LABEL_CHARS or len(label.split()) > MAX_LABEL_WORDS:
            return []
        value = _trimmed(text, start + m.end(), start + b)
        out.append(((start + m.start(1), start + m.end(1)), value))
    return out


def _caps(text: str) -> bool:
    words = [w for w in _WORD.findall(text) if any(c.isalpha() for c in w)]
    return len(words) >= 2 and all(w.isupper() for w in words)


def _blocks(text: str) -> list[list[_Line]]:
    blocks: list[list[_Line]] = [[]]
    pos = 0
    for raw in text.split("\n"):
        start, end = _trimmed(text, pos, pos + len(raw))
        pos += len(raw) + 1
        if start == end:
            if blocks[-1]:
                blocks.append([])
            continue
        line = text[start:end]
        cells = _cells(text, start, end)
        blocks[-1].append(_Line(start, end, line, cells, [] if cells else _fields(text, start, end)))
    return [b for b in blocks if b]


def _wraps(a: _Line, b: _Line, longest: int) -> bool:
    if a.cells or b.cells or b.fields:
        return False
    if _ENDS_SENTENCE.search(a.text):
        return False
    return len(a.text) >= max(WRAP_MIN_CHARS, WRAP_SHARE * longest)


def analyse(text: str) -> Layout:
    """The layout of ``text`` (see the module docstring)."""
    chars = list(text)
    segments: list[Segment] = []
    records: list[Record] = []

    def add(start: int, end: int, kind: Kind) -> None:
        if start < end:
            segments.append(Segment(start, end, kind, _caps(text[start:end])))

    for block in _blocks(text):
        longest = max(len(line.text) for line in block)
        i = 0
        while i < len(block):
            line = block[i]
            if line.cells:
                j = i
                while j < len(block) and block[j].cells:
                    j += 1
                _table(text, block[i:j], add, records)
                i = j
                continue
            if line.fields:
                j = i
                fields: list[Field] = []
                while j < len(block) and block[j].fields:
                    end_line = j
                    while end_line + 1 < len(block) and _wraps(block[end_line], block[end_line + 1], longest):
                        chars[block[end_line].end] = " "
                        end_line += 1
                    for n, (label, value) in enumerate(block[j].fields):
                        add(*label, Kind.LABEL)
                        value_end = block[end_line].end if n == len(block[j].fields) - 1 else value[1]
                        add(value[0], value_end, Kind.VALUE)
                        if value[0] < value_end:
                            fields.append(Field(text[label[0] : label[1]], value[0], value_end))
                    j = end_line + 1
                if fields:
                    records.append(Record(tuple(fields), "; ".join(_field_text(text, f) for f in fields)))
                i = j
                continue
            j = i
            while j + 1 < len(block) and _wraps(block[j], block[j + 1], longest):
                chars[block[j].end] = " "  # the line break between the two lines (trailing spaces are trimmed)
                j += 1
            start, end = line.start, block[j].end
            heading = (
                i == j
                and not _ENDS_SENTENCE.search(line.text)
                and len(line.text.split()) <= MAX_HEADING_WORDS
                and not (i + 1 < len(block) and block[i + 1].fields)
            )
            add(start, end, Kind.HEADING if heading else Kind.PROSE)
            i = j + 1
    flat = "".join(chars)
    return Layout(flat, tuple(segments), tuple(records))


def _field_text(text: str, f: Field) -> str:
    return f"{f.name}: {' '.join(text[f.start : f.end].split())}"


def _table(text: str, rows: list[_Line], add: Callable[[int, int, Kind], None], records: list[Record]) -> None:
    if len(rows) < 2:
        for start, end in rows[0].cells:
            add(start, end, Kind.CELL)
        return
    header = [text[s:e] for s, e in rows[0].cells]
    for start, end in rows[0].cells:
        add(start, end, Kind.HEADER)
    for row in rows[1:]:
        fields = []
        for n, (start, end) in enumerate(row.cells):
            add(start, end, Kind.CELL)
            if n < len(header) and header[n].strip() and start < end:
                fields.append(Field(header[n], start, end))
        if fields:
            records.append(Record(tuple(fields), "; ".join(_field_text(text, f) for f in fields), table=True))
