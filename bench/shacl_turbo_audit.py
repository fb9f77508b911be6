"""Where pyshacl-turbo disagrees with pySHACL, and whether ``auto`` still agrees with pySHACL.

Runs turbo, pySHACL and ``auto`` on the same inputs and compares each report with pySHACL's: the
``sh:conforms`` flag and the multiset of results (focus, path, component, value, severity, source
shape), or whether the engine raised. Corpora: the W3C SHACL Core suite (every ``sht:Validate``
test), the W3C SHACL-SPARQL suite (outside the Core contract, for information), the demo shapes with
their ontology, data and examples (as written and with their OWL 2 RL closure, as the gate sees
them), and probes: order comparisons between every pair of value kinds, features the suite tests
once, and malformed shapes. Prints each disagreement and the constraint components or shape features
involved; exits 1 if ``auto`` disagrees with pySHACL anywhere. Findings: ``docs/shacl.md``.

    python -m bench.shacl_turbo_audit [--corpus core sparql demo probes]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import rdflib
from pyoxigraph import RdfFormat, Triple, parse
from rdflib.collection import Collection
from rdflib.namespace import RDF

from bench.common import REPO, shared
from hybridkg.semantic.base import ShapeValidator, ValidationReport
from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.settings import ReasoningConfig, ValidationConfig, ValidatorEngine
from hybridkg.semantic.validation.factory import make_validator

SH = "http://www.w3.org/ns/shacl#"
MF = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
SHT = rdflib.Namespace("http://www.w3.org/ns/shacl-test#")
PREFIXES = """@prefix sh: <http://www.w3.org/ns/shacl#> . @prefix ex: <http://x/> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> . @prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
"""
#: SHACL terms that say nothing about which feature is involved (the W3C files hold their expected reports).
UNINFORMATIVE = {
    "path", "property", "targetClass", "targetNode", "targetSubjectsOf", "targetObjectsOf", "conforms", "result",
    "focusNode", "resultPath", "resultSeverity", "value", "resultMessage", "sourceConstraint",
    "sourceConstraintComponent", "sourceShape",
}


@dataclass
class Case:
    corpus: str
    name: str
    data: list[Triple]
    shapes: list[Triple]


@dataclass(frozen=True)
class Outcome:
    """A report reduced to what the engines must agree on, or the error an engine raised."""

    conforms: bool | None = None
    results: Counter[tuple[str | None, ...]] = field(default_factory=Counter)
    error: str | None = None
    engine: str = ""


def triples(text: str | None = None, path: Path | None = None) -> list[Triple]:
    if path is not None:
        return [q.triple for q in parse(path=str(path), format=RdfFormat.TURTLE, base_iri=path.as_uri())]
    return [q.triple for q in parse((PREFIXES + (text or "")).encode(), format=RdfFormat.TURTLE)]


def run(validator: ShapeValidator, case: Case) -> Outcome:
    try:
        report: ValidationReport = validator.validate(case.data, case.shapes)
    except Exception as e:  # noqa: BLE001 - an engine raising is an outcome to compare
        return Outcome(error=f"{type(e).__name__}: {str(e).splitlines()[0][:120]}")
    return Outcome(report.conforms, Counter(
        (r.focus, r.path, r.constraint, r.value, str(r.severity), r.source_shape) for r in report.results
    ), engine=report.engine)


def difference(engine: str, got: Outcome, reference: Outcome) -> tuple[str, set[str]] | None:
    """How ``got`` differs from pySHACL's ``reference`` and the components in the differing results."""
    if got.error or reference.error:
        if got.error and reference.error:
            return None
        return (f"{engine} raised {got.error}" if got.error else f"pySHACL raised {reference.error}"), set()
    extra, missing = got.results - reference.results, reference.results - got.results
    if got.conforms == reference.conforms and not extra and not missing:
        return None
    components = {str(k[2]).removeprefix(SH) for k in (extra + missing)}
    detail = [f"conforms {got.conforms}, pySHACL {reference.conforms}"] if got.conforms != reference.conforms else []
    for who, only in ((engine, extra), ("pySHACL", missing)):
        if only:
            values = ", ".join(sorted({str(k[3]) for k in only})[:2])
            detail.append(f"only {who} reports {sum(only.values())} result(s) (value {values})")
    return "; ".join(detail), components


