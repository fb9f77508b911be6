"""Wire the layers together from Settings (no globals: every call builds its own objects). What joins the layers
(the vocabulary the structural layer's entity linking gets from the semantic layer) is the bridge's
(:mod:`hybridkg.bridge.vocabulary`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from hybridkg.semantic.domains import DomainPolicy
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.store.factory import make_store
from hybridkg.semantic.validation.factory import make_validator
from hybridkg.server.config import Settings

if TYPE_CHECKING:  # the structural layer and the bridge are imported when opened: a CLI command on the RDF store
    # alone (load, sparql, reason) starts without them (0.3 s)
    from hybridkg.bridge.sync import BridgeSync
    from hybridkg.structural.knowledge import StructuralKB


def open_knowledge_base(settings: Settings) -> KnowledgeBase:
    return KnowledgeBase(
        make_store(settings.store),
        reasoner=make_reasoner(settings.reasoning),
        validator=make_validator(settings.validation),
        policy=DomainPolicy.load(settings.domains.policy),
        max_input_bytes=settings.store.max_input_bytes,
    )


#: The followed bridge sync of a domain, brought in line, for the structural layer being opened (the runtime's).
BridgeOf = Callable[["StructuralKB", str], "BridgeSync"]


def open_structural(
    settings: Settings, kb: KnowledgeBase | None = None, domains: Sequence[str] = (), *, bridge: BridgeOf | None = None
) -> StructuralKB:
    """The structural layer under ``settings.structural_path()``; the extractor links the entities the semantic
    layer knows for ``domains`` (their labels and alt labels, :func:`~hybridkg.bridge.vocabulary.domain_vocabulary`:
    read from each domain's bridge graph through ``bridge`` when given, else through a sync made for the purpose,
    or from the RDF store when the bridge is off)."""
    from hybridkg.bridge.vocabulary import domain_vocabulary
    from hybridkg.structural.base import KnownEntity, NameLearner
    from hybridkg.structural.factory import open_structural_kb

    skb = open_structural_kb(settings.structural, settings.structural_path())
    try:
        known: list[KnownEntity] = []
        for name in domains:
            if kb is None:
                break
            sync = bridge(skb, name) if bridge is not None else None
            vocabulary = domain_vocabulary(kb, name, settings.bridge, skb.graph, sync=sync)
            known.extend(vocabulary.entities)
            skb.entity_types[name] = vocabulary.types
        if known and isinstance(skb.extractor, NameLearner):
            skb.extractor.learn(known)
    except BaseException:
        skb.close()
        raise
    return skb
