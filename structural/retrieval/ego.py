"""Graph level, part one: the per-query ego network G_q of the seeds, grown level by level behind a gate.

G_q is never the whole graph. Level 0 is the seeds; level ``l`` is fetched with one call for the RELATED edges of
the nodes of level ``l - 1`` that pass the gate (``SharedRecords.incident`` on an in-process store, else a capped
``neighbourhood(ENTITY, frontier, depth=1, rel_types=[RELATED])``), up to ``d_max`` levels (the local and global
runs of a hybrid query share each call):

* the gate score of a node is the propagation's own score (:mod:`.propagate`) after as many iterations as
  levels grown, over G_q as grown so far, divided by its maximum: ``s_0 = p0`` (the seeds' weights, normalised
  to sum 1), ``s_l = (1 - lambda) p0 + lambda P^T s_(l-1)`` with ``P(u -> v) = w(u, v) / sum_x w(u, x)`` over
  the edges traversed so far, and ``gate_l(v) = s_l(v) / max s_l``. So at level 0 a seed's gate is its weight
  over the largest seed weight, and a node first reached at level ``l`` gets the mass its neighbours pass it
  in ``l`` damped steps; it joins the next frontier only when ``gate_l(v) >= theta`` (the others stay in G_q as
  leaves). A hub splits its score over many edges, so its neighbours are rarely expanded: G_q stays small
  where the graph is dense. Seeds the query names (linked entities) are expanded whatever their gate;
* ``|G_q| <= max_ego_nodes``: new nodes are admitted highest gate first and expansion stops at the cap (the
  gate of a level is computed before the cap cuts it).

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
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from hybridkg.structural.base import ENTITY, RELATED, Edge, GraphStore, Node, SharedRecords
from hybridkg.structural.feedback import effective_attention, number
from hybridkg.structural.graphstore.limits import incident_lists
from hybridkg.structural.retrieval.memo import BoundedMemo
from hybridkg.structural.retrieval.propagate import FloatArray, damped_scores, normalised
from hybridkg.structural.settings import RetrievalConfig

EGO_PROPS = ("domain", "w_struct", "w_attn", "attn_epoch")
# what the result and the context read from an entity that reaches them
RESULT_PROPS = (*EGO_PROPS, "name", "type", "description", "source_chunks", "aliases", "named")


Incident = list[tuple[Edge, str, float]]  # (edge, the other end, w(edge))


def static_weight(props: Mapping[str, Any]) -> float:
    """``max(w_struct, 0)``, 1 when missing: the part of ``w(e)`` that feedback does not change."""
    w_struct = props.get("w_struct", 1.0)
    if type(w_struct) is int:  # the common cases first, without number()'s checks
        return float(w_struct) if w_struct > 0 else 0.0
    if type(w_struct) is float and 0.0 <= w_struct < math.inf:
        return w_struct
    return max(number(w_struct, 1.0), 0.0)


def _attended(props: Mapping[str, Any]) -> bool:
    w_attn = props.get("w_attn")
    return w_attn is not None and w_attn != 1.0


@dataclass(frozen=True, slots=True)
class Adjacency:
    """One node's capped RELATED edges to other entities with their static weights: what expansion reads."""

    incident: Incident  # (edge, other end, max(w_struct, 0)), self-loops and non-entity ends left out
    total: float  # the sum of the weights
    attended: tuple[int, ...]  # positions of the edges whose w_attn is not 1 (their weight depends on the epoch)


def adjacency_of(pairs: Sequence[tuple[Edge, str]], node: str, entities: Container[str]) -> Adjacency:
    incident = [(e, v, static_weight(e.props)) for e, v in pairs if v != node and v in entities]
    attended = tuple(i for i, (e, _, _) in enumerate(incident) if _attended(e.props))
    return Adjacency(incident, sum(w for _, _, w in incident), attended)


