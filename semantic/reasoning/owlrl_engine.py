"""The reference OWL 2 RL engine: owlrl (pure Python, slow).

https://owl-rl.readthedocs.io/ - ``DeductiveClosure(OWLRL_Semantics).expand`` on an rdflib graph.
Axiomatic and datatype-axiom triples are switched off; the rest of owlrl's noise is removed by
:func:`~hybridkg.semantic.reasoning.normalize.normalize_inferred`. The error-message nodes owlrl adds
for inconsistent input are logged as warnings and left out of the inferred set.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

import rdflib
from pyoxigraph import Triple

from hybridkg.semantic.base import ReasoningSession
from hybridkg.semantic.convert import RdflibCodec
from hybridkg.semantic.reasoning.normalize import normalize_inferred

_log = logging.getLogger(__name__)
#: owlrl reports clashes (cax-dw, prp-irp, eq-diff1...) as ``[] a ErrorMessage; error "..."`` triples.
_ERROR = rdflib.URIRef("http://www.daml.org/2002/03/agents/agent-ont#error")


class OwlrlReasoner:
    """OWL 2 RL with owlrl; recomputes the closure from scratch on every change."""

    name = "owlrl"

    def materialize(self, triples: Iterable[Triple]) -> set[Triple]:
        import owlrl

        asserted = {t for t in triples if type(t.subject) is not Triple and type(t.object) is not Triple}
        codec = RdflibCodec()
        graph = rdflib.Graph()
        for t in asserted:
            graph.add(codec.encode_triple(t))
        before = set(graph)
        owlrl.DeductiveClosure(
            owlrl.OWLRL_Semantics, axiomatic_triples=False, datatype_axioms=False
        ).expand(graph)
        fresh = [t for t in graph if t not in before]
        errors = {s for s, p, _ in fresh if p == _ERROR}
        if errors:
            for message in sorted(str(o) for s, p, o in fresh if s in errors and p == _ERROR):
                _log.warning("owlrl: inconsistent input: %s", message)
            fresh = [t for t in fresh if t[0] not in errors]
        return normalize_inferred(codec.decode_triples(fresh), asserted)

    def session(self, triples: Iterable[Triple]) -> ReasoningSession:
        from hybridkg.semantic.reasoning.session import RecomputingSession

        return RecomputingSession(self, triples)
