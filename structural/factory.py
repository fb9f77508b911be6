"""Build a :class:`~.knowledge.StructuralKB` from :class:`~.settings.StructuralConfig` (lazy backend imports).

A small manifest (``<path>/manifest.json``) records which embedder built the vectors: opening the store
with a different one would silently compare vectors from two spaces, so it is refused instead.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hybridkg.errors import InvalidInput
from hybridkg.structural.base import CHUNK, ENTITY, RELATED, Embedder, Extractor, GraphStore, KnownEntity, VectorIndex
from hybridkg.structural.settings import ExtractorConfig, ExtractorKind, GraphBackend, StructuralConfig, VectorBackend

if TYPE_CHECKING:
    from hybridkg.structural.knowledge import StructuralKB

MANIFEST = "manifest.json"


def make_extractor(config: ExtractorConfig, known: Sequence[KnownEntity] = ()) -> Extractor:
    match config.kind:
        case ExtractorKind.OFFLINE | ExtractorKind.RULES:
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
    raise InvalidInput(f"unknown extractor {config.kind!r}")


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


def build(
    config: StructuralConfig,
    path: Path,
    *,
    known: Sequence[KnownEntity] = (),
    embedder: Embedder | None = None,
) -> StructuralKB:
    from hybridkg.structural.embedding.factory import make_embedder
    from hybridkg.structural.graphstore.factory import make_graph_store
    from hybridkg.structural.knowledge import StructuralKB, VectorSet

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
    return StructuralKB(graph, VectorSet(entities, relations, chunks), emb, extractor, config)
