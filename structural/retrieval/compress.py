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

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from hybridkg.structural.base import Edge, Node
from hybridkg.structural.retrieval.fusion import query_words
from hybridkg.structural.retrieval.memo import BoundedMemo

FloatArray = npt.NDArray[np.float64]
ENTITY_KIND, RELATION_KIND, CHUNK_KIND = "E", "R", "C"
HEADERS = {ENTITY_KIND: "## Entities", RELATION_KIND: "## Relations", CHUNK_KIND: "## Sources"}


def whitespace_tokens(text: str) -> int:
    return len(text.split())


class Entry:
    """What a candidate's text gives, computed once: the text tf-idf compares with the query, the context line,
    the text's distinct words as term ids with their counts (:func:`term_counts`), and the line's token count
    (counted when the line is first placed in a context; -1 before)."""

    __slots__ = ("line", "terms", "text", "tokens")

    def __init__(self, text: str, line: str) -> None:
        self.text = text
        self.line = line
        self.terms = term_counts(query_words(text))
        self.tokens = -1

    def token_count(self, count_tokens: Callable[[str], int]) -> int:
        if self.tokens < 0:
            self.tokens = count_tokens(self.line)
        return self.tokens


class Candidate(NamedTuple):
    kind: str  # ENTITY_KIND, RELATION_KIND or CHUNK_KIND
    id: str
    centrality: float
    entry: Entry

    @property
    def text(self) -> str:
        return self.entry.text

    @property
    def line(self) -> str:
        return self.entry.line


def _flat(text: object) -> str:
    return " ".join(str(text).split()) if text is not None else ""


def keywords_of(value: Any) -> tuple[str, ...]:
    if isinstance(value, list | tuple):
        return tuple(_flat(v) for v in value if _flat(v))
    if isinstance(value, str):
        return tuple(k for k in (_flat(p) for p in value.split(",")) if k)
    return ()


def strings_of(value: Any) -> list[str]:
    """The strings of a list property (ids, chunk ids); nothing for a missing or scalar value."""
    return [v for v in value if isinstance(v, str)] if isinstance(value, list | tuple) else []


def name_of(node: Node | None, fallback: str) -> str:
    if node is None:
        return fallback
    return _flat(node.props.get("name")) or fallback