class AdjacencyMemo:
    """:class:`Adjacency` per node, shared by the queries of one retriever.

    An entry is valid while the store hands out the same list object for the node (a store with
    :class:`~hybridkg.structural.base.SharedRecords` replaces the list when the node's relationships change);
    it is rebuilt otherwise. At most ``capacity`` entries; the oldest quarter goes when it is full."""

    def __init__(self, capacity: int = 262_144) -> None:
        self._memo: BoundedMemo[str, tuple[object, Adjacency]] = BoundedMemo(capacity)

    def get(self, node: str, source: object) -> Adjacency | None:
        entry = self._memo.get(node)
        return entry[1] if entry is not None and entry[0] is source else None

    def put(self, node: str, source: object, adjacency: Adjacency) -> None:
        self._memo.put(node, (source, adjacency))


def shared_adjacency(
    shared: SharedRecords, ids: Sequence[str], fanout: int | None, memo: AdjacencyMemo
) -> dict[str, Adjacency]:
    """The :class:`Adjacency` of each entity among ``ids``, from ``memo`` where it is still valid."""
    lists = shared.incident(ENTITY, ids, RELATED, fanout, "w_struct")
    found: dict[str, Adjacency] = {}
    missing: dict[str, Sequence[tuple[Edge, str]]] = {}
    for u, pairs in lists.items():
        known = memo.get(u, pairs)
        if known is None:
            missing[u] = pairs
        else:
            found[u] = known
    if missing:
        ends = shared.shared_nodes(ENTITY, [v for pairs in missing.values() for _, v in pairs])
        for u, source in missing.items():
            found[u] = adjacency_of(source, u, ends)
            memo.put(u, source, found[u])
    return found


class GraphCache:
    """What one query fetched from the graph: entity nodes, and the RELATED edges of every expanded node.

    The runs of a hybrid query share it, so a node expanded by one run costs the other nothing. A store that
    keeps its records in process (:class:`~hybridkg.structural.base.SharedRecords`: the mirror, the in-memory
    store) hands out its records with every property and no copy, and each node's capped edge list stays the
    same object until the node's edges change, so its :class:`Adjacency` is built once (``memo``). Any other
    store is asked for the few properties each step needs (:data:`EGO_PROPS` while G_q grows,
    :data:`RESULT_PROPS` for the result).
    """

    def __init__(
        self,
        graph: GraphStore,
        epoch: int,
        decay: float,
        domain: str | None,
        fanout: int | None = None,
        memo: AdjacencyMemo | None = None,
    ) -> None:
        self.graph = graph
        self.fanout = fanout
        self.epoch = epoch
        self.decay = decay
        self.domain = domain
        self.nodes: dict[str, Node] = {}
        self.shared: SharedRecords | None = graph if isinstance(graph, SharedRecords) else None
        self._memo = memo if memo is not None else AdjacencyMemo()
        self._incident: dict[str, Incident] = {}
        self._total: dict[str, float] = {}
        self._weight: dict[str, float] = {}
        self._full: set[str] = set()

    def in_domain(self, props: Mapping[str, object]) -> bool:
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
        adjacency: dict[str, Adjacency] = {}
        if self.shared is not None:
            shared = self.shared
            adjacency = shared_adjacency(shared, wanted, self.fanout, self._memo)
            if self.domain is not None:
                ends = shared.shared_nodes(ENTITY, [v for a in adjacency.values() for _, v, _ in a.incident])
                self.nodes.update(ends)
                self._full.update(ends)
        else:
            projected = incident_lists(self.graph, ENTITY, wanted, RELATED, EGO_PROPS, self.fanout, "w_struct")
            for u, node_pairs in projected.items():
                entities = {n.id for _, n in node_pairs if n.label == ENTITY}
                adjacency[u] = adjacency_of([(e, n.id) for e, n in node_pairs], u, entities)
                self.nodes.update((n.id, n) for _, n in node_pairs if n.id not in self._full)
        for u in wanted:
            found = adjacency.get(u)
            if found is None:
                self._incident[u], self._total[u] = [], 0.0
                continue
            incident, total = found.incident, found.total
            if found.attended or self.domain is not None:
                incident, total = self._adjust(found)
            self._incident[u], self._total[u] = incident, total

    def _adjust(self, adjacency: Adjacency) -> tuple[Incident, float]:
        """The node's edges at the current feedback epoch and in the query's domain."""
        incident = list(adjacency.incident)
        for i in adjacency.attended:
            e, v, w = incident[i]
            incident[i] = (e, v, w * effective_attention(e.props, self.epoch, self.decay))
        if self.domain is not None:
            domain, nodes = self.domain, self.nodes
            incident = [
                (e, v, w)
                for e, v, w in incident
                if e.props.get("domain") == domain
                and (n := nodes.get(v)) is not None
                and n.props.get("domain") == domain
            ]
        for e, _, w in incident:
            self._weight[e.id] = w
        return incident, sum(w for _, _, w in incident)

    def incident(self, id_: str) -> Incident:
        """``(edge, other endpoint, w(edge))`` for the admitted RELATED edges of an expanded node."""
        return self._incident.get(id_, [])

    def total(self, id_: str) -> float:
        """The summed ``w`` of :meth:`incident`."""
        return self._total.get(id_, 0.0)

    def weight(self, edge: Edge) -> float:
        """``w(e) = max(w_struct, 0) * w_attn_eff``."""
        w = self._weight.get(edge.id)
        if w is None:
            props = edge.props
            w = static_weight(props)
            if _attended(props):
                w *= effective_attention(props, self.epoch, self.decay)
            self._weight[edge.id] = w
        return w


