"""The SHACL validators: typed reports, paths, ontology context, engine agreement, factory errors."""

from __future__ import annotations

import pytest
from pyoxigraph import RdfFormat, Triple, parse

from hybridkg.errors import InvalidInput
from hybridkg.semantic.base import Severity, ShapeValidator
from hybridkg.semantic.settings import ValidationConfig, ValidatorEngine
from hybridkg.semantic.validation.factory import make_validator
from hybridkg.server.config import load_settings


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
