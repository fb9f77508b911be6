"""SPARQL 1.1 Query Results JSON Format (https://www.w3.org/TR/sparql11-results-json/)."""

from __future__ import annotations

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from hybridkg.semantic.base import QueryResult, Term

_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_RDF_LANGSTRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


def term_json(term: Term) -> dict[str, object]:
    if isinstance(term, NamedNode):
        return {"type": "uri", "value": term.value}
    if isinstance(term, BlankNode):
        return {"type": "bnode", "value": term.value}
    if isinstance(term, Literal):
        out: dict[str, object] = {"type": "literal", "value": term.value}
        if term.language:
            out["xml:lang"] = term.language
        elif term.datatype.value != _XSD_STRING:
            out["datatype"] = term.datatype.value
        return out
    if isinstance(term, Triple):
        return {
            "type": "triple",
            "value": {
                "subject": term_json(term.subject),
                "predicate": term_json(term.predicate),
                "object": term_json(term.object),
            },
        }
    raise TypeError(type(term).__name__)


def results_json(result: QueryResult) -> dict[str, object]:
    if result.kind == "ask":
        return {"head": {}, "boolean": bool(result.boolean)}
    if result.kind == "select":
        bindings = []
        for row in result.rows:
            bindings.append({v: term_json(t) for v, t in zip(result.variables, row, strict=True) if t is not None})
        return {"head": {"vars": list(result.variables)}, "results": {"bindings": bindings}}
    raise ValueError("graph results are serialised as N-Triples, not JSON")


def ntriples(result: QueryResult) -> str:
    return "".join(f"{t} .\n" for t in result.triples)
