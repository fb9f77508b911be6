"""The SHACL validators: typed reports, paths, ontology context, engine agreement, the ``auto`` routing,
factory errors, and user errors surfacing as InvalidInput (CLI exit 2)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import rdflib
from pyoxigraph import BlankNode, NamedNode, RdfFormat, Triple, parse

from hybridkg.errors import InvalidInput
from hybridkg.semantic.base import Severity, ShapeValidator, ValidationReport
from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.settings import ReasoningConfig, ValidationConfig, ValidatorEngine
from hybridkg.semantic.validation.auto_validator import AutoValidator
from hybridkg.semantic.validation.factory import make_validator
from hybridkg.semantic.validation.report import report_from_graph
from hybridkg.semantic.validation.routing import route
from hybridkg.server.config import load_settings

ONTOLOGY_DIR = Path(__file__).resolve().parents[3] / "ontology"


def _validator(engine: str = "pyshacl") -> ShapeValidator:
    return make_validator(ValidationConfig(engine=ValidatorEngine(engine)))

PREFIXES = """@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://x/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
"""
SH = "http://www.w3.org/ns/shacl#"
ENGINES = [e.value for e in ValidatorEngine]


def ttl(text: str) -> list[Triple]:
    return [Triple(q.subject, q.predicate, q.object) for q in parse((PREFIXES + text).encode(), RdfFormat.TURTLE)]


@pytest.fixture(params=ENGINES)
def validator(request: pytest.FixtureRequest) -> ShapeValidator:
    return make_validator(ValidationConfig(engine=request.param))


def test_violation_report_fields(validator: ShapeValidator) -> None:
    shapes = ttl("""ex:PersonShape a sh:NodeShape ; sh:targetClass ex:Person ;
        sh:property [ sh:path ex:age ; sh:datatype xsd:integer ; sh:message "age must be an integer" ] .""")
    report = validator.validate(ttl('ex:bob a ex:Person ; ex:age "old" .'), shapes)
    assert not report.conforms
    (result,) = report.results
    assert result.focus == "<http://x/bob>"
    assert result.path == "<http://x/age>"
    assert result.constraint == SH + "DatatypeConstraintComponent"
    assert result.value == '"old"'
    assert result.severity is Severity.VIOLATION
    assert result.message == "age must be an integer"
    assert report.violations == report.results


def test_missing_value_has_no_value_and_a_generated_message(validator: ShapeValidator) -> None:
    shapes = ttl("ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path ex:name ; sh:minCount 1 ] .")
    (result,) = validator.validate(ttl("ex:a ex:other 1 ."), shapes).results
    assert result.constraint == SH + "MinCountConstraintComponent"
    assert result.value is None
    assert result.message


def test_warnings_do_not_make_a_violation(validator: ShapeValidator) -> None:
    shapes = ttl("""ex:S a sh:NodeShape ; sh:targetNode ex:a ;
        sh:property [ sh:path ex:email ; sh:pattern "@" ; sh:severity sh:Warning ] .""")
    report = validator.validate(ttl('ex:a ex:email "nobody" .'), shapes)
    (result,) = report.results
    assert result.severity is Severity.WARNING
    assert report.violations == ()
    assert result.to_json()["severity"] == "Warning"


def test_node_shape_result_has_no_path_and_blank_focus_keeps_its_label(validator: ShapeValidator) -> None:
    shapes = ttl("ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:nodeKind sh:IRI .")
    (result,) = validator.validate(ttl("_:b1 a ex:C ."), shapes).results
    assert result.path is None
    assert result.focus == "_:b1"
    assert result.value == "_:b1"


@pytest.mark.parametrize(
    ("path", "rendered"),
    [
        ("[ sh:inversePath ex:p ]", "^<http://x/p>"),
        ("( ex:a ex:b )", "<http://x/a>/<http://x/b>"),
        ("[ sh:alternativePath ( ex:a ex:b ) ]", "<http://x/a>|<http://x/b>"),
        ("[ sh:zeroOrMorePath ex:p ]", "<http://x/p>*"),
        ("[ sh:oneOrMorePath ex:p ]", "<http://x/p>+"),
        ("[ sh:zeroOrOnePath ex:p ]", "<http://x/p>?"),
        ("( ex:a [ sh:alternativePath ( ex:b ex:c ) ] )", "<http://x/a>/(<http://x/b>|<http://x/c>)"),
        ("[ sh:oneOrMorePath [ sh:inversePath ex:p ] ]", "(^<http://x/p>)+"),
        ("[ sh:inversePath [ sh:zeroOrMorePath ex:p ] ]", "^<http://x/p>*"),
        ("( [ sh:inversePath ex:a ] [ sh:zeroOrOnePath ( ex:b ex:c ) ] )", "^<http://x/a>/(<http://x/b>/<http://x/c>)?"),
    ],
)
def test_complex_paths_render_as_sparql(path: str, rendered: str) -> None:
    shapes = ttl(f"ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path {path} ; sh:hasValue ex:none ] .")
    (result,) = _validator("auto").validate(ttl("ex:a ex:z 1 ."), shapes).results
    assert result.path == rendered


def test_class_is_satisfied_through_a_subclass_in_the_ontology(validator: ShapeValidator) -> None:
    shapes = ttl("ex:S a sh:NodeShape ; sh:targetNode ex:rex ; sh:class ex:Animal .")
    data = ttl("ex:rex a ex:Dog .")
    ontology = ttl("ex:Dog rdfs:subClassOf ex:Animal .")
    assert not validator.validate(data, shapes).conforms
    assert validator.validate(data, shapes, ontology).conforms


def test_target_class_reaches_instances_of_ontology_subclasses(validator: ShapeValidator) -> None:
    shapes = ttl("ex:S a sh:NodeShape ; sh:targetClass ex:Animal ; sh:property [ sh:path ex:name ; sh:minCount 1 ] .")
    report = validator.validate(ttl("ex:rex a ex:Dog ."), shapes, ttl("ex:Dog rdfs:subClassOf ex:Animal ."))
    assert [r.focus for r in report.results] == ["<http://x/rex>"]


AGREEMENT_SHAPES = [
    "ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:property [ sh:path ex:p ; sh:maxCount 1 ; sh:minInclusive 2 ] .",
    "ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:or ( [ sh:datatype xsd:string ] [ sh:nodeKind sh:IRI ] ) .",
    "ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:property [ sh:path ex:p ; sh:in ( 1 2 ) ] ; sh:closed true ;"
    " sh:ignoredProperties ( <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> ) .",
    "ex:S a sh:NodeShape ; sh:targetSubjectsOf ex:p ; sh:property [ sh:path ( ex:p ex:q ) ; sh:minCount 1 ] .",
]


@pytest.mark.parametrize("shapes", AGREEMENT_SHAPES)
def test_turbo_agrees_with_pyshacl(shapes: str) -> None:
    data = ttl('ex:a a ex:C ; ex:p 1, 3 . ex:b a ex:C ; ex:p "01"^^xsd:integer ; ex:r 5 . ex:c a ex:C ; ex:p ex:b .')
    reference = _validator("pyshacl").validate(data, ttl(shapes))
    turbo = _validator("turbo").validate(data, ttl(shapes))
    assert turbo.conforms == reference.conforms

    def key(report: object) -> list[tuple[object, ...]]:
        return sorted((r.focus, r.path, r.constraint, r.value, r.severity) for r in report.results)  # type: ignore[attr-defined]

    assert key(turbo) == key(reference)


def test_non_canonical_literals_are_validated_as_written() -> None:
    shapes = ttl('ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:pattern "^0" ] .')
    for engine in ENGINES:
        assert _validator(engine).validate(ttl('ex:a ex:p "01"^^xsd:integer .'), shapes).conforms, engine


def test_auto_reports_which_engine_ran() -> None:
    shapes = ttl("ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:nodeKind sh:IRI .")
    assert _validator("auto").validate(ttl("ex:a ex:p 1 ."), shapes).engine == "auto:turbo"


def key(report: ValidationReport) -> tuple[bool, Counter[tuple[object, ...]]]:
    """What two engines must agree on: conforms and the multiset of results (with their source shapes)."""
    return report.conforms, Counter(
        (r.focus, r.path, r.constraint, r.value, r.severity, r.source_shape) for r in report.results
    )


MIXED = ttl('ex:a a ex:C ; ex:age 5, "2020-01-01"^^xsd:date ; ex:name "A" . ex:b a ex:C ; ex:age -1 .')
AGE_RANGE = "ex:Ages a sh:NodeShape ; sh:targetClass ex:C ; sh:property [ sh:path ex:age ; sh:maxInclusive 150 ] ."
NAMED = "ex:Names a sh:NodeShape ; sh:targetClass ex:C ; sh:property [ sh:path ex:name ; sh:minCount 1 ] ."


def test_auto_sends_a_comparison_over_mixed_kinds_to_pyshacl_and_logs_it(caplog: pytest.LogCaptureFixture) -> None:
    """turbo fails a date <= 150 (SPARQL: incomparable), pySHACL passes it: auto must give pySHACL's answer."""
    shapes = ttl(AGE_RANGE + NAMED)
    with caplog.at_level(logging.INFO, logger="hybridkg.semantic.validation.auto_validator"):
        report = _validator("auto").validate(MIXED, shapes)
    assert report.engine == "auto:turbo+pyshacl"
    assert key(report) == key(_validator("pyshacl").validate(MIXED, shapes))
    assert key(report) != key(_validator("turbo").validate(MIXED, shapes))
    (record,) = caplog.records
    assert record.levelno == logging.INFO
    assert "<http://x/Ages>" in record.getMessage()
    assert "sh:maxInclusive" in record.getMessage()
    assert '"2020-01-01"' in record.getMessage()
    assert "<http://x/Names>" not in record.getMessage()