def _key_part(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


class CandidateFactory:
    """Builds candidates, remembering the :class:`Entry` of each.

    Entries are keyed by the candidate's kind, id and every property its text is made from, so a changed
    name, description or chunk text is a new entry (never a stale one); the least recently added entries go
    first once ``capacity`` is reached. One factory per retriever, whose token counter fills the entries."""

    def __init__(self, capacity: int = 65_536) -> None:
        self._memo: BoundedMemo[tuple[Any, ...], Entry] = BoundedMemo(capacity)

    def _build(self, key: tuple[Any, ...], make: Callable[[], tuple[str, str]]) -> Entry:
        entry = self._memo.get(key)
        if entry is None:
            entry = Entry(*make())
            self._memo.put(key, entry)
        return entry

    def entity(self, node: Node, centrality: float) -> Candidate:
        props = node.props
        key = (
            ENTITY_KIND,
            node.id,
            _key_part(props.get("name")),
            _key_part(props.get("type")),
            _key_part(props.get("description")),
        )
        return Candidate(ENTITY_KIND, node.id, centrality, self._build(key, lambda: _entity_text(node)))

    def relation(self, edge: Edge, nodes: Mapping[str, Node], centrality: float) -> Candidate:
        props = edge.props
        src, dst = nodes.get(edge.src), nodes.get(edge.dst)
        key = (
            RELATION_KIND,
            edge.id,
            edge.src if src is None else _key_part(src.props.get("name")),
            edge.dst if dst is None else _key_part(dst.props.get("name")),
            _key_part(props.get("type")),
            _key_part(props.get("keywords")),
            _key_part(props.get("description")),
        )
        return Candidate(RELATION_KIND, edge.id, centrality, self._build(key, lambda: _relation_text(edge, nodes)))

    def chunk(self, node: Node, centrality: float) -> Candidate:
        key = (CHUNK_KIND, node.id, _key_part(node.props.get("text")))
        return Candidate(CHUNK_KIND, node.id, centrality, self._build(key, lambda: _chunk_text(node)))


def _entity_text(node: Node) -> tuple[str, str]:
    name, type_ = name_of(node, node.id), _flat(node.props.get("type"))
    description = _flat(node.props.get("description"))
    line = f"[{ENTITY_KIND}:{node.id}] {name}" + (f" ({type_})" if type_ else "")
    line += f": {description}" if description else ""
    return f"{name} {type_} {description}", line


def _relation_text(edge: Edge, nodes: Mapping[str, Node]) -> tuple[str, str]:
    src, dst = name_of(nodes.get(edge.src), edge.src), name_of(nodes.get(edge.dst), edge.dst)
    type_ = _flat(edge.props.get("type")) or "related_to"
    keywords = ", ".join(keywords_of(edge.props.get("keywords")))
    description = _flat(edge.props.get("description"))
    line = f"[{RELATION_KIND}:{edge.id}] {src} -[{type_}]-> {dst}" + (f" ({keywords})" if keywords else "")
    line += f": {description}" if description else ""
    return f"{src} {type_} {keywords} {dst} {description}", line


def _chunk_text(node: Node) -> tuple[str, str]:
    text = _flat(node.props.get("text"))
    return text, f"[{CHUNK_KIND}:{node.id}] {text}"


Terms = tuple[tuple[int, ...], tuple[int, ...]]  # (distinct term ids, occurrences)


def term_counts(words: Sequence[str]) -> Terms:
    """``(distinct term ids, occurrences)`` of ``words``. A term id is Python's string hash (64-bit; cached on
    each string, stable within a process): two different words share one with probability ~2^-64 per pair,
    which would only blend their tf-idf."""
    counted: dict[str, int] = {}
    get = counted.get
    for word in words:
        counted[word] = get(word, 0) + 1
    return tuple(map(hash, counted)), tuple(counted.values())


def tfidf_cosine(query: str, texts: Sequence[str]) -> FloatArray:
    """Cosine of the TF-IDF vectors of ``query`` and each text, idf over ``texts``."""
    return tfidf_cosine_terms(query_words(query), [term_counts(query_words(t)) for t in texts])


def tfidf_cosine_terms(query: Sequence[str], documents: Sequence[Terms]) -> FloatArray:
    """:func:`tfidf_cosine` on documents given as :func:`term_counts`; vectorised over all their terms."""
    n = len(documents)
    if n == 0 or not query:
        return np.zeros(n)
    lengths = [len(terms) for terms, _ in documents]
    total = sum(lengths)
    if not total:
        return np.zeros(n)
    terms = np.fromiter(itertools.chain.from_iterable(t for t, _ in documents), dtype=np.int64, count=total)
    tf = np.fromiter(itertools.chain.from_iterable(c for _, c in documents), dtype=np.float64, count=total)
    doc = np.repeat(np.arange(n, dtype=np.int64), lengths)
    vocab, inverse, df = np.unique(terms, return_inverse=True, return_counts=True)
    idf = np.log((1.0 + n) / (1.0 + df)) + 1.0
    weight = tf * idf[inverse]
    doc_norm = np.sqrt(np.bincount(doc, weights=weight * weight, minlength=n))
    q_ids, q_occurrences = term_counts(query)
    q_terms = np.array(q_ids, dtype=np.int64)
    q_counts = np.array(q_occurrences, dtype=np.float64)
    pos = np.minimum(np.searchsorted(vocab, q_terms), len(vocab) - 1)
    known = vocab[pos] == q_terms
    q_df = np.where(known, df[pos], 0)
    q_weight = q_counts * (np.log((1.0 + n) / (1.0 + q_df)) + 1.0)  # df 0: the idf of a word no text has
    on_vocab = np.zeros(len(vocab))
    on_vocab[pos[known]] = q_weight[known]
    dot = np.bincount(doc, weights=weight * on_vocab[inverse], minlength=n)
    denom = doc_norm * math.sqrt(float(q_weight @ q_weight))
    return np.divide(dot, denom, out=np.zeros(n), where=denom > 0)


def importance(query: str, candidates: Sequence[Candidate]) -> FloatArray:
    """``0.5 * tfidf + 0.5 * centrality`` per candidate."""
    centrality = np.fromiter((c.centrality for c in candidates), dtype=np.float64, count=len(candidates))
    tfidf = tfidf_cosine_terms(query_words(query), [c.entry.terms for c in candidates])
    return 0.5 * tfidf + 0.5 * centrality


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
    """``(context, tokens)``: the sections' lines, in order, under ``budget`` tokens (each line counted once per
    candidate entry; the whole context is counted again at the end)."""
    lines: list[str] = []
    used = 0
    for header, candidates in sections:
        opened = False
        header_cost = count_tokens(header)
        for c in candidates:
            cost = c.entry.token_count(count_tokens) + (0 if opened else header_cost)
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
