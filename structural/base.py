"""The structural layer's seams and records: one small Protocol per backend, typed records across them.

Backends: :class:`GraphStore` (FalkorDB embedded, Neo4j), :class:`VectorIndex` (in-process exact/HNSW, or
the graph database's native index), :class:`Embedder` (sentence-transformers, hashing), :class:`Extractor`
(offline gazetteer + noun phrases, or an LLM over an OpenAI-compatible chat API).

The property-graph model every backend stores (labels and relationship types are constants below):

* ``(:Document {id, domain, hash, title, format, chunk_ids})``
* ``(:Chunk {id, doc, domain, index, text, tokens, hash, entity_ids, relation_ids})``
* ``(:Entity {id, name, norm, type, description, domain, source_chunks, iri})``
* ``(:Chunk)-[:MENTIONS {id}]->(:Entity)``
* ``(:Entity)-[:RELATED {id, type, keywords, description, w_struct, w_attn, attn_epoch, source_chunks,
  domain}]->(:Entity)``

Node ids are unique across labels (``doc:``, ``chunk:``, ``ent:`` prefixes); relationship ids are unique
per relationship type.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

DOCUMENT = "Document"
CHUNK = "Chunk"
ENTITY = "Entity"
MENTIONS = "MENTIONS"
RELATED = "RELATED"

Vector = npt.NDArray[np.float32]


# --------------------------------------------------------------------------------------------- graph


@dataclass(frozen=True, slots=True)
class Node:
    id: str
    label: str
    props: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Edge:
    """A stored relationship; ``src``/``dst`` are node ids in stored direction."""

    id: str
    type: str
    src: str
    dst: str
    props: dict[str, Any]


@dataclass(frozen=True, slots=True)
class EdgeRow:
    """One relationship to upsert (merged by ``id``; ``props`` are set over the existing ones)."""

    id: str
    src: str
    dst: str
    src_label: str
    dst_label: str
    props: Mapping[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Subgraph:
    nodes: dict[str, Node] = field(default_factory=dict)
    edges: list[Edge] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class GraphNode:
    """A node as :meth:`ReadOnlyGraph.read_query` returns it: the store's element id, every label, every property."""

    element_id: str
    labels: tuple[str, ...]
    props: dict[str, Any]


@dataclass(frozen=True, slots=True)
class GraphRelationship:
    """A relationship as :meth:`ReadOnlyGraph.read_query` returns it; ``start``/``end`` are element ids."""

    element_id: str
    type: str
    start: str
    end: str
    props: dict[str, Any]


@dataclass(frozen=True, slots=True)
class GraphPath:
    nodes: tuple[GraphNode, ...]
    relationships: tuple[GraphRelationship, ...]


@dataclass(frozen=True, slots=True)
class ReadResult:
    """Column names and rows of plain values, :class:`GraphNode`, :class:`GraphRelationship`, :class:`GraphPath`
    (inside lists and maps too)."""

    columns: tuple[str, ...]
    rows: list[list[Any]]


