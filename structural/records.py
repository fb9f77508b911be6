"""Typed records of the property graph, and the one converter to and from graph properties.

Each label of the model in :mod:`.base` has a record: :class:`DocumentRecord`, :class:`ChunkRecord`,
:class:`EntityRecord` and :class:`RelationRecord` (the ``RELATED`` edge; ``src``/``dst`` are its endpoints).
The property names on disk are the field names, unchanged from the string-keyed dicts they replace, so
stores written before keep opening and the retrieval code that reads properties keeps working.

:func:`to_props` and :func:`from_props` are the only place that maps fields to properties. Properties a
record does not know (written by another component, e.g. a later version) travel in ``extra`` and are
written back untouched.

Provenance (see :mod:`.provenance`): ``source_chunks`` lists the supporting chunks, and the ``chunk_*`` lists
are parallel to it (what each chunk said). ``pinned`` marks curated elements (``insert_graph``) whose
``curated_*`` part survives whatever chunks come and go. ``vhash`` is the hash of the text whose vector the
index holds for the element (re-embedding is skipped while it matches).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hybridkg.structural.base import CHUNK, DOCUMENT, ENTITY, RELATED, EdgeRow

CO_OCCURS = "co_occurs"


@dataclass(slots=True)
class DocumentRecord:
    id: str  # "doc:<doc_id>"
    doc_id: str
    domain: str
    hash: str
    title: str = ""
    format: str = "text"
    chunk_ids: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class ChunkRecord:
    id: str
    doc: str
    domain: str
    index: int
    text: str
    tokens: int
    entity_ids: list[str] = field(default_factory=list)
    relation_ids: list[str] = field(default_factory=list)
    syntax: str = ""  # the extractor's dependency parse of ``text`` (:mod:`.syntax`), "" when it gave none
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class EntityRecord:
    id: str
    name: str
    norm: str
    type: str = "concept"
    description: str = ""
    domain: str = ""
    iri: str | None = None
    aliases: list[str] = field(default_factory=list)
    # False while every mention was a common noun phrase (kept because it recurs): not fed to name matchers
    named: bool = True
    pinned: bool = False
    curated_description: str | None = None
    source_chunks: list[str] = field(default_factory=list)
    chunk_descriptions: list[str] = field(default_factory=list)
    vhash: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def names(self) -> tuple[str, ...]:
        """The name, then the aliases (no repeats)."""
        return tuple(dict.fromkeys([self.name, *self.aliases]))


@dataclass(slots=True)
class RelationRecord:
    id: str
    src: str  # entity ids, in stored direction
    dst: str
    type: str = "related_to"
    keywords: list[str] = field(default_factory=list)
    description: str = ""
    w_struct: float = 0.0
    w_attn: float = 1.0
    attn_epoch: int = 0
    domain: str = ""
    pinned: bool = False
    curated_description: str | None = None
    curated_keywords: list[str] | None = None
    curated_weight: float | None = None
    source_chunks: list[str] = field(default_factory=list)
    chunk_descriptions: list[str] = field(default_factory=list)
    chunk_keywords: list[str] = field(default_factory=list)  # per chunk, joined with provenance.KEYWORD_SEP
    chunk_weights: list[float] = field(default_factory=list)
    vhash: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def embedded(self) -> bool:
        """Whether the relation gets a vector: co-occurrence edges are weak evidence and get none."""
        return self.type != CO_OCCURS


Record = DocumentRecord | ChunkRecord | EntityRecord | RelationRecord
R = TypeVar("R", DocumentRecord, ChunkRecord, EntityRecord, RelationRecord)

LABELS: dict[type[Any], str] = {
    DocumentRecord: DOCUMENT, ChunkRecord: CHUNK, EntityRecord: ENTITY, RelationRecord: RELATED
}
_EDGE_ENDS = ("id", "src", "dst")
_FIELDS: dict[type[Any], tuple[dataclasses.Field[Any], ...]] = {cls: dataclasses.fields(cls) for cls in LABELS}
_LISTS = {cls: {f.name for f in fs if f.name != "extra" and "list" in str(f.type)} for cls, fs in _FIELDS.items()}


def to_props(record: Record) -> dict[str, Any]:
    """The record as graph properties (``id`` included; a relation's ``src``/``dst`` left out, they are its ends).
    Unset optional fields are ``None``, which removes a stale property on upsert."""
    cls = type(record)
    props: dict[str, Any] = dict(record.extra)
    for f in _FIELDS[cls]:
        if f.name == "extra" or (cls is RelationRecord and f.name in ("src", "dst")):
            continue
        value = getattr(record, f.name)
        props[f.name] = list(value) if isinstance(value, list) else value
    return props


def from_props(cls: type[R], props: Mapping[str, Any], **ends: str) -> R:
    """A record of ``cls`` from stored properties (``id`` among them; ``src``/``dst`` for a relation as keyword
    arguments). Missing properties take the field defaults; a stored ``null`` list reads as empty."""
    known: dict[str, Any] = dict(ends)
    extra: dict[str, Any] = {}
    names = {f.name for f in _FIELDS[cls]}
    lists = _LISTS[cls]
    for key, value in props.items():
        if key in names and key != "extra":
            if key in lists and value is not None:
                value = list(value)
            if value is None and (key in lists and key not in ("curated_keywords",)):
                continue
            if value is None and key in ("named", "pinned", "w_struct", "w_attn", "attn_epoch"):
                continue
            known[key] = value
        elif key not in ("src", "dst"):
            extra[key] = value
    return cls(**known, extra=extra)


def node_row(record: DocumentRecord | ChunkRecord | EntityRecord) -> dict[str, Any]:
    return to_props(record)


def edge_row(record: RelationRecord) -> EdgeRow:
    props = to_props(record)
    del props["id"]
    return EdgeRow(record.id, record.src, record.dst, ENTITY, ENTITY, props)


def copy_record(record: R) -> R:
    """A deep enough copy: lists and ``extra`` are new objects."""
    return from_props(type(record), to_props(record), **(
        {"src": record.src, "dst": record.dst} if isinstance(record, RelationRecord) else {}
    ))


__all__ = [
    "CO_OCCURS",
    "ChunkRecord",
    "DocumentRecord",
    "EntityRecord",
    "RelationRecord",
    "copy_record",
    "edge_row",
    "from_props",
    "node_row",
    "to_props",
]
