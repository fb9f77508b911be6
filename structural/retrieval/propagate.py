"""Graph level, part two: personalised propagation of the seeds' alpha over G_q, giving beta.

Scores flow both ways along a stored edge. With ``w(u, v)`` the summed weight of the edges between ``u`` and
``v`` and ``P(u -> v) = w(u, v) / sum_x w(u, x)`` (a node without weighted edges in G_q passes nothing
on):

    p0 = alpha over the seeds, normalised to sum 1
    s_0 = p0,   s_t = (1 - lambda) * p0 + lambda * P^T s_(t-1)
    stop when ||s_t - s_(t-1)||_1 < epsilon or after max_iterations
    beta = s / max(s)

``lambda`` is ``RetrievalConfig.damping``. The iteration converges to ``(1 - lambda) (I - lambda P^T)^-1 p0``;
at the stop, ``||s_t - s*||_1 < lambda / (1 - lambda) * epsilon``. Sparse products are two ``np.bincount``
calls over the edge endpoint arrays.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from hybridkg.structural.retrieval.ego import EgoNetwork

FloatArray = npt.NDArray[np.float64]


def propagate(
    ego: EgoNetwork, alpha: FloatArray, damping: float, epsilon: float, max_iterations: int
) -> tuple[FloatArray, int]:
    """``(beta, iterations)`` for the personalisation ``alpha`` (one value per node of ``ego``)."""
    n = ego.size
    total = float(alpha.sum())
    if n == 0 or total <= 0:
        return np.zeros(n), 0
    p0 = alpha / total
    frm = np.concatenate([ego.src, ego.dst])
    to = np.concatenate([ego.dst, ego.src])
    w = np.concatenate([ego.weights, ego.weights])
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
    top = float(s.max())
    return (s / top if top > 0 else np.zeros(n)), iterations
