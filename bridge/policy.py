"""What the bridge exposes to the property graph (issue 11 §1, "Sync"): a :class:`Scope` and its triples.

A scope is the whole store or one domain of the policy file, with an :class:`Exposure`: ``asserted`` (the triples
written into the scope's graphs) or ``inferred`` (those and the OWL 2 RL closure's). The property graph is one
graph, so a triple asserted in several graphs, or both asserted and inferred, is one triple there.

* **Whole store** (no domain): every asserted graph, and the inferred graph when the exposure says so; the shapes of
  every domain apply where they target a class (elsewhere the mapping is schema-independent), names are prefixed
  with every domain's namespaces.
* **A domain**: the triples of its ontology and data graphs, and with ``inferred`` the inferred triples *about the
  domain's resources*: those whose subject is the subject of a triple asserted in the domain's graphs. (The closure
  is computed over the whole store, so it has no per-domain graph; this is the rule that keeps another domain's
  facts out while keeping what the reasoner adds to the domain's own resources.) The domain's shapes and
  namespaces apply.

The setting is :class:`SyncPolicy` (the graph name and each domain's exposure, default ``inferred``). It is not in
the settings file or ``domains.yaml`` yet: both refuse unknown keys and belong to other layers, so the CLI takes
``--exposure`` and code passes a :class:`SyncPolicy`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field
from pyoxigraph import BlankNode, NamedNode, Triple

from hybridkg.bridge.mapping import Shapes, domain_shapes
from hybridkg.semantic.base import INFERRED_GRAPH, TripleStore
from hybridkg.semantic.domains import DomainPolicy

#: The FalkorDB graph (Redis key) of the bridge's property graph, beside the structural layer's ``hybridkg``.
BRIDGE_GRAPH = "hybridkg_bridge"

Subject = NamedNode | BlankNode


class Exposure(StrEnum):
    ASSERTED = "asserted"
    INFERRED = "inferred"  # asserted + inferred


class SyncPolicy(BaseModel):
    """How the bridge syncs (to move into the settings file's ``bridge:`` section and ``domains.yaml``)."""

    model_config = ConfigDict(extra="forbid")

    graph_name: str = Field(
        BRIDGE_GRAPH, description="Property graph of the whole store; a domain's is <graph_name>_<domain>."
    )
    exposure: Exposure = Field(Exposure.INFERRED, description="What the whole store and unlisted domains expose.")
    domains: dict[str, Exposure] = Field(default_factory=dict, description="Domain name -> what it exposes.")


@dataclass(frozen=True)
class Scope:
    """What one bridge graph mirrors: ``graphs`` (IRIs; ``None``: every asserted graph) and, when ``inferred``,
    the closure (restricted to the domain's resources when ``graphs`` is set)."""

    graph_name: str
    graphs: frozenset[str] | None
    inferred: bool
    domain: str | None = None
    shapes: Shapes | None = None
    namespaces: dict[str, str] = field(default_factory=dict)

    def asserted(self, graph: object) -> bool:
        if graph == INFERRED_GRAPH:
            return False
        return self.graphs is None or (isinstance(graph, NamedNode) and graph.value in self.graphs)

    def triples_of(self, store: TripleStore, subject: Subject) -> set[Triple]:
        """The exposed triples whose subject is ``subject`` (what its node in the property graph stands for)."""
        out: set[Triple] = set()
        inferred: set[Triple] = set()
        for q in store.quads(subject):
            if self.asserted(q.graph_name):
                out.add(q.triple)
            elif q.graph_name == INFERRED_GRAPH and self.inferred:
                inferred.add(q.triple)
        if inferred and (self.graphs is None or out):
            out |= inferred
        return out

    def triples(self, store: TripleStore) -> set[Triple]:
        """Every exposed triple."""
        out: set[Triple] = set()
        inferred: list[Triple] = []
        for q in store.quads():
            if self.asserted(q.graph_name):
                out.add(q.triple)
            elif q.graph_name == INFERRED_GRAPH and self.inferred:
                inferred.append(q.triple)
        if self.graphs is None:
            out.update(inferred)
        else:
            subjects = {t.subject for t in out}
            out.update(t for t in inferred if t.subject in subjects)
        return out


def _merge_shapes(shapes: Iterable[Shapes]) -> Shapes | None:
    parts = list(shapes)
    if not parts:
        return None
    return Shapes(
        classes=tuple(dict.fromkeys(c for s in parts for c in s.classes)),
        properties=tuple(dict.fromkeys(p for s in parts for p in s.properties)),
    )


def scope_of(
    domains: DomainPolicy, policy: SyncPolicy | None = None, domain: str | None = None, exposure: Exposure | None = None
) -> Scope:
    """The scope of ``domain`` (``None``: the whole store); ``exposure`` overrides the policy's.

    Raises NotFound for an unknown domain (the message lists the known ones)."""
    policy = policy or SyncPolicy()
    if domain is None:
        namespaces: dict[str, str] = {}
        for d in domains.domains.values():
            namespaces.update({p: ns for p, ns in d.namespaces.items() if p not in namespaces})
        shapes = _merge_shapes(domain_shapes(d) for d in domains.domains.values() if d.shapes)
        return Scope(policy.graph_name, None, (exposure or policy.exposure) is Exposure.INFERRED, None, shapes,
                     namespaces)
    dom = domains.get(domain)
    chosen = exposure or policy.domains.get(domain, policy.exposure)
    return Scope(
        f"{policy.graph_name}_{dom.name}", frozenset(dom.graphs), chosen is Exposure.INFERRED, dom.name,
        domain_shapes(dom) if dom.shapes else None, dict(dom.namespaces),
    )
