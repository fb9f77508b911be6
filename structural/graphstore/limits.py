"""The per-node relationship cap of ``GraphStore.neighbourhood(..., limit=, order_by=)``, shared by the stores."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from hybridkg.errors import InvalidInput
from hybridkg.structural.base import Edge, GraphStore, Node, Subgraph
from hybridkg.structural.graphstore.dialect import check_name


def check_limit(limit: int | None, order_by: str | None, depth: int) -> None:
    if limit is None:
        return
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidInput(f"limit must be a positive integer, got {limit!r}")
    if depth != 1:
        raise InvalidInput("limit applies to depth=1 only")
    if order_by is not None:
        check_name("property", order_by)


def order_value(props: Mapping[str, Any], order_by: str | None) -> float:
    """The value ``order_by`` sorts on: the property when it is a finite number, else 0."""
    value = props.get(order_by) if order_by is not None else None
    number = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0
    return number if math.isfinite(number) else 0.0


def sort_key(edge: Edge, order_by: str | None) -> tuple[float, str]:
    return (-order_value(edge.props, order_by), edge.id)


def heaviest(edges: Iterable[Edge], limit: int | None, order_by: str | None) -> list[Edge]:
    """``edges`` highest ``order_by`` first (ties by id), the first ``limit`` (all for ``None``)."""
    return sorted(edges, key=lambda e: sort_key(e, order_by))[:limit]


def by_end(edges: Iterable[Edge], ids: Iterable[str]) -> dict[str, list[Edge]]:
    """Each of ``ids`` -> the ``edges`` that end at it (a self-loop once)."""
    incident: dict[str, list[Edge]] = {i: [] for i in ids}
    for e in edges:
        for end in dict.fromkeys((e.src, e.dst)):
            found = incident.get(end)
            if found is not None:
                found.append(e)
    return incident


def cap_per_node(sub: Subgraph, ids: Sequence[str], limit: int, order_by: str | None) -> Subgraph:
    """``sub`` (a depth-1 neighbourhood of ``ids``) keeping each node's ``limit`` heaviest relationships."""
    wanted = set(ids)
    kept: dict[tuple[str, str], Edge] = {}
    for edges in by_end(sub.edges, wanted).values():
        for e in heaviest(edges, limit, order_by):
            kept[(e.type, e.id)] = e
    reached = wanted | {x for e in kept.values() for x in (e.src, e.dst)}
    return Subgraph(nodes={i: n for i, n in sub.nodes.items() if i in reached}, edges=list(kept.values()))


def incident_lists(
    graph: GraphStore,
    label: str,
    ids: Sequence[str],
    rel_type: str,
    props: Sequence[str] | None,
    limit: int | None = None,
    order_by: str | None = None,
) -> Mapping[str, Sequence[tuple[Edge, Node]]]:
    """Each of ``ids`` that is a ``label`` node -> its ``rel_type`` relationships, heaviest ``order_by`` first
    (ties by id), at most ``limit``, each with the node at its other end, projected to ``props``.

    One capped ``neighbourhood`` call: what :meth:`~hybridkg.structural.base.SharedRecords.incident` gives
    for stores that do not keep their records in process."""
    sub = graph.neighbourhood(label, ids, depth=1, rel_types=[rel_type], props=props, limit=limit, order_by=order_by)
    wanted = [i for i in dict.fromkeys(ids) if (n := sub.nodes.get(i)) is not None and n.label == label]
    out: dict[str, list[tuple[Edge, Node]]] = {}
    for node, edges in by_end(sub.edges, wanted).items():
        ordered = heaviest(edges, None, order_by)
        pairs = [(e, n) for e in ordered if (n := sub.nodes.get(e.dst if e.src == node else e.src)) is not None]
        out[node] = pairs[:limit] if limit is not None else pairs
    return out
