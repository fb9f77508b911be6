"""W3C OWL 2 test suite, RL profile, positive entailment tests (https://www.w3.org/TR/owl2-conformance/).

Every ``test:PositiveEntailmentTest`` tagged ``test:profile test:RL`` with RDF/XML premise and
conclusion runs through both engines: the premise is materialised and every conclusion triple must
hold in premise ∪ inferred ∪ the virtual triples (reflexive ``owl:sameAs``/subsumption, see
docs/reasoning.md), conclusion blank nodes being existential. Declaration triples of the conclusion
(``x a owl:Class``, ``owl:ObjectProperty``, ``owl:Ontology``...) are checked only if the reference
engine (owlrl) derives them too. Known failures are strict xfails listed with a reason in
``ALLOWED_FAILURES``. The key claim, checked per case by ``test_default_engine_loses_nothing``:
after normalisation, everything owlrl infers the default engine infers too.
"""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import pyoxigraph as ox
import pytest
from support.shared import shared_location, shared_path

from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.settings import ReasoningConfig

sys.path.insert(0, str(Path(__file__).parent))
import owl2_manifest as manifest  # noqa: E402

MANIFEST_PARTS = ("w3c", "owl2", "owl2-test-suite-all.rdf")
MANIFEST = shared_location(*MANIFEST_PARTS)

ENGINES = ("reasonable", "owlrl", "duckdb")
#: the engine a knowledge base uses unless configured otherwise
DEFAULT = ReasoningConfig().engine.value

_NOT_RL = "no OWL 2 RL rule (section 4.3) derives it"
#: test id -> why neither engine entails the conclusion (the same for both engines).
ALLOWED_FAILURES: dict[str, str] = {
    "DisjointClasses-001": (
        f"membership of an anonymous owl:complementOf class; {_NOT_RL} (cls-com only detects clashes)"
    ),
    "DisjointClasses-003": f"membership of an anonymous owl:complementOf class; {_NOT_RL}",
    "New-Feature-ObjectQCR-002": f"membership of an anonymous owl:complementOf class; {_NOT_RL}",
    "New-Feature-DisjointDataProperties-002": (
        f"an owl:AllDifferent conclusion; {_NOT_RL} (prp-pdw/prp-adp only detect clashes)"
    ),
    "New-Feature-DisjointObjectProperties-001": f"owl:differentFrom from disjoint properties; {_NOT_RL}",
    "New-Feature-DisjointObjectProperties-002": f"an owl:AllDifferent conclusion; {_NOT_RL}",
    "WebOnt-differentFrom-001": f"symmetry of owl:differentFrom; {_NOT_RL} (eq-diff1 only detects clashes)",
    "owl2-rl-rules-fp-differentFrom": f"owl:differentFrom via a functional property; {_NOT_RL}",
    "owl2-rl-rules-ifp-differentFrom": f"owl:differentFrom via an inverse-functional property; {_NOT_RL}",
    "New-Feature-ReflexiveProperty-001": "owl:ReflexiveProperty is not in OWL 2 RL",
    "WebOnt-I4.6-005-Direct": "Direct Semantics only: annotations carried across owl:equivalentClass",
    "WebOnt-equivalentClass-008-Direct": "Direct Semantics only: annotations carried across owl:equivalentClass",
    "WebOnt-I5.5-005": "OWL Full comprehension: existence of an anonymous owl:unionOf class",
    "WebOnt-I5.8-006": f"rdfs:range subsumption between XSD datatypes needs datatype reasoning; {_NOT_RL}",
    "WebOnt-I5.8-008": f"rdfs:range subsumption between XSD datatypes needs datatype reasoning; {_NOT_RL}",
    "WebOnt-I5.8-009": f"rdfs:range subsumption between XSD datatypes needs datatype reasoning; {_NOT_RL}",
    "WebOnt-imports-011": "needs the owl:imports target, which is not fetched (no network at run time)",
    "chain2trans1": f"owl:TransitiveProperty from a property chain is a schema entailment; {_NOT_RL}",
}

#: RL cases given only in functional syntax (no RDF/XML premise or conclusion): not run, as nothing here parses it.
NOT_RUNNABLE = frozenset(
    {
        "Disjoint_Props_via_Disjoint_Domains",
        "Disjoint_Props_via_Disjoint_Ranges",
        "New-Feature-ObjectPropertyChain-BJP-002",
    }
)

