"""The retrieval engine: one query through the vector level, the graph level, fusion and context compression.

Modes, as LightRAG users know them:

* ``local``: entity-centred. Entity-index seeds -> ego network -> propagation -> fused entity scores.
* ``global``: relation-centred. Relation-index hits; their endpoints are the seeds; relations lead the context.
* ``hybrid`` (default): local and global, merged by id keeping the higher score.
* ``naive``: the chunk index alone, no graph.
* ``mix``: hybrid plus the naive chunks.

In the graph modes, the entities the query names (:mod:`.linking`, unless ``link_entities`` is off) are seeds
too, ahead of the vector seeds, each weighted by its own ``alpha = max(cos(q, v), 0)`` and expanded whatever
its gate score; ``RetrievalResult.linked`` lists them. The items are ordered for answering
(:mod:`.answers`).

Every mode returns a :class:`~.results.RetrievalResult` with the scores, the evidence subgraph ids and a context
string under the token budget. The formulas are in the modules of each step (:mod:`.vector`, :mod:`.ego`,
:mod:`.propagate`, :mod:`.fusion`, :mod:`.compress`) and in ``docs/retrieval.md``. Retrieval never writes.
"""

from __future__ import annotations

import numbers
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tqdm import tqdm

from hybridkg.errors import InvalidInput
from hybridkg.structural.base import CHUNK, ENTITY, Edge, Embedder, GraphStore, Node, SharedRecords, VectorIndex
from hybridkg.structural.feedback import read_epoch
from hybridkg.structural.retrieval.answers import (
    TypeMatcher,
    ahead_of_bridges,
    answer_order,
    expected_type,
    typed_scores,
)
from hybridkg.structural.retrieval.compress import (
    CHUNK_KIND,
    ENTITY_KIND,
    HEADERS,
    RELATION_KIND,
    Candidate,
    CandidateFactory,
    assemble,
    importance,
    keep_top,
    keywords_of,
    name_of,
    strings_of,
    whitespace_tokens,
)
from hybridkg.structural.retrieval.ego import AdjacencyMemo, GraphCache, build_egos, shared_adjacency
from hybridkg.structural.retrieval.fusion import Evidence, alpha_weight_for, merge_runs, score_run
from hybridkg.structural.retrieval.hops import BridgeChunks, HopReading, read_hops
from hybridkg.structural.retrieval.linking import EntityLinker
from hybridkg.structural.retrieval.reader import readable, rrf
from hybridkg.structural.retrieval.results import (
    ContextChunk,
    LinkedEntity,
    RetrievalResult,
    ScoredEntity,
    ScoredRelation,
)
from hybridkg.structural.retrieval.vector import chunk_hits, embed_query, entity_alpha, entity_seeds, relation_seeds
from hybridkg.structural.settings import FeedbackConfig, Mode, RetrievalConfig

MAX_TOP_K = 1000
CANDIDATES_PER_SLOT = 3  # compression weighs the best 3 * top_k entities, relations and chunks by score
_LOCAL = (Mode.LOCAL, Mode.HYBRID, Mode.MIX)
_GLOBAL = (Mode.GLOBAL, Mode.HYBRID, Mode.MIX)


def _mode(mode: Mode | str) -> Mode:
    try:
        return mode if isinstance(mode, Mode) else Mode(str(mode).strip().lower())
    except ValueError:
        names = ", ".join(m.value for m in Mode)
        raise InvalidInput(f"unknown retrieval mode {mode!r}; expected one of {names}") from None


def _top_k(top_k: int | None, default: int) -> int:
    if top_k is None:
        return min(default, MAX_TOP_K)
    if isinstance(top_k, bool) or not isinstance(top_k, numbers.Integral) or not 1 <= top_k <= MAX_TOP_K:
        raise InvalidInput(f"top_k must be an integer from 1 to {MAX_TOP_K}, got {top_k!r}")
    return int(top_k)


