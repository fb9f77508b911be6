"""Read an LLM's extraction reply, forgiving what models actually send.

Accepted: the JSON object the prompt asks for (or a bare list of entity/relation objects), wrapped in
code fences, after leading prose or a ``<think>`` block; with trailing commas, single quotes, bare keys,
Python literals, comments, unescaped quotes inside strings; truncated mid-way (every complete entity and
relation before the cut is kept, the cut one is dropped). When no JSON is found, LightRAG's tuple records
are read instead: ``("entity"<|>NAME<|>TYPE<|>DESCRIPTION)##("relationship"<|>SRC<|>TGT<|>DESCRIPTION<|>
KEYWORDS<|>STRENGTH)``, also with the newer ``<|#|>`` delimiter and without parentheses.

:func:`parse_extraction` returns ``None`` when nothing in the reply looks like an extraction, so the caller
can retry or report the reply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from hybridkg.structural.base import ExtractedEntity, ExtractedRelation, Extraction
from hybridkg.structural.resolution import GENERIC_TYPE, normalise_relation_type

_THINK = re.compile(r"<think>.*?(</think>|$)", re.S | re.I)
_FENCE = re.compile(r"```[\w-]*[ \t]*\n?(.*?)(```|$)", re.S)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_BARE = re.compile(r"[A-Za-z_$][\w$-]*")
_LITERALS = {"true": True, "false": False, "null": None, "True": True, "False": False, "None": None}
_CLOSERS = ",:}]"
_MAX_STARTS = 32
_TUPLE_DELIMS = ("<|#|>", "<|>")
_RECORD_SPLIT = re.compile(r"##|<\|COMPLETE\|>|\n")

_ENTITY_KEYS = ("entities", "entity", "nodes")
_RELATION_KEYS = ("relations", "relationships", "relation", "edges", "links")
_NAME = ("name", "entity_name", "entity", "id", "label", "title")
_TYPE = ("type", "entity_type", "category", "label_type")
_DESCRIPTION = ("description", "entity_description", "relationship_description", "desc", "summary")
_SOURCE = ("source", "src", "source_entity", "from", "head", "subject", "src_id")
_TARGET = ("target", "dst", "target_entity", "to", "tail", "object", "tgt_id")
_REL_TYPE = ("type", "relation", "relationship", "relation_type", "predicate", "label")
_KEYWORDS = ("keywords", "relationship_keywords", "keyword", "tags")
_STRENGTH = ("strength", "weight", "relationship_strength", "score", "confidence")


class _Bad(Exception):
    """Not JSON, even leniently."""


class _Cut(Exception):
    """The text ended inside a value; ``partial`` is what was complete so far."""

    def __init__(self, partial: Any) -> None:
        super().__init__()
        self.partial = partial


class _Lenient:
    """A forgiving JSON reader that keeps the complete part of a truncated document."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0

    def _ws(self) -> None:
        s, n = self.s, len(self.s)
        while self.i < n:
            c = s[self.i]
            if c.isspace():
                self.i += 1
            elif s.startswith("//", self.i) or c == "#":
                end = s.find("\n", self.i)
                self.i = n if end < 0 else end + 1
            elif s.startswith("/*", self.i):
                end = s.find("*/", self.i + 2)
                self.i = n if end < 0 else end + 2
            else:
                return

    def value(self) -> Any:
        self._ws()
        if self.i >= len(self.s):
            raise _Cut(None)
        c = self.s[self.i]
        if c == "{":
            return self._object()
        if c == "[":
            return self._array()
        if c in "\"'":
            return self._string(c)
        m = _NUMBER.match(self.s, self.i)
        if m:
            self.i = m.end()
            text = m.group()
            return float(text) if any(ch in text for ch in ".eE") else int(text)
        m = _BARE.match(self.s, self.i)
        if m:
            self.i = m.end()
            return _LITERALS.get(m.group(), m.group())
        raise _Bad(f"unexpected {c!r} at {self.i}")

    def _string(self, quote: str) -> str:
        s, n = self.s, len(self.s)
        out: list[str] = []
        self.i += 1
        while self.i < n:
            c = s[self.i]
            if c == "\\" and self.i + 1 < n:
                nxt = s[self.i + 1]
                if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", s[self.i + 2 : self.i + 6]):
                    out.append(chr(int(s[self.i + 2 : self.i + 6], 16)))
                    self.i += 6
                    continue
                out.append({"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}.get(nxt, nxt))
                self.i += 2
                continue
            if c == quote:
                j = self.i + 1
                while j < n and s[j] in " \t\r\n":
                    j += 1
                if j >= n or s[j] in _CLOSERS:
                    self.i += 1
                    return "".join(out)
            out.append(c)
            self.i += 1
        raise _Cut(None)

    def _array(self) -> list[Any]:
        self.i += 1
        items: list[Any] = []
        while True:
            self._ws()
            if self.i >= len(self.s):
                raise _Cut(items)
            c = self.s[self.i]
            if c == "]":
                self.i += 1
                return items
            if c == ",":
                self.i += 1
                continue
            try:
                items.append(self.value())
            except _Cut as cut:
                if isinstance(cut.partial, list):
                    items.append(cut.partial)
                raise _Cut(items) from None

    def _object(self) -> dict[str, Any]:
        self.i += 1
        obj: dict[str, Any] = {}
        while True:
            self._ws()
            if self.i >= len(self.s):
                raise _Cut(obj)
            c = self.s[self.i]
            if c == "}":
                self.i += 1
                return obj
            if c == ",":
                self.i += 1
                continue
            key: Any = None
            try:
                key = self.value()
                self._ws()
                if self.i >= len(self.s):
                    raise _Cut(None)
                if self.s[self.i] != ":":
                    raise _Bad(f"expected ':' at {self.i}")
                self.i += 1
                obj[str(key)] = self.value()
            except _Cut as cut:
                if isinstance(cut.partial, list | dict) and key is not None:
                    obj[str(key)] = cut.partial
                raise _Cut(obj) from None


def loads_lenient(text: str) -> Any:
    """The first JSON value in ``text`` (from its first ``{`` or ``[``), read leniently; raises ``ValueError``."""
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        raise ValueError("no JSON object or array")
    try:
        return json.loads(text[min(starts) :])
    except ValueError:
        pass
    reader = _Lenient(text)
    reader.i = min(starts)
    try:
        return reader.value()
    except _Cut as cut:
        if not cut.partial:
            raise ValueError("the reply ends before any complete value") from None
        return cut.partial
    except _Bad as e:
        raise ValueError(str(e)) from None


def _candidates(reply: str) -> Iterator[str]:
    text = _THINK.sub("", reply).strip()
    for m in _FENCE.finditer(text):
        if m.group(1).strip():
            yield m.group(1)
    yield text
    brace = text.find("{")
    for _ in range(_MAX_STARTS):
        if brace < 0:
            return
        yield text[brace:]
        brace = text.find("{", brace + 1)


def _pick(record: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    lowered = {str(k).strip().lower(): v for k, v in record.items()}
    for key in keys:
        if key in lowered and lowered[key] not in (None, ""):
            return lowered[key]
    return None


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return "; ".join(_text(v) for v in value if v is not None)
    return " ".join(str(value).split()).strip().strip("\"'")


def _keywords(value: Any) -> tuple[str, ...]:
    items = value if isinstance(value, list | tuple) else re.split(r"[,;]", _text(value))
    return tuple(dict.fromkeys(k for k in (_text(v) for v in items) if k))


def _strength(value: Any) -> float:
    try:
        weight = float(value)
    except (TypeError, ValueError):
        m = _NUMBER.search(str(value or ""))
        weight = float(m.group()) if m else 1.0
    return weight if weight > 0 else 1.0


def _entity(record: Mapping[str, Any]) -> ExtractedEntity | None:
    name = _text(_pick(record, _NAME))
    if not name:
        return None
    return ExtractedEntity(name, _text(_pick(record, _TYPE)) or GENERIC_TYPE, _text(_pick(record, _DESCRIPTION)))


def _relation(record: Mapping[str, Any]) -> ExtractedRelation | None:
    src, dst = _text(_pick(record, _SOURCE)), _text(_pick(record, _TARGET))
    if not src or not dst:
        return None
    return ExtractedRelation(
        src,
        dst,
        normalise_relation_type(_text(_pick(record, _REL_TYPE))),
        _keywords(_pick(record, _KEYWORDS)),
        _text(_pick(record, _DESCRIPTION)),
        _strength(_pick(record, _STRENGTH)),
    )


def _from_json(value: Any) -> Extraction | None:
    out = Extraction()
    records: list[Any]
    if isinstance(value, dict):
        lowered = {str(k).strip().lower(): v for k, v in value.items()}
        ents = next((lowered[k] for k in _ENTITY_KEYS if k in lowered), None)
        rels = next((lowered[k] for k in _RELATION_KEYS if k in lowered), None)
        if ents is None and rels is None:
            if not value:
                return out
            if _pick(value, _SOURCE) is not None or _pick(value, _NAME) is not None:
                records = [value]
            else:
                return None
        else:
            records = [*(ents if isinstance(ents, list) else []), *(rels if isinstance(rels, list) else [])]
    elif isinstance(value, list):
        records = value
    else:
        return None
    for record in records:
        if not isinstance(record, dict):
            continue
        if _pick(record, _SOURCE) is not None and _pick(record, _TARGET) is not None:
            rel = _relation(record)
            if rel is not None:
                out.relations.append(rel)
        else:
            ent = _entity(record)
            if ent is not None:
                out.entities.append(ent)
    if isinstance(value, list) and value and not (out.entities or out.relations):
        return None
    return out


def _from_tuples(reply: str) -> Extraction | None:
    delim = next((d for d in _TUPLE_DELIMS if d in reply), None)
    if delim is None:
        return None
    out = Extraction()
    seen = False
    for raw in _RECORD_SPLIT.split(reply):
        record = raw.strip().strip(",").strip()
        if record.startswith("(") and record.endswith(")"):
            record = record[1:-1]
        fields = [_text(f) for f in record.split(delim)]
        if len(fields) < 2:
            continue
        tag = fields[0].lower().strip("()")
        if tag == "entity" and len(fields) >= 3:
            seen = True
            description = fields[3] if len(fields) > 3 else ""
            out.entities.append(ExtractedEntity(fields[1], fields[2] or GENERIC_TYPE, description))
        elif tag in ("relationship", "relation") and len(fields) >= 4:
            seen = True
            src, dst, rest = fields[1], fields[2], fields[3:]
            if len(rest) >= 3 and _NUMBER.fullmatch(rest[2]):
                description, keywords, strength = rest[0], rest[1], float(rest[2])
            elif len(rest) >= 2:
                keywords, description, strength = rest[0], rest[1], 1.0
            else:
                keywords, description, strength = "", rest[0], 1.0
            out.relations.append(
                ExtractedRelation(src, dst, "related_to", _keywords(keywords), description, strength or 1.0)
            )
    return out if seen else None


def parse_extraction(reply: str) -> Extraction | None:
    """The entities and relations in a model's reply, or ``None`` when the reply holds no extraction."""
    if not reply or not reply.strip():
        return None
    for candidate in _candidates(reply):
        try:
            value = loads_lenient(candidate)
        except ValueError:
            continue
        found = _from_json(value)
        if found is not None:
            return found
    return _from_tuples(_THINK.sub("", reply))
