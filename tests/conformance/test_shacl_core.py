"""W3C SHACL Core test suite (https://w3c.github.io/data-shapes/data-shapes-test-suite/).

Every ``sht:Validate`` entry under ``tests/core`` runs through the ``auto`` validator; its report must
match the expected one: the same ``sh:conforms`` and the same multiset of results as
(focus, path, value, constraint, severity, source shape), with blank nodes compared as ``bnode``.
Known failures are listed in ``ALLOWED_FAILURES`` with a reason and are strict xfails.

``auto`` must also equal pySHACL on every entry, exactly: the same ``sh:conforms`` and the same
multiset of results with blank node labels kept, or both raise.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
import rdflib
from pyoxigraph import RdfFormat, Triple, parse
from rdflib.collection import Collection
from rdflib.namespace import RDF, SH
from support.shared import shared_location, shared_path

from hybridkg.errors import InvalidInput
from hybridkg.semantic.base import ValidationReport
from hybridkg.semantic.settings import ValidationConfig
from hybridkg.semantic.validation.factory import make_validator
from hybridkg.semantic.validation.report import render_path, render_term

SUITE_PARTS = ("w3c", "shacl", "data-shapes-test-suite", "tests", "core")
SUITE = shared_location(*SUITE_PARTS)

MF = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
SHT = rdflib.Namespace("http://www.w3.org/ns/shacl-test#")
MINIMUM_PASSING = 95

#: test name -> why the ``auto`` validator's report does not match the expected one.
ALLOWED_FAILURES: dict[str, str] = {}

Key = tuple[str, str | None, str | None, str, str, str | None]


@dataclass(frozen=True)
class Case:
    name: str
    data: Path
    shapes: Path
    conforms: bool
    results: Counter[Key]


def _bnode(term: str | None) -> str | None:
    return "bnode" if term is not None and term.startswith("_:") else term


def _key(focus: str, path: str | None, value: str | None, constraint: str, severity: str,
         shape: str | None) -> Key:
    return (_bnode(focus) or "", path, _bnode(value), constraint, severity, _bnode(shape))


def _expected(graph: rdflib.Graph, report: rdflib.term.Node) -> Counter[Key]:
    from hybridkg.semantic.validation.report import _SEVERITIES

    keys: Counter[Key] = Counter()
    for r in graph.objects(report, SH.result):
        def term(p: rdflib.URIRef, r: rdflib.term.Node = r) -> str | None:
            node = graph.value(r, p)
            return render_term(node) if node is not None else None

        path = graph.value(r, SH.resultPath)
        severity = graph.value(r, SH.resultSeverity)
        keys[_key(
            term(SH.focusNode) or "",
            render_path(graph, path) if path is not None else None,
            term(SH.value),
            str(graph.value(r, SH.sourceConstraintComponent)),
            str(_SEVERITIES.get(severity, "Violation")),  # type: ignore[call-overload]
            term(SH.sourceShape),
        )] += 1
    return keys


def _actual(report: ValidationReport) -> Counter[Key]:
    return Counter(
        _key(r.focus, r.path, r.value, r.constraint, str(r.severity), r.source_shape) for r in report.results
    )


def _parse_lexically(manifest: Path) -> rdflib.Graph:
    """Parse keeping literal lexical forms (``"1"^^xsd:boolean`` stays ``"1"``), as the data graph does."""
    saved = rdflib.NORMALIZE_LITERALS
    rdflib.NORMALIZE_LITERALS = False
    try:
        return rdflib.Graph().parse(manifest, format="turtle", publicID=manifest.as_uri())
    finally:
        rdflib.NORMALIZE_LITERALS = saved


def _manifest_entries(manifest: Path) -> list[Case]:
    graph = _parse_lexically(manifest)
    cases: list[Case] = []
    for _, included in sorted(graph.subject_objects(MF.include)):
        cases += _manifest_entries(Path(str(included).removeprefix("file://")))
    for entries in graph.objects(None, MF.entries):
        for entry in Collection(graph, entries):  # type: ignore[arg-type]
            if (entry, RDF.type, SHT.Validate) not in graph:
                continue
            action = graph.value(entry, MF.action)
            result = graph.value(entry, MF.result)
            conforms = graph.value(result, SH.conforms)
            if not isinstance(conforms, rdflib.Literal):  # an expected failure (sht:Failure), not a report
                continue
            cases.append(Case(
                name=str(Path(str(entry).removeprefix("file://")).relative_to(SUITE)),
                data=Path(str(graph.value(action, SHT.dataGraph)).removeprefix("file://")),
                shapes=Path(str(graph.value(action, SHT.shapesGraph)).removeprefix("file://")),
                conforms=bool(conforms.toPython()),
                results=_expected(graph, result),  # type: ignore[arg-type]
            ))
    return cases


def _triples(path: Path) -> list[Triple]:
    return [
        Triple(q.subject, q.predicate, q.object)
        for q in parse(path=str(path), format=RdfFormat.TURTLE, base_iri=path.as_uri())
    ]


def run_case(case: Case, engine: str) -> str | None:
    """None if ``engine`` reproduces the expected report, else what differs."""
    try:
        report = make_validator(ValidationConfig(engine=engine)).validate(_triples(case.data), _triples(case.shapes))
    except Exception as e:  # noqa: BLE001 - a crash is a failed case, reported as such
        return f"raised {type(e).__name__}: {e}"
    actual = _actual(report)
    if report.conforms != case.conforms:
        return f"conforms {report.conforms}, expected {case.conforms}"
    if actual != case.results:
        return f"missing {dict(case.results - actual)}; unexpected {dict(actual - case.results)}"
    return None


# Without the suite the list is empty and test_suite_summary says what is missing (a failure under CI).
CASES = _manifest_entries(SUITE / "manifest.ttl") if SUITE.exists() else []
_OUTCOMES: dict[str, bool] = {}


def _param(case: Case) -> object:
    reason = ALLOWED_FAILURES.get(case.name)
    marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.slow
@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_core(case: Case) -> None:
    problem = run_case(case, "auto")
    _OUTCOMES[case.name] = problem is None
    assert problem is None, problem


def _report_key(case: Case, engine: str) -> object:
    try:
        report = make_validator(ValidationConfig(engine=engine)).validate(_triples(case.data), _triples(case.shapes))
    except InvalidInput as e:
        return InvalidInput, str(e)
    return report.conforms, Counter(
        (r.focus, r.path, r.value, r.constraint, str(r.severity), r.source_shape) for r in report.results
    )


@pytest.mark.slow
@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES])
def test_auto_equals_pyshacl(case: Case) -> None:
    assert _report_key(case, "auto") == _report_key(case, "pyshacl")


@pytest.mark.slow
def test_suite_summary() -> None:
    """Runs last in this module: how many core tests each engine passes (auto must pass >= 95)."""
    shared_path(*SUITE_PARTS)
    assert len(CASES) == 98, f"expected the 98 W3C SHACL Core tests, found {len(CASES)}"
    counts = {"auto": sum(_OUTCOMES.values()) if len(_OUTCOMES) == len(CASES) else None}
    for engine in ("pyshacl", "turbo"):
        counts[engine] = sum(run_case(c, engine) is None for c in CASES)
    if counts["auto"] is None:
        counts["auto"] = sum(run_case(c, "auto") is None for c in CASES)
    print("\nW3C SHACL Core: " + ", ".join(f"{e} {n}/{len(CASES)}" for e, n in counts.items()))
    assert counts["auto"] >= MINIMUM_PASSING
