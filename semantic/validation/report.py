"""Turn a SHACL validation report graph (as pySHACL and pyshacl-turbo return it) into a typed report.

Spec: https://www.w3.org/TR/shacl/#validation-report. Terms are rendered in N-Triples syntax and
result paths in SPARQL 1.1 property path syntax (https://www.w3.org/TR/sparql11-query/#pp-language).
"""

from __future__ import annotations

from collections.abc import Iterable

import rdflib
from rdflib.collection import Collection
from rdflib.namespace import RDF, SH

from hybridkg.errors import InvalidInput
from hybridkg.semantic.base import Severity, ValidationReport, ValidationResult
from hybridkg.semantic.convert import from_rdflib_term

_SEVERITIES = {
    SH.Violation: Severity.VIOLATION,
    SH.Warning: Severity.WARNING,
    SH.Info: Severity.INFO,
}

_UNARY_PATHS = {
    SH.zeroOrMorePath: "*",
    SH.oneOrMorePath: "+",
    SH.zeroOrOnePath: "?",
}


def render_term(term: rdflib.term.Node) -> str:
    """N-Triples syntax of an rdflib term; blank nodes keep their label (``_:label``)."""
    if isinstance(term, rdflib.BNode):
        return f"_:{term}"
    return str(from_rdflib_term(term))


def render_path(graph: rdflib.Graph, path: rdflib.term.Node) -> str:
    """SPARQL 1.1 property path syntax of a SHACL path node (https://www.w3.org/TR/shacl/#property-paths)."""
    text, _ = _path(graph, path)
    return text


# Binding levels of the SPARQL path grammar (section 19.8, rules 88-94), tightest first.
_PRIMARY, _ELT, _INVERSE, _SEQUENCE, _ALTERNATIVE = range(5)


def _operand(rendered: tuple[str, int], loosest: int) -> str:
    text, level = rendered
    return text if level <= loosest else f"({text})"


def _path(graph: rdflib.Graph, node: rdflib.term.Node) -> tuple[str, int]:
    """Render ``node`` with its binding level, so operands get parentheses only where needed."""
    if isinstance(node, rdflib.URIRef):
        return f"<{node}>", _PRIMARY
    if graph.value(node, RDF.first) is not None:  # type: ignore[arg-type]
        parts = [_path(graph, p) for p in Collection(graph, node)]  # type: ignore[arg-type]
        if len(parts) == 1:
            return parts[0]
        return "/".join(_operand(p, _INVERSE) for p in parts), _SEQUENCE
    alternatives = graph.value(node, SH.alternativePath)  # type: ignore[arg-type]
    if alternatives is not None:
        parts = [_path(graph, p) for p in Collection(graph, alternatives)]  # type: ignore[arg-type]
        return "|".join(_operand(p, _SEQUENCE) for p in parts), _ALTERNATIVE
    inverse = graph.value(node, SH.inversePath)  # type: ignore[arg-type]
    if inverse is not None:
        return "^" + _operand(_path(graph, inverse), _ELT), _INVERSE
    for predicate, suffix in _UNARY_PATHS.items():
        inner = graph.value(node, predicate)  # type: ignore[arg-type]
        if inner is not None:
            return _operand(_path(graph, inner), _PRIMARY) + suffix, _ELT
    raise InvalidInput(f"not a SHACL property path (SHACL 2.3.1): {render_term(node)}")


def _message(graph: rdflib.Graph, result: rdflib.term.Node, constraint: str, focus: str,
             path: str | None, value: str | None) -> str:
    messages = sorted(str(m) for m in graph.objects(result, SH.resultMessage))  # type: ignore[arg-type]
    if messages:
        return "; ".join(messages)
    component = constraint.rsplit("#", 1)[-1].removesuffix("ConstraintComponent") or constraint
    where = f"{focus} via {path}" if path else focus
    got = f" (value {value})" if value is not None else ""
    return f"{component} constraint not satisfied at {where}{got}"


def _result(graph: rdflib.Graph, node: rdflib.term.Node) -> ValidationResult:
    focus_node = graph.value(node, SH.focusNode)  # type: ignore[arg-type]
    focus = render_term(focus_node) if focus_node is not None else ""
    path_node = graph.value(node, SH.resultPath)  # type: ignore[arg-type]
    path = render_path(graph, path_node) if path_node is not None else None
    component = graph.value(node, SH.sourceConstraintComponent)  # type: ignore[arg-type]
    constraint = str(component) if component is not None else ""
    value_node = graph.value(node, SH.value)  # type: ignore[arg-type]
    value = render_term(value_node) if value_node is not None else None
    severity_node = graph.value(node, SH.resultSeverity)  # type: ignore[arg-type]
    # A custom severity IRI (SHACL 3.6.1.3 allows any IRI) still makes the report non-conforming.
    severity = _SEVERITIES.get(severity_node, Severity.VIOLATION)  # type: ignore[call-overload]
    shape_node = graph.value(node, SH.sourceShape)  # type: ignore[arg-type]
    return ValidationResult(
        focus=focus,
        path=path,
        constraint=constraint,
        value=value,
        severity=severity,
        message=_message(graph, node, constraint, focus, path, value),
        source_shape=render_term(shape_node) if shape_node is not None else None,
    )


def sorted_results(results: Iterable[ValidationResult]) -> tuple[ValidationResult, ...]:
    """Results in the stable order every report uses: focus, path, component, value, source shape."""
    return tuple(sorted(results, key=lambda r: (r.focus, r.path or "", r.constraint, r.value or "",
                                                  r.source_shape or "")))


def report_from_graph(graph: rdflib.Graph, engine: str) -> ValidationReport:
    """Read the ``sh:ValidationReport`` in ``graph``; results are sorted for stable output.

    Raises :class:`~hybridkg.errors.InvalidInput` if the report cannot be read: it copies paths and
    lists from the caller's shapes, so a malformed one there (a cyclic ``rdf:rest``) surfaces here.
    """
    report = next(iter(graph.subjects(RDF.type, SH.ValidationReport)), None)
    if report is None:
        raise InvalidInput(f"{engine} returned no sh:ValidationReport (SHACL 3.6)")
    conforms = graph.value(report, SH.conforms)
    try:
        results = sorted_results(_result(graph, r) for r in graph.objects(report, SH.result))
    except (ValueError, TypeError) as e:  # rdflib on a cyclic list, pyoxigraph on an unusable term
        raise InvalidInput(f"cannot read the {engine} validation report: {e}") from e
    return ValidationReport(
        conforms=bool(conforms.toPython()) if isinstance(conforms, rdflib.Literal) else not results,
        results=results,
        engine=engine,
    )
