"""Which retrieved entities can answer the question: its subject is not its answer, and the answer has a type.

Two rules order a query's entity items after fusion, both as question-answering systems have long done
(the answer type of Li & Roth's question classification; the topic entity of KGQA is not an answer):

* **Answer type.** A question's wh-phrase says what kind of entity answers it: ``who``/``whom``/``whose`` a
  person or an organisation, ``where`` a place, ``when`` a date; ``which``/``what`` followed by nouns names the
  kind itself (``"which dispatch tool ..."`` -> ``dispatch tool``; at most :data:`MAX_TYPE_WORDS` words, up to
  the first stopword). Each candidate's ``type`` is compared with that phrase by the embedder (cosine, both
  memoised: types repeat across the graph), divided by the best among the candidates:
  ``score'(v) = score(v) * (1 - w + w * compat(v))`` with ``w`` = :data:`TYPE_WEIGHT`. A soft preference:
  extraction types are noisy, and an entity of another type still ranks by its evidence.
* **Subject last.** When the query says more than the names it links (:func:`asks_beyond_names`), the
  entities it names follow the other candidates (they stay among the items and in the context).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from hybridkg.structural.base import Embedder
from hybridkg.structural.extract.lexicon import FUNCTION_WORDS, STOPWORDS
from hybridkg.structural.retrieval.memo import BoundedMemo
from hybridkg.structural.retrieval.results import LinkedEntity

_WORD = re.compile(r"\w+")
MAX_TYPE_WORDS = 3
TYPE_WEIGHT = 0.5
#: The wh-words that name their answer's kind themselves.
WH_TYPES = {
    "who": "person or organization",
    "whom": "person or organization",
    "whose": "person or organization",
    "where": "location or place",
    "when": "date or time",
}
_DETERMINERS = ("which", "what")


def expected_type(query: str) -> str | None:
    """The kind of entity ``query`` asks for (see the module docstring), or ``None`` when it does not say."""
    words = [w.casefold() for w in _WORD.findall(query)]
    for i, word in enumerate(words):
        if word in WH_TYPES:
            return WH_TYPES[word]
        if word in _DETERMINERS:
            kind: list[str] = []
            for nxt in words[i + 1 :]:
                if nxt in STOPWORDS or nxt.isdigit() or len(kind) == MAX_TYPE_WORDS:
                    break
                kind.append(nxt)
            return " ".join(kind) or None
    return None


def asks_beyond_names(query: str, linked: Sequence[LinkedEntity]) -> bool:
    """Whether ``query`` says more than the names it links: a word outside every linked mention that is not a
    function word (``"Who is Dana Reyes?"`` says nothing more; ``"Where is Corvid headquartered?"`` and ``"Who
    makes Ledgerline?"`` do)."""
    spans = [(e.start, e.end) for e in linked]
    for match in _WORD.finditer(query):
        if any(lo <= match.start() < hi for lo, hi in spans):
            continue
        word = match.group().casefold()
        if word not in FUNCTION_WORDS and not word.isdigit():
            return True
    return False


class TypeMatcher:
    """Cosine between a question's expected type and entity types, with the embedder's vectors memoised."""

    def __init__(self, embedder: Embedder, capacity: int = 4096) -> None:
        self._embedder = embedder
        self._memo: BoundedMemo[str, np.ndarray] = BoundedMemo(capacity)

    def _vectors(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        missing: list[str] = []
        for t in dict.fromkeys(texts):
            v = self._memo.get(t)
            if v is None:
                missing.append(t)
            else:
                out[t] = v
        if missing:
            raw = np.asarray(self._embedder.embed(missing), dtype=np.float64)
            norms = np.linalg.norm(raw, axis=1, keepdims=True)
            unit = np.divide(raw, norms, out=np.zeros_like(raw), where=norms > 0)
            for t, v in zip(missing, unit, strict=True):
                self._memo.put(t, v)
                out[t] = v
        return out

    def compat(self, wanted: str, types: Sequence[str]) -> list[float]:
        """``max(cos(wanted, type), 0)`` divided by its largest value over ``types`` (0 for an empty type)."""
        named = [t.strip() for t in types]
        vectors = self._vectors([wanted, *(t for t in named if t)])
        w = vectors[wanted]
        raw = [max(float(vectors[t] @ w), 0.0) if t else 0.0 for t in named]
        top = max(raw, default=0.0)
        return [r / top if top > 0 else 0.0 for r in raw]


def typed_scores(scores: Sequence[float], compat: Sequence[float], weight: float = TYPE_WEIGHT) -> list[float]:
    """``score * (1 - weight + weight * compat)`` for each candidate."""
    return [s * (1.0 - weight + weight * c) for s, c in zip(scores, compat, strict=True)]


def answer_order(
    order: Sequence[int], ids: Sequence[str], query: str, linked: Sequence[LinkedEntity], k: int
) -> list[int]:
    """The first ``k`` entity positions of ``order`` (best first) as the result's items, the entities the
    query names (``linked``) after the others when it asks beyond them (they stay among the first ``k``)."""
    if not linked or not asks_beyond_names(query, linked):
        return list(order[:k])
    named = {e.id for e in linked}
    first = [p for p in order if ids[p] not in named]
    subjects = [p for p in order if ids[p] in named][:k]
    return first[: k - len(subjects)] + subjects


def ahead_of_bridges(order: Sequence[str], bridged: Mapping[str, Sequence[str]]) -> list[str]:
    """``order`` with each entity of ``bridged`` moved just ahead of the first of its bridges that precedes it
    (an answer reached through a bridge entity, whose chain explains more of the question than any single
    sentence, ranks before the bridge: the question asks for what the bridge leads to)."""
    out = list(order)
    for answer, bridges in bridged.items():
        if answer not in out:
            continue
        at = out.index(answer)
        before = [out.index(b) for b in bridges if b in out and out.index(b) < at]
        if before:
            out.insert(min(before), out.pop(at))
    return out
