"""Attention feedback: a caller's scores for nodes reweight the RELATED edges leaving them; weights decay lazily.

Each ``RELATED`` edge carries ``w_attn`` (default 1) and ``attn_epoch`` (the feedback epoch of its last update).
The current epoch lives on ``(:Meta {id: "meta:feedback", epoch})`` (missing means 0). An edge's effective
attention at epoch ``E`` is

    w_attn_eff = 1 + (w_attn - 1) * (1 - decay) ** max(E - attn_epoch, 0)

so every feedback call moves every edge a share ``decay`` back toward 1 without touching it: a call writes only
the edges it changes. :meth:`FeedbackLoop.apply` bumps the epoch to ``E + 1`` and, for every scored node ``n`` and
every RELATED edge leaving ``n``, sets ``w_attn = clip(w_attn_eff(E + 1) * (1 + score), w_min, w_max)`` and
``attn_epoch = E + 1``, in one batched upsert. An edge leaves the node it is stored from; an edge of a symmetric
type (:data:`~hybridkg.structural.texts.SYMMETRIC_TYPES`: ``co_occurs``, ``related_to``, stored with the
smaller id as source) leaves both its ends, so feedback on a node reaches all of its symmetric edges whichever
end it was stored at, and an edge between two scored nodes takes both factors ``(1 + score)``. The epoch is
written first: a failure before the edges are written costs one extra decay step, never a weight ahead of its
epoch. Retrieval (:mod:`hybridkg.structural.retrieval.ego`) reads the same formula.
"""

from __future__ import annotations

import math
import numbers
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from hybridkg.errors import InvalidInput, NotFound
from hybridkg.structural.base import ENTITY, RELATED, Edge, EdgeRow, GraphStore
from hybridkg.structural.settings import FeedbackConfig
from hybridkg.structural.texts import SYMMETRIC_TYPES

META = "Meta"
FEEDBACK_META_ID = "meta:feedback"


@dataclass(frozen=True, slots=True)
class FeedbackResult:
    epoch: int  # the feedback epoch after the call
    edges_updated: int
    nodes: int  # nodes whose leaving edges were reweighted


def read_epoch(graph: GraphStore) -> int:
    """The current feedback epoch (0 before the first feedback call)."""
    node = graph.neighbourhood(META, [FEEDBACK_META_ID], depth=0).nodes.get(FEEDBACK_META_ID)
    if node is None:
        return 0
    epoch = node.props.get("epoch")
    return int(epoch) if isinstance(epoch, int | float) and not isinstance(epoch, bool) else 0


def number(value: Any, default: float) -> float:
    """A stored numeric property, or ``default`` when it is missing or not a finite number."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return default


def effective_attention(props: Mapping[str, Any], epoch_now: int, decay: float) -> float:
    """``w_attn`` of an edge decayed from its ``attn_epoch`` to ``epoch_now``."""
    w_attn = number(props.get("w_attn"), 1.0)
    if w_attn == 1.0:
        return 1.0
    steps = max(epoch_now - number(props.get("attn_epoch"), epoch_now), 0.0)
    return 1.0 + (w_attn - 1.0) * (1.0 - decay) ** steps


def _factor(edge: Edge, scores: Mapping[str, float]) -> float | None:
    """The product of ``1 + score`` over the scored ends the edge leaves; ``None`` when it leaves none."""
    at_src = scores.get(edge.src)
    at_dst = scores.get(edge.dst) if edge.props.get("type") in SYMMETRIC_TYPES and edge.dst != edge.src else None
    if at_src is None and at_dst is None:
        return None
    return (1.0 + (at_src or 0.0)) * (1.0 + (at_dst or 0.0))


class FeedbackLoop:
    """Applies attention feedback to a graph; one batched edge upsert per call."""

    def __init__(self, graph: GraphStore, config: FeedbackConfig) -> None:
        if config.w_min > config.w_max:
            raise InvalidInput(f"feedback w_min ({config.w_min}) exceeds w_max ({config.w_max})")
        self._graph = graph
        self._config = config
        self._lock = threading.Lock()

    def apply(self, scores: Mapping[str, float]) -> FeedbackResult:
        """Reweight the RELATED edges leaving each scored node (for symmetric types: every edge incident to it)
        by ``1 + score``; see the module docstring.

        Raises :class:`InvalidInput` for a score that is not a finite number in ``(-1, max_score]`` (and
        ``>= -max_score``) and :class:`NotFound` naming node ids that are not entities; nothing is written then.
        """
        checked = self._check(scores)
        with self._lock:
            sub = self._graph.neighbourhood(ENTITY, list(checked), depth=1, rel_types=[RELATED])
            unknown = [n for n in checked if (node := sub.nodes.get(n)) is None or node.label != ENTITY]
            if unknown:
                shown = ", ".join(repr(n) for n in unknown[:20])
                more = f" and {len(unknown) - 20} more" if len(unknown) > 20 else ""
                raise NotFound(f"feedback names unknown entities: {shown}{more}; nothing was changed")
            epoch = read_epoch(self._graph) + 1
            cfg = self._config
            rows: list[EdgeRow] = []
            for edge in sub.edges:
                factor = _factor(edge, checked)
                if factor is None:
                    continue
                w = effective_attention(edge.props, epoch, cfg.decay) * factor
                props = {"w_attn": min(max(w, cfg.w_min), cfg.w_max), "attn_epoch": epoch}
                rows.append(EdgeRow(edge.id, edge.src, edge.dst, ENTITY, ENTITY, props))
            self._write_epoch(epoch)
            if rows:
                self._graph.upsert_edges(RELATED, rows)
            return FeedbackResult(epoch=epoch, edges_updated=len(rows), nodes=len(checked))

    def decay(self, steps: int = 1) -> FeedbackResult:
        """Advance the epoch by ``steps`` without feedback: every edge moves ``steps`` decay steps toward 1."""
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
            raise InvalidInput(f"decay steps must be a positive integer, got {steps!r}")
        with self._lock:
            epoch = read_epoch(self._graph) + steps
            self._write_epoch(epoch)
            return FeedbackResult(epoch=epoch, edges_updated=0, nodes=0)

    def _write_epoch(self, epoch: int) -> None:
        self._graph.upsert_nodes(META, [{"id": FEEDBACK_META_ID, "epoch": epoch}])

    def _check(self, scores: Mapping[str, float]) -> dict[str, float]:
        if not isinstance(scores, Mapping):
            raise InvalidInput(f"feedback scores must be a mapping of node id to score, got {type(scores).__name__}")
        limit = self._config.max_score
        out: dict[str, float] = {}
        for node, score in scores.items():
            if not isinstance(node, str) or not node:
                raise InvalidInput(f"feedback node ids must be non-empty strings, got {node!r}")
            if isinstance(score, bool) or not isinstance(score, numbers.Real) or not math.isfinite(score):
                raise InvalidInput(f"the feedback score of {node!r} must be a finite number, got {score!r}")
            if score <= -1.0 or abs(score) > limit:
                raise InvalidInput(
                    f"the feedback score of {node!r} is {score}; it must lie in (-1, {limit}] "
                    "(a score s multiplies the node's edge weights by 1 + s)"
                )
            out[node] = float(score)
        return out
