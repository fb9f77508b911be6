"""Clustered unit vectors shaped like sentence embeddings, for vector-index tests."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt


def clustered(
    n: int, dim: int, *, clusters: int = 50, n_queries: int = 0, seed: int = 0
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """``n`` unit rows and ``n_queries`` held-out unit queries around ``clusters`` random centres of varied spread."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim))
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    spread = rng.uniform(0.6, 1.3, clusters)
    share = rng.dirichlet(np.full(clusters, 2.0))

    def draw(count: int) -> npt.NDArray[np.float32]:
        which = rng.choice(clusters, size=count, p=share)
        x = centres[which] + spread[which, None] * rng.standard_normal((count, dim)) / np.sqrt(dim)
        return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)

    return draw(n), draw(n_queries)