# Without the suite the lists are empty and test_suite_is_found says what is missing (a failure under CI).
CASES = manifest.rl_positive_entailment_cases(MANIFEST) if MANIFEST.exists() else []
RUNNABLE = [c for c in CASES if c.premise and c.conclusion]


@functools.cache
def _premise(case_id: str) -> tuple[ox.Triple, ...]:
    case = next(c for c in CASES if c.id == case_id)
    return tuple(manifest.parse_rdfxml(case.premise))


@functools.cache
def _conclusion(case_id: str) -> tuple[ox.Triple, ...]:
    case = next(c for c in CASES if c.id == case_id)
    return tuple(manifest.parse_rdfxml(case.conclusion))


@functools.cache
def _inferred(engine: str, case_id: str) -> frozenset[ox.Triple]:
    return frozenset(make_reasoner(ReasoningConfig(engine=engine)).materialize(_premise(case_id)))


def _goal(case_id: str) -> list[ox.Triple]:
    """The conclusion minus the declarations the reference engine does not derive either."""
    reference = set(_premise(case_id)) | _inferred("owlrl", case_id)
    return [
        t for t in _conclusion(case_id) if not manifest.is_declaration(t) or t in reference
    ]


def _passes(engine: str, case_id: str) -> bool:
    closure = set(_premise(case_id)) | _inferred(engine, case_id)
    return manifest.entailed(closure, _goal(case_id))


def _case_params(engines: tuple[str, ...]) -> list[object]:
    params: list[object] = []
    for case in RUNNABLE:
        for engine in engines:
            reason = ALLOWED_FAILURES.get(case.id)
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            params.append(pytest.param(engine, case.id, marks=marks, id=f"{engine}-{case.id}"))
    return params


def test_suite_is_found() -> None:
    shared_path(*MANIFEST_PARTS)
    assert len(CASES) >= 30
    assert len(RUNNABLE) >= 25
    assert {c.id for c in CASES} - {c.id for c in RUNNABLE} == NOT_RUNNABLE
    assert set(ALLOWED_FAILURES) <= {c.id for c in RUNNABLE}, "an allowed failure names a case that does not run"


@pytest.mark.parametrize(("engine", "case_id"), _case_params(ENGINES))
def test_rl_positive_entailment(engine: str, case_id: str) -> None:
    closure = set(_premise(case_id)) | _inferred(engine, case_id)
    goal = _goal(case_id)
    assert manifest.entailed(closure, goal), [str(t) for t in manifest.missing(closure, goal)]


@pytest.mark.parametrize("case_id", [c.id for c in RUNNABLE])
def test_default_engine_loses_nothing(case_id: str) -> None:
    """Every instance-level conclusion owlrl draws, the default engine draws too."""
    reference = {t for t in _inferred("owlrl", case_id) if manifest.is_instance_level(t)}
    default = _inferred(DEFAULT, case_id)
    assert reference <= default, sorted(map(str, reference - default))


@pytest.mark.parametrize("case_id", [c.id for c in RUNNABLE])
def test_default_engine_loses_no_schema_conclusion_either(case_id: str) -> None:
    """Stronger and not required: the whole normalised inferred set of owlrl is included."""
    lost = _inferred("owlrl", case_id) - _inferred(DEFAULT, case_id)
    assert not lost, sorted(map(str, lost))


def test_pass_counts(capsys: pytest.CaptureFixture[str]) -> None:
    """Record passed/total for both engines (shown with ``-s``; also in docs/reasoning.md)."""
    shared_path(*MANIFEST_PARTS)
    counts = {engine: sum(_passes(engine, c.id) for c in RUNNABLE) for engine in ENGINES}
    with capsys.disabled():
        print(
            f"\nOWL 2 RL positive entailment: {len(CASES)} cases, {len(RUNNABLE)} with RDF/XML; "
            + ", ".join(f"{engine} {n}/{len(RUNNABLE)}" for engine, n in counts.items())
        )
    expected = len(RUNNABLE) - len(ALLOWED_FAILURES)
    assert counts == {engine: expected for engine in ENGINES}
