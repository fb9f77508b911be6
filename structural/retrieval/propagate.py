"""Graph level, part two: personalised propagation of the seeds' weights over G_q, giving beta.

Scores flow both ways along a stored edge. With ``w(u, v)`` the summed weight of the edges between ``u`` and
``v`` and ``P(u -> v) = w(u, v) / sum_x w(u, x)`` (a node without weighted edges in G_q passes nothing
on):

    p0 = the seeds' weights, normalised to sum 1      (local: alpha; see ``docs/retrieval.md`` for global)
    s_0 = p0,   s_t = (1 - lambda) * p0 + lambda * P^T s_(t-1)
    stop when ||s_t - s_(t-1)||_1 < epsilon or after max_iterations
    beta = s / max(s)

``lambda`` is ``RetrievalConfig.damping``. The iteration converges to ``(1 - lambda) (I - lambda P^T)^-1 p0``;
at the stop, ``||s_t - s*||_1 < lambda / (1 - lambda) * epsilon``. Sparse products are two ``np.bincount``
calls over the edge endpoint arrays. The expansion gate of :mod:`.ego` runs the same iteration
(:func:`damped_scores`) for as many steps as levels grown, over the part of G_q grown so far.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from hybridkg.structural.retrieval.ego import EgoNetwork

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


def damped_scores(
    n: int,
    src: IntArray,
    dst: IntArray,
    weights: FloatArray,
    weight: FloatArray,
    damping: float,
    epsilon: float,
    max_iterations: int,
) -> tuple[FloatArray, int]:
    """``(s_t, t)``: the propagation's iterate for the seed weights ``weight`` (one per node, not normalised)
    over the edges ``src -> dst`` with ``weights``, ``s / max(s)`` left to the caller. All zeros when no
    weight is positive."""
    total = float(weight.sum())
    if n == 0 or total <= 0:
        return np.zeros(n), 0
    p0 = weight / total
    frm = np.concatenate([src, dst])
    to = np.concatenate([dst, src])
    w = np.concatenate([weights, weights])
    strength = np.bincount(frm, weights=w, minlength=n)
    denom = strength[frm]
    prob = np.divide(w, denom, out=np.zeros_like(w), where=denom > 0)
    base = (1.0 - damping) * p0
    s = p0
    iterations, delta = 0, math.inf
    while delta >= epsilon and iterations < max_iterations:
        nxt = base + damping * np.bincount(to, weights=prob * s[frm], minlength=n)
        delta = float(np.abs(nxt - s).sum())
        s, iterations = nxt, iterations + 1
    return s, iterations


def normalised(s: FloatArray) -> FloatArray:
    """``s / max(s)`` (all zeros when ``s`` has no positive entry)."""
    top = float(s.max()) if s.size else 0.0
    return s / top if top > 0 else np.zeros_like(s)


def propagate(
    ego: EgoNetwork, weight: FloatArray, damping: float, epsilon: float, max_iterations: int
) -> tuple[FloatArray, int]:
    """``(beta, iterations)`` for the seed weights ``weight`` (one value per node of ``ego``, 0 off the seeds)."""
    s, iterations = damped_scores(ego.size, ego.src, ego.dst, ego.weights, weight, damping, epsilon, max_iterations)
    return normalised(s), iterations
