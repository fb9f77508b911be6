"""Settings of the semantic layer: one pydantic model per section and the enums they choose from
(composed with the other layers' sections by ``server/config.py``)."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_MAX_BYTES = 1 << 30
DEFAULT_MAX_HTTP_BYTES = 256 << 20


class StoreBackend(StrEnum):
    EMBEDDED = "embedded"  # on-disk pyoxigraph
    MEMORY = "memory"  # in-memory pyoxigraph
    REMOTE = "remote"  # a SPARQL 1.1 endpoint


class ReasonerEngine(StrEnum):
    """The OWL 2 RL engines hybridkg ships."""

    REASONABLE = "reasonable"
    OWLRL = "owlrl"
    DUCKDB = "duckdb"


class ValidatorEngine(StrEnum):
    """The SHACL engines hybridkg ships; ``auto`` routes each shape to turbo or pySHACL."""

    AUTO = "auto"
    PYSHACL = "pyshacl"
    TURBO = "turbo"


class StoreConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    backend: StoreBackend = Field(
        default=StoreBackend.EMBEDDED,
        description="embedded (on-disk pyoxigraph), memory, or remote (SPARQL 1.1 endpoint).",
    )
    path: Path = Field(default=Path("hybridkg-store"), description="Directory of the embedded store.")
    query_url: str | None = Field(default=None, description="SPARQL query endpoint URL (remote backend).")
    update_url: str | None = Field(default=None, description="SPARQL update endpoint URL (remote backend).")
    max_input_bytes: int = Field(
        default=DEFAULT_MAX_BYTES, gt=0, description="Largest document a load accepts, in bytes (decompressed size)."
    )
    max_response_bytes: int = Field(
        default=DEFAULT_MAX_HTTP_BYTES, gt=0, description="Largest HTTP response the remote backend reads, in bytes."
    )
    timeout_s: float = Field(
        default=60.0, gt=0, description="Timeout of one request to the remote backend, in seconds."
    )


class ReasoningConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    engine: ReasonerEngine = Field(
        default=ReasonerEngine.DUCKDB,
        description="OWL 2 RL engine: duckdb (default: integer-encoded rules in DuckDB, incremental, up to tens of "
        "millions of triples), reasonable (in memory, through Python objects: fast on small stores) or owlrl "
        "(reference).",
    )
    store_blank_node_types: bool = Field(
        default=False,
        description="duckdb engine: also store inferred rdf:type triples whose class is a blank node (an OWL "
        "restriction: 18% of LUBM(50)'s inferred triples, 17% of LUBM(1)'s, each written through Python objects "
        "because Oxigraph's bulk loader renames blank nodes). Off (default): reasoned with and explained, not stored, "
        "so a query that matches a restriction's own structure (?x a [ owl:onProperty ... ]) does not find them; "
        "queries over named classes and properties are unaffected.",
    )


class ValidationConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    engine: ValidatorEngine = Field(
        default=ValidatorEngine.AUTO,
        description="SHACL engine: auto (turbo where it agrees with pySHACL, else pySHACL), pyshacl, turbo.",
    )


class DomainsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    policy: Path | None = Field(
        default=None, description="Domain policy file; default: the bundled ontology/domains.yaml."
    )