def test_auto_keeps_a_comparison_over_one_kind_on_turbo(caplog: pytest.LogCaptureFixture) -> None:
    data = ttl('ex:a a ex:C ; ex:age 5, 7.5 ; ex:name "A" . ex:b a ex:C ; ex:age 200 .')
    with caplog.at_level(logging.INFO):
        report = _validator("auto").validate(data, ttl(AGE_RANGE + NAMED))
    assert report.engine == "auto:turbo"
    assert [(r.focus, r.value) for r in report.results if r.constraint == SH + "MaxInclusiveConstraintComponent"] == [
        ("<http://x/b>", '"200"^^<http://www.w3.org/2001/XMLSchema#integer>')
    ]
    assert not caplog.records


def test_auto_routes_an_unreliable_parameter_to_pyshacl(caplog: pytest.LogCaptureFixture) -> None:
    validator = AutoValidator(unreliable=frozenset({NamedNode(SH + "nodeKind")}))
    shapes = ttl(NAMED + "ex:Iris a sh:NodeShape ; sh:targetClass ex:C ; sh:nodeKind sh:BlankNode .")
    with caplog.at_level(logging.INFO):
        report = validator.validate(MIXED, shapes)
    assert report.engine == "auto:turbo+pyshacl"
    assert key(report) == key(_validator("pyshacl").validate(MIXED, shapes))
    assert [r.getMessage() for r in caplog.records] == ["auto: pySHACL validates <http://x/Iris>: uses sh:nodeKind"]