def features(shapes: list[Triple]) -> set[str]:
    return {
        name for t in shapes if (name := t.predicate.value.removeprefix(SH)) != t.predicate.value
        and name not in UNINFORMATIVE
    }


def w3c(corpus: str, manifest: Path, root: Path) -> Iterator[Case]:
    graph = rdflib.Graph().parse(manifest, format="turtle", publicID=manifest.as_uri())
    for included in sorted(graph.objects(None, MF.include)):
        yield from w3c(corpus, Path(str(included).removeprefix("file://")), root)
    for entries in graph.objects(None, MF.entries):
        for entry in Collection(graph, entries):  # type: ignore[arg-type]
            if (entry, RDF.type, SHT.Validate) not in graph:
                continue
            action = graph.value(entry, MF.action)
            data, shapes = (Path(str(graph.value(action, p)).removeprefix("file://"))
                            for p in (SHT.dataGraph, SHT.shapesGraph))
            name = str(Path(str(entry).removeprefix("file://")).relative_to(root))
            yield Case(corpus, name, triples(path=data), triples(path=shapes))


def demo() -> Iterator[Case]:
    reasoner = make_reasoner(ReasoningConfig())
    for domain in ("clinical", "crm"):
        base = REPO / "ontology" / domain
        examples = sorted((base / "examples").glob("*.ttl")) if (base / "examples").exists() else []
        shapes = triples(path=base / "shapes.ttl")
        for extra in (None, *examples):
            data = {*triples(path=base / "ontology.ttl"), *triples(path=base / "data.ttl")}
            data |= set(triples(path=extra)) if extra else set()
            name = f"{domain}/data" + (f"+{extra.name}" if extra else "")
            yield Case("demo", name, sorted(data, key=str), shapes)
            yield Case("demo", name + " (closure)", sorted(data | reasoner.materialize(data), key=str), shapes)


