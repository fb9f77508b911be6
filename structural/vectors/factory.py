"""Build the configured vector index."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import assert_never

from hybridkg.errors import InvalidInput, Unsupported
from hybridkg.structural.base import VectorIndex
from hybridkg.structural.settings import VectorBackend, VectorConfig
from hybridkg.structural.vectors.common import check_dim

NativeFactory = Callable[[VectorConfig, int], VectorIndex]


def make_vector_index(
    config: VectorConfig, dim: int, path: Path | None, *, native: VectorIndex | NativeFactory | None = None
) -> VectorIndex:
    """The index ``config.backend`` names, for ``dim``-dimensional vectors, saved in the directory ``path``
    (``None``: in memory only, ``save()`` does nothing).

    The native backend lives in the graph database, so the caller, which holds the graph store, passes
    ``native``: the :class:`~hybridkg.structural.vectors.native.NativeVectorIndex` it built, or a callable
    building one from the config and dimension. It is ignored by the other backends.
    """
    check_dim(dim)
    match config.backend:
        case VectorBackend.AUTO:
            from hybridkg.structural.vectors.tiered import TieredIndex

            return TieredIndex(
                dim,
                path,
                threshold=config.exact_threshold,
                m=config.hnsw_m,
                ef_construction=config.hnsw_ef_construction,
                ef_search=config.hnsw_ef_search,
                compact_fraction=config.compact_fraction,
            )
        case VectorBackend.EXACT:
            from hybridkg.structural.vectors.exact import ExactIndex

            return ExactIndex(dim, path, compact_fraction=config.compact_fraction)
        case VectorBackend.HNSW:
            from hybridkg.structural.vectors.hnsw import HnswIndex

            return HnswIndex(
                dim,
                path,
                m=config.hnsw_m,
                ef_construction=config.hnsw_ef_construction,
                ef_search=config.hnsw_ef_search,
                compact_fraction=config.compact_fraction,
            )
        case VectorBackend.NATIVE:
            if native is None:
                raise Unsupported(
                    "the native vector index lives in the graph database: build it where the graph store is known "
                    "(make_vector_index(..., native=...)), or set vectors.backend to auto, exact or hnsw"
                )
            index = native if isinstance(native, VectorIndex) else native(config, dim)
            if index.dim != dim:
                raise InvalidInput(f"the native vector index has dimension {index.dim}, the embedder {dim}")
            return index
        case _:
            assert_never(config.backend)
