"""Entity and relation extraction: offline (gazetteer + noun phrases) or an OpenAI-compatible LLM.

Built from the ``structural.extractor`` section by :func:`hybridkg.structural.make_extractor`.
"""
