"""Helpers shared by the extractor tests: an extraction's relations as triples and its entity names."""

from __future__ import annotations

from hybridkg.structural.base import Extraction


def triples(found: Extraction) -> set[tuple[str, str, str]]:
    return {(r.src, r.type, r.dst) for r in found.relations}


def typed(found: Extraction) -> set[tuple[str, str, str]]:
    """The relations the patterns typed: every triple but the weak ``co_occurs`` edges."""
    return {t for t in triples(found) if t[1] != "co_occurs"}


def names(found: Extraction, *, named: bool = True) -> set[str]:
    return {e.name for e in found.entities if e.named is named}
