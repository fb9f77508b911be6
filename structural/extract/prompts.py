"""Prompts of the LLM extractor: LightRAG's entity/relation extraction, GraphRAG's gleaning follow-up.

The model is asked for one JSON object ``{"entities": [...], "relations": [...]}``; :mod:`.parsing` also
accepts LightRAG's tuple-delimited records when a model falls back to them. Templates use ``$name``
placeholders (:class:`string.Template`) so the JSON braces in them need no escaping, and values (the chunk
text) are never re-interpreted.
"""

from __future__ import annotations

from collections.abc import Sequence
from string import Template

DEFAULT_ENTITY_TYPES = ("organization", "person", "location", "event", "concept")

SYSTEM_PROMPT = (
    "You are a careful knowledge-graph builder. You extract entities and the relationships between them "
    "from text, and you answer with JSON only."
)

EXTRACTION_PROMPT = Template(
    """-Goal-
Given a text and a list of entity types, identify all entities of those types in the text and all
relationships among the identified entities.

-Steps-
1. Identify all entities. For each entity give:
- name: the entity's name, as written in the text (capitalised if it is a proper noun)
- type: one of [$entity_types]; use "concept" when none fits
- description: a comprehensive description of the entity's attributes and activities, from the text only
2. Among the entities from step 1, identify all pairs (source, target) that are clearly related. For each give:
- source: the name of the source entity, exactly as in step 1
- target: the name of the target entity, exactly as in step 1
- type: a short verb-like relation type in snake_case, e.g. "treats", "acquired", "located_in"
- keywords: a list of high-level keywords that summarise the relationship
- description: why the source and the target are related, from the text only
- strength: a number from 1 to 10 for how strongly the text supports the relationship
3. Answer with one JSON object and nothing else:
{"entities": [{"name": "...", "type": "...", "description": "..."}],
 "relations": [{"source": "...", "target": "...", "type": "...", "keywords": ["..."], "description": "...",
                "strength": 5}]}

-Example-
Text: Aspirin relieves headaches. Bayer first sold aspirin in 1899.
Answer:
{"entities": [
  {"name": "Aspirin", "type": "drug", "description": "A drug that relieves headaches, first sold by Bayer in 1899."},
  {"name": "headache", "type": "disease", "description": "A pain relieved by aspirin."},
  {"name": "Bayer", "type": "organization", "description": "The company that first sold aspirin, in 1899."}],
 "relations": [
  {"source": "Aspirin", "target": "headache", "type": "relieves", "keywords": ["pain relief"],
   "description": "Aspirin relieves headaches.", "strength": 9},
  {"source": "Bayer", "target": "Aspirin", "type": "sold", "keywords": ["commercialisation", "history"],
   "description": "Bayer first sold aspirin in 1899.", "strength": 8}]}

-Real data-
Entity types: [$entity_types]
Text:
<<<
$text
>>>
Answer:"""
)

GLEANING_PROMPT = (
    "MANY entities and relationships were missed in the last extraction. Add them below in the same JSON "
    'format ({"entities": [...], "relations": [...]}), listing only what is new. If nothing was missed, '
    'answer {"entities": [], "relations": []}.'
)


def entity_types_text(entity_types: Sequence[str]) -> str:
    return ", ".join(t.strip() for t in (entity_types or DEFAULT_ENTITY_TYPES) if t.strip())


def extraction_messages(text: str, entity_types: Sequence[str]) -> list[dict[str, str]]:
    """The opening conversation of one chunk's extraction (system + user), as chat-completions messages."""
    user = EXTRACTION_PROMPT.substitute(entity_types=entity_types_text(entity_types), text=text)
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def gleaning_messages(history: list[dict[str, str]], reply: str) -> list[dict[str, str]]:
    """``history`` plus the model's last ``reply`` and the "what did you miss?" follow-up."""
    return [*history, {"role": "assistant", "content": reply}, {"role": "user", "content": GLEANING_PROMPT}]
