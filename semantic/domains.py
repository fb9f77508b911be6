"""Domain policies: which graphs and namespaces belong to a domain, strict or fuzzy, and its shapes.

The bundled policy is ``ontology/domains.yaml``; a deployment can point to its own file.
Strict domains (clinical, legal, manufacturing) reject any write that violates their SHACL
shapes; fuzzy domains (knowledge search, CRM) accept the write and return the results as warnings.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hybridkg.errors import InvalidInput, NotFound

BUNDLED_ONTOLOGY_DIR = Path(__file__).resolve().parent.parent / "ontology"
BUNDLED_POLICY = BUNDLED_ONTOLOGY_DIR / "domains.yaml"


class DomainMode(StrEnum):
    STRICT = "strict"
    FUZZY = "fuzzy"


class Domain(BaseModel):
    """One knowledge domain of the policy file."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field("", description="Domain name (the key in the policy file).")
    mode: DomainMode = Field(description="strict: validated writes, proven answers or none; fuzzy: retrieval.")
    description: str = Field("", description="What the domain holds.")
    namespaces: dict[str, str] = Field(default_factory=dict, description="Prefix -> namespace IRI.")
    data_namespace: str | None = Field(None, description="Namespace under which the domain's instance IRIs live.")
    ontology_graph: str = Field(description="Named graph holding the domain's ontology.")
    data_graph: str = Field(description="Named graph that receives the domain's instance data by default.")
    ontology: str | None = Field(None, description="Ontology file, relative to the policy file's folder.")
    shapes: str | None = Field(None, description="SHACL shapes file, relative to the policy file's folder.")
    demo_data: str | None = Field(None, description="Demo data file, relative to the policy file's folder.")
    demo_documents: str | None = Field(
        None, description="Folder of demo text documents (text, Markdown, HTML) for the structural layer."
    )
    examples: dict[str, str] = Field(
        default_factory=dict, description="Named example files (e.g. valid/invalid writes), relative paths."
    )
    bridge_exposure: Literal["asserted", "inferred"] | None = Field(
        None,
        description="What the domain's bridge property graph mirrors: asserted (the triples written into its graphs) "
        "or inferred (those and the OWL 2 RL closure's about its resources); unset: the settings file's "
        "bridge.exposure.",
    )
    base_dir: Path = Field(Path("."), exclude=True, description="Folder the relative paths resolve against.")

    @property
    def strict(self) -> bool:
        return self.mode is DomainMode.STRICT

    def path_of(self, rel: str | None) -> Path | None:
        return None if rel is None else (self.base_dir / rel)

    @property
    def graphs(self) -> tuple[str, str]:
        return (self.ontology_graph, self.data_graph)


class DomainPolicy(BaseModel):
    """The whole policy file: named domains."""

    model_config = ConfigDict(extra="forbid")

    version: int = Field(1, description="Policy file format version.")
    domains: dict[str, Domain] = Field(default_factory=dict, description="Domains by name.")

    @classmethod
    def load(cls, path: str | Path | None = None) -> DomainPolicy:
        p = Path(path) if path is not None else BUNDLED_POLICY
        if not p.is_file():
            raise NotFound(f"domain policy file {p} does not exist")
        try:
            raw = yaml.safe_load(p.read_text(encoding="utf-8")) or {}
            policy = cls.model_validate(raw)
        except (yaml.YAMLError, ValidationError) as e:
            raise InvalidInput(f"invalid domain policy file {p}: {e}") from e
        for name, d in policy.domains.items():
            d.name = name
            d.base_dir = p.parent
        return policy

    def get(self, name: str) -> Domain:
        try:
            return self.domains[name]
        except KeyError:
            known = ", ".join(sorted(self.domains)) or "none"
            raise NotFound(f"unknown domain {name!r}; known domains: {known}") from None

    def domain_of_graph(self, graph: str) -> Domain | None:
        for d in self.domains.values():
            if graph in d.graphs:
                return d
        return None
