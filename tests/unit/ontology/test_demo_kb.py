"""The bundled demo knowledge base: files parse, the policy file is consistent, the demo data
conforms to its shapes after OWL 2 RL closure, the bad example is rejected for the documented
reasons, and the entailments documented in ontology/README.md hold (computed by owlrl)."""

from pathlib import Path

import owlrl
import pyshacl
import pytest
import yaml
from rdflib import OWL, RDF, Graph, Namespace, URIRef

ONTOLOGY_DIR = Path(__file__).resolve().parents[3] / "ontology"

CLIN = Namespace("https://hybridkg.dev/ns/clinical#")
CRM = Namespace("https://hybridkg.dev/ns/crm#")
SH = Namespace("http://www.w3.org/ns/shacl#")
OWLRL_ERROR = Namespace("http://www.daml.org/2002/03/agents/agent-ont#")
CD = "https://hybridkg.dev/data/clinical/"
CRMD = "https://hybridkg.dev/data/crm/"


def cd(local: str) -> URIRef:
    return URIRef(CD + local)


def crmd(local: str) -> URIRef:
    return URIRef(CRMD + local)


def _load(*relpaths: str) -> Graph:
    graph = Graph()
    for rel in relpaths:
        graph.parse(ONTOLOGY_DIR / rel, format="turtle")
    return graph


def _closure(*relpaths: str) -> Graph:
    graph = _load(*relpaths)
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics).expand(graph)
    return graph


def _owlrl_errors(graph: Graph) -> list[str]:
    return [str(m) for m in graph.objects(None, OWLRL_ERROR.error)]


def _results(report: Graph) -> set[tuple[URIRef, URIRef, URIRef, URIRef]]:
    """(focus node, path, constraint component, severity) of every validation result."""
    return {
        (
            report.value(r, SH.focusNode),
            report.value(r, SH.resultPath),
            report.value(r, SH.sourceConstraintComponent),
            report.value(r, SH.resultSeverity),
        )
        for r in report.subjects(RDF.type, SH.ValidationResult)
    }


@pytest.fixture(scope="module")
def clinical_closure() -> Graph:
    return _closure("clinical/ontology.ttl", "clinical/data.ttl")


@pytest.fixture(scope="module")
def clinical_shapes() -> Graph:
    return _load("clinical/shapes.ttl")


@pytest.mark.parametrize("relpath", sorted(str(p.relative_to(ONTOLOGY_DIR)) for p in ONTOLOGY_DIR.rglob("*.ttl")))
def test_turtle_file_parses(relpath: str) -> None:
    assert len(_load(relpath)) > 0


def test_policy_file_references_existing_files() -> None:
    policy = yaml.safe_load((ONTOLOGY_DIR / "domains.yaml").read_text())
    domains = policy["domains"]
    assert {name: d["mode"] for name, d in domains.items()} == {"clinical": "strict", "crm": "fuzzy"}
    for domain in domains.values():
        paths = [domain["ontology"], domain["shapes"], domain["demo_data"], *domain.get("examples", {}).values()]
        for rel in paths:
            assert (ONTOLOGY_DIR / rel).is_file(), rel
        for iri in (domain["ontology_graph"], domain["data_graph"], *domain["namespaces"].values()):
            assert iri.startswith("https://hybridkg.dev/")


def test_every_clinical_term_has_a_label() -> None:
    graph = _load("clinical/ontology.ttl", "clinical/data.ttl")
    declared = {s for s in graph.subjects(RDF.type, None) if isinstance(s, URIRef)}
    unlabelled = {s for s in declared if (s, URIRef("http://www.w3.org/2000/01/rdf-schema#label"), None) not in graph}
    assert unlabelled == set()


def test_clinical_demo_data_is_consistent_and_conforms(clinical_closure: Graph, clinical_shapes: Graph) -> None:
    assert _owlrl_errors(clinical_closure) == []
    conforms, _, text = pyshacl.validate(clinical_closure, shacl_graph=clinical_shapes, inference="none")
    assert conforms, text


def test_new_patient_example_is_accepted(clinical_shapes: Graph) -> None:
    closure = _closure("clinical/ontology.ttl", "clinical/data.ttl", "clinical/examples/new-patient.ttl")
    conforms, _, text = pyshacl.validate(closure, shacl_graph=clinical_shapes, inference="none")
    assert conforms, text
    assert (cd("patient/p007"), RDF.type, CLIN.PatientOnAnticoagulant) in closure
    assert (cd("patient/p007"), RDF.type, CLIN.CardiovascularRiskPatient) in closure


