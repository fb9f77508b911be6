"""Reading on from a bridge entity: a second hop for questions whose answer's sentence does not name the subject.

"Who is the finance director of the firm that supplies the Harbour Trust?" links the Harbour Trust; the
sentence that names the answer ("Ines Marlow, Calder Supply's finance director, ...") names the supplier, not
the trust. The first hop (:func:`~.reader.read_first`) reads the sentences about the linked entities and finds
the supplier in "Calder Supply supplies the Harbour Trust", a reading that covers some of the question's terms
(``suppl``) and leaves others unexplained (``finan``, ``direc``). As iterative retrieval does (IRCoT, Trivedi et
al., ACL 2023; the bridge entities of HotpotQA readers), the entities of the best first-hop readings that leave
terms unexplained become the topics of a second reading:

* **When.** Only when the best first-hop reading leaves a question term uncovered: a question one sentence
  answers is read once, as before. The words naming the answer's kind (``"which firm ..."``, from
  :func:`~.answers.expected_type`) describe the answer, not a fact to explain: they never call for a hop.
* **Bridges.** First-hop entities whose reading leaves terms uncovered (named entities, not the linked ones):
  the best of each distinct set of covered terms (with those tied with it, up to :data:`BRIDGES`), for the
  :data:`BRIDGES` best sets. Distinct sets first: the best readings often share one sentence's terms, and the
  bridge is the entity whose reading explains other terms ("largest customer" vs "head of digital").
* **Second reading.** The sentences of the chunks that cite a bridge (those already read and up to ``pool``
  more, fetched by id), with the bridge as the topic (presence as for the linked entities). A sentence counts
  only when it adds a term the bridge's reading lacks, and scores on the first hop's scale:
  ``mark(s1) * presence_b(s2) * lex(terms(s1) - kind | terms(s2))``, so a chain outranks a direct reading only
  when it explains more of the question, and an entity keeps the better of its readings. The chain does not
  inherit the kind words the bridge's sentence holds ("the Tavel crane": the bridge is the crane).
* **Order.** An entity whose chain explains more than any first-hop reading is put just ahead of its bridge
  in the fused order (:func:`~.answers.ahead_of_bridges`): the question asks what the bridge leads to.

Cost: nothing for a question the first hop explains; otherwise one chunk fetch and one entity fetch (both by
id, at most ``pool`` chunks) and a regex pass over the bridges' sentences. :data:`MAX_HOPS` more than 1 reads on
from the second hop's entities the same way (on the evaluation sets 2 changed nothing; 1 is the default).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from hybridkg.structural.base import Node
from hybridkg.structural.retrieval.compress import strings_of
from hybridkg.structural.retrieval.ego import GraphCache
from hybridkg.structural.retrieval.reader import Reading, read_first, stem
from hybridkg.structural.retrieval.results import LinkedEntity

#: Readings after the first (0: the reader reads the linked entities' sentences only).
MAX_HOPS = 1
#: The first-hop entities read on from.
BRIDGES = 3

#: Given bridge ids and the ids of the chunks already read: the chunks citing the bridges not read yet, and the
#: entities those chunks mention (id -> node).
Fetch = Callable[[Sequence[str], AbstractSet[str]], tuple[list[Node], Mapping[str, Node]]]


class BridgeChunks:
    """:data:`Fetch` over the query's graph cache: up to ``pool`` chunks (in the bridges' order), one call."""

    def __init__(self, cache: GraphCache, fetch_chunks: Callable[[GraphCache, Sequence[str]], list[Node]], pool: int):
        self._cache = cache
        self._fetch = fetch_chunks
        self._pool = pool

    def __call__(self, bridges: Sequence[str], have: AbstractSet[str]) -> tuple[list[Node], Mapping[str, Node]]:
        cache = self._cache
        cache.hydrate(list(bridges), {})
        cited = (strings_of(n.props.get("source_chunks")) for i in bridges if (n := cache.nodes.get(i)) is not None)
        wanted = [c for c in dict.fromkeys(c for ids in cited for c in ids) if c not in have][: self._pool]
        chunks = self._fetch(cache, wanted)
        mentioned = list(dict.fromkeys(i for n in chunks for i in strings_of(n.props.get("entity_ids"))))
        cache.hydrate(mentioned, {})
        entities = {i: n for i in mentioned if (n := cache.nodes.get(i)) is not None and cache.in_domain(n.props)}
        return chunks, entities


@dataclass(slots=True)
class HopReading:
    """Reading scores (each entity's best over the hops) and, for each entity a chain reached whose reading
    explains more of the question than any first-hop reading, the bridges it was reached through."""

    scores: dict[str, float] = field(default_factory=dict)
    bridged: dict[str, tuple[str, ...]] = field(default_factory=dict)


def bridges_of(frontier: Mapping[str, Reading], everything: frozenset[str], passed: AbstractSet[str]) -> list[str]:
    """The entities to read on from: readings that leave question terms uncovered, the best (and those tied with
    it) of each distinct set of covered terms, sets by their best score, at most :data:`BRIDGES` sets and
    :data:`BRIDGES` entities a set. Distinct sets first: the first hop's best readings often share one
    sentence's terms, and the bridge is the entity whose reading explains other terms."""
    groups: dict[frozenset[str], list[str]] = {}
    for i in sorted(frontier, key=lambda i: (-frontier[i].score, i)):
        r = frontier[i]
        if everything <= r.covered or i in passed:
            continue
        group = groups.setdefault(r.covered, [])
        if len(groups) > BRIDGES:
            break
        if len(group) < BRIDGES and (not group or r.score >= frontier[group[0]].score):
            group.append(i)
    return [i for group in list(groups.values())[:BRIDGES] for i in group]


def read_hops(
    query: str,
    linked: Sequence[LinkedEntity],
    chunks: Sequence[Node],
    entities: Mapping[str, Node],
    fetch: Fetch | None = None,
    hops: int | None = None,
    described: Iterable[str] = (),
) -> HopReading:
    """:func:`~.reader.read`'s scores, each entity's best over the first reading and up to ``hops`` (default
    :data:`MAX_HOPS`) readings on from bridge entities (see the module docstring); ``fetch`` brings the bridges'
    chunks not read yet (without it only the chunks given are read)."""
    passages, frontier = read_first(query, linked, chunks, entities)
    out = HopReading({i: r.score for i, r in frontier.items()})
    if passages is None:
        return out
    # the words naming the answer's kind ("which firm ...") describe the answer itself, not a fact to explain
    kind = {stem(w) for w in described}
    everything = frozenset(t for t in passages.terms if t not in kind)
    first_best = max((r.score for r in frontier.values()), default=0.0)
    passed = {e.id for e in linked}
    via: dict[str, tuple[str, ...]] = {}
    for _ in range(MAX_HOPS if hops is None else hops):
        best = max(frontier.values(), key=lambda r: r.score, default=None)
        if best is None or everything <= best.covered:
            break  # nothing read, or the best reading explains every term of the question
        bridges = bridges_of(frontier, everything, passed)
        if not bridges:
            break
        if fetch is not None:
            more, known = fetch(bridges, {c.id for c in passages.chunks})
            passages.add(more, known)
        reached: dict[str, Reading] = {}
        came = dict(via)
        for b in bridges:
            at = [k for k, c in enumerate(passages.chunks) if b in strings_of(c.props.get("entity_ids"))]
            rows, nodes = [passages.rows[k] for k in at], [passages.chunks[k] for k in at]
            mine: dict[str, Reading] = {}
            # the chain keeps the terms the bridge's reading explained, less the answer's kind: "platform" in
            # the bridge's sentence says the bridge is one, not what the bridge leads to
            r = frontier[b]
            start = Reading(r.score, r.mark, r.covered - kind)
            passages.read(rows, nodes, [b], start, everything - r.covered, passed | {b}, mine)
            for i, r in mine.items():
                if r.score > (reached[i].score if i in reached else 0.0):
                    reached[i] = r
                    via[i] = (*came.get(b, ()), b)
        passed.update(bridges)
        for i, r in reached.items():
            if r.score > out.scores.get(i, 0.0):
                out.scores[i] = r.score
            if r.score > first_best:
                out.bridged[i] = via[i]
        frontier = reached
    return out