VALUES = {
    "integer": "5", "decimal": "5.5", "double": "5e0", "NaN": '"NaN"^^xsd:double', "INF": '"INF"^^xsd:double',
    "float": '"5"^^xsd:float', "date": '"2020-01-01"^^xsd:date', "dateTimeZ": '"2020-01-01T00:00:00Z"^^xsd:dateTime',
    "dateTime": '"2020-01-01T00:00:00"^^xsd:dateTime', "string": '"m"', "langString": '"m"@en', "boolean": "true",
    "ill-typed": '"x"^^xsd:integer', "IRI": "ex:o", "blank": "[]", "gYear": '"2020"^^xsd:gYear',
    "duration": '"P1D"^^xsd:duration', "custom": '"x"^^ex:dt',
}
#: Operands of one kind at or near the bound (equal instants in two timezones, 5 and 5.0, code point order).
SAME_KIND = [
    ("5", "5.0"), ("5", '"5.000000000000000001"^^xsd:decimal'), ("-0.0", "0"),
    ('"1e0"^^xsd:double', '"1.0e0"^^xsd:double'),
    ('"-0e0"^^xsd:double', '"0e0"^^xsd:double'), ('"2002-10-10"^^xsd:date', '"2002-10-11"^^xsd:date'),
    ('"2002-10-10T12:00:00-05:00"^^xsd:dateTime', '"2002-10-10T17:00:00Z"^^xsd:dateTime'),
    ('"2002-10-10T12:00:00"^^xsd:dateTime', '"2002-10-10T12:00:00.000001"^^xsd:dateTime'),
    ('"a"', '"A"'), ('"\u00e9"', '"z"'), ('"\U0001F600"', '"\uFFFF"'), ('""', '"a"'),
]
BOUNDS = {k: VALUES[k] for k in ("integer", "decimal", "double", "date", "dateTimeZ", "dateTime", "string")}
FEATURE_DATA = """ex:a a ex:C ; ex:p 1, "2"^^xsd:decimal, "x", "y"@en, ex:b, _:n1, "2020-01-01"^^xsd:date ;
  ex:q 1, "01"^^xsd:integer, "1.0"^^xsd:decimal, "a"@en ; ex:r ex:a .
ex:b a ex:D ; ex:p ex:a ; ex:q "1"^^xsd:integer ; ex:r ex:b, ex:a .  _:n1 a ex:C ; ex:p "q" .
ex:c a ex:C, ex:D ; ex:p "2000-01-01"^^xsd:date ; ex:q "2001-01-01"^^xsd:date ; ex:s "abc" ; ex:t "ABC" ."""
FEATURES = {
    "languageIn": 'sh:property [ sh:path ex:q ; sh:languageIn ("en") ]',
    "uniqueLang": "sh:property [ sh:path ex:q ; sh:uniqueLang true ]",
    "in-numeric": 'sh:property [ sh:path ex:q ; sh:in (1 "a"@en) ]',
    "hasValue-numeric": "sh:property [ sh:path ex:q ; sh:hasValue 1.0 ]",
    "equals": "sh:property [ sh:path ex:q ; sh:equals ex:p ]",
    "disjoint": "sh:property [ sh:path ex:q ; sh:disjoint ex:p ]",
    "closed-ignored": "sh:closed true ; sh:ignoredProperties (rdf:type ex:q) ; sh:property [ sh:path ex:p ]",
    "class-on-literals": "sh:property [ sh:path ex:p ; sh:class ex:C ]",
    "pattern-flags": 'sh:property [ sh:path ex:p ; sh:pattern "^X" ; sh:flags "i" ]',
    "qualified-disjoint": "sh:property ex:PA, ex:PB . ex:PA sh:path ex:p ; sh:qualifiedValueShape [ sh:nodeKind "
                          "sh:Literal ] ; sh:qualifiedValueShapesDisjoint true ; sh:qualifiedMinCount 1 . ex:PB "
                          "sh:path ex:p ; sh:qualifiedValueShape [ sh:datatype xsd:string ] ; "
                          "sh:qualifiedValueShapesDisjoint true ; sh:qualifiedMaxCount 1",
    "recursion": "sh:property [ sh:path ex:r ; sh:node ex:S ]",
    "xone-nested": "sh:property [ sh:path ex:p ; sh:xone ( [ sh:nodeKind sh:Literal ] [ sh:datatype xsd:string ] ) ]",
    "severity-custom": "sh:severity ex:Bad ; sh:property [ sh:path ex:p ; sh:maxCount 1 ]",
    "deactivated-reference": "sh:node ex:T . ex:T sh:deactivated true ; sh:nodeKind sh:Literal",
    "path-zeroOrMore": "sh:property [ sh:path [ sh:zeroOrMorePath ex:r ] ; sh:class ex:D ]",
    "range-mixed-values": "sh:property [ sh:path ex:p ; sh:minInclusive 2 ]",
    "range-in-nested-shape": "sh:property [ sh:path ex:q ; sh:or ( [ sh:minInclusive 1 ] [ sh:nodeKind sh:IRI ] ) ]",
    "lessThan-mixed": "sh:property [ sh:path ex:p ; sh:lessThan ex:q ]",
    "lessThan-strings": "sh:property [ sh:path ex:s ; sh:lessThan ex:t ]",
}
MALFORMED = {
    "minCount-not-integer": 'sh:property [ sh:path ex:p ; sh:minCount "x" ]',
    "maxCount-negative": "sh:property [ sh:path ex:p ; sh:maxCount -1 ]",
    "path-literal": 'sh:property [ sh:path [ sh:inversePath "p" ] ; sh:minCount 1 ]',
    "path-cyclic-list": "sh:property [ sh:path _:l ; sh:minCount 3 ] . _:l rdf:first ex:p ; rdf:rest _:l",
    "path-two-forms": "sh:property [ sh:path [ sh:inversePath ex:p ; sh:zeroOrMorePath ex:p ] ; sh:minCount 5 ]",
    "path-open-list": "sh:property [ sh:path [ rdf:first ex:p ; rdf:rest ex:q ] ; sh:minCount 5 ]",
    "two-paths": "sh:property [ sh:path ex:p, ex:q ; sh:maxCount 1 ]",
    "pattern-invalid": 'sh:property [ sh:path ex:p ; sh:pattern "(" ]',
    "datatype-literal": 'sh:property [ sh:path ex:p ; sh:datatype "x" ]',
    "languageIn-not-list": 'sh:property [ sh:path ex:p ; sh:languageIn "en" ]',
    "in-not-list": "sh:property [ sh:path ex:p ; sh:in ex:a ]",
    "ignoredProperties-not-list": "sh:closed true ; sh:ignoredProperties ex:p",
    "bound-iri": "sh:property [ sh:path ex:p ; sh:minInclusive ex:a ]",
    "severity-literal": 'sh:severity "high" ; sh:nodeKind sh:Literal',
    "message-iri": "sh:message ex:m ; sh:nodeKind sh:Literal",
    "targetClass-literal": 'sh:targetClass "C" ; sh:nodeKind sh:Literal',
    "node-literal": 'sh:node "x"',
    "closed-literal": 'sh:closed "yes"',
    "qualified-without-count": "sh:property [ sh:path ex:p ; sh:qualifiedValueShape [ sh:nodeKind sh:IRI ] ]",
}


