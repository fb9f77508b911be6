"""Helpers shared by the extractor tests: an extraction's relations as triples and its entity names."""

from __future__ import annotations

from hybridkg.structural.base import Extraction


def triples(found: Extraction) -> set[tuple[str, str, str]]:
    return {(r.src, r.type, r.dst) for r in found.relations}


def names(found: Extraction, *, named: bool = True) -> set[str]:
    return {e.name for e in found.entities if e.named is named}
