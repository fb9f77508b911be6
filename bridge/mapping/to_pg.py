"""RDF -> property graph (``docs/bridge.md`` §1): :func:`map_graph`.

Schema-independent (what neosemantics users know) with the schema-dependent refinements of the domain's SHACL
shapes (:mod:`.shapes`): every IRI and blank node that is a subject or an object is a ``Resource`` node keyed by
``uri`` or ``bnode``; ``?s rdf:type C`` (an IRI ``C``) is a label of ``?s``; a literal object is a value of a
property (a list when the node has several values, or when the shapes declare the property without
``sh:maxCount 1``); an IRI or blank-node object (``rdf:type`` to a blank node included: OWL 2 RL infers those
for restriction classes) is a relationship. Duplicate triples are one. What a property graph cannot hold is
refused with :class:`~hybridkg.errors.Unsupported` naming it: a quad in a named graph, an RDF 1.2 triple term.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Quad, Triple

from hybridkg.bridge.base import Value
from hybridkg.bridge.mapping.model import (
    MappedGraph,
    NodeRef,
    PropertyValue,
    RdfMapping,
    Relationship,
    ResourceNode,
    Schema,
)
from hybridkg.bridge.mapping.names import NameKind, NameRegistry
from hybridkg.bridge.mapping.shapes import Shapes, schema_of, shape_names
from hybridkg.bridge.mapping.values import to_value
from hybridkg.errors import Unsupported

RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")


def _triples(statements: Iterable[Triple | Quad]) -> dict[Triple, None]:
    out: dict[Triple, None] = {}
    for st in statements:
        if isinstance(st, Quad):
            if not isinstance(st.graph_name, DefaultGraph):
                raise Unsupported(
                    f"a quad in the named graph {st.graph_name}: the property graph holds one graph; map each "
                    "named graph's triples on their own"
                )
            st = st.triple
        if isinstance(st.object, Triple) or isinstance(st.subject, Triple):
            raise Unsupported(f"the RDF 1.2 triple term in {st}: a property graph node cannot be a statement")
        out[st] = None
    return out


def map_graph(
    statements: Iterable[Triple | Quad],
    shapes: Shapes | None = None,
    namespaces: Mapping[str, str] | None = None,
    registry: NameRegistry | None = None,
) -> MappedGraph:
    """The property graph of ``statements`` (triples, or quads in the default graph).

    ``namespaces`` (prefix -> namespace IRI, e.g. a domain's) give the prefixes of colliding names; pass
    ``registry`` to extend the names of a graph mapped before (it is extended in place; names once given never
    change). The classes and predicates of ``shapes`` are named too, with or without data."""
    triples = _triples(statements)
    registry = registry if registry is not None else NameRegistry(namespaces)
    names: dict[tuple[NameKind, str], None] = dict.fromkeys(shape_names(shapes) if shapes else [])
    for t in triples:
        pred, obj = t.predicate.value, t.object
        if isinstance(obj, Literal):
            names[(NameKind.KEY, pred)] = None
        elif isinstance(obj, NamedNode) and t.predicate == RDF_TYPE:
            names[(NameKind.LABEL, obj.value)] = None
        else:
            names[(NameKind.TYPE, pred)] = None
    registry.add(names)
    name_of = {(kind, iri): registry.name(kind, iri) for kind, iri in names}

    nodes: dict[NodeRef, ResourceNode] = {}
    values: dict[NodeRef, dict[str, list[Value]]] = {}
    classes: dict[NodeRef, list[str]] = {}
    edges: list[Relationship] = []

    def node(term: NamedNode | BlankNode) -> NodeRef:
        ref = NodeRef.of(term)
        if ref not in nodes:
            nodes[ref] = ResourceNode(ref)
        return ref

    for t in triples:
        s, p, o = t.subject, t.predicate, t.object
        assert isinstance(s, NamedNode | BlankNode)
        src = node(s)
        if isinstance(o, Literal):
            key = name_of[(NameKind.KEY, p.value)]
            assert key is not None
            values.setdefault(src, {}).setdefault(key, []).append(to_value(o))
        elif isinstance(o, NamedNode) and p == RDF_TYPE:
            label = name_of[(NameKind.LABEL, o.value)]
            assert label is not None
            nodes[src].labels.append(label)
            classes.setdefault(src, []).append(o.value)
        else:
            assert isinstance(o, NamedNode | BlankNode)
            rel = name_of[(NameKind.TYPE, p.value)]
            assert rel is not None
            edges.append(Relationship(rel, src, node(o)))

    lists = _list_keys(shapes, registry)
    for ref, props in values.items():
        listed = set().union(*(lists.get(c, ()) for c in classes.get(ref, ())))
        out: dict[str, PropertyValue] = {}
        for key, vals in props.items():
            out[key] = vals[0] if len(vals) == 1 and key not in listed else vals
        nodes[ref].props = out
    schema = schema_of(shapes, registry) if shapes else Schema()
    return MappedGraph(nodes, edges, RdfMapping(registry), schema)


def _list_keys(shapes: Shapes | None, registry: NameRegistry) -> dict[str, set[str]]:
    """``class IRI -> property keys`` the shapes make lists."""
    if shapes is None:
        return {}
    out: dict[str, set[str]] = {}
    for cls, paths in shapes.list_paths().items():
        out[cls] = {k for k in (registry.name(NameKind.KEY, p) for p in paths) if k is not None}
    return out
