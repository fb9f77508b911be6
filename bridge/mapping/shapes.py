"""Reading a domain's SHACL shapes into the property graph's schema (``docs/bridge.md`` §1.1).

After Angles et al., "Mapping RDF databases to property graph databases" (IEEE Access 8, 2020), the
schema-dependent mapping: a node shape's ``sh:targetClass`` (or the shape itself when it is also a class:
implicit class target, SHACL §2.1.3.3) is a node label; a property shape with a predicate path and
``sh:datatype`` (or ``sh:nodeKind sh:Literal``) is a typed node property, a scalar when ``sh:maxCount 1``, else a
list; one with ``sh:class`` or ``sh:nodeKind`` ``sh:IRI`` / ``sh:BlankNode`` / ``sh:BlankNodeOrIRI`` is a
relationship type. Several property shapes on the same path of a class are merged. Property shapes with
complex paths (inverse, sequence, ...) say nothing here: their triples take the schema-independent way.

The schema indexes ``uri`` and ``bnode`` of ``Resource`` (unique) and every typed property of its label.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from pyoxigraph import Literal, NamedNode, Triple

from hybridkg.bridge.mapping.model import IndexSpec, PropertySpec, RelationshipSpec, Schema
from hybridkg.bridge.mapping.names import NameKind, NameRegistry
from hybridkg.semantic.domains import Domain
from hybridkg.semantic.gate import DomainShapes

SH = "http://www.w3.org/ns/shacl#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
_CLASSES = {"http://www.w3.org/2000/01/rdf-schema#Class", "http://www.w3.org/2002/07/owl#Class"}
_IRI_KINDS = {SH + "IRI", SH + "BlankNode", SH + "BlankNodeOrIRI"}


@dataclass(frozen=True, slots=True)
class ShapeProperty:
    """What the shapes say about ``path`` on instances of ``target_class`` (IRIs, before naming)."""

    target_class: str
    path: str
    datatype: str | None = None
    max_one: bool = False
    min_one: bool = False
    relationship: bool = False
    target: str | None = None  # sh:class of a relationship


@dataclass(frozen=True, slots=True)
class Shapes:
    classes: tuple[str, ...] = ()
    properties: tuple[ShapeProperty, ...] = ()

    def list_paths(self) -> dict[str, set[str]]:
        """``class IRI -> paths`` of typed properties that are lists (no ``sh:maxCount 1``)."""
        out: dict[str, set[str]] = {}
        for p in self.properties:
            if p.datatype is not None and not p.max_one:
                out.setdefault(p.target_class, set()).add(p.path)
        return out


def _int(term: object) -> int | None:
    if isinstance(term, Literal):
        try:
            return int(term.value)
        except ValueError:
            return None
    return None


def read_shapes(triples: Iterable[Triple]) -> Shapes:
    """The classes and properties SHACL shapes declare."""
    by_subject: dict[object, dict[str, list[object]]] = {}
    for t in triples:
        by_subject.setdefault(t.subject, {}).setdefault(t.predicate.value, []).append(t.object)
    classes: list[str] = []
    merged: dict[tuple[str, str], ShapeProperty] = {}
    for shape, props in by_subject.items():
        targets = [c.value for c in props.get(SH + "targetClass", []) if isinstance(c, NamedNode)]
        types = {c.value for c in props.get(RDF_TYPE, []) if isinstance(c, NamedNode)}
        if isinstance(shape, NamedNode) and SH + "NodeShape" in types and types & _CLASSES:
            targets.append(shape.value)
        for cls in targets:
            if cls not in classes:
                classes.append(cls)
            for ps in props.get(SH + "property", []):
                prop = _property(cls, by_subject.get(ps, {}))
                if prop is not None:
                    merged[(cls, prop.path)] = _merge(merged.get((cls, prop.path)), prop)
    return Shapes(tuple(classes), tuple(merged.values()))


def _property(cls: str, props: dict[str, list[object]]) -> ShapeProperty | None:
    paths = props.get(SH + "path", [])
    if len(paths) != 1 or not isinstance(paths[0], NamedNode):
        return None
    datatypes = [d.value for d in props.get(SH + "datatype", []) if isinstance(d, NamedNode)]
    kinds = {k.value for k in props.get(SH + "nodeKind", []) if isinstance(k, NamedNode)}
    targets = [c.value for c in props.get(SH + "class", []) if isinstance(c, NamedNode)]
    max_counts = [n for n in map(_int, props.get(SH + "maxCount", [])) if n is not None]
    min_counts = [n for n in map(_int, props.get(SH + "minCount", [])) if n is not None]
    literal = bool(datatypes) or SH + "Literal" in kinds
    return ShapeProperty(
        target_class=cls,
        path=paths[0].value,
        datatype=datatypes[0] if datatypes else (SH + "Literal" if literal else None),
        max_one=any(n <= 1 for n in max_counts),
        min_one=any(n >= 1 for n in min_counts),
        relationship=bool(targets) or bool(kinds & _IRI_KINDS),
        target=targets[0] if targets else None,
    )


def _merge(old: ShapeProperty | None, new: ShapeProperty) -> ShapeProperty:
    if old is None:
        return new
    return ShapeProperty(
        target_class=new.target_class,
        path=new.path,
        datatype=old.datatype or new.datatype,
        max_one=old.max_one or new.max_one,
        min_one=old.min_one or new.min_one,
        relationship=old.relationship or new.relationship,
        target=old.target or new.target,
    )


def domain_shapes(domain: Domain) -> Shapes:
    """A domain's shapes, through the semantic layer's loader (the policy file's ``shapes``)."""
    return read_shapes(DomainShapes(domain).triples)


def shape_names(shapes: Shapes) -> list[tuple[NameKind, str]]:
    """The ``(kind, IRI)`` pairs the shapes name (for :meth:`NameRegistry.add`)."""
    out = [(NameKind.LABEL, c) for c in shapes.classes]
    for p in shapes.properties:
        if p.datatype is not None:
            out.append((NameKind.KEY, p.path))
        if p.relationship:
            out.append((NameKind.TYPE, p.path))
            if p.target is not None:
                out.append((NameKind.LABEL, p.target))
    return out


def schema_of(shapes: Shapes, registry: NameRegistry) -> Schema:
    """The property graph's schema: typed properties, relationship types and indexes, by name."""
    props: list[PropertySpec] = []
    rels: list[RelationshipSpec] = []
    indexes = list(Schema().indexes)
    for p in shapes.properties:
        label = registry.name(NameKind.LABEL, p.target_class)
        assert label is not None
        if p.datatype is not None:
            key = registry.name(NameKind.KEY, p.path)
            assert key is not None
            props.append(PropertySpec(label, key, p.datatype, p.max_one, p.min_one))
            if IndexSpec(label, key) not in indexes:
                indexes.append(IndexSpec(label, key))
        if p.relationship:
            rel = registry.name(NameKind.TYPE, p.path)
            assert rel is not None
            dst = None if p.target is None else registry.name(NameKind.LABEL, p.target)
            rels.append(RelationshipSpec(label, rel, dst))
    return Schema(tuple(props), tuple(rels), tuple(indexes))
