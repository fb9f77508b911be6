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

The settings: the settings file's ``bridge:`` section (:class:`~hybridkg.bridge.settings.BridgeConfig`: the graph
name and the default exposure, ``inferred``) and a domain's ``bridge_exposure`` key in the domain policy file, which
wins for that domain; ``hybridkg bridge sync --exposure`` overrides both.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from pyoxigraph import BlankNode, NamedNode, Triple

from hybridkg.bridge.mapping import Shapes, domain_shapes
from hybridkg.bridge.settings import BRIDGE_GRAPH, BridgeConfig, Exposure
from hybridkg.semantic.base import INFERRED_GRAPH, TripleStore
from hybridkg.semantic.domains import DomainPolicy

__all__ = ["BRIDGE_GRAPH", "BridgeConfig", "Exposure", "Scope", "Subject", "scope_of"]

Subject = NamedNode | BlankNode


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
    domains: DomainPolicy, config: BridgeConfig | None = None, domain: str | None = None,
    exposure: Exposure | None = None,
) -> Scope:
    """The scope of ``domain`` (``None``: the whole store). Its exposure: ``exposure`` when given, else the domain's
    ``bridge_exposure`` (policy file), else ``config.exposure`` (settings file).

    Raises NotFound for an unknown domain (the message lists the known ones)."""
    policy = config or BridgeConfig()
    if domain is None:
        namespaces: dict[str, str] = {}
        for d in domains.domains.values():
            namespaces.update({p: ns for p, ns in d.namespaces.items() if p not in namespaces})
        shapes = _merge_shapes(domain_shapes(d) for d in domains.domains.values() if d.shapes)
        return Scope(policy.graph_name, None, (exposure or policy.exposure) is Exposure.INFERRED, None, shapes,
                     namespaces)
    dom = domains.get(domain)
    own = Exposure(dom.bridge_exposure) if dom.bridge_exposure is not None else None
    chosen = exposure or own or policy.exposure
    return Scope(
        f"{policy.graph_name}_{dom.name}", frozenset(dom.graphs), chosen is Exposure.INFERRED, dom.name,
        domain_shapes(dom) if dom.shapes else None, dict(dom.namespaces),
    )
