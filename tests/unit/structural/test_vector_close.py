"""Closing the vector indexes: every backend implements ``close()``, ``VectorSet.close`` closes all three (even
when one fails), and ``StructuralKB.close`` goes through it, so a long delta log is compacted on close."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hybridkg.structural import open_structural_kb
from hybridkg.structural.base import VectorIndex
from hybridkg.structural.embedding.hashing import HashEmbedder
from hybridkg.structural.settings import StructuralConfig, VectorBackend, VectorConfig
from hybridkg.structural.vectors.exact import ExactIndex
from hybridkg.structural.vectors.factory import make_vector_index
from hybridkg.structural.writer import VectorSet

DIM = 8


class Recording(ExactIndex):
    """A real exact index that records its close() and can be told to fail in it."""

    def __init__(self, log: list[str], name: str, fail: bool = False) -> None:
        super().__init__(DIM)
        self.log, self.name, self.fail = log, name, fail

    def close(self) -> None:
        self.log.append(self.name)
        if self.fail:
            raise OSError(f"{self.name}: disk full")


def test_every_backend_is_a_vector_index_with_close(tmp_path: Path) -> None:
    for backend in (VectorBackend.AUTO, VectorBackend.EXACT, VectorBackend.HNSW):
        index = make_vector_index(VectorConfig(backend=backend), DIM, tmp_path / str(backend))
        assert isinstance(index, VectorIndex)
        index.upsert(["a"], np.ones((1, DIM), dtype=np.float32))
        index.close()
        assert make_vector_index(VectorConfig(backend=backend), DIM, tmp_path / str(backend)).ids() == ["a"]


def test_vector_set_closes_every_index_and_raises_the_first_failure() -> None:
    log: list[str] = []
    vectors = VectorSet(Recording(log, "entities"), Recording(log, "relations", fail=True), Recording(log, "chunks"))
    with pytest.raises(OSError, match="relations: disk full"):
        vectors.close()
    assert log == ["entities", "relations", "chunks"]


def test_closing_the_kb_compacts_a_long_delta_log(tmp_path: Path) -> None:
    config = StructuralConfig.model_validate({
        "graph": {"backend": "falkordb"},
        "extractor": {"kind": "rules"},
        "embedder": {"kind": "hash", "hash_dim": 32},
        "vectors": {"backend": "exact", "compact_fraction": 0.01},  # a 10 KiB log; close() compacts past 1/4
    })
    kb = open_structural_kb(config, tmp_path / "s", embedder=HashEmbedder(32))
    kb.add_document("a", "Tessa Lind joined Corvane Foods in Tallinn. Corvane Foods sells Ledgerbeam.", domain="d")
    kb.vectors.chunks.compact()
    for i in range(40):
        kb.add_document(f"n{i}", f"Note {i}: Oskar Brandt met Petrel Labs about Ledgerbeam {i}.", domain="d")
    chunks = kb.vectors.chunks
    assert isinstance(chunks, ExactIndex)
    assert chunks.compact_fraction == 0.01
    assert chunks.log_bytes > 0.25 * chunks.log_limit
    kb.close()
    assert chunks.log_bytes == 0
    reopened = open_structural_kb(config, tmp_path / "s", embedder=HashEmbedder(32))
    try:
        assert len(reopened.vectors.chunks) == 41
    finally:
        reopened.close()