def test_bad_prescription_example_is_rejected_for_the_documented_reasons(clinical_shapes: Graph) -> None:
    closure = _closure("clinical/ontology.ttl", "clinical/data.ttl", "clinical/examples/bad-prescription.ttl")
    conforms, report, _ = pyshacl.validate(closure, shacl_graph=clinical_shapes, inference="none")
    assert not conforms
    violation = SH.Violation
    assert _results(report) == {
        (cd("prescription/bad-0001"), CLIN.dose, SH.MinCountConstraintComponent, violation),
        (cd("prescription/bad-0002"), CLIN.dose, SH.MinExclusiveConstraintComponent, violation),
        (cd("prescription/bad-0003"), CLIN.prescribedDrug, SH.NotConstraintComponent, violation),
        (cd("prescription/bad-0004"), CLIN.prescribedBy, SH.ClassConstraintComponent, violation),
        (cd("prescription/bad-0004"), CLIN.doseUnit, SH.MinCountConstraintComponent, violation),
        # rdfs:range turns the misused condition into a drug, which then lacks an ingredient.
        (cd("condition/essential-hypertension"), CLIN.hasIngredient, SH.MinCountConstraintComponent, violation),
    }
    assert any("Disjoint classes" in e and "essential-hypertension" in e for e in _owlrl_errors(closure))


CLINICAL_ENTAILMENTS = {
    "svf-on-the-left: hypertension makes a cardiovascular risk patient": (
        cd("patient/p004"),
        RDF.type,
        CLIN.CardiovascularRiskPatient,
    ),
    "inverse + chain + intersection: prescribed warfarin makes a patient on an anticoagulant": (
        cd("patient/p001"),
        RDF.type,
        CLIN.PatientOnAnticoagulant,
    ),
    "property chain of a chain: exposed to the ingredient of a prescribed drug": (
        cd("patient/p001"),
        CLIN.exposedTo,
        cd("ingredient/warfarin-sodium"),
    ),
    "transitive partOf: ward is part of the health network": (
        cd("site/st-brigid-cardiology-ward"),
        CLIN.partOf,
        cd("site/northshore-health"),
    ),
    "hasKey: same MRN and birth date are the same patient": (
        cd("patient/p003"),
        OWL.sameAs,
        cd("pharmacy/customer-C5521"),
    ),
    "hasKey + sameAs + chain: pharmacy ibuprofen reaches the EHR record": (
        cd("patient/p003"),
        CLIN.exposedTo,
        cd("ingredient/ibuprofen"),
    ),
    "stated sameAs: lab diagnosis reaches the EHR record": (
        cd("ehr/patient-1001"),
        CLIN.hasCondition,
        cd("condition/ckd-stage-3"),
    ),
    "symmetric interactsWith": (cd("drug/ibuprofen-400mg"), CLIN.interactsWith, cd("drug/warfarin-5mg")),
    "hasValue, value to class": (cd("patient/p006"), RDF.type, CLIN.HighRiskPatient),
    "hasValue, class to value": (cd("patient/p001"), CLIN.riskLevel, CLIN.High),
    "hasValue on drugs": (cd("drug/amoxicillin-500mg"), CLIN.deliveryRoute, CLIN.Oral),
    "inverse hasCondition": (cd("condition/essential-hypertension"), CLIN.conditionOf, cd("patient/p004")),
}


@pytest.mark.parametrize("triple", CLINICAL_ENTAILMENTS.values(), ids=CLINICAL_ENTAILMENTS.keys())
def test_documented_clinical_entailment_holds(clinical_closure: Graph, triple: tuple) -> None:
    assert triple in clinical_closure


def test_clinical_closure_does_not_over_merge_or_over_classify(clinical_closure: Graph) -> None:
    patients = set(clinical_closure.subjects(RDF.type, CLIN.Patient))
    for patient in patients:
        same = set(clinical_closure.objects(patient, OWL.sameAs)) & patients
        assert len(same) <= 2, (patient, same)
    assert (cd("patient/p002"), OWL.sameAs, cd("patient/p003")) not in clinical_closure
    assert (cd("patient/p003"), RDF.type, CLIN.CardiovascularRiskPatient) not in clinical_closure
    assert (cd("patient/p005"), RDF.type, CLIN.PatientOnAnticoagulant) not in clinical_closure


def test_crm_demo_data_only_warns_for_the_planted_gaps() -> None:
    closure = _closure("crm/ontology.ttl", "crm/data.ttl")
    assert _owlrl_errors(closure) == []
    shapes = _load("crm/shapes.ttl")
    conforms, report, _ = pyshacl.validate(closure, shacl_graph=shapes, inference="none", allow_warnings=True)
    assert conforms
    assert _results(report) == {
        (crmd("contact/tomas-brandt"), CRM.email, SH.MinCountConstraintComponent, SH.Warning),
        (crmd("deal/d-0007"), CRM.amount, SH.MinCountConstraintComponent, SH.Warning),
    }
    assert (crmd("company/northwind-clinics"), RDF.type, CRM.Customer) in closure
    assert (crmd("company/bramble-logistics"), CRM.employs, crmd("contact/tomas-brandt")) in closure
    assert (crmd("company/helios-solar-iberia"), CRM.subsidiaryOf, crmd("company/helios-group")) in closure
    assert (crmd("company/quill-and-co"), RDF.type, CRM.Customer) not in closure


def test_every_crm_shape_constraint_is_a_warning() -> None:
    shapes = _load("crm/shapes.ttl")
    severities = set(shapes.objects(None, SH.severity))
    assert severities == {SH.Warning}
