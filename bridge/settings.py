"""The bridge's settings: the ``bridge:`` section of the settings file (issue 11 §1, "Sync"; ``docs/bridge.md`` §1.8).

A domain's own exposure is the key ``bridge_exposure`` of its entry in the domain policy file (``domains.yaml``);
:func:`hybridkg.bridge.policy.scope_of` reads both.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

#: The FalkorDB graph (Redis key) of the bridge's property graph, beside the structural layer's ``hybridkg``.
BRIDGE_GRAPH = "hybridkg_bridge"


class Exposure(StrEnum):
    """What a bridge graph mirrors of the RDF store."""

    ASSERTED = "asserted"
    INFERRED = "inferred"  # asserted + inferred


class BridgeConfig(BaseModel):
    """The ``bridge:`` section: whether the service keeps the bridge's property graphs, their names, what they
    expose."""

    model_config = ConfigDict(extra="forbid")

    enabled: bool = Field(
        True,
        description="The service keeps the bridge's property graphs (the whole store's and each domain's) in line "
        "with the RDF store, on the structural layer's FalkorDB, and entity linking reads a domain's individuals "
        "from its graph. false: no bridge graphs (entity linking queries the RDF store).",
    )
    graph_name: str = Field(
        BRIDGE_GRAPH,
        pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
        description="Property graph of the whole store; a domain's is <graph_name>_<domain>.",
    )
    exposure: Exposure = Field(
        Exposure.INFERRED,
        description="What the whole store's graph exposes, and each domain's unless its bridge_exposure says "
        "otherwise: asserted (the triples written) or inferred (those and the OWL 2 RL closure's).",
    )