@pytest.mark.parametrize(
    "reference",
    [
        "sh:node ex:Ages",
        "sh:property [ sh:path ex:self ; sh:node ex:Ages ]",
        "sh:property [ sh:path ex:self ; sh:qualifiedValueShape ex:Ages ; sh:qualifiedMinCount 1 ]",
        "sh:not ex:Ages",
        "sh:and ( ex:Ages [ sh:nodeKind sh:IRI ] )",
        "sh:or ( [ sh:nodeKind sh:Literal ] ex:Ages )",
        "sh:xone ( ex:Ages [ sh:nodeKind sh:Literal ] )",
    ],
)
def test_a_shape_and_the_shapes_it_references_go_to_one_engine(reference: str) -> None:
    """ex:Uses references ex:Ages (routed to pySHACL): both go to pySHACL; ex:Ages' own results are not doubled."""
    shapes = ttl(f"{AGE_RANGE} {NAMED} ex:Uses a sh:NodeShape ; sh:targetClass ex:C ; {reference} .")
    data = MIXED + ttl("ex:a ex:self ex:a . ex:b ex:self ex:b .")
    routing = route(shapes, data)
    to_pyshacl = {t.subject for t in routing.pyshacl}
    assert {NamedNode("http://x/Ages"), NamedNode("http://x/Uses")} <= to_pyshacl
    assert NamedNode("http://x/Names") not in to_pyshacl
    assert not to_pyshacl & {t.subject for t in routing.turbo}
    report = _validator("auto").validate(data, shapes)
    assert report.engine == "auto:turbo+pyshacl"
    assert key(report) == key(_validator("pyshacl").validate(data, shapes))