def _alpha_weight(value: float | None) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 <= float(value) <= 1.0:
        raise InvalidInput(f"alpha_weight must be a number from 0 to 1, got {value!r}")
    return float(value)


class Retriever:
    """Answers retrieval queries over a graph store and its entity, relation and chunk vector indexes."""

    def __init__(
        self,
        graph: GraphStore,
        entities: VectorIndex,
        relations: VectorIndex,
        chunks: VectorIndex,
        embedder: Embedder,
        config: RetrievalConfig,
        feedback_config: FeedbackConfig,
        count_tokens: Callable[[str], int] | None = None,
    ) -> None:
        dims = {"entities": entities.dim, "relations": relations.dim, "chunks": chunks.dim}
        wrong = {name: dim for name, dim in dims.items() if dim != embedder.dim}
        if wrong:
            raise InvalidInput(f"the embedder produces dimension {embedder.dim} but the indexes hold {wrong}")
        self._graph = graph
        self._entities = entities
        self._relations = relations
        self._chunks = chunks
        self._embedder = embedder
        self._config = config
        self._feedback = feedback_config
        self._count = count_tokens or whitespace_tokens
        self._candidates = CandidateFactory()
        self._adjacency = AdjacencyMemo()
        self._linker = EntityLinker(graph, config.link_max_edits)
        self._types = TypeMatcher(embedder)

    def names_changed(self, added: Mapping[str, Sequence[str]], removed: Sequence[str]) -> None:
        """Keep query entity linking current after a write: ``added`` maps each entity written to all its names
        (the name first, then the aliases), ``removed`` lists the entities deleted. The knowledge base's writer
        calls this after every write; it costs nothing before the first linked query."""
        self._linker.names_changed(added, removed)

    def link(self, query: str, domain: str | None = None) -> list[LinkedEntity]:
        """The entities ``query`` names (see :mod:`.linking`), whether or not ``link_entities`` is on."""
        return self._linker.link(query, domain)

    def forget_candidates(self) -> None:
        """Drop the memo of context candidates (texts, term ids, token counts); queries rebuild it as they go."""
        self._candidates = CandidateFactory()

    def prepare(self, *, batch: int = 4096, progress: bool = False) -> int:
        """Build what the graph level reads for every entity ahead of the first queries: each entity's capped
        edge list (the store sorts it) and its weights, as a query would on first touching the entity. Only
        for stores that keep their records in process (the mirror); returns the number of entities prepared
        (0 for other stores). Later writes invalidate per node, as usual."""
        if self._config.link_entities:
            self._linker.load()
        if not isinstance(self._graph, SharedRecords):
            return 0
        ids = self._graph.shared_ids(ENTITY)
        steps = range(0, len(ids), batch)
        for start in tqdm(steps, desc="prepare retrieval", unit="batch", disable=not progress or not ids):
            shared_adjacency(self._graph, ids[start : start + batch], self._config.max_fanout, self._adjacency)
        return len(ids)

    def retrieve(
        self,
        query: str,
        *,
        mode: Mode | str = Mode.HYBRID,
        top_k: int | None = None,
        domain: str | None = None,
        query_vector: Any = None,
        alpha_weight: float | None = None,
    ) -> RetrievalResult:
        """Retrieve evidence for ``query``; ``query_vector`` (dimension of the embedder) skips embedding.

        Raises :class:`InvalidInput` for an empty query, an unknown mode, ``top_k`` outside 1..1000, an
        ``alpha_weight`` outside [0, 1], an empty domain or a query vector of the wrong shape.
        """
        start = time.perf_counter()
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("the query is empty")
        mode_ = _mode(mode)
        k_out = _top_k(top_k, self._config.top_k)
        explicit = _alpha_weight(alpha_weight)
        if domain is not None and (not isinstance(domain, str) or not domain.strip()):
            raise InvalidInput(f"domain must be a non-empty string, got {domain!r}")
        q, embed_ms = embed_query(self._embedder, query, query_vector, self._embedder.dim)
        result = RetrievalResult(mode=mode_, embed_ms=embed_ms)
        naive = chunk_hits(self._chunks, self._graph, q, k_out, domain) if mode_ in (Mode.NAIVE, Mode.MIX) else []
        if mode_ is Mode.NAIVE:
            result.chunks = [_chunk(node, score) for node, score in naive]
            section = (HEADERS[CHUNK_KIND], [self._candidates.chunk(node, 0.0) for node, _ in naive])
            result.context, result.context_tokens = assemble([section], self._config.token_budget, self._count)
        else:
            self._graph_modes(query, q, mode_, k_out, domain, explicit, naive, result)
        result.took_ms = (time.perf_counter() - start) * 1000.0
        return result

    def _graph_modes(
        self,
        query: str,
        q: Any,
        mode: Mode,
        k_out: int,
        domain: str | None,
        explicit: float | None,
        naive: Sequence[tuple[Node, float]],
        result: RetrievalResult,
    ) -> None:
        cfg = self._config
        a = alpha_weight_for(query, cfg, explicit)
        cache = GraphCache(
            self._graph, read_epoch(self._graph), self._feedback.decay, domain, cfg.max_fanout, self._adjacency
        )
        linked = self._linker.link(query, domain) if cfg.link_entities else []
        known = entity_alpha(self._entities, q, [e.id for e in linked]) if linked else {}
        named = {e.id: known.get(e.id, 0.0) for e in linked}
        grown: list[tuple[dict[str, float], dict[str, float], list[Edge]]] = []
        if mode in _LOCAL:
            vector_seeds = entity_seeds(self._entities, cache, q, cfg.k)
            known.update(vector_seeds)
            grown.append(({**named, **vector_seeds}, {}, []))
        if mode in _GLOBAL:
            seeds, rel_alpha, hits = relation_seeds(self._relations, cache, q, cfg.k)
            for i, w in named.items():
                seeds[i] = max(seeds.get(i, 0.0), w)
            grown.append((seeds, rel_alpha, hits))
        egos = build_egos(cache, [(seeds, hits) for seeds, _, hits in grown], cfg, named)
        missing = [i for i in dict.fromkeys(i for ego in egos for i in ego.ids) if i not in known]
        alpha = {**known, **entity_alpha(self._entities, q, missing)}
        result.linked = [e for e in linked if cache.entity(e.id) is not None]
        runs = [
            score_run(ego, seeds, alpha, rel_alpha, a, cfg)
            for ego, (seeds, rel_alpha, _) in zip(egos, grown, strict=True)
        ]
        evidence = merge_runs(runs)
        entity_order, relation_order = evidence.entity_order(), evidence.relation_order()
        pool = CANDIDATES_PER_SLOT * k_out
        pool_entities, pool_relations = entity_order[:pool].tolist(), relation_order[:pool].tolist()
        ids, edges = evidence.ids, evidence.edges
        complete = cache.hydrate([ids[p] for p in pool_entities], {edges[p].id: edges[p] for p in pool_relations})
        for p in pool_relations:
            edges[p] = complete.get(edges[p].id, edges[p])
        wanted = expected_type(query)
        if wanted is not None and pool_entities:
            types = [str(cache.nodes[ids[p]].props.get("type") or "") for p in pool_entities]
            typed = typed_scores(evidence.score[pool_entities].tolist(), self._types.compat(wanted, types))
            rank = {p: t for p, t in zip(pool_entities, typed, strict=True)}
            pool_entities = sorted(pool_entities, key=lambda p: (-rank[p], ids[p]))
        first_top = [ids[p] for p in answer_order(pool_entities, ids, query, result.linked, k_out)]
        chunk_nodes, prior = self._chunk_pool(cache, first_top, pool, naive)
        hop = HopReading()
        if cfg.read_chunks and readable(query, result.linked):
            have = {n.id for n in chunk_nodes}
            read_nodes = chunk_nodes + self._linked_chunks(cache, q, result.linked, pool, have)
            hop = self._read(query, result.linked, read_nodes, cache, wanted, pool)
        reading = hop.scores
        position = {ids[p]: p for p in pool_entities}
        graph_order = [ids[p] for p in pool_entities]
        reader_order = sorted(reading, key=lambda i: (-reading[i], i))
        fused = rrf([graph_order, reader_order]) if reading else {}
        order_ids = sorted(dict.fromkeys([*graph_order, *reader_order]), key=lambda i: -fused.get(i, 0.0))
        if reader_order:  # the reader's best answer leads (see reader.py); the fusion orders the rest
            order_ids = list(dict.fromkeys([reader_order[0], *order_ids]))
        order_ids = ahead_of_bridges(order_ids, hop.bridged)
        answers = answer_order(range(len(order_ids)), order_ids, query, result.linked, k_out)
        top = [order_ids[p] for p in answers]
        extra = [i for i in top if i not in position]
        extra_alpha = entity_alpha(self._entities, q, extra) if extra else {}
        # an item only the reader found has no graph evidence (score and beta 0) and its own cosine as alpha
        result.items = [
            _entity(cache.nodes[i], evidence.score[p], evidence.alpha[p], evidence.beta[p])
            if (p := position.get(i)) is not None
            else _entity(cache.nodes[i], 0.0, extra_alpha.get(i, 0.0), 0.0)
            for i in top
        ]
        result.relations = [_relation(evidence, cache, p) for p in pool_relations[:k_out]]
        result.subgraph_nodes = [ids[p] for p in entity_order.tolist()]
        result.subgraph_edges = [edges[p].id for p in relation_order.tolist()]
        result.iterations = evidence.iterations

        centrality = evidence.centrality().tolist()
        make = self._candidates
        candidates = [make.entity(cache.nodes[ids[p]], centrality[p]) for p in pool_entities]
        candidates += [make.entity(cache.nodes[i], 0.0) for i in extra]
        src, dst = evidence.src.tolist(), evidence.dst.tolist()
        for p in pool_relations:
            mean = (centrality[src[p]] + centrality[dst[p]]) / 2.0
            candidates.append(make.relation(edges[p], cache.nodes, mean))
        cited = {i: set(strings_of(cache.nodes[i].props.get("source_chunks"))) for i in first_top}
        for node in chunk_nodes:
            mentions = set(strings_of(node.props.get("entity_ids")))
            share = (
                sum(1 for i in first_top if node.id in cited[i] or i in mentions) / len(first_top) if first_top else 0.0
            )
            candidates.append(make.chunk(node, share))
        weights = importance(query, candidates)
        ranking = [
            max(w, prior.get(c.id, 0.0)) if c.kind == CHUNK_KIND else w
            for c, w in zip(candidates, weights, strict=True)
        ]
        kept = keep_top(candidates, ranking, k_out)
        by_id = {n.id: n for n in chunk_nodes}
        result.chunks = [_chunk(by_id[c.id], s) for c, s in kept[CHUNK_KIND]]
        first, second = (RELATION_KIND, ENTITY_KIND) if mode is Mode.GLOBAL else (ENTITY_KIND, RELATION_KIND)
        order = (first, second, CHUNK_KIND)
        sections: list[tuple[str, list[Candidate]]] = [(HEADERS[k], [c for c, _ in kept[k]]) for k in order]
        result.context, result.context_tokens = assemble(sections, cfg.token_budget, self._count)

    def _linked_chunks(
        self, cache: GraphCache, q: Any, linked: Sequence[LinkedEntity], pool: int, have: set[str]
    ) -> list[Node]:
        """The chunks citing the query's linked entities that ``have`` lacks: the ``pool`` nearest ``q`` when
        they cite more."""
        if not linked:
            return []
        cache.hydrate([e.id for e in linked], {})
        wanted = [
            c
            for c in dict.fromkeys(c for e in linked for c in strings_of(cache.nodes[e.id].props.get("source_chunks")))
            if c not in have
        ]
        if len(wanted) > pool:
            near = entity_alpha(self._chunks, q, wanted)
            wanted = sorted(wanted, key=lambda c: -near.get(c, 0.0))[:pool]
        return self._fetch_chunks(cache, wanted)

    def _read(
        self,
        query: str,
        linked: Sequence[LinkedEntity],
        chunks: Sequence[Node],
        cache: GraphCache,
        wanted: str | None,
        pool: int,
    ) -> HopReading:
        """Reading scores (:mod:`.reader`, on from bridge entities by :mod:`.hops`, fetching up to ``pool`` of
        their chunks) of the named entities the chunks mention, times the answer-type factor when the question
        has an expected type."""
        mentioned = list(
            dict.fromkeys([e.id for e in linked] + [i for n in chunks for i in strings_of(n.props.get("entity_ids"))])
        )
        if not mentioned:
            return HopReading()
        cache.hydrate(mentioned, {})
        entities = {i: n for i in mentioned if (n := cache.nodes.get(i)) is not None and cache.in_domain(n.props)}
        fetch = BridgeChunks(cache, self._fetch_chunks, pool)
        hop = read_hops(query, linked, chunks, entities, fetch, hops=self._config.read_hops,
                        described=(wanted or "").split())
        scores = hop.scores
        if wanted is not None and scores:
            keys = list(scores)
            compat = self._types.compat(wanted, [str(cache.nodes[i].props.get("type") or "") for i in keys])
            hop.scores = dict(zip(keys, typed_scores([scores[i] for i in keys], compat), strict=True))
        return hop

    def _chunk_pool(
        self, cache: GraphCache, top: Sequence[str], pool: int, naive: Sequence[tuple[Node, float]]
    ) -> tuple[list[Node], dict[str, float]]:
        """Chunk candidates: the chunks the top entities cite most (up to ``pool``), plus the naive hits with
        their cosine."""
        counts: dict[str, int] = {}
        for i in top:
            for chunk_id in dict.fromkeys(strings_of(cache.nodes[i].props.get("source_chunks"))):
                counts[chunk_id] = counts.get(chunk_id, 0) + 1
        prior = {node.id: score for node, score in naive}
        wanted = [c for c in sorted(counts, key=lambda c: -counts[c])[:pool] if c not in prior]
        return self._fetch_chunks(cache, wanted) + [node for node, _ in naive], prior

    def _fetch_chunks(self, cache: GraphCache, ids: Sequence[str]) -> list[Node]:
        """The chunk nodes of ``ids`` the graph holds in the query's domain, in the order of ``ids`` (one call)."""
        if not ids:
            return []
        fetched = self._graph.neighbourhood(CHUNK, ids, depth=0).nodes
        return [n for c in ids if (n := fetched.get(c)) is not None and n.label == CHUNK and cache.in_domain(n.props)]


def _entity(node: Node, score: float, alpha: float, beta: float) -> ScoredEntity:
    props = node.props
    return ScoredEntity(
        id=node.id,
        name=name_of(node, node.id),
        type=str(props.get("type") or ""),
        description=str(props.get("description") or ""),
        score=float(score),
        alpha=float(alpha),
        beta=float(beta),
    )


def _relation(evidence: Evidence, cache: GraphCache, p: int) -> ScoredRelation:
    edge = evidence.edges[p]
    props = edge.props
    return ScoredRelation(
        id=edge.id,
        src=edge.src,
        dst=edge.dst,
        src_name=name_of(cache.nodes.get(edge.src), edge.src),
        dst_name=name_of(cache.nodes.get(edge.dst), edge.dst),
        type=str(props.get("type") or "related_to"),
        keywords=keywords_of(props.get("keywords")),
        description=str(props.get("description") or ""),
        score=float(evidence.edge_score[p]),
    )


def _chunk(node: Node, score: float) -> ContextChunk:
    text = node.props.get("text")
    return ContextChunk(node.id, str(node.props.get("doc") or ""), text if isinstance(text, str) else "", score)