def probes() -> Iterator[Case]:
    for component in ("minInclusive", "minExclusive", "maxInclusive", "maxExclusive"):
        for bound_kind, bound in BOUNDS.items():
            for value_kind, value in VALUES.items():
                shapes = f"ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:{component} {bound} ] ."
                yield Case("probes", f"{component} {bound_kind} bound, {value_kind} value",
                           triples(f"ex:a ex:p {value} ."), triples(shapes))
    for bound, value in [*SAME_KIND, *((v, b) for b, v in SAME_KIND)]:
        for component in ("minInclusive", "maxExclusive"):
            shapes = f"ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:{component} {bound} ] ."
            yield Case("probes", f"{component} {bound} bound, {value} value", triples(f"ex:a ex:p {value} ."),
                       triples(shapes))
        yield Case("probes", f"lessThan {value} < {bound}", triples(f"ex:a ex:p {value} ; ex:q {bound} ."),
                   triples("ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:lessThan ex:q ] ."))
    for component in ("lessThan", "lessThanOrEquals"):
        for other_kind, other in BOUNDS.items():
            for value_kind, value in VALUES.items():
                shapes = f"ex:S sh:targetNode ex:a ; sh:property [ sh:path ex:p ; sh:{component} ex:q ] ."
                yield Case("probes", f"{component} {value_kind} vs {other_kind}",
                           triples(f"ex:a ex:p {value} ; ex:q {other} ."), triples(shapes))
    data = triples(FEATURE_DATA)
    for name, body in FEATURES.items():
        yield Case("probes", f"feature {name}", data, triples(f"ex:S sh:targetClass ex:C ; {body} ."))
    for name, body in MALFORMED.items():
        yield Case("probes", f"malformed {name}", data, triples(f"ex:S sh:targetClass ex:C ; {body} ."))


def corpus(name: str) -> Iterator[Case]:
    suite = shared("w3c", "shacl", "data-shapes-test-suite", "tests")
    match name:
        case "core" | "sparql":
            yield from w3c(name, suite / name / "manifest.ttl", suite / name)
        case "demo":
            yield from demo()
        case "probes":
            yield from probes()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--corpus", nargs="+", default=["core", "sparql", "demo", "probes"],
                    choices=["core", "sparql", "demo", "probes"])
    args = ap.parse_args()
    engines = {e: make_validator(ValidationConfig(engine=ValidatorEngine(e))) for e in ("turbo", "pyshacl", "auto")}
    by_feature: Counter[str] = Counter()
    auto_wrong = 0
    for name in args.corpus:
        start, cases, disagreements, routes = time.perf_counter(), 0, 0, Counter[str]()
        print(f"== {name}")
        for case in corpus(name):
            cases += 1
            outcomes = {e: run(v, case) for e, v in engines.items()}
            routes[outcomes["auto"].engine or "raised"] += 1
            turbo = difference("turbo", outcomes["turbo"], outcomes["pyshacl"])
            auto = difference("auto", outcomes["auto"], outcomes["pyshacl"])
            if turbo:
                disagreements += 1
                involved = turbo[1] or features(case.shapes)
                by_feature.update(f"{name}: {c}" for c in involved)
                print(f"  {case.name}: {turbo[0]} [{', '.join(sorted(involved)) or '?'}]")
            if auto:
                auto_wrong += 1
                print(f"  AUTO DISAGREES on {case.name}: {auto[0]}")
        print(f"  {cases} cases: turbo disagrees with pySHACL on {disagreements}; auto ran "
              + ", ".join(f"{e} {n}" for e, n in sorted(routes.items())) + f" ({time.perf_counter() - start:.1f} s)")
    print("== components / features in the disagreements (corpus: name  cases)")
    for feature, n in sorted(by_feature.items()):
        print(f"  {feature}  {n}")
    print(f"auto disagrees with pySHACL on {auto_wrong} case(s)")
    return 1 if auto_wrong else 0


if __name__ == "__main__":
    sys.exit(main())
