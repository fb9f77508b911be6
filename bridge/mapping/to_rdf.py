"""Property graph -> RDF (``docs/bridge.md`` §1.5): :func:`to_rdf`, the inverse of :func:`~.to_pg.map_graph`.

Names go back to IRIs through the graph's :class:`~.names.NameRegistry`, values to literals through
:func:`~.values.to_literal`. A label, relationship type or property key the registry does not hold (written into
the graph by something other than the bridge) cannot be read back: :class:`~hybridkg.errors.Unsupported` names it.
"""

from __future__ import annotations

from pyoxigraph import NamedNode, Triple

from hybridkg.bridge.mapping.model import MappedGraph
from hybridkg.bridge.mapping.names import NameKind, NameRegistry
from hybridkg.bridge.mapping.values import to_literal
from hybridkg.errors import Unsupported

RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")


def _resolver(registry: NameRegistry, kind: NameKind) -> dict[str, NamedNode]:
    return {name: NamedNode(iri) for name, iri in registry.items(kind).items()}


def _unknown(kind: NameKind, name: str) -> Unsupported:
    return Unsupported(f"the {kind.value} {name!r} is not in the bridge's name registry: it cannot be read as RDF")


def to_rdf(mapped: MappedGraph) -> list[Triple]:
    """The triples ``mapped`` stands for (each once)."""
    registry = mapped.mapping.registry
    classes, types, keys = (_resolver(registry, k) for k in NameKind)
    out: list[Triple] = []
    for node in mapped.nodes.values():
        s = node.ref.term()
        for label in node.labels:
            if label not in classes:
                raise _unknown(NameKind.LABEL, label)
            out.append(Triple(s, RDF_TYPE, classes[label]))
        for key, value in node.props.items():
            if key not in keys:
                raise _unknown(NameKind.KEY, key)
            p = keys[key]
            for v in value if isinstance(value, list) else (value,):
                out.append(Triple(s, p, to_literal(v)))
    for edge in mapped.edges:
        if edge.type not in types:
            raise _unknown(NameKind.TYPE, edge.type)
        out.append(Triple(edge.src.term(), types[edge.type], edge.dst.term()))
    return out