def test_a_property_shape_shared_by_two_shapes_joins_them() -> None:
    shapes = ttl("""ex:A a sh:NodeShape ; sh:targetClass ex:C ; sh:property ex:AgeProp .
        ex:B a sh:NodeShape ; sh:targetNode ex:b ; sh:property ex:AgeProp ; sh:nodeKind sh:IRI .
        ex:AgeProp sh:path ex:age ; sh:maxInclusive 3 .""")
    routing = route(shapes, MIXED)
    assert not routing.turbo
    assert len(routing.reasons) == 1
    assert key(_validator("auto").validate(MIXED, shapes)) == key(_validator("pyshacl").validate(MIXED, shapes))


def test_shacl_sparql_sends_the_whole_shapes_graph_to_pyshacl(caplog: pytest.LogCaptureFixture) -> None:
    shapes = ttl(NAMED + """ex:S a sh:NodeShape ; sh:targetClass ex:C ;
        sh:sparql [ sh:select "SELECT $this WHERE { $this <http://x/age> ?v . FILTER(isLiteral(?v) && ?v < 0) }" ] .""")
    with caplog.at_level(logging.INFO):
        report = _validator("auto").validate(MIXED, shapes)
    assert report.engine == "auto:pyshacl"
    assert key(report) == key(_validator("pyshacl").validate(MIXED, shapes))
    assert "SHACL-SPARQL" in caplog.text


def test_auto_falls_back_to_pyshacl_when_turbo_raises_and_logs_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    """turbo rejects sh:datatype "x"; pySHACL (the reference) validates it, so auto gives pySHACL's report."""
    shapes = ttl('ex:S a sh:NodeShape ; sh:targetClass ex:C ; sh:property [ sh:path ex:age ; sh:datatype "x" ] .')
    with caplog.at_level(logging.INFO):
        report = _validator("auto").validate(MIXED, shapes)
    assert report.engine == "auto:pyshacl"
    assert key(report) == key(_validator("pyshacl").validate(MIXED, shapes))
    (record,) = caplog.records
    assert record.levelno == logging.WARNING
    assert "sh:datatype requires an IRI" in record.getMessage()


XSD = "http://www.w3.org/2001/XMLSchema#"
KINDS = {
    "integer": "5", "decimal": "5.5", "double": "5e0", "NaN": '"NaN"^^xsd:double', "float": '"5"^^xsd:float',
    "date": '"2020-01-01"^^xsd:date', "dateTimeZ": '"2020-01-01T00:00:00Z"^^xsd:dateTime',
    "dateTime": '"2020-01-01T00:00:00"^^xsd:dateTime', "string": '"m"', "langString": '"m"@en', "boolean": "true",
    "ill-typed": '"x"^^xsd:integer', "IRI": "ex:o", "blank": "[]", "gYear": '"2020"^^xsd:gYear',
}
BOUND_KINDS = ["integer", "decimal", "double", "date", "dateTimeZ", "dateTime", "string"]


