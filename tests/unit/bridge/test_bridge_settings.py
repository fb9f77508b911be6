"""The bridge's settings: the ``bridge:`` section of the settings file and a domain's ``bridge_exposure``."""

from __future__ import annotations

from pathlib import Path

import pytest

from hybridkg.bridge.settings import BRIDGE_GRAPH, BridgeConfig, Exposure
from hybridkg.errors import InvalidInput
from hybridkg.semantic.domains import DomainPolicy
from hybridkg.server.config import load_settings


def test_the_section_defaults_and_loads_from_the_file_and_the_environment(tmp_path: Path) -> None:
    assert load_settings(environ={}).bridge == BridgeConfig(enabled=True, graph_name=BRIDGE_GRAPH,
                                                            exposure=Exposure.INFERRED)
    config = tmp_path / "c.yaml"
    config.write_text("bridge:\n  graph_name: mirror\n  exposure: asserted\n", encoding="utf-8")
    settings = load_settings(config, environ={"HYBRIDKG_BRIDGE__ENABLED": "false"})
    assert settings.bridge == BridgeConfig(enabled=False, graph_name="mirror", exposure=Exposure.ASSERTED)


@pytest.mark.parametrize(("text", "named"), [
    ("bridge:\n  graph_name: my-graph\n", "bridge.graph_name"),  # not a Redis-safe Cypher name
    ("bridge:\n  exposure: everything\n", "bridge.exposure"),
    ("bridge:\n  graphname: x\n", "bridge.graphname"),
])
def test_bad_values_are_refused_naming_the_key(tmp_path: Path, text: str, named: str) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(text, encoding="utf-8")
    with pytest.raises(InvalidInput, match=named):
        load_settings(config, environ={})


def test_a_domains_exposure_is_asserted_or_inferred(tmp_path: Path) -> None:
    policy = tmp_path / "domains.yaml"
    base = "domains:\n  d:\n    mode: fuzzy\n    ontology_graph: urn:o\n    data_graph: urn:d\n"
    policy.write_text(base + "    bridge_exposure: asserted\n", encoding="utf-8")
    assert DomainPolicy.load(policy).get("d").bridge_exposure == "asserted"
    policy.write_text(base + "    bridge_exposure: all\n", encoding="utf-8")
    with pytest.raises(InvalidInput, match="bridge_exposure"):
        DomainPolicy.load(policy)