@dataclass(slots=True)
class EgoNetwork:
    """G_q with its edges as index arrays, ready for propagation."""

    ids: list[str]
    edges: list[Edge]
    src: npt.NDArray[np.intp]
    dst: npt.NDArray[np.intp]
    weights: npt.NDArray[np.float64]
    provisional: dict[str, float]  # p(v) of the gate

    @property
    def size(self) -> int:
        return len(self.ids)


class _Growth:
    """The state of one G_q while it grows; several grow in lockstep so that each level is one graph call.

    ``members`` maps each node of G_q to its gate score when it was admitted, in admission order; the edges
    traversed between members are kept as parallel lists of endpoint positions and weights, so that each
    level's gate and the final arrays cost work only for what the level adds."""

    def __init__(self, seeds: Mapping[str, float], extra_edges: Sequence[Edge], forced: Container[str]) -> None:
        self.seeds = seeds
        self.extra_edges = extra_edges
        self.forced = forced
        self.order = sorted(seeds, key=lambda s: (s not in forced, -seeds[s], s))
        self.members: dict[str, float] = {}
        self.index: dict[str, int] = {}
        self.frontier: list[str] = []
        self.edges: dict[str, tuple[Edge, float]] = {}
        self.src: list[int] = []
        self.dst: list[int] = []
        self.weights: list[float] = []
        self.level = 0

    def admit_seeds(self, cache: GraphCache, theta: float, cap: int) -> None:
        admitted = [s for s in self.order if cache.entity(s) is not None][:cap]
        top = max((self.seeds[s] for s in admitted), default=0.0)
        self.members = {s: self.seeds[s] / top if top > 0 else 0.0 for s in admitted}
        self.index = {s: i for i, s in enumerate(admitted)}
        self.frontier = [s for s in admitted if self.members[s] >= theta or s in self.forced]

    def step(self, cache: GraphCache, last: bool, theta: float, cap: int, damping: float) -> None:
        """Admit the next level from the (already expanded) frontier, highest gate score first, up to the cap."""
        self.level += 1
        index, edges = self.index, self.edges
        reached: dict[str, int] = {}
        new: list[tuple[Edge, float]] = []
        seen: set[str] = set()
        for u in self.frontier:
            for e, v, w in cache.incident(u):
                if e.id in edges or e.id in seen:
                    continue
                seen.add(e.id)
                new.append((e, w))
                if v not in index and v not in reached:
                    reached[v] = len(index) + len(reached)
        gate = self._gate(reached, new, damping)
        base = len(index)
        ranked = sorted(reached, key=lambda v: (-gate[reached[v] - base], v))
        admitted = ranked[: max(cap - len(index), 0)]
        for v in admitted:
            self.members[v] = float(gate[reached[v] - base])
            index[v] = len(index)
        for e, w in new:
            i, j = index.get(e.src), index.get(e.dst)
            if i is not None and j is not None:
                self._add_edge(e, w, i, j)
        self.frontier = [] if last else [v for v in admitted if gate[reached[v] - base] >= theta]

    def _add_edge(self, e: Edge, w: float, i: int, j: int) -> None:
        self.edges[e.id] = (e, w)
        self.src.append(i)
        self.dst.append(j)
        self.weights.append(w)

    def _gate(self, reached: Mapping[str, int], new: Sequence[tuple[Edge, float]], damping: float) -> FloatArray:
        """The gate of the nodes ``reached`` (positions after the members'): the propagation's iterate
        ``s_level / max`` over the members, ``reached`` and the edges so far plus ``new``."""
        index = self.index
        n = len(index) + len(reached)
        src, dst, weights = list(self.src), list(self.dst), list(self.weights)
        for e, w in new:
            src.append(index[e.src] if e.src in index else reached[e.src])
            dst.append(index[e.dst] if e.dst in index else reached[e.dst])
            weights.append(w)
        weight = np.zeros(n)
        seeds = self.seeds
        for s, i in index.items():
            if s in seeds:
                weight[i] = seeds[s]
        s_l, _ = damped_scores(
            n, np.array(src, dtype=np.intp), np.array(dst, dtype=np.intp), np.array(weights), weight, damping, 0.0,
            self.level,
        )
        return normalised(s_l)[len(index) :]

    def finish(self, cache: GraphCache) -> EgoNetwork:
        members, index = self.members, self.index
        for e in self.extra_edges:
            if (
                e.id not in self.edges
                and e.src in members
                and e.dst in members
                and e.src != e.dst
                and cache.in_domain(e.props)
            ):
                self._add_edge(e, cache.weight(e), index[e.src], index[e.dst])
        return EgoNetwork(
            list(index),
            [e for e, _ in self.edges.values()],
            np.array(self.src, dtype=np.intp),
            np.array(self.dst, dtype=np.intp),
            np.array(self.weights, dtype=np.float64),
            members,
        )


