"""Graph level, part one: the per-query ego network G_q of the seeds, grown level by level behind a gate.

G_q is never the whole graph. Level 0 is the seeds; level ``l`` is fetched with a
``neighbourhood(ENTITY, frontier, depth=1, rel_types=[RELATED])`` call for the nodes of level ``l - 1`` that pass
the gate, up to ``d_max`` levels (the local and global runs of a hybrid query share each call):

* ``p(seed) = alpha(seed)``; the level-0 frontier is the seeds with ``alpha >= theta``;
* a node ``v`` first reached at level ``l`` gets the score mass its frontier neighbours pass it in one
  propagation step, ``p(v) = sum over edges (u, v), u in the frontier, of p(u) * w(u, v) / sum_x w(u, x)``
  (``P(u -> v)`` of the propagation below), and joins the next frontier only when ``p(v) >= theta`` (the
  others stay in G_q as leaves). A hub splits its score over many edges, so its neighbours are rarely
  expanded: G_q stays small where the graph is dense;
* ``|G_q| <= max_ego_nodes``: new nodes are admitted highest ``p`` first (the frontier is kept in descending
  ``p``) and expansion stops at the cap.

An expanded node contributes at most its ``max_fanout`` (64) heaviest RELATED edges by ``w_struct`` (ties by
edge id; the store applies the cap, so a hub costs O(max_fanout), not O(degree)): a hub with thousands of
edges (a language or a year in MetaQA) would otherwise flood G_q with leaves.

The edges of G_q are the edges traversed between its nodes (an edge between two leaves is never fetched).
Edge weights are ``w(e) = max(w_struct, 0) * w_attn_eff`` with ``w_attn_eff`` decayed lazily to the current
feedback epoch (:func:`hybridkg.structural.feedback.effective_attention`); missing properties mean
``w_struct = 1``, ``w_attn = 1``. Self-loops are left out. With a domain, nodes and edges of other domains are
left out too.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..base import ENTITY, RELATED, Edge, GraphStore, Node, SharedRecords
from ..feedback import effective_attention, number
from ..graphstore.limits import incident_lists
from ..settings import RetrievalConfig

EGO_PROPS = ("domain", "w_struct", "w_attn", "attn_epoch")
# what the result and the context read from an entity that reaches them
RESULT_PROPS = (*EGO_PROPS, "name", "type", "description", "source_chunks")


class GraphCache:
    """What one query fetched from the graph: entity nodes, and the RELATED edges of every expanded node.

    The runs of a hybrid query share it, so a node expanded by one run costs the other nothing. A store that
    keeps its records in process (:class:`~hybridkg.structural.base.SharedRecords`: the mirror, the in-memory
    store) hands out its records with every property and no copy; any other store is asked for the few
    properties each step needs (:data:`EGO_PROPS` while G_q grows, :data:`RESULT_PROPS` for the result).
    """

    def __init__(
        self, graph: GraphStore, epoch: int, decay: float, domain: str | None, fanout: int | None = None
    ) -> None:
        self.graph = graph
        self.fanout = fanout
        self.epoch = epoch
        self.decay = decay
        self.domain = domain
        self.nodes: dict[str, Node] = {}
        self.shared: SharedRecords | None = graph if isinstance(graph, SharedRecords) else None
        self._incident: dict[str, list[tuple[Edge, str, float]]] = {}
        self._weight: dict[str, float] = {}
        self._full: set[str] = set()

    def in_domain(self, props: dict[str, object]) -> bool:
        return self.domain is None or props.get("domain") == self.domain

    def entity(self, id_: str) -> Node | None:
        """A fetched entity of the query's domain, or ``None``."""
        node = self.nodes.get(id_)
        return node if node is not None and node.label == ENTITY and self.in_domain(node.props) else None

    def fetch(self, ids: Iterable[str]) -> None:
        """Fetch the nodes ``ids`` not fetched yet (one call)."""
        wanted = [i for i in dict.fromkeys(ids) if i not in self.nodes]
        if not wanted:
            return
        if self.shared is not None:
            found = self.shared.shared_nodes(ENTITY, wanted)
            self._full.update(found)
        else:
            found = self.graph.neighbourhood(ENTITY, wanted, depth=0, props=EGO_PROPS).nodes
        self.nodes.update(found)

    def relations(self, ids: Sequence[str]) -> dict[str, Edge]:
        """RELATED relationships by id, every property (one call)."""
        if not ids:
            return {}
        if self.shared is not None:
            return self.shared.shared_edges(RELATED, ids)
        return {e.id: e for e in self.graph.edges(RELATED, list(ids))}

    def hydrate(self, entity_ids: Sequence[str], relations: Mapping[str, Edge]) -> dict[str, Edge]:
        """Complete the entities and relations that reach the result: every property of the relations,
        :data:`RESULT_PROPS` of the entities and of the relations' ends (at most two calls; none for records
        that are complete already). Returns the complete relations by id."""
        edges = dict(relations) if self.shared is not None else self.relations(list(relations))
        wanted = [
            i
            for i in dict.fromkeys([*entity_ids, *(x for e in edges.values() for x in (e.src, e.dst))])
            if i not in self._full
        ]
        if wanted:
            if self.shared is not None:
                full = self.shared.shared_nodes(ENTITY, wanted)
            else:
                full = self.graph.neighbourhood(ENTITY, wanted, depth=0, props=RESULT_PROPS).nodes
            self.nodes.update(full)
            self._full.update(full)
        return edges

    def expand(self, ids: Sequence[str]) -> None:
        """Fetch the RELATED edges (and the neighbours) of the nodes ``ids`` not expanded yet, in one call."""
        wanted = [i for i in dict.fromkeys(ids) if i not in self._incident]
        if not wanted:
            return
        if self.shared is not None:
            lists: Mapping[str, Sequence[tuple[Edge, Node]]] = self.shared.incident(
                ENTITY, wanted, RELATED, self.fanout, "w_struct"
            )
        else:
            lists = incident_lists(self.graph, ENTITY, wanted, RELATED, EGO_PROPS, self.fanout, "w_struct")
        complete = self.shared is not None
        domain, weights, nodes, full = self.domain, self._weight, self.nodes, self._full
        for u in wanted:
            kept: list[tuple[Edge, str, float]] = []
            self._incident[u] = kept
            for edge, other in lists.get(u, ()):
                v = other.id
                if v == u or other.label != ENTITY:
                    continue
                if domain is not None and (other.props.get("domain") != domain or edge.props.get("domain") != domain):
                    continue
                if v not in full:
                    nodes[v] = other
                    if complete:
                        full.add(v)
                w = weights.get(edge.id)
                if w is None:
                    w = self.weight(edge)
                kept.append((edge, v, w))

    def incident(self, id_: str) -> list[tuple[Edge, str, float]]:
        """``(edge, other endpoint, w(edge))`` for the admitted RELATED edges of an expanded node."""
        return self._incident.get(id_, [])

    def weight(self, edge: Edge) -> float:
        """``w(e) = max(w_struct, 0) * w_attn_eff``."""
        w = self._weight.get(edge.id)
        if w is None:
            props = edge.props
            w_struct = props.get("w_struct", 1.0)
            if type(w_struct) is int:  # the common cases first, without number()'s checks
                w = float(w_struct) if w_struct > 0 else 0.0
            elif type(w_struct) is float and 0.0 <= w_struct < math.inf:
                w = w_struct
            else:
                w = max(number(w_struct, 1.0), 0.0)
            w_attn = props.get("w_attn")
            if w_attn is not None and w_attn != 1.0:
                w *= effective_attention(props, self.epoch, self.decay)
            self._weight[edge.id] = w
        return w


