"""The one place where pyoxigraph terms and rdflib terms meet (owlrl and pyshacl speak rdflib)."""

from __future__ import annotations

from collections.abc import Iterable

import rdflib
from pyoxigraph import BlankNode, Literal, NamedNode, Triple

_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_RDF_LANGSTRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


def to_rdflib_term(term: NamedNode | BlankNode | Literal) -> rdflib.term.Node:
    if isinstance(term, NamedNode):
        return rdflib.URIRef(term.value)
    if isinstance(term, BlankNode):
        return rdflib.BNode(term.value)
    if isinstance(term, Literal):
        if term.language:
            return rdflib.Literal(term.value, lang=term.language)
        return rdflib.Literal(term.value, datatype=rdflib.URIRef(term.datatype.value))
    raise TypeError(f"cannot convert {type(term).__name__} to rdflib (RDF-star is not supported here)")


def from_rdflib_term(term: rdflib.term.Node) -> NamedNode | BlankNode | Literal:
    if isinstance(term, rdflib.URIRef):
        return NamedNode(str(term))
    if isinstance(term, rdflib.BNode):
        return BlankNode(str(term))
    if isinstance(term, rdflib.Literal):
        if term.language:
            return Literal(str(term), language=term.language)
        datatype = term.datatype or rdflib.URIRef(_XSD_STRING)
        return Literal(str(term), datatype=NamedNode(str(datatype)))
    raise TypeError(f"cannot convert {type(term).__name__} from rdflib")


def to_rdflib_graph(triples: Iterable[Triple], graph: rdflib.Graph | None = None) -> rdflib.Graph:
    g = graph if graph is not None else rdflib.Graph()
    add = g.add
    for t in triples:
        add((to_rdflib_term(t.subject), to_rdflib_term(t.predicate), to_rdflib_term(t.object)))  # type: ignore[arg-type]
    return g


def from_rdflib_triples(
    triples: Iterable[tuple[rdflib.term.Node, rdflib.term.Node, rdflib.term.Node]],
) -> Iterable[Triple]:
    """Convert rdflib triples, skipping those that are not valid RDF (literal subject or predicate)."""
    for s, p, o in triples:
        if isinstance(s, rdflib.Literal) or not isinstance(p, rdflib.URIRef):
            continue
        yield Triple(from_rdflib_term(s), from_rdflib_term(p), from_rdflib_term(o))  # type: ignore[arg-type]
