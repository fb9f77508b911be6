"""The name registry (docs/bridge.md §1.3): local names when unique, prefix__local otherwise, reversible."""

from __future__ import annotations

from hybridkg.bridge.mapping import NameKind, NameRegistry
from hybridkg.bridge.mapping.names import REGISTRY_LABEL, RegistryRecord

CRM = "https://hybridkg.dev/ns/crm#"
CLIN = "https://hybridkg.dev/ns/clinical#"
NS = {"crm": CRM, "clin": CLIN}


def test_a_unique_local_name_is_the_name() -> None:
    reg = NameRegistry(NS)
    reg.add([(NameKind.LABEL, CRM + "Company"), (NameKind.KEY, CRM + "industry"), (NameKind.TYPE, CRM + "worksFor")])
    assert reg.name(NameKind.LABEL, CRM + "Company") == "Company"
    assert reg.name(NameKind.KEY, CRM + "industry") == "industry"
    assert reg.name(NameKind.TYPE, CRM + "worksFor") == "worksFor"
    assert reg.iri("worksFor") == CRM + "worksFor"


def test_colliding_local_names_are_all_prefixed_never_merged() -> None:
    reg = NameRegistry(NS)
    reg.add([(NameKind.LABEL, CRM + "Site"), (NameKind.LABEL, CLIN + "Site")])
    assert reg.name(NameKind.LABEL, CRM + "Site") == "crm__Site"
    assert reg.name(NameKind.LABEL, CLIN + "Site") == "clin__Site"
    assert reg.iri("crm__Site") == CRM + "Site"
    assert reg.iri("Site") is None


def test_a_name_denotes_one_iri_across_kinds() -> None:
    reg = NameRegistry(NS)
    reg.add([(NameKind.LABEL, CRM + "name"), (NameKind.KEY, "http://xmlns.com/foaf/0.1/name")])
    assert reg.name(NameKind.LABEL, CRM + "name") == "crm__name"
    assert reg.name(NameKind.KEY, "http://xmlns.com/foaf/0.1/name") == "foaf__name"


def test_one_predicate_as_type_and_key_has_one_name() -> None:
    reg = NameRegistry(NS)
    reg.add([(NameKind.TYPE, CRM + "about"), (NameKind.KEY, CRM + "about")])
    assert reg.name(NameKind.TYPE, CRM + "about") == reg.name(NameKind.KEY, CRM + "about") == "about"
    assert reg.kinds("about") == {NameKind.TYPE, NameKind.KEY}
    assert reg.name(NameKind.LABEL, CRM + "about") is None


def test_reserved_names_and_invalid_characters() -> None:
    reg = NameRegistry(NS)
    iris = [CRM + "uri", CRM + "Resource", CRM + "bnode", CRM + REGISTRY_LABEL, CRM + "has-part.v2", CRM + "2nd"]
    reg.add((NameKind.KEY, i) for i in iris)
    names = [reg.name(NameKind.KEY, i) for i in iris]
    assert names == ["crm__uri", "crm__Resource", "crm__bnode", f"crm__{REGISTRY_LABEL}", "has_part_v2", "_2nd"]


def test_sanitised_collisions_get_a_number_and_unknown_namespaces_a_prefix() -> None:
    reg = NameRegistry(NS)
    reg.add([(NameKind.KEY, CRM + "a-b"), (NameKind.KEY, CRM + "a.b"), (NameKind.KEY, "urn:x:a_b")])
    names = {reg.name(NameKind.KEY, i) for i in (CRM + "a-b", CRM + "a.b", "urn:x:a_b")}
    assert names == {"crm__a_b", "crm__a_b_2", "ns1__a_b"}
    assert reg.prefixes["ns1"] == "urn:x:"


def test_names_once_given_never_change() -> None:
    reg = NameRegistry(NS)
    reg.add([(NameKind.LABEL, CRM + "Site")])
    reg.add([(NameKind.LABEL, CLIN + "Site")])
    assert reg.name(NameKind.LABEL, CRM + "Site") == "Site"
    assert reg.name(NameKind.LABEL, CLIN + "Site") == "clin__Site"


def test_the_record_reads_back() -> None:
    reg = NameRegistry(NS)
    reg.add([(NameKind.LABEL, CRM + "Site"), (NameKind.LABEL, CLIN + "Site"), (NameKind.TYPE, "urn:x:p")])
    reg.add([(NameKind.KEY, "urn:x:p")])
    record = reg.record()
    assert isinstance(record, RegistryRecord)
    back = NameRegistry.from_record(record)
    for kind in NameKind:
        assert back.items(kind) == reg.items(kind)
    assert back.prefixes == reg.prefixes
    back.add([(NameKind.KEY, "urn:y:p")])
    assert back.name(NameKind.KEY, "urn:y:p") == "ns1__p"
    assert back.name(NameKind.KEY, "urn:x:p") == "p"
