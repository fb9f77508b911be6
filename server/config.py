"""Configuration: one pydantic model per section, loaded once at start-up from a file + env overrides.

File: YAML or TOML (``--config FILE``). Environment overrides use the prefix ``HYBRIDKG_`` and
``__`` between section and field, e.g. ``HYBRIDKG_STORE__BACKEND=remote``,
``HYBRIDKG_REASONING__ENGINE=owlrl``, nested sections likewise:
``HYBRIDKG_STRUCTURAL__GRAPH__BACKEND=neo4j``. Nothing is read at import time.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hybridkg.bridge.settings import BridgeConfig
from hybridkg.errors import InvalidInput
from hybridkg.semantic.settings import DomainsConfig, ReasoningConfig, StoreConfig, ValidationConfig
from hybridkg.server.ask.settings import AskConfig
from hybridkg.server.settings import ServerConfig
from hybridkg.structural.settings import StructuralConfig

ENV_PREFIX = "HYBRIDKG_"


class Settings(BaseModel):
    """All of hybridkg's settings."""

    model_config = ConfigDict(extra="forbid")

    store: StoreConfig = Field(default_factory=lambda: StoreConfig(), description="The RDF store.")
    reasoning: ReasoningConfig = Field(default_factory=lambda: ReasoningConfig(), description="OWL 2 RL reasoning.")
    validation: ValidationConfig = Field(default_factory=lambda: ValidationConfig(), description="SHACL validation.")
    domains: DomainsConfig = Field(default_factory=lambda: DomainsConfig(), description="Domain policies.")
    structural: StructuralConfig = Field(
        default_factory=lambda: StructuralConfig(), description="Property graph, vectors and retrieval."
    )
    server: ServerConfig = Field(default_factory=lambda: ServerConfig(), description="gRPC and HTTP service.")
    ask: AskConfig = Field(default_factory=lambda: AskConfig(), description="Domain routing and question answering.")
    bridge: BridgeConfig = Field(
        default_factory=lambda: BridgeConfig(), description="The RDF -> property-graph bridge and its sync."
    )

    def structural_path(self) -> Path:
        """Where the structural layer keeps its data: ``structural.path`` or ``<store.path>/structural``."""
        return self.structural.path or self.store.path / "structural"


def _env_overrides(environ: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in environ.items():
        if not key.startswith(ENV_PREFIX) or "__" not in key:
            continue
        *sections, field = key[len(ENV_PREFIX):].lower().split("__")
        node = out
        for section in sections:
            node = node.setdefault(section, {})
        node[field] = value
    return out


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for k, v in over.items():
        merged[k] = _merge(merged[k], v) if isinstance(v, dict) and isinstance(merged.get(k), dict) else v
    return merged


def load_settings(path: str | Path | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    raw: dict[str, Any] = {}
    if path is not None:
        p = Path(path)
        if not p.is_file():
            raise InvalidInput(f"config file {p} does not exist")
        text = p.read_text(encoding="utf-8")
        try:
            raw = tomllib.loads(text) if p.suffix == ".toml" else (yaml.safe_load(text) or {})
        except (tomllib.TOMLDecodeError, yaml.YAMLError) as e:
            raise InvalidInput(f"cannot parse config file {p}: {e}") from e
    raw = _merge(raw, _env_overrides(os.environ if environ is None else environ))
    try:
        return Settings.model_validate(raw)
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in err['loc'])}: {err['msg']} (got {err['input']!r})" for err in e.errors()
        )
        raise InvalidInput(f"invalid configuration: {problems}; fix the config file or HYBRIDKG_* variable") from e
