"""A dict-backed :class:`hybridkg.bridge.base.Mapping` for the translators' tests, and a loader that writes an RDF
graph into a property graph in :mod:`hybridkg.bridge.base`'s conventions through a graph store's parameterised
``query`` (independent of the bridge's own mapping, so the translator is tested against the protocol alone).

The fake's literal encoding: xsd:string, xsd:integer, xsd:double and xsd:boolean literals in Oxigraph's canonical
form (what ``pyoxigraph.Literal(value)`` writes, and what a store gives back) are native values; any other
literal (a language tag, another datatype, a non-canonical form, a string starting with the marker) is the
string ``¶<@lang or datatype IRI>¶<lexical form>``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pyoxigraph as ox

from hybridkg.bridge.base import BNODE, RESOURCE, URI, Value

MARK = "¶"
RDF_TYPE = ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
_LOCAL = re.compile(r"[^A-Za-z0-9_]")


def _local(iri: str) -> str:
    tail = re.split(r"[#/]", iri)[-1] or "x"
    name = _LOCAL.sub("_", tail)
    return name if name[0].isalpha() else "n_" + name


@dataclass
class DictMapping:
    """Names from explicit dicts (IRI string -> name); values by the encoding above."""

    labels: dict[str, str] = field(default_factory=dict)
    relationships: dict[str, str] = field(default_factory=dict)
    properties: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, triples: Iterable[ox.Triple]) -> DictMapping:
        """Local names for the classes, relationship predicates and property predicates of ``triples``."""
        m = cls()
        for t in triples:
            p = t.predicate.value
            if t.predicate == RDF_TYPE and isinstance(t.object, ox.NamedNode):
                m.labels.setdefault(t.object.value, _local(t.object.value))
            elif isinstance(t.object, ox.Literal):
                m.properties.setdefault(p, _local(p))
            else:
                m.relationships.setdefault(p, _local(p))
        return m

    def label(self, cls: ox.NamedNode) -> str | None:
        return self.labels.get(cls.value)

    def relationship_type(self, predicate: ox.NamedNode) -> str | None:
        return self.relationships.get(predicate.value)

    def property_key(self, predicate: ox.NamedNode) -> str | None:
        return self.properties.get(predicate.value)

    def iri(self, name: str) -> ox.NamedNode | None:
        for names in (self.labels, self.relationships, self.properties):
            for iri, n in names.items():
                if n == name:
                    return ox.NamedNode(iri)
        return None

    def to_value(self, literal: ox.Literal) -> Value:
        native = _native(literal)
        if native is not None:
            return native
        tag = "@" + literal.language if literal.language else literal.datatype.value
        return f"{MARK}{tag}{MARK}{literal.value}"

    def to_literal(self, value: Value) -> ox.Literal:
        if isinstance(value, str) and value.startswith(MARK):
            tag, lexical = value[1:].split(MARK, 1)
            if tag.startswith("@"):
                return ox.Literal(lexical, language=tag[1:])
            return ox.Literal(lexical, datatype=ox.NamedNode(tag))
        return ox.Literal(value)

    def plain_string(self, expr: str) -> str:
        return f"(NOT {expr} STARTS WITH '{MARK}')"


def _native(literal: ox.Literal) -> Value | None:
    dt = literal.datatype.value.rsplit("#", 1)[-1] if not literal.language else ""
    value: Value
    try:
        if dt == "string":
            value = literal.value
            if value.startswith(MARK):
                return None
        elif dt == "integer":
            value = int(literal.value)
        elif dt == "double":
            value = float(literal.value)
        elif dt == "boolean" and literal.value in ("true", "false"):
            value = literal.value == "true"
        else:
            return None
    except ValueError:
        return None
    return value if ox.Literal(value) == literal else None


def load(store: Any, triples: Iterable[ox.Triple], mapping: DictMapping) -> None:
    """Write ``triples`` into ``store`` (a graph store's ``query`` runs writes): one ``:Resource`` node per IRI and
    blank node, ``rdf:type`` as labels, relationships for IRI objects, properties for literals (a list when a node
    has several values of a predicate)."""
    from hybridkg.bridge.sparql_to_cypher.emit import name

    nodes: dict[tuple[str, str], set[str]] = {}
    props: dict[tuple[str, str], dict[str, list[Value]]] = defaultdict(lambda: defaultdict(list))
    edges: list[tuple[tuple[str, str], str, tuple[str, str]]] = []

    def key(term: Any) -> tuple[str, str]:
        k = (URI, term.value) if isinstance(term, ox.NamedNode) else (BNODE, term.value)
        nodes.setdefault(k, set())
        return k

    for t in triples:
        s = key(t.subject)
        if t.predicate == RDF_TYPE and isinstance(t.object, ox.NamedNode):
            label = mapping.label(t.object)
            if label is not None:
                nodes[s].add(label)
                continue
        if isinstance(t.object, ox.Literal):
            pk = mapping.property_key(t.predicate)
            assert pk is not None, t
            props[s][pk].append(mapping.to_value(t.object))
        else:
            rt = mapping.relationship_type(t.predicate)
            assert rt is not None, t
            edges.append((s, rt, key(t.object)))
    for (k, ident), labels in nodes.items():
        label_text = "".join(":" + name(x) for x in sorted(labels))
        sets = {pk: vs[0] if len(vs) == 1 else vs for pk, vs in props[(k, ident)].items()}
        assignments = "".join(f" SET n.{name(pk)} = $v{i}" for i, pk in enumerate(sets))
        params = {"id": ident, **{f"v{i}": v for i, v in enumerate(sets.values())}}
        store.query(f"CREATE (n:{name(RESOURCE)}{label_text} {{{name(k)}: $id}}){assignments}", params)
    for (sk, sv), rt, (ok, ov) in edges:
        store.query(
            f"MATCH (a:{name(RESOURCE)} {{{name(sk)}: $a}}), (b:{name(RESOURCE)} {{{name(ok)}: $b}}) "
            f"CREATE (a)-[:{name(rt)}]->(b)",
            {"a": sv, "b": ov},
        )


def load_both(server: Any, data: str, kind: str) -> tuple[Any, ox.Store, Any]:
    """``data`` (Turtle) in a new Oxigraph store and in a fresh FalkorDB graph on ``server``, written by
    :func:`load` with a :class:`DictMapping` (``kind`` ``"fake"``) or by the bridge's own mapping (``map_graph`` +
    ``write_graph``, ``kind`` ``"bridge"``): ``(graph, store, mapping)``; the caller closes the graph."""
    from support.falkor import fresh_graph

    from hybridkg.bridge.mapping import map_graph, write_graph

    store = ox.Store()
    store.load(data, format=ox.RdfFormat.TURTLE)
    triples = [q.triple for q in store]  # as the store gives them back (Oxigraph canonicalises numbers)
    g = fresh_graph(server)
    if kind == "fake":
        fake = DictMapping.of(triples)
        load(g, triples, fake)
        return g, store, fake
    mapped = map_graph(triples)
    write_graph(g, mapped)
    return g, store, mapped.mapping
