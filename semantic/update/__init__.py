"""SPARQL 1.1 Update through the knowledge base's one write path (https://www.w3.org/TR/sparql11-update/).

Pipeline: :mod:`~hybridkg.semantic.update.tokens` (operations, templates and WHERE clauses as text)
-> :mod:`~hybridkg.semantic.update.parse` (syntax checked by oxigraph, typed operations) ->
:mod:`~hybridkg.semantic.update.apply` (WHERE clauses evaluated by the store, templates instantiated
by oxigraph on a scratch store holding only the solutions, one pending change) -> ``KnowledgeBase.update``
(SHACL gate per touched domain, then ``write``). Nothing is written before the whole request has
been evaluated and validated, so a request is atomic; the cost follows the change, never the store
size (no copy of the store, except the bounded overlay described in ``apply``).

Graphs: the knowledge base keeps data only in named graphs. An update's default graph (triples
outside ``GRAPH``, ``DEFAULT`` in CLEAR/DROP/ADD/MOVE/COPY) is the graph the caller names,
``urn:hybridkg:graph:default`` for ``KnowledgeBase.update``; ``NAMED`` means every asserted graph but
that one, ``ALL`` every asserted graph. A WHERE without WITH/USING reads, as queries do, the union of
all graphs (inferred triples included) as its default graph; WITH and USING name exactly the graphs
read. The inferred graph cannot be written, cleared or moved; deletions a DELETE template makes
there are ignored (inferred triples disappear when their support does). Empty graphs are not kept:
CREATE fails only if the graph has triples, CLEAR/DROP/ADD/MOVE/COPY of an absent graph succeed.
Within one request, later operations see earlier ones' asserted effect, not their entailments
(the closure is updated once, at commit). LOAD and SERVICE are refused (no network fetches).
"""

from hybridkg.semantic.update.apply import MAX_OVERLAY_QUADS, PendingChange, UpdateDataset, evaluate
from hybridkg.semantic.update.parse import Operation, parse_update

__all__ = ["MAX_OVERLAY_QUADS", "Operation", "PendingChange", "UpdateDataset", "evaluate", "parse_update"]
