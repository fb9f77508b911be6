"""The per-node relationship cap of ``GraphStore.neighbourhood(..., limit=, order_by=)``, shared by the stores."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from ...errors import InvalidInput
from ..base import Edge, Subgraph
from .dialect import check_name


def check_limit(limit: int | None, order_by: str | None, depth: int) -> None:
    if limit is None:
        return
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidInput(f"limit must be a positive integer, got {limit!r}")
    if depth != 1:
        raise InvalidInput("limit applies to depth=1 only")
    if order_by is not None:
        check_name("property", order_by)


def sort_key(edge: Edge, order_by: str | None) -> tuple[float, str]:
    value = edge.props.get(order_by) if order_by is not None else None
    number = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0
    return (-number if math.isfinite(number) else 0.0, edge.id)


def heaviest(edges: Iterable[Edge], limit: int, order_by: str | None) -> list[Edge]:
    return sorted(edges, key=lambda e: sort_key(e, order_by))[:limit]


def cap_per_node(sub: Subgraph, ids: Sequence[str], limit: int, order_by: str | None) -> Subgraph:
    """``sub`` (a depth-1 neighbourhood of ``ids``) keeping each node's ``limit`` heaviest relationships."""
    wanted = set(ids)
    incident: dict[str, list[Edge]] = {}
    for e in sub.edges:
        for end in {e.src, e.dst} & wanted:
            incident.setdefault(end, []).append(e)
    kept: dict[tuple[str, str], Edge] = {}
    for edges in incident.values():
        for e in heaviest(edges, limit, order_by):
            kept[(e.type, e.id)] = e
    reached = wanted | {x for e in kept.values() for x in (e.src, e.dst)}
    return Subgraph(nodes={i: n for i, n in sub.nodes.items() if i in reached}, edges=list(kept.values()))
