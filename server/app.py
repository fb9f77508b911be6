"""Wire the layers together from Settings (no globals: every call builds its own objects)."""

from __future__ import annotations

from ..semantic.domains import DomainPolicy
from ..semantic.kb import KnowledgeBase
from ..semantic.reasoning.factory import make_reasoner
from ..semantic.store.factory import make_store
from ..semantic.validation.factory import make_validator
from .config import Settings


def open_knowledge_base(settings: Settings) -> KnowledgeBase:
    s = settings.store
    store = make_store(s.backend, path=s.path, query_url=s.query_url, update_url=s.update_url)
    return KnowledgeBase(
        store,
        reasoner=make_reasoner(settings.reasoning.engine),
        validator=make_validator(settings.validation.engine),
        policy=DomainPolicy.load(settings.domains.policy),
        max_input_bytes=s.max_input_bytes,
    )
