"""Context compression: rank the evidence by importance, keep the best of each kind, fit a token budget.

Candidates are entities of G_q, relations of G_q and the source chunks of the top entities. For each:

    importance = 0.5 * tfidf + 0.5 * centrality

* ``tfidf``: cosine between the TF-IDF vectors of the query and the candidate's text (raw term counts,
  ``idf(t) = ln((1 + N) / (1 + df(t))) + 1`` over the N candidates of the query, all kinds together; words are
  ``\\w+`` runs of the case-folded text);
* ``centrality``: an entity's weighted degree in G_q divided by the largest one; a relation's is the mean of its
  endpoints'; a chunk's is the share of the top entities that cite it (``source_chunks``) or that it cites
  (``entity_ids``).

The best ``top_k`` of each kind are kept and assembled, best first, into sections of lines carrying citation
ids (``[E:<entity id>]``, ``[R:<relation id>]``, ``[C:<chunk id>]``). A line that would push the context past
``token_budget`` tokens is skipped; tokens are counted by the caller's function (default: whitespace split).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..base import Edge, Node
from .fusion import query_words

FloatArray = npt.NDArray[np.float64]
ENTITY_KIND, RELATION_KIND, CHUNK_KIND = "E", "R", "C"
HEADERS = {ENTITY_KIND: "## Entities", RELATION_KIND: "## Relations", CHUNK_KIND: "## Sources"}


def whitespace_tokens(text: str) -> int:
    return len(text.split())


@dataclass(frozen=True, slots=True)
class Candidate:
    kind: str  # ENTITY_KIND, RELATION_KIND or CHUNK_KIND
    id: str
    text: str  # what tf-idf compares with the query
    line: str  # what the context shows
    centrality: float


def _flat(text: object) -> str:
    return " ".join(str(text).split()) if text is not None else ""


def keywords_of(value: Any) -> tuple[str, ...]:
    if isinstance(value, list | tuple):
        return tuple(_flat(v) for v in value if _flat(v))
    if isinstance(value, str):
        return tuple(k for k in (_flat(p) for p in value.split(",")) if k)
    return ()


def name_of(node: Node | None, fallback: str) -> str:
    if node is None:
        return fallback
    return _flat(node.props.get("name")) or fallback


def entity_candidate(node: Node, centrality: float) -> Candidate:
    name, type_ = name_of(node, node.id), _flat(node.props.get("type"))
    description = _flat(node.props.get("description"))
    line = f"[{ENTITY_KIND}:{node.id}] {name}" + (f" ({type_})" if type_ else "")
    line += f": {description}" if description else ""
    return Candidate(ENTITY_KIND, node.id, f"{name} {type_} {description}", line, centrality)


def relation_candidate(edge: Edge, nodes: Mapping[str, Node], centrality: float) -> Candidate:
    src, dst = name_of(nodes.get(edge.src), edge.src), name_of(nodes.get(edge.dst), edge.dst)
    type_ = _flat(edge.props.get("type")) or "related_to"
    keywords = ", ".join(keywords_of(edge.props.get("keywords")))
    description = _flat(edge.props.get("description"))
    line = f"[{RELATION_KIND}:{edge.id}] {src} -[{type_}]-> {dst}" + (f" ({keywords})" if keywords else "")
    line += f": {description}" if description else ""
    return Candidate(RELATION_KIND, edge.id, f"{src} {type_} {keywords} {dst} {description}", line, centrality)


def chunk_candidate(node: Node, centrality: float) -> Candidate:
    text = _flat(node.props.get("text"))
    return Candidate(CHUNK_KIND, node.id, text, f"[{CHUNK_KIND}:{node.id}] {text}", centrality)


def weighted_degree(edges: Iterable[Edge], weight: Callable[[Edge], float]) -> dict[str, float]:
    """Weighted degree of every endpoint, divided by the largest (all 0 when no edge has weight)."""
    degree: dict[str, float] = {}
    for e in edges:
        w = weight(e)
        degree[e.src] = degree.get(e.src, 0.0) + w
        degree[e.dst] = degree.get(e.dst, 0.0) + w
    top = max(degree.values(), default=0.0)
    return {k: v / top for k, v in degree.items()} if top > 0 else dict.fromkeys(degree, 0.0)


def tfidf_cosine(query: str, texts: Sequence[str]) -> FloatArray:
    """Cosine of the TF-IDF vectors of ``query`` and each text, idf over ``texts``."""
    n = len(texts)
    q_terms = Counter(query_words(query))
    if n == 0 or not q_terms:
        return np.zeros(n)
    vocab: dict[str, int] = {}
    term_ids: list[int] = []
    lengths: list[int] = []
    for text in texts:
        words = query_words(text)
        lengths.append(len(words))
        term_ids.extend([vocab.setdefault(w, len(vocab)) for w in words])
    if not term_ids:
        return np.zeros(n)
    size = len(vocab)
    doc_of = np.repeat(np.arange(n, dtype=np.int64), lengths)
    pairs, tf = np.unique(doc_of * size + np.asarray(term_ids, dtype=np.int64), return_counts=True)
    doc, term = pairs // size, pairs % size
    idf = np.log((1.0 + n) / (1.0 + np.bincount(term, minlength=size))) + 1.0
    weight = tf * idf[term]
    doc_norm = np.sqrt(np.bincount(doc, weights=weight * weight, minlength=n))
    q_weight = np.zeros(size)
    unseen = math.log(1.0 + n) + 1.0
    q_norm_sq = 0.0
    for word, count in q_terms.items():
        t = vocab.get(word)
        w = count * (idf[t] if t is not None else unseen)
        q_norm_sq += w * w
        if t is not None:
            q_weight[t] = w
    dot = np.bincount(doc, weights=weight * q_weight[term], minlength=n)
    denom = doc_norm * math.sqrt(q_norm_sq)
    return np.divide(dot, denom, out=np.zeros(n), where=denom > 0)


def importance(query: str, candidates: Sequence[Candidate]) -> FloatArray:
    """``0.5 * tfidf + 0.5 * centrality`` per candidate."""
    centrality = np.fromiter((c.centrality for c in candidates), dtype=np.float64, count=len(candidates))
    return 0.5 * tfidf_cosine(query, [c.text for c in candidates]) + 0.5 * centrality


def keep_top(
    candidates: Sequence[Candidate], ranking: Sequence[float], top_k: int
) -> dict[str, list[tuple[Candidate, float]]]:
    """The best ``top_k`` candidates of each kind with their ranking value, best first (ties by id)."""
    kinds: dict[str, list[tuple[Candidate, float]]] = {ENTITY_KIND: [], RELATION_KIND: [], CHUNK_KIND: []}
    for c, r in zip(candidates, ranking, strict=True):
        kinds[c.kind].append((c, float(r)))
    return {k: sorted(v, key=lambda cr: (-cr[1], cr[0].id))[:top_k] for k, v in kinds.items()}


def assemble(
    sections: Sequence[tuple[str, Sequence[Candidate]]], budget: int, count_tokens: Callable[[str], int]
) -> tuple[str, int]:
    """``(context, tokens)``: the sections' lines, in order, under ``budget`` tokens."""
    lines: list[str] = []
    used = 0
    for header, candidates in sections:
        opened = False
        header_cost = count_tokens(header)
        for c in candidates:
            cost = count_tokens(c.line) + (0 if opened else header_cost)
            if used + cost > budget:
                continue
            if not opened:
                lines.append(header)
                opened = True
            lines.append(c.line)
            used += cost
    context = "\n".join(lines)
    tokens = count_tokens(context) if lines else 0
    while tokens > budget and lines:
        lines.pop()
        if lines and lines[-1] in HEADERS.values():
            lines.pop()
        context = "\n".join(lines)
        tokens = count_tokens(context) if lines else 0
    return context, tokens