@dataclass(slots=True)
class EgoNetwork:
    """G_q with its edges as index arrays, ready for propagation."""

    ids: list[str]
    index: dict[str, int]
    edges: list[Edge]
    src: npt.NDArray[np.intp]
    dst: npt.NDArray[np.intp]
    weights: npt.NDArray[np.float64]
    provisional: dict[str, float]  # p(v) of the gate

    @property
    def size(self) -> int:
        return len(self.ids)


class _Growth:
    """The state of one G_q while it grows; several grow in lockstep so that each level is one graph call."""

    def __init__(self, seeds: dict[str, float], extra_edges: Sequence[Edge]) -> None:
        self.seeds = seeds
        self.extra_edges = extra_edges
        self.order = sorted(seeds, key=lambda s: (-seeds[s], s))
        self.members: dict[str, float] = {}
        self.frontier: list[str] = []
        self.edges: dict[str, tuple[Edge, float]] = {}

    def admit_seeds(self, cache: GraphCache, theta: float, cap: int) -> None:
        for s in self.order:
            if len(self.members) < cap and cache.entity(s) is not None:
                self.members[s] = self.seeds[s]
        self.frontier = [s for s in self.members if self.seeds[s] >= theta]

    def step(self, cache: GraphCache, last: bool, theta: float, cap: int) -> None:
        """Admit the next level from the (already expanded) frontier, highest p first, up to the cap."""
        members = self.members
        reached: dict[str, float] = {}
        traversed: list[tuple[Edge, str, float]] = []
        for u in self.frontier:
            incident = cache.incident(u)
            if not incident:
                continue
            traversed.extend(incident)
            w_sum = sum(w for _, _, w in incident)
            scale = members[u] / w_sum if w_sum > 0 else 0.0
            for _, v, w in incident:
                if v not in members:
                    reached[v] = reached.get(v, 0.0) + w * scale
        admitted = sorted(reached, key=lambda v: (-reached[v], v))[: cap - len(members)]
        for v in admitted:
            members[v] = reached[v]
        for e, v, w in traversed:
            if v in members:
                self.edges[e.id] = (e, w)
        self.frontier = [] if last else [v for v in admitted if reached[v] >= theta]

    def finish(self, cache: GraphCache) -> EgoNetwork:
        members, edges = self.members, self.edges
        for e in self.extra_edges:
            if e.src in members and e.dst in members and e.src != e.dst and cache.in_domain(e.props):
                edges.setdefault(e.id, (e, cache.weight(e)))
        ids = list(members)
        index = {n: i for i, n in enumerate(ids)}
        count = len(edges)
        edge_list = [e for e, _ in edges.values()]
        src = np.fromiter((index[e.src] for e in edge_list), dtype=np.intp, count=count)
        dst = np.fromiter((index[e.dst] for e in edge_list), dtype=np.intp, count=count)
        weights = np.fromiter((w for _, w in edges.values()), dtype=np.float64, count=count)
        return EgoNetwork(ids, index, edge_list, src, dst, weights, members)


