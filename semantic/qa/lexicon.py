"""A domain's lexicon: the labels of its entities, classes and properties, and the linker that finds them
in a question.

Everything comes from the knowledge base: ``rdfs:label``, ``skos:prefLabel`` and ``skos:altLabel`` in the
domain's ontology and data graphs (and labels the closure adds, e.g. through ``owl:sameAs``); a class or
property with no label is known by its local name split into words (``hasCondition`` -> "has condition").
Linking tries, per word n-gram of the question, the exact label (score 1.0), then normal forms
(:data:`NORMALISED_SCORE`: case, accents, punctuation, plurals), then, for names of individuals, the same
words in another order (:data:`REORDERED_SCORE`), then the label's content words without its function
words (:data:`CONTENT_SCORE`: "work" for "works at"), then, with an embedder, cosine similarity of the
n-gram's and the labels' embeddings at or above :data:`EMBEDDING_MIN_COSINE`. Longest non-overlapping spans win.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from pyoxigraph import Literal, NamedNode

from hybridkg.semantic.base import INFERRED_GRAPH
from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.qa.text import Token, is_function_word, norm_key, tokenize

#: Score of a match on the normal form (case, accents, punctuation, possessives, plurals).
NORMALISED_SCORE = 0.95
#: Score of a match on the same normalised words in another order ("Chen Wei" / "Wei Chen").
REORDERED_SCORE = 0.9
#: Score of a match on a label's content words alone, its function words left out ("work" / "works at").
CONTENT_SCORE = 0.85
#: Score of one content word of a longer property label ("take" for "takes drug"); only when asked for
#: (``partial=True``), since a single word of a label says less than the label.
PARTIAL_SCORE = 0.7
#: Score of a label derived from an IRI's local name (the resource has no label).
LOCAL_NAME_SCORE = 0.9
#: Lowest cosine between an n-gram and a label for an embedding match. 0.8 is the usual "paraphrase"
#: cut-off for unit-length sentence embeddings (a same-meaning rewording scores above it, a related but
#: different concept below); chosen on that principle, not fitted to any domain.
EMBEDDING_MIN_COSINE = 0.8
#: Embedding matches are discounted so that any lexical match of the same span outranks them.
EMBEDDING_WEIGHT = 0.85
#: Longest n-gram considered (in words).
MAX_NGRAM = 8

KIND_ENTITY, KIND_CLASS, KIND_PROPERTY = "entity", "class", "property"

LABELS = """
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT DISTINCT ?iri ?label WHERE {
  VALUES ?g { %(graphs)s }
  GRAPH ?g { ?iri rdfs:label|skos:prefLabel|skos:altLabel ?label }
  FILTER(isIRI(?iri) && isLiteral(?label) && (lang(?label) = "" || langMatches(lang(?label), "en")))
}
"""

KINDS = """
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX owl: <http://www.w3.org/2002/07/owl#>
SELECT DISTINCT ?iri ?kind WHERE {
  VALUES ?g { %(graphs)s }
  GRAPH ?g { ?iri a ?kind }
  VALUES ?kind { owl:Class rdfs:Class owl:ObjectProperty owl:DatatypeProperty rdf:Property }
  FILTER(isIRI(?iri))
}
"""

_PROPERTY_KINDS = {
    "http://www.w3.org/2002/07/owl#ObjectProperty",
    "http://www.w3.org/2002/07/owl#DatatypeProperty",
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#Property",
}
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|[_\-]+")


@dataclass(frozen=True)
class Mention:
    """A span of the question linked to a resource of the domain."""

    text: str  # the span as written
    start: int  # character offsets in the question
    end: int
    iri: str
    kind: str  # "entity" | "class" | "property"
    label: str  # the label it matched
    score: float  # 1.0 exact; lower for normalised / reordered / embedding matches


class TextEmbedder(Protocol):
    """Anything that turns texts into L2-normalised rows (``structural``'s embedders fit)."""

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class _Entry:
    iri: str
    kind: str
    label: str
    base: float  # 1.0, or LOCAL_NAME_SCORE for a label made from the IRI


def local_name_label(iri: str) -> str:
    """``https://x/ns#hasCondition`` -> "has Condition" (words of the local name)."""
    local = iri.rstrip("/#").rsplit("#", 1)[-1].rsplit("/", 1)[-1]
    return " ".join(w for w in _CAMEL.split(local) if w)


def _graphs(kb: KnowledgeBase, domain: str) -> str:
    dom = kb.policy.get(domain)
    return " ".join(str(NamedNode(g)) for g in (*dom.graphs, INFERRED_GRAPH.value))


class Lexicon:
    """Label index of one domain; build once (:meth:`build`), link many questions (:meth:`link`)."""

    def __init__(self, domain: str, entries: Sequence[_Entry], *, embedder: TextEmbedder | None = None) -> None:
        self.domain = domain
        self._entries = list(entries)
        self._by_key: dict[tuple[str, ...], list[int]] = defaultdict(list)
        self._by_bag: dict[tuple[str, ...], list[int]] = defaultdict(list)
        self._by_content: dict[tuple[str, ...], list[int]] = defaultdict(list)
        self._by_word: dict[tuple[str, ...], list[int]] = defaultdict(list)
        self._labels: dict[str, list[str]] = defaultdict(list)
        self._kinds: dict[str, str] = {}
        self._longest = 1
        for i, e in enumerate(self._entries):
            key = norm_key(e.label)
            if not key:
                continue
            self._by_key[key].append(i)
            self._by_bag[tuple(sorted(key))].append(i)
            content = tuple(w for w in key if not is_function_word(w))
            if content and content != key:
                self._by_content[content].append(i)
            if e.kind == KIND_PROPERTY and len(content) > 1:
                for w in dict.fromkeys(content):
                    self._by_word[(w,)].append(i)
            self._longest = max(self._longest, min(len(key), MAX_NGRAM))
            if e.label not in self._labels[e.iri]:
                self._labels[e.iri].append(e.label)
            self._kinds[e.iri] = e.kind
        self._embedder = embedder
        self._matrix: np.ndarray | None = None
        if embedder is not None and self._entries:
            self._matrix = np.asarray(embedder.embed([e.label for e in self._entries]), dtype=np.float32)

    @classmethod
    def build(cls, kb: KnowledgeBase, domain: str, *, embedder: TextEmbedder | None = None) -> Lexicon:
        """Read the labels of ``domain`` (ontology, data and inferred graphs) from ``kb``."""
        graphs = _graphs(kb, domain)
        kinds: dict[str, str] = {}
        for iri, declared in kb.query(KINDS % {"graphs": graphs}).rows:
            if not isinstance(iri, NamedNode) or not isinstance(declared, NamedNode):
                continue
            k = KIND_PROPERTY if declared.value in _PROPERTY_KINDS else KIND_CLASS
            if kinds.get(iri.value) != KIND_PROPERTY:  # a punned property stays a property
                kinds[iri.value] = k
        entries: list[_Entry] = []
        labelled: set[str] = set()
        for iri, label in kb.query(LABELS % {"graphs": graphs}).rows:
            if isinstance(iri, NamedNode) and isinstance(label, Literal) and label.value.strip():
                entries.append(_Entry(iri.value, kinds.get(iri.value, KIND_ENTITY), label.value.strip(), 1.0))
                labelled.add(iri.value)
        for iri_s, kind in kinds.items():
            if iri_s not in labelled and (words := local_name_label(iri_s)):
                entries.append(_Entry(iri_s, kind, words, LOCAL_NAME_SCORE))
        entries.sort(key=lambda e: (e.iri, e.label))
        return cls(domain, entries, embedder=embedder)

    # ------------------------------------------------------------------ lookups
    def labels(self, iri: str) -> list[str]:
        """Every label known for ``iri`` (labels and alt labels), in index order."""
        return list(self._labels.get(iri, []))

    def kind(self, iri: str) -> str | None:
        return self._kinds.get(iri)

    def iris(self, kind: str | None = None) -> list[str]:
        return sorted(i for i, k in self._kinds.items() if kind is None or k == kind)

    # ------------------------------------------------------------------ linking
    def candidates(self, question: str, *, min_score: float = 0.5, partial: bool = False) -> list[Mention]:
        """Every mention of every span (overlapping), best first; ``partial`` adds single words of
        property labels (:data:`PARTIAL_SCORE`)."""
        tokens = tokenize(question)
        found = self._lexical(question, tokens, partial)
        if self._embedder is not None and self._matrix is not None:
            found.extend(self._embedded(question, tokens, found))
        found = [m for m in found if m.score >= min_score]
        found.sort(key=lambda m: (-(m.end - m.start), -m.score, m.start, m.iri))
        return found

    def link(self, question: str, *, min_score: float = 0.5, partial: bool = False) -> list[Mention]:
        """The best non-overlapping mentions, in question order.

        Longest span first, then highest score. A span that names several resources (a class and an
        individual sharing a label, say) yields one mention per resource with that span's best score,
        so a caller sees the ambiguity instead of a silent pick.
        """
        chosen: list[Mention] = []
        taken: list[tuple[int, int]] = []
        for m in self.candidates(question, min_score=min_score, partial=partial):
            same = [(s, e) for s, e in taken if (s, e) == (m.start, m.end)]
            if same:
                best = max(c.score for c in chosen if (c.start, c.end) == (m.start, m.end))
                if m.score >= best and all(c.iri != m.iri for c in chosen):
                    chosen.append(m)
                continue
            if any(m.start < e and s < m.end for s, e in taken):
                continue
            chosen.append(m)
            taken.append((m.start, m.end))
        chosen.sort(key=lambda m: (m.start, -m.score, m.iri))
        return chosen

    def _lexical(self, question: str, tokens: list[Token], partial: bool) -> list[Mention]:
        out: list[Mention] = []
        for i in range(len(tokens)):
            for n in range(min(self._longest, len(tokens) - i), 0, -1):
                span = tokens[i : i + n]
                start, end = span[0].start, span[-1].end
                text = question[start:end]
                key = tuple(t.norm for t in span)
                if n == 1 and is_function_word(key[0]) and key not in self._by_key:
                    continue
                seen: set[int] = set()
                for idx in self._by_key.get(key, []):
                    e = self._entries[idx]
                    score = 1.0 if e.label == text else NORMALISED_SCORE
                    out.append(Mention(text, start, end, e.iri, e.kind, e.label, score * e.base))
                    seen.add(idx)
                if n > 1:  # names only: in a class or relation phrase, word order carries meaning
                    for idx in self._by_bag.get(tuple(sorted(key)), []):
                        if idx not in seen and self._entries[idx].kind == KIND_ENTITY:
                            e = self._entries[idx]
                            out.append(Mention(text, start, end, e.iri, e.kind, e.label, REORDERED_SCORE * e.base))
                            seen.add(idx)
                for idx in self._by_content.get(key, []):
                    if idx not in seen:
                        e = self._entries[idx]
                        out.append(Mention(text, start, end, e.iri, e.kind, e.label, CONTENT_SCORE * e.base))
                        seen.add(idx)
                if partial and n == 1 and key not in self._by_key:
                    for idx in self._by_word.get(key, []):
                        if idx not in seen:
                            e = self._entries[idx]
                            out.append(Mention(text, start, end, e.iri, e.kind, e.label, PARTIAL_SCORE * e.base))
        return _best_per_iri_span(out)

    def _embedded(self, question: str, tokens: list[Token], lexical: list[Mention]) -> list[Mention]:
        if self._embedder is None or self._matrix is None:
            return []
        covered = [(m.start, m.end) for m in lexical]
        spans: list[tuple[int, int]] = []
        for i in range(len(tokens)):
            for n in range(1, min(self._longest, len(tokens) - i) + 1):
                span = tokens[i : i + n]
                if is_function_word(span[0].norm) or is_function_word(span[-1].norm):
                    continue
                start, end = span[0].start, span[-1].end
                if any(start < e and s < end for s, e in covered):
                    continue
                spans.append((start, end))
        if not spans:
            return []
        vecs = np.asarray(self._embedder.embed([question[s:e] for s, e in spans]), dtype=np.float32)
        sims = vecs @ self._matrix.T
        out: list[Mention] = []
        for row, (s, e) in enumerate(spans):
            for idx in np.flatnonzero(sims[row] >= EMBEDDING_MIN_COSINE):
                entry = self._entries[int(idx)]
                score = float(sims[row, idx]) * EMBEDDING_WEIGHT * entry.base
                out.append(Mention(question[s:e], s, e, entry.iri, entry.kind, entry.label, score))
        return _best_per_iri_span(out)


def _best_per_iri_span(mentions: list[Mention]) -> list[Mention]:
    best: dict[tuple[int, int, str], Mention] = {}
    for m in mentions:
        k = (m.start, m.end, m.iri)
        if k not in best or m.score > best[k].score:
            best[k] = m
    return list(best.values())
