"""Open a :class:`~.knowledge.StructuralKB` from :class:`~.settings.StructuralConfig` (lazy backend imports).

Opening reconciles the vector indexes with the graph (a crash between the graph write and the vector save
leaves the graph ahead) and teaches the extractor the graph's entity names. A small manifest
(``<path>/manifest.json``) records which embedder built the vectors: opening the store with a different one
would silently compare vectors from two spaces, so it is refused instead.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from hybridkg.errors import InvalidInput
from hybridkg.structural.base import CHUNK, ENTITY, RELATED, Embedder, GraphStore, KnownEntity, VectorIndex
from hybridkg.structural.extract.factory import make_extractor
from hybridkg.structural.knowledge import StructuralKB
from hybridkg.structural.settings import GraphBackend, StructuralConfig, VectorBackend
from hybridkg.structural.writer import VectorSet

__all__ = ["MANIFEST", "build", "make_extractor", "make_vectors", "open_structural_kb"]

MANIFEST = "manifest.json"


def _check_manifest(path: Path, config: StructuralConfig, embedder: Embedder) -> None:
    want = {"embedder": str(config.embedder.kind), "dim": int(embedder.dim)}
    file = path / MANIFEST
    if file.exists():
        have = json.loads(file.read_text(encoding="utf-8"))
        if have.get("embedder") != want["embedder"] or have.get("dim") != want["dim"]:
            raise InvalidInput(
                f"the structural store at {path} was built with embedder {have.get('embedder')} "
                f"(dim {have.get('dim')}), not {want['embedder']} (dim {want['dim']}): set "
                f"structural.embedder.kind={have.get('embedder')} or rebuild the store into an empty directory"
            )
    else:
        file.write_text(json.dumps(want), encoding="utf-8")


def make_vectors(config: StructuralConfig, path: Path, dim: int, graph: GraphStore) -> tuple[VectorIndex, ...]:
    """Entity, relation and chunk indexes; persisted under ``path/vectors`` unless the graph itself is
    in memory (vectors outliving their graph would be stale)."""
    from hybridkg.structural.vectors.factory import make_vector_index

    out: list[VectorIndex] = []
    for name, target in (("entities", ENTITY), ("relations", RELATED), ("chunks", CHUNK)):
        native = None
        if config.vectors.backend == VectorBackend.NATIVE:
            from hybridkg.structural.vectors.native import NativeVectorIndex

            native = NativeVectorIndex(graph, target, dim, config.vectors)
        where = None if config.graph.backend == GraphBackend.MEMORY else path / "vectors" / name
        out.append(make_vector_index(config.vectors, dim, where, native=native))
    return tuple(out)


def open_structural_kb(
    config: StructuralConfig,
    path: Path | str,
    *,
    known: Sequence[KnownEntity] = (),
    embedder: Embedder | None = None,
    progress: bool = False,
) -> StructuralKB:
    """Open (or create) the structural store under ``path`` with the backends ``config`` names, its vectors
    reconciled with its graph."""
    kb = build(config, Path(path), known=known, embedder=embedder)
    try:
        kb.recover(progress=progress)
    except BaseException:
        kb.close()
        raise
    return kb


def build(
    config: StructuralConfig,
    path: Path,
    *,
    known: Sequence[KnownEntity] = (),
    embedder: Embedder | None = None,
) -> StructuralKB:
    """The store's objects, wired together (no reconciliation: :func:`open_structural_kb` does that)."""
    from hybridkg.structural.embedding.factory import make_embedder
    from hybridkg.structural.graphstore.factory import make_graph_store

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    emb = embedder or make_embedder(config.embedder)
    _check_manifest(path, config, emb)
    extractor = make_extractor(config.extractor, known)
    primary = make_graph_store(config.graph, path / "graph")
    try:
        entities, relations, chunks = make_vectors(config, path, emb.dim, primary)
    except BaseException:
        primary.close()
        raise
    graph: GraphStore = primary
    if config.graph.mirror and config.graph.backend != GraphBackend.MEMORY:
        from hybridkg.structural.graphstore.mirror import MirroredGraphStore

        graph = MirroredGraphStore(primary)
    journal = None if config.graph.backend == GraphBackend.MEMORY else path / "write-journal.json"
    return StructuralKB(graph, VectorSet(entities, relations, chunks), emb, extractor, config, journal=journal)
