"""A compiled SPARQL expression: Cypher text and the static kind of value it gives (shared by ``functions`` and
``casts``)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rdflib import URIRef
from rdflib.namespace import RDF, XSD


class EKind(StrEnum):
    NODE = "node"  # a :Resource node
    IRI = "iri"  # a string holding an IRI (a constant, datatype())
    VALUE = "value"  # a property value of a class known only at run time
    NUM = "num"
    STR = "str"  # an xsd:string
    BOOL = "bool"
    NULL = "null"  # unbound, or always an error


VALUES = (EKind.VALUE, EKind.NUM, EKind.STR, EKind.BOOL)
XSD_INTEGER, XSD_DOUBLE, XSD_BOOLEAN, XSD_STRING = (str(XSD[n]) for n in ("integer", "double", "boolean", "string"))


@dataclass(frozen=True)
class Expr:
    text: str
    kind: EKind


NULL = Expr("null", EKind.NULL)


def num(x: str) -> str:
    """``x`` where it is a number, else 0: FalkorDB evaluates every branch of a CASE, so operands must be safe."""
    return f"(CASE WHEN typeOf({x}) IN ['Integer', 'Float'] THEN {x} ELSE 0 END)"


def args(x: Any) -> list[Any]:
    """A function's or IN's argument list: rdflib's algebra gives an empty one as the IRI rdf:nil (a list
    otherwise, ``(rdf:nil)`` included)."""
    return [] if isinstance(x, URIRef) and x == RDF.nil else list(x)
