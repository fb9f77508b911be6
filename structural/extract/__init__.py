"""Entity and relation extraction: offline (a spaCy pipeline: known names, NER, dependency relations), rules
(gazetteer + word lists, no model) or an OpenAI-compatible LLM.

Built from the ``structural.extractor`` section by :func:`make_extractor`.
"""

from hybridkg.structural.extract.factory import make_extractor

__all__ = ["make_extractor"]
