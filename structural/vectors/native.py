"""A :class:`~hybridkg.structural.base.VectorIndex` inside the graph database (FalkorDB or Neo4j 5).

Each vector is the ``embedding`` property of the node (label ``target``) or relationship (type ``target``; an
upper-case name such as ``RELATED`` means a relationship type) whose ``id`` it is keyed by, indexed by the
database's HNSW vector index through the store's :class:`~hybridkg.structural.graphstore.dialect.CypherDialect`.
Vectors are attached to elements that exist: upsert the graph first. Deleting a node deletes its vector.

Recall: FalkorDB's default ``efRuntime`` (10) finds only part of the true top 10 (recall@10 0.71 on 20k
clustered 384-d vectors), so the index is created with ``efRuntime = hnsw_ef_search``. Where the beam cannot be
set (Neo4j; a FalkorDB index built earlier with a smaller ``efRuntime``, which is not rebuilt because FalkorDB
rebuilds asynchronously), ``max(k, ef)`` candidates are fetched and the best ``k`` kept. Scores are converted
to cosine similarity.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from hybridkg.errors import InvalidInput, Unsupported
from hybridkg.structural.base import GraphStore, Vector, VectorHit
from hybridkg.structural.graphstore.cypher import CypherGraphStore, batches, id_list
from hybridkg.structural.graphstore.dialect import VECTOR_PROPERTY, check_name
from hybridkg.structural.settings import VectorConfig
from hybridkg.structural.vectors.common import check_dim, hit, unit_query, unit_rows

BATCH = 500
NODE = "(n:{target} {{id: {id}}})"
RELATIONSHIP = "()-[n:{target} {{id: {id}}}]->()"
SET_VECTORS = "UNWIND $rows AS r MATCH {element} SET n.{prop} = {value}"
REMOVE_VECTORS = "UNWIND $ids AS i MATCH {element} SET n.{prop} = null"
MISSING = "UNWIND $ids AS i OPTIONAL MATCH {element} WITH i, count(n) AS c WHERE c = 0 RETURN i"
GET_VECTORS = "UNWIND $ids AS i MATCH {element} WHERE n.{prop} IS NOT NULL RETURN n.id, n.{prop}"
NODE_IDS = "MATCH (n:{target}) WHERE n.{prop} IS NOT NULL RETURN n.id"
RELATIONSHIP_IDS = "MATCH ()-[n:{target}]->() WHERE n.{prop} IS NOT NULL RETURN n.id"
COUNT_NODES = "MATCH (n:{target}) WHERE n.{prop} IS NOT NULL RETURN count(n)"
COUNT_RELATIONSHIPS = "MATCH ()-[n:{target}]->() WHERE n.{prop} IS NOT NULL RETURN count(n)"


class NativeVectorIndex:
    """Cosine top-k over the ``embedding`` property of the ``target`` nodes or relationships of a graph store."""

    def __init__(
        self,
        graph: GraphStore,
        target: str,
        dim: int,
        config: VectorConfig | None = None,
        *,
        relationship: bool | None = None,
    ) -> None:
        if not isinstance(graph, CypherGraphStore):
            raise Unsupported(
                "the native vector index lives in the graph database: it needs the falkordb or neo4j graph "
                "backend (set vectors.backend to auto, exact or hnsw for the in-memory graph)"
            )
        self._graph = graph
        self._dialect = graph.dialect
        self._config = config or VectorConfig()
        self._dim = check_dim(dim)
        self._relationship = target.isupper() if relationship is None else relationship
        self._target = check_name("relationship type" if self._relationship else "label", target)
        pattern = RELATIONSHIP if self._relationship else NODE
        self._set = SET_VECTORS.format(
            element=pattern.format(target=self._target, id="r.id"),
            prop=VECTOR_PROPERTY,
            value=self._dialect.vector_value("r.v"),
        )
        self._remove = REMOVE_VECTORS.format(element=pattern.format(target=self._target, id="i"), prop=VECTOR_PROPERTY)
        self._missing = MISSING.format(element=pattern.format(target=self._target, id="i"))
        self._get = GET_VECTORS.format(element=pattern.format(target=self._target, id="i"), prop=VECTOR_PROPERTY)
        all_ids = RELATIONSHIP_IDS if self._relationship else NODE_IDS
        self._ids = all_ids.format(target=self._target, prop=VECTOR_PROPERTY)
        count = COUNT_RELATIONSHIPS if self._relationship else COUNT_NODES
        self._count = count.format(target=self._target, prop=VECTOR_PROPERTY)
        self._search = self._dialect.vector_query(self._target, relationship=self._relationship)
        self._index_ef = self._ensure_index()

    def _ensure_index(self) -> int | None:
        """Create the vector index unless it exists; its query-time beam width."""
        d, rel, ef = self._dialect, self._relationship, self._config.hnsw_ef_search
        found = d.vector_index_options(self._graph.query(d.list_vector_indexes()), self._target, relationship=rel)
        if found is not None:
            dim, index_ef = found
            if dim != self._dim:
                raise InvalidInput(
                    f"the graph's vector index on {self._target} holds {dim}-dimensional vectors, not {self._dim}; "
                    "use the embedder that built it or rebuild the store into an empty directory"
                )
            return index_ef
        self._graph.query(
            d.create_vector_index(
                self._target,
                relationship=rel,
                dim=self._dim,
                m=self._config.hnsw_m,
                ef_construction=self._config.hnsw_ef_construction,
                ef_runtime=ef,
            )
        )
        found = d.vector_index_options(self._graph.query(d.list_vector_indexes()), self._target, relationship=rel)
        return None if found is None else found[1]

    @property
    def dim(self) -> int:
        return self._dim

    def __len__(self) -> int:
        rows = self._graph.rows(self._count)
        return int(rows[0][0]) if rows else 0

    def upsert(self, ids: Sequence[str], vectors: Vector) -> None:
        keys, unit = unit_rows(ids, vectors, self._dim)
        if not keys:
            return
        missing = [r[0] for batch in batches(keys) for r in self._graph.rows(self._missing, {"ids": list(batch)})]
        if missing:
            kind = "relationship" if self._relationship else "node"
            shown = ", ".join(repr(m) for m in missing[:10]) + (" ..." if len(missing) > 10 else "")
            raise InvalidInput(
                f"no {self._target} {kind} with id {shown}: write the graph before its vectors; nothing was stored"
            )
        values = np.round(unit.astype(np.float64), 9).tolist()
        for start in range(0, len(keys), BATCH):
            rows = [{"id": keys[j], "v": values[j]} for j in range(start, min(start + BATCH, len(keys)))]
            self._graph.rows(self._set, {"rows": rows}, write=True)

    def remove(self, ids: Sequence[str]) -> None:
        for batch in batches(list(dict.fromkeys(id_list(ids)))):
            self._graph.rows(self._remove, {"ids": list(batch)}, write=True)

    def search(self, query: Vector, k: int) -> list[VectorHit]:
        q = unit_query(query, self._dim, k)
        fetch = self._dialect.candidates(int(k), self._config.hnsw_ef_search, self._index_ef)
        rows = self._graph.rows(self._search, {"k": fetch, "v": q.astype(np.float64).tolist()})
        hits = sorted(
            (hit(str(id_), self._dialect.cosine(float(score))) for id_, score in rows if id_ is not None),
            key=lambda h: -h.score,
        )
        return hits[: int(k)]

    def get(self, ids: Sequence[str]) -> tuple[list[str], Vector]:
        """One query per 500 ids; the rows are re-normalised (the database keeps them as float32 or float64)."""
        wanted = list(dict.fromkeys(id_list(ids)))
        stored: dict[str, list[float]] = {}
        for batch in batches(wanted):
            stored.update((str(i), v) for i, v in self._graph.rows(self._get, {"ids": list(batch)}) if v is not None)
        found = [i for i in wanted if i in stored]
        if not found:
            return [], np.zeros((0, self._dim), dtype=np.float32)
        rows = np.asarray([stored[i] for i in found], dtype=np.float32)
        return found, (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32, copy=False)

    def ids(self) -> list[str]:
        return [str(r[0]) for r in self._graph.rows(self._ids)]

    def save(self) -> None:
        return None

    def close(self) -> None:
        """Nothing to flush: the graph database holds the vectors."""
        return None
