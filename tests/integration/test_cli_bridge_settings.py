"""`hybridkg bridge sync|export` honour the settings file's ``bridge:`` section and a domain's ``bridge_exposure``
in the policy file (``--exposure`` still overrides); through the installed executable, managed FalkorDB."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from integration.test_cli_bridge import hybridkg

from hybridkg.semantic.domains import BUNDLED_POLICY


def _setup(tmp_path: Path) -> Path:
    """A config with ``bridge: {graph_name: kb_mirror, exposure: asserted}`` and a policy file whose crm domain
    says ``bridge_exposure: inferred``; the crm demo data loaded."""
    bundled = yaml.safe_load(BUNDLED_POLICY.read_text(encoding="utf-8"))
    crm = bundled["domains"]["crm"]
    for key in ("ontology", "shapes", "demo_data", "demo_documents"):
        crm[key] = str(BUNDLED_POLICY.parent / crm[key])
    crm["bridge_exposure"] = "inferred"
    policy = tmp_path / "domains.yaml"
    policy.write_text(yaml.safe_dump({"version": 1, "domains": {"crm": crm}}), encoding="utf-8")
    config = tmp_path / "hybridkg.yaml"
    config.write_text(yaml.safe_dump({
        "store": {"path": str(tmp_path / "s")}, "domains": {"policy": str(policy)},
        "bridge": {"graph_name": "kb_mirror", "exposure": "asserted"},
    }), encoding="utf-8")
    hybridkg("load", "--config", config, "--domain", "crm", BUNDLED_POLICY.parent / "crm" / "data.ttl")
    return config


def test_the_settings_and_the_domains_exposure_choose_and_the_flag_overrides(tmp_path: Path) -> None:
    config = _setup(tmp_path)
    whole = json.loads(hybridkg("bridge", "sync", "--config", config).stdout)
    assert (whole["graph"], whole["inferred"]) == ("kb_mirror", False)  # bridge.exposure: asserted
    crm = json.loads(hybridkg("bridge", "sync", "--config", config, "--domain", "crm").stdout)
    assert (crm["graph"], crm["inferred"]) == ("kb_mirror_crm", True)  # the domain's bridge_exposure wins
    assert crm["triples"] > whole["triples"]  # the closure's triples about crm's resources
    flag = json.loads(hybridkg("bridge", "sync", "--config", config, "--domain", "crm", "--exposure",
                               "asserted").stdout)
    assert (flag["inferred"], flag["triples"]) == (False, whole["triples"])  # only crm in this store

    off = hybridkg("bridge", "sync", "--config", config, check=False, env={"HYBRIDKG_BRIDGE__ENABLED": "false"})
    assert off.returncode != 0
    assert "bridge.enabled is false" in off.stderr
    assert off.stdout == ""