@pytest.mark.parametrize("bound", BOUND_KINDS)
@pytest.mark.parametrize("value", list(KINDS))
def test_auto_equals_pyshacl_on_order_comparisons_of_every_kind(bound: str, value: str) -> None:
    """The pairs bench/shacl_turbo_audit.py found turbo and pySHACL ordering differently, and the ones they agree on."""
    data = ttl(f"ex:a ex:p {KINDS[value]} ; ex:q {KINDS[bound]} .")
    for constraint in (f"sh:minInclusive {KINDS[bound]}", f"sh:maxExclusive {KINDS[bound]}", "sh:lessThan ex:q"):
        shapes = ttl(f"ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:p ; {constraint} ] .")
        try:
            expected: object = key(_validator("pyshacl").validate(data, shapes))
        except InvalidInput:
            expected = InvalidInput
        try:
            got: object = key(_validator("auto").validate(data, shapes))
        except InvalidInput:
            got = InvalidInput
        assert got == expected, constraint


@pytest.mark.parametrize(
    ("bound", "value"),
    [
        ("5", "5.0"),
        ("-0.0", "0"),
        ('"2002-10-10T12:00:00-05:00"^^xsd:dateTime', '"2002-10-10T17:00:00Z"^^xsd:dateTime'),
        ('"2002-10-10T12:00:00"^^xsd:dateTime', '"2002-10-10T12:00:00.000001"^^xsd:dateTime'),
        ('"\\u00e9"', '"z"'),
    ],
)
def test_comparisons_within_one_kind_stay_on_turbo_and_agree(bound: str, value: str) -> None:
    for b, v in ((bound, value), (value, bound)):
        data = ttl(f"ex:a ex:p {v} ; ex:q {b} .")
        for constraint in (f"sh:minExclusive {b}", f"sh:maxInclusive {b}", "sh:lessThanOrEquals ex:q"):
            shapes = ttl(f"ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:p ; {constraint} ] .")
            report = _validator("auto").validate(data, shapes)
            assert report.engine == "auto:turbo", constraint
            assert key(report) == key(_validator("pyshacl").validate(data, shapes)), constraint


@pytest.mark.parametrize("example", [None, "bad-prescription.ttl", "new-patient.ttl", "crm"])
def test_auto_equals_pyshacl_on_the_demo_shapes(example: str | None) -> None:
    domain = ONTOLOGY_DIR / ("crm" if example == "crm" else "clinical")
    data = {*_file(domain / "ontology.ttl"), *_file(domain / "data.ttl")}
    if example and example != "crm":
        data.update(_file(domain / "examples" / example))
    data |= make_reasoner(ReasoningConfig()).materialize(data)
    shapes = _file(domain / "shapes.ttl")
    report = _validator("auto").validate(data, shapes)
    assert report.engine == "auto:turbo"
    assert key(report) == key(_validator("pyshacl").validate(data, shapes))
    assert report.conforms == (example in (None, "new-patient.ttl"))


def _file(path: Path) -> list[Triple]:
    return [q.triple for q in parse(path=str(path), format=RdfFormat.TURTLE)]


def test_default_validator_is_auto() -> None:
    assert make_validator(ValidationConfig()).name == "auto"


def test_unknown_validator_lists_accepted_names() -> None:
    with pytest.raises(InvalidInput, match="validation.engine.*'auto', 'pyshacl' or 'turbo'"):
        load_settings(environ={"HYBRIDKG_VALIDATION__ENGINE": "jena"})