@runtime_checkable
class GraphStore(Protocol):
    """A property graph speaking openCypher with parameters."""

    def query(self, cypher: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run one parameterised openCypher statement; rows map column names to plain Python values."""
        ...

    def upsert_nodes(self, label: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """Merge nodes by ``row["id"]``; the row's other keys are set as properties (``None`` removes one)."""
        ...

    def upsert_edges(self, rel_type: str, rows: Sequence[EdgeRow]) -> None:
        """Merge relationships by id between existing nodes; endpoints that do not exist are an error."""
        ...

    def neighbourhood(
        self,
        label: str,
        ids: Sequence[str],
        depth: int = 1,
        rel_types: Sequence[str] | None = None,
        props: Sequence[str] | None = None,
        limit: int | None = None,
        order_by: str | None = None,
    ) -> Subgraph:
        """The nodes ``ids`` (of ``label``) and everything within ``depth`` hops over ``rel_types`` (any
        direction; all types when ``None``), with the relationships traversed. ``depth=0`` fetches the nodes.

        ``props`` projects: only these properties (plus ``id``) of nodes and relationships come back. The
        retrieval hot path asks for the few it needs; shipping every property of every neighbour costs
        10x more than the traversal on large frontiers. With ``depth=1``, ``limit`` keeps at most that many
        relationships per node of ``ids``, highest ``order_by`` first (missing counts as 0; ties by id),
        and only the neighbours they reach."""
        ...

    def edges(self, rel_type: str, ids: Sequence[str]) -> list[Edge]:
        """Relationships of ``rel_type`` by id (unknown ids are left out)."""
        ...

    def delete(self, label_or_type: str, ids: Sequence[str], *, edges: bool = False) -> None:
        """Delete nodes of a label (with their relationships) or, with ``edges=True``, relationships by id."""
        ...

    def close(self) -> None: ...


@runtime_checkable
class ReadOnlyGraph(Protocol):
    """Optional, for stores whose server enforces read-only statements (FalkorDB's ``GRAPH.RO_QUERY``): what runs
    a user's Cypher (``hybridkg cypher``) must never write, whatever the statement says."""

    def read_query(
        self, cypher: str, params: Mapping[str, Any] | None = None, *, timeout_s: float | None = None
    ) -> ReadResult:
        """Run ``cypher`` as a read the server refuses to write with (InvalidQuery; nothing runs), stopped by the
        server after ``timeout_s`` (DeadlineExceeded); graph values keep every label and their element ids.
        NotFound when the graph does not exist."""
        ...


@runtime_checkable
class SharedRecords(Protocol):
    """Optional, for stores that hold their records in process (the in-memory store, the mirror): reads that
    hand out the stored records themselves, with every property, without a copy. Treat them as read-only;
    a write replaces a record rather than changing it, so a record once read never changes under the reader.
    The retrieval hot path uses these when the store offers them."""

    def shared_nodes(self, label: str, ids: Sequence[str]) -> dict[str, Node]:
        """The ``label`` nodes among ``ids``."""
        ...

    def shared_ids(self, label: str) -> list[str]:
        """The ids of every ``label`` node."""
        ...

    def shared_edges(self, rel_type: str, ids: Sequence[str]) -> dict[str, Edge]:
        """The ``rel_type`` relationships among ``ids``."""
        ...

    def incident(
        self, label: str, ids: Sequence[str], rel_type: str, limit: int | None = None, order_by: str | None = None
    ) -> dict[str, list[tuple[Edge, str]]]:
        """Each of ``ids`` that is a ``label`` node -> its ``rel_type`` relationships with the id of the node at
        the other end, highest ``order_by`` first (missing counts as 0; ties by id), at most ``limit``: the
        per-node cap of ``neighbourhood(..., limit=, order_by=)``. A node's list is the same object from call to
        call until its relationships change, so callers may key derived data on it."""
        ...


# --------------------------------------------------------------------------------------------- vectors


@dataclass(frozen=True, slots=True)
class VectorHit:
    id: str
    score: float  # cosine similarity in [-1, 1]


@runtime_checkable
class VectorIndex(Protocol):
    """Cosine top-k over unit vectors keyed by string id."""

    @property
    def dim(self) -> int: ...

    def __len__(self) -> int: ...

    def upsert(self, ids: Sequence[str], vectors: Vector) -> None:
        """Add or replace vectors (rows of a float32 matrix; normalised by the index)."""
        ...

    def remove(self, ids: Sequence[str]) -> None:
        """Remove vectors by id; unknown ids are ignored."""
        ...

    def search(self, query: Vector, k: int) -> list[VectorHit]:
        """The ``k`` nearest ids by cosine similarity, best first."""
        ...

    def save(self) -> None:
        """Persist to the index's directory (no-op for indexes that live in the graph database)."""
        ...

    def get(self, ids: Sequence[str]) -> tuple[list[str], Vector]:
        """The stored unit vectors of those ``ids`` the index holds (others are left out): ``(found ids, one
        row per found id, in that order)``; an empty ``(0, dim)`` matrix when none is held."""
        ...

    def ids(self) -> list[str]:
        """Every id the index holds (any order)."""
        ...

    def close(self) -> None:
        """Save and release what the index holds open (indexes in the graph database: nothing to do); the
        index is not used afterwards."""
        ...


# --------------------------------------------------------------------------------------------- embedding


@runtime_checkable
class Embedder(Protocol):
    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vector:
        """One unit-length float32 row per text."""
        ...


# --------------------------------------------------------------------------------------------- extraction


@dataclass(frozen=True, slots=True)
class ExtractedEntity:
    name: str
    type: str = "concept"
    description: str = ""
    iri: str | None = None  # set when the mention links an entity the knowledge base already knows
    # False for a common noun phrase that is not a name (no proper noun, known label or NER span): the
    # knowledge base keeps it only when it recurs across chunks
    named: bool = True
    aliases: tuple[str, ...] = ()  # other names of the entity (a known entity's alt labels)


@dataclass(frozen=True, slots=True)
class ExtractedRelation:
    src: str  # entity name as extracted
    dst: str
    type: str = "related_to"
    keywords: tuple[str, ...] = ()
    description: str = ""
    weight: float = 1.0


@dataclass(slots=True)
class Extraction:
    entities: list[ExtractedEntity] = field(default_factory=list)
    relations: list[ExtractedRelation] = field(default_factory=list)
    syntax: str = ""  # the chunk's dependency parse (hybridkg.structural.syntax), "" when the extractor has none


@dataclass(frozen=True, slots=True)
class KnownEntity:
    """An entity the knowledge base already knows, with the names a text may use for it. ``iri`` is ``None``
    for a name the property graph learned from documents (no RDF resource behind it)."""

    iri: str | None
    labels: tuple[str, ...]
    type: str = "concept"
    description: str = ""


@runtime_checkable
class Extractor(Protocol):
    def extract(self, text: str, *, entity_types: Sequence[str] = ()) -> Extraction:
        """Entities and relations found in one chunk of text."""
        ...


@runtime_checkable
class BatchExtractor(Protocol):
    """Optional: extractors that run faster over many chunks at once (a batched NLP pipeline)."""

    def extract_batch(self, texts: Sequence[str], *, entity_types: Sequence[str] = ()) -> list[Extraction]:
        """One :class:`Extraction` per text, in order; the same as calling :meth:`Extractor.extract` on each."""
        ...


@runtime_checkable
class NameLearner(Protocol):
    """Optional: extractors that recognise names the knowledge base already holds (an entity ruler)."""

    def learn(self, entities: Sequence[KnownEntity]) -> None:
        """Add names to recognise in later texts (the graph's entity names at open, new ones after writes)."""
        ...
