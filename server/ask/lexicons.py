"""Per-domain lexicons (with and without embeddings) and what is built from them, kept until the domain changes.

The cache listens to the knowledge base's change feed: a write to a domain's graphs drops that domain's
entries; an inferred change that can alter labels, kinds or the schema (a label, an ``rdf:type`` to an
RDF/RDFS/OWL term other than ``owl:Thing``, an RDFS or OWL axiom other than ``owl:sameAs``) drops every
domain, since the closure may carry it into any of them. Inferred changes to plain data drop nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from pyoxigraph import NamedNode, Quad, Triple

from hybridkg.semantic.base import ChangeSet
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.qa.lexicon import Lexicon, TextEmbedder

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
LABEL_PROPERTIES = frozenset({
    RDFS + "label", "http://www.w3.org/2004/02/skos/core#prefLabel", "http://www.w3.org/2004/02/skos/core#altLabel",
})


#: Statements about individuals, not vocabulary: an inferred one changes no lexicon and no schema.
INDIVIDUAL_TERMS = frozenset({OWL + "sameAs", OWL + "differentFrom", OWL + "Thing", OWL + "NamedIndividual"})


def _touches_vocabulary(t: Triple) -> bool:
    p = t.predicate.value
    if p in LABEL_PROPERTIES:
        return True
    if p == RDF + "type":
        o = t.object.value if isinstance(t.object, NamedNode) else ""
        return o.startswith((RDF, RDFS, OWL)) and o not in INDIVIDUAL_TERMS
    return p.startswith((RDFS, OWL)) and p not in INDIVIDUAL_TERMS


class LexiconCache:
    """Lexicons and derived per-domain objects (parsers, schemas), built on first use, dropped on change."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self._kb = kb
        self._lock = threading.Lock()
        self._entries: dict[str, dict[str, Any]] = {}
        self._generation: dict[str, int] = {}
        self._unsubscribe: Callable[[], None] | None = kb.subscribe(self._on_change)

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def lexicon(self, domain: str, embedder: TextEmbedder | None = None) -> Lexicon:
        """``domain``'s lexicon; with ``embedder``, one that also links by embedding similarity."""
        key = "lexicon+embedding" if embedder is not None else "lexicon"
        return self.get(domain, key, lambda: Lexicon.build(self._kb, domain, embedder=embedder))

    def get(self, domain: str, key: str, build: Callable[[], Any]) -> Any:
        """The cached ``key`` object of ``domain``, built with ``build()`` when missing (outside the lock)."""
        with self._lock:
            found = self._entries.get(domain, {}).get(key)
            generation = self._generation.get(domain, 0)
        if found is not None:
            return found
        value = build()
        with self._lock:
            if self._generation.get(domain, 0) == generation:  # no change arrived while building
                self._entries.setdefault(domain, {})[key] = value
        return value

    def invalidate(self, domain: str | None = None) -> None:
        """Drop ``domain``'s entries (every domain's when None)."""
        with self._lock:
            names = list(self._kb.policy.domains) if domain is None else [domain]
            for name in names:
                self._entries.pop(name, None)
                self._generation[name] = self._generation.get(name, 0) + 1

    def _on_change(self, change: ChangeSet) -> None:
        if change.bulk_graphs:  # a bulk load: its triples are not listed, so anything may have changed
            self.invalidate()
            return
        inferred = (*change.inferred_added, *change.inferred_removed)
        if any(_touches_vocabulary(t) for t in inferred):
            self.invalidate()
            return
        changed: set[str] = set()
        quads: tuple[Quad, ...] = (*change.asserted_added, *change.asserted_removed)
        for q in quads:
            dom = self._kb.policy.domain_of_graph(q.graph_name.value) if isinstance(q.graph_name, NamedNode) else None
            if dom is not None:
                changed.add(dom.name)
        if change.domain and quads:
            changed.add(change.domain)
        for name in changed:
            self.invalidate(name)