@pytest.mark.parametrize(
    ("shapes", "message"),
    [
        ('ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:minCount "x" ] .',
         "sh:minCount must be a literal with datatype xsd:integer"),
        ('ex:S a sh:PropertyShape ; sh:targetNode ex:a ; sh:path "p" ; sh:minCount 1 .',
         "property path cannot be a Literal"),
    ],
)
def test_malformed_shapes_raise_invalid_input_with_pyshacl_message(shapes: str, message: str) -> None:
    for engine in ("auto", "pyshacl"):
        with pytest.raises(InvalidInput, match=message):
            _validator(engine).validate(ttl("ex:a ex:p 1 ."), ttl(shapes))
    with pytest.raises(InvalidInput):
        _validator("turbo").validate(ttl("ex:a ex:p 1 ."), ttl(shapes))


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("_:l rdf:first ex:p ; rdf:rest _:l", "recursive rdf:rest"),
        ("_:l ex:notAPath ex:p", "not a SHACL property path"),
    ],
)
def test_an_unreadable_report_raises_invalid_input(path: str, message: str) -> None:
    """report.py raised ValueError here; an engine report copies paths and lists from the caller's shapes."""
    graph = rdflib.Graph().parse(data=PREFIXES + f"""@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
        [] a sh:ValidationReport ; sh:conforms false ; sh:result [ sh:focusNode ex:a ; sh:resultPath _:l ;
           sh:sourceConstraintComponent sh:MinCountConstraintComponent ; sh:resultSeverity sh:Violation ] .
        {path} .""", format="turtle")
    with pytest.raises(InvalidInput, match=message):
        report_from_graph(graph, "pyshacl")


CYCLIC_PATH = "ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path _:l ; sh:minCount 3 ] . " \
    "_:l rdf:first ex:p ; rdf:rest _:l ."


@pytest.mark.parametrize("engine", ENGINES)
def test_user_errors_raise_invalid_input_not_bare_errors(engine: str) -> None:
    """pySHACL raises ValueError on a cyclic list and decimal.InvalidOperation on NaN against a decimal bound;
    converting data holding an RDF 1.2 triple term raised TypeError. Each is the caller's input: InvalidInput."""
    prefixes = "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> ."
    with pytest.raises(InvalidInput, match="recursive rdf:rest|Cyclic RDF list"):
        _validator(engine).validate(ttl("ex:a ex:p 1 ."), ttl(prefixes + CYCLIC_PATH))
    star = [Triple(NamedNode("http://x/a"), NamedNode("http://x/says"),
                   Triple(NamedNode("http://x/a"), NamedNode("http://x/p"), BlankNode("b")))]
    with pytest.raises(InvalidInput, match="triple term"):
        _validator(engine).validate(star, ttl("ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:nodeKind sh:IRI ."))
    if engine != "turbo":  # turbo reports NaN as out of range instead of raising
        shapes = ttl("ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:maxExclusive 2.5 ] .")
        with pytest.raises(InvalidInput, match="InvalidOperation"):
            _validator(engine).validate(ttl('ex:a ex:p "NaN"^^xsd:double .'), shapes)


@pytest.mark.parametrize("engine", ["auto", "pyshacl"])
def test_cli_validate_exits_2_with_a_message_on_a_shapes_graph_pyshacl_cannot_read(tmp_path: Path, engine: str) -> None:
    (tmp_path / "shapes.ttl").write_text(
        PREFIXES + "@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .\n" + CYCLIC_PATH
    )
    (tmp_path / "data.ttl").write_text(PREFIXES + "ex:a ex:p 1 .")
    exe = Path(sys.executable).with_name("hybridkg")
    proc = subprocess.run(
        [str(exe), "validate", "--shapes", str(tmp_path / "shapes.ttl"), str(tmp_path / "data.ttl")],
        capture_output=True, text=True, timeout=300, env={**os.environ, "HYBRIDKG_VALIDATION__ENGINE": engine},
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.splitlines()[-1] == (
        "error: pySHACL failed on these shapes and data: ValueError: List contains a recursive rdf:rest reference"
    )
    assert "Traceback" not in proc.stderr