def build_egos(
    cache: GraphCache,
    runs: Sequence[tuple[Mapping[str, float], Sequence[Edge]]],
    config: RetrievalConfig,
    forced: Container[str] = (),
) -> list[EgoNetwork]:
    """Grow one G_q per ``(seeds, extra_edges)`` (seeds: id -> seed weight; extra edges, global mode's relation
    hits, join when both endpoints are in G_q). Seeds among ``forced`` (entities the query names) are admitted
    first and expanded whatever their gate score. The runs grow in lockstep: one expansion call per level."""
    theta, cap = config.theta, config.max_ego_nodes
    growths = [_Growth(seeds, extra, forced) for seeds, extra in runs]
    first: list[str] = []
    for g in growths:
        top = max(g.seeds.values(), default=0.0)
        first.extend(s for s in g.order if s in forced or (top > 0 and g.seeds[s] / top >= theta))
    cache.expand(first)
    cache.fetch(s for g in growths for s in g.order)
    for g in growths:
        g.admit_seeds(cache, theta, cap)
    for level in range(1, config.d_max + 1):
        active = [g for g in growths if g.frontier and len(g.members) < cap]
        if not active:
            break
        cache.expand([u for g in active for u in g.frontier])
        for g in active:
            g.step(cache, level == config.d_max, theta, cap, config.damping)
    return [g.finish(cache) for g in growths]


def build_ego(
    cache: GraphCache,
    seeds: Mapping[str, float],
    config: RetrievalConfig,
    extra_edges: Sequence[Edge] = (),
    forced: Container[str] = (),
) -> EgoNetwork:
    """G_q of one seed set (see :func:`build_egos`)."""
    return build_egos(cache, [(seeds, extra_edges)], config, forced)[0]
