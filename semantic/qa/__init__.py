"""Strict question answering: questions parsed into SPARQL over a domain's asserted + inferred triples,
answered with proofs, or refused with a reason (issue 9, section 4, strict route).

Pipeline, one stage per module: :mod:`lexicon` (link) -> :mod:`parse` -> :mod:`plan` -> :mod:`emit` ->
:mod:`answer`; :mod:`schema` reads the ontology, :mod:`text` holds the language-level rules.
"""

from hybridkg.semantic.qa.answer import StrictAnswerer, StrictItem, StrictResult
from hybridkg.semantic.qa.lexicon import Lexicon, Mention, TextEmbedder

__all__ = ["Lexicon", "Mention", "StrictAnswerer", "StrictItem", "StrictResult", "TextEmbedder"]