def build_egos(
    cache: GraphCache, runs: Sequence[tuple[dict[str, float], Sequence[Edge]]], config: RetrievalConfig
) -> list[EgoNetwork]:
    """Grow one G_q per ``(seeds, extra_edges)`` (seeds: id -> alpha; extra edges, global mode's relation hits,
    join when both endpoints are in G_q). The runs grow in lockstep: one expansion call per level for all."""
    theta, cap = config.theta, config.max_ego_nodes
    growths = [_Growth(seeds, extra) for seeds, extra in runs]
    cache.expand([s for g in growths for s in g.order if g.seeds[s] >= theta])
    cache.fetch(s for g in growths for s in g.order)
    for g in growths:
        g.admit_seeds(cache, theta, cap)
    for level in range(1, config.d_max + 1):
        active = [g for g in growths if g.frontier and len(g.members) < cap]
        if not active:
            break
        cache.expand([u for g in active for u in g.frontier])
        for g in active:
            g.step(cache, level == config.d_max, theta, cap)
    return [g.finish(cache) for g in growths]


def build_ego(
    cache: GraphCache, seeds: dict[str, float], config: RetrievalConfig, extra_edges: Sequence[Edge] = ()
) -> EgoNetwork:
    """G_q of one seed set (see :func:`build_egos`)."""
    return build_egos(cache, [(seeds, extra_edges)], config)[0]
