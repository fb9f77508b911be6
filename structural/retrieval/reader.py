"""Reading the sentences retrieval touched: which named entities the question's evidence sentences offer.

The graph level finds an answer only when extraction turned the fact into an edge. A fact stated in a form no
pattern covers ("It was founded in 2014 by ...", "Fund manager: ...") still sits in a chunk, next to the
entity the question names. The reader looks at the sentences of the chunks the retrieval already holds (those
its top entities and linked entities cite, plus vector hits) and scores each sentence by two things a
question-answering reader has always used (passage retrieval for factoid QA, e.g. Tellex et al., SIGIR 2003):

* **Term overlap.** The question's content words outside the names it links (not function words, not digits;
  light verbs and ordinals count: "Who makes X?"),
  each reduced to its first :data:`STEM_CHARS` letters (n-gram truncation, McNamee & Mayfield 2004:
  ``founded``/``founder``, ``manages``/``manager``), weighted by inverse sentence frequency over the sentences
  read: ``lex(s) = sum idf(t in s) / sum idf(t)``. When the chunk keeps its parse, a sentence also holds the
  stems of its lemmas' regular inflections (:func:`inflected`): "makes" finds "made by".
* **Topic presence.** For each entity the question links, the best of: named in the sentence (1), in the
  sentence before it in the same chunk (:data:`PREVIOUS`: a pronoun's likely antecedent), elsewhere in the
  chunk (:data:`SAME_CHUNK`), in another read chunk of the same document (:data:`SAME_DOCUMENT`, half that: a
  later chunk of "Account review: Tarn Valley" says "the account" without the name), not at all (0); averaged
  over the linked entities (1 when none is linked).

* **Placement.** Of the entities one sentence names, the answer is the one the sentence attaches to what the
  question asks about (answer extraction by dependency relations, e.g. Cui et al., SIGIR 2005). When the chunk
  keeps its parse (the ``syntax`` property the spaCy extractor writes, :mod:`hybridkg.structural.syntax`), each
  candidate mention gets ``closeness = sum idf(t) / d(c, t) / sum idf(t)`` over the question terms ``t`` the
  sentence holds, ``d`` the dependency edges from the mention's head to the term's nearest token with
  prepositions collapsed ("escalated by Bryony": 1); a term inside the mention counts as adjacent, one in another
  sentence's tree as 0. Without terms (a question made of names) the question's linked mentions are the anchors,
  each weighted 1. The candidate's score is the sentence's times ``1 - w + w * closeness`` (``w`` =
  :data:`PLACEMENT_WEIGHT`, the same soft form as the answer-type factor); a chunk without a parse leaves
  every candidate the sentence's score.

``score(s) = presence(s) * lex(s)`` (a sentence sharing no term with the question says nothing about it: every
entity near the subject would otherwise gain a rank in the fusion; a question whose every content word is inside
the two or more names it links, "Who is the head of IT at Tarn Valley?", reads by presence alone, ``lex`` 1),
and a named entity's reading score is the best over the sentences that name it of the sentence's score times its
placement factor (the question's own entities excluded). Names are found by their name and aliases,
case-insensitively on word boundaries, with any run of whitespace between their words (hard-wrapped text). The
engine puts the best reading first (an extractive answer) and fuses the rest of this order with the graph's by
reciprocal rank (:func:`rrf`), so neither scale has to be calibrated against the other. :mod:`.hops` reads on
from the entities found here when the best reading leaves question terms unexplained (:class:`Passages` and
:class:`Reading` serve both hops).
"""

from __future__ import annotations

import math
import re
from collections.abc import Container, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from hybridkg.structural.base import Node
from hybridkg.structural.extract.lexicon import FUNCTION_WORDS
from hybridkg.structural.extract.sentences import WRAP_MIN_CHARS, sentence_spans
from hybridkg.structural.retrieval.compress import strings_of
from hybridkg.structural.retrieval.results import LinkedEntity
from hybridkg.structural.syntax import Parse, decode

STEM_CHARS = 5
PREVIOUS = 0.8
SAME_CHUNK = 0.5
SAME_DOCUMENT = SAME_CHUNK / 2
RRF_K = 60.0
_SUFFIXES = ("", "s", "es", "ed", "d", "ing", "er", "r")
PLACEMENT_WEIGHT = 0.5
MIN_NAME_CHARS = 2
_WORD = re.compile(r"[^\W_]+")
_ITEM_START = re.compile(r"[ \t]*(?:[-*•|#>]|\d+[.)])")


def stem(word: str) -> str:
    return word.casefold()[:STEM_CHARS]


def _content(word: str) -> bool:
    w = word.casefold()
    return w not in FUNCTION_WORDS and not w.isdigit() and len(w) > 1


def question_terms(query: str, linked: Sequence[LinkedEntity]) -> list[str]:
    """Distinct stems of the question's content words outside the linked mentions."""
    spans = [(e.start, e.end) for e in linked]
    out: dict[str, None] = {}
    for m in _WORD.finditer(query):
        if any(lo <= m.start() < hi for lo, hi in spans) or not _content(m.group()):
            continue
        out[stem(m.group())] = None
    return list(out)


def names_of(node: Node) -> list[str]:
    """The node's name and aliases, longest first, each at least :data:`MIN_NAME_CHARS` characters."""
    raw = [node.props.get("name"), *(node.props.get("aliases") or ())]
    names = {n.strip() for n in raw if isinstance(n, str) and len(n.strip()) >= MIN_NAME_CHARS}
    return sorted(names, key=lambda n: (-len(n), n))


def name_pattern(names: Sequence[str]) -> re.Pattern[str] | None:
    if not names:
        return None
    alts = "|".join(r"\s+".join(re.escape(w) for w in n.split()) for n in names)
    return re.compile(rf"(?<![\w])(?:{alts})(?![\w])", re.IGNORECASE)


@dataclass(slots=True)
class Sentence:
    text: str
    stems: frozenset[str]
    start: int = 0  # character offsets in the chunk's text
    end: int = 0


def unwrap(text: str) -> str:
    """``text`` with hard line wraps read as spaces (same length, so offsets hold): a single line break after a
    line of at least :data:`WRAP_MIN_CHARS` characters that does not end a clause (``.!?:;``), before a line that
    does not start a list item or table row. The sentence splitter keeps such a break when the next line starts
    with a capital, which cuts a wrapped name ("led by Nadia" / "Brookfield") in two."""
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines[:-1]):
        nxt = lines[i + 1]
        wrapped = (
            len(line.strip()) >= WRAP_MIN_CHARS
            and line.rstrip()[-1] not in ".!?:;"
            and nxt.strip() != ""
            and _ITEM_START.match(nxt) is None
        )
        out.append(line + (" " if wrapped else "\n"))
    out.append(lines[-1])
    return "".join(out)


@lru_cache(maxsize=8192)
def inflected(lemma: str) -> frozenset[str]:
    """The stems of ``lemma``'s regular English inflections and agent noun (``make`` -> make, makes, making,
    maker, ...): what a question may say for a word whose lemma a sentence's parse gives ("Who makes X?" for
    "made by"). Over-generated forms are harmless: they only match a question word of that form."""
    forms = {lemma + suffix for suffix in _SUFFIXES}
    if lemma.endswith("e"):
        forms.add(lemma[:-1] + "ing")
    if lemma.endswith("y"):
        forms |= {lemma[:-1] + "ies", lemma[:-1] + "ied"}
    forms |= {lemma + lemma[-1] + "ed", lemma + lemma[-1] + "ing", lemma + lemma[-1] + "er"}
    return frozenset(stem(f) for f in forms)


def token_forms(parse: Parse, text: str, base: int, token: int) -> frozenset[str]:
    """The stems a question term may take to match ``token`` (a token of ``parse`` in ``text``, which starts at
    chunk offset ``base``): its own stem and those of its lemma's inflections."""
    word = text[max(0, parse.starts[token] - base) : max(0, parse.ends[token] - base)]
    if not _content(word) or not word.isalpha():
        return frozenset()
    lemma = parse.lemmas[token] or word.casefold()
    return inflected(lemma) | {stem(word)} if _content(lemma) else frozenset({stem(word)})


def sentences_of(chunks: Sequence[Node], parses: dict[str, Parse | None] | None = None) -> list[list[Sentence]]:
    """The sentences of each chunk, with the stems of their content words, and of the inflections of their
    lemmas when the chunk keeps its parse (decoded into ``parses`` by chunk id when given)."""
    out: list[list[Sentence]] = []
    for node in chunks:
        text = node.props.get("text")
        text = unwrap(text) if isinstance(text, str) else ""
        parse = decode(node.props.get("syntax"))
        if parses is not None:
            parses[node.id] = parse
        row = []
        for a, b in sentence_spans(text):
            piece = text[a:b]
            stems = {stem(w) for w in _WORD.findall(piece) if _content(w)}
            if parse is not None:
                for t in parse.tokens_in(a, b):
                    stems |= token_forms(parse, piece, a, t)
            row.append(Sentence(piece, frozenset(stems), a, b))
        out.append(row)
    return out


def presence(
    rows: list[list[Sentence]], linked: Mapping[str, re.Pattern[str] | None], docs: Sequence[object] = ()
) -> list[list[float]]:
    """Each sentence's topic presence (see the module docstring); ``docs`` gives each row's document (a chunk of
    a document another read chunk names the topic in scores :data:`SAME_DOCUMENT`)."""
    if not linked:
        return [[1.0] * len(row) for row in rows]
    hits = {
        i: [[p is not None and p.search(s.text) is not None for s in row] for row in rows] for i, p in linked.items()
    }
    named_in = {
        i: {docs[r] for r, flags in enumerate(per_row) if any(flags) and r < len(docs) and docs[r] is not None}
        for i, per_row in hits.items()
    }
    out: list[list[float]] = []
    for r, row in enumerate(rows):
        doc = docs[r] if r < len(docs) else None
        scores = []
        for j in range(len(row)):
            total = 0.0
            for i, per_row in hits.items():
                flags = per_row[r]
                if flags[j]:
                    total += 1.0
                elif j > 0 and flags[j - 1]:
                    total += PREVIOUS
                elif any(flags):
                    total += SAME_CHUNK
                elif doc is not None and doc in named_in[i]:
                    total += SAME_DOCUMENT
            scores.append(total / len(hits))
        out.append(scores)
    return out


@dataclass(frozen=True, slots=True)
class Reading:
    """An entity's best reading: its ``score``, the presence ``mark`` of the sentence(s) that gave it (a product
    along a chain of hops) and the question terms those sentences ``cover``."""

    score: float
    mark: float
    covered: frozenset[str]


START = Reading(0.0, 1.0, frozenset())


@dataclass(slots=True)
class Passages:
    """The sentences read for one question, with the question's terms and their idf over the first sentences."""

    idf: dict[str, float]
    chunks: list[Node]
    rows: list[list[Sentence]]
    entities: dict[str, Node]
    patterns: dict[str, re.Pattern[str] | None]
    parses: dict[str, Parse | None] = field(default_factory=dict)

    @classmethod
    def of(
        cls, terms: Sequence[str], chunks: Sequence[Node], rows: list[list[Sentence]], entities: Mapping[str, Node],
        parses: dict[str, Parse | None] | None = None,
    ) -> Passages:
        flat = [s for row in rows for s in row]
        n = len(flat)
        idf = {t: math.log(1.0 + n / (1 + sum(1 for s in flat if t in s.stems))) for t in terms}
        return cls(idf, list(chunks), rows, dict(entities), {}, parses if parses is not None else {})

    @property
    def terms(self) -> frozenset[str]:
        return frozenset(self.idf)

    def add(self, chunks: Sequence[Node], entities: Mapping[str, Node]) -> None:
        """More chunks to read (the idf stays that of the first sentences, so scores keep one scale)."""
        self.chunks += chunks
        self.rows += sentences_of(chunks, self.parses)
        for i, node in entities.items():
            self.entities.setdefault(i, node)

    def lex(self, covered: frozenset[str]) -> float:
        """Share of the question's idf ``covered`` (1 for a question without terms: nothing is left unsaid)."""
        total = sum(self.idf.values())
        return sum(self.idf[t] for t in covered) / total if total > 0 else 1.0

    def pattern(self, entity: str) -> re.Pattern[str] | None:
        if entity not in self.patterns:
            node = self.entities.get(entity)
            self.patterns[entity] = name_pattern(names_of(node)) if node is not None else None
        return self.patterns[entity]

    def named_in(self, entity: str, sentence: Sentence) -> bool:
        p = self.pattern(entity)
        return p is not None and p.search(sentence.text) is not None

    def parse_of(self, chunk: Node) -> Parse | None:
        if chunk.id not in self.parses:
            self.parses[chunk.id] = decode(chunk.props.get("syntax"))
        return self.parses[chunk.id]

    def placement(
        self, parse: Parse | None, sentence: Sentence, found: frozenset[str], topics: Sequence[str],
        candidates: Sequence[str],
    ) -> dict[str, float]:
        """Each candidate's :func:`closeness` to what the question asks about in ``sentence``: the tokens of its
        terms ``found`` there (weighted by idf), else the mentions of the question's ``topics``; empty (no
        preference) without a parse or an anchor."""
        if parse is None:
            return {}
        base = sentence.start
        tokens = parse.tokens_in(base, sentence.end)
        anchors: list[tuple[int, float]] = []
        if found:
            for t in tokens:
                matched = found & token_forms(parse, sentence.text, base, t)
                if matched:
                    anchors.append((t, max(self.idf[m] for m in matched)))
        else:
            for i in topics:
                anchors += [(r, 1.0) for a, b in self._mentions(sentence, i) if (r := parse.root_of(a, b)) is not None]
        if not anchors or sum(w for _, w in anchors) <= 0:
            return {}
        out: dict[str, float] = {}
        for i in candidates:
            mentions = self._mentions(sentence, i)
            roots = [r for a, b in mentions if (r := parse.root_of(a, b)) is not None]
            own = frozenset(t for a, b in mentions for t in parse.tokens_in(a, b))
            if roots:
                out[i] = max(closeness(parse, r, anchors, own) for r in roots)
        return out

    def _mentions(self, sentence: Sentence, entity: str) -> list[tuple[int, int]]:
        """The chunk offsets of ``entity``'s mentions in ``sentence``."""
        p = self.pattern(entity)
        if p is None:
            return []
        return [(sentence.start + m.start(), sentence.start + m.end()) for m in p.finditer(sentence.text)]

    def candidates(self, node: Node, exclude: Container[str]) -> list[str]:
        """The named entities ``node`` mentions, outside ``exclude``."""
        return [
            i
            for i in strings_of(node.props.get("entity_ids"))
            if i in self.entities and i not in exclude and self.entities[i].props.get("named", True) is not False
        ]

    def read(
        self,
        rows: list[list[Sentence]],
        chunks: Sequence[Node],
        topics: Sequence[str],
        start: Reading,
        wanted: frozenset[str] | None,
        exclude: Container[str],
        out: dict[str, Reading],
    ) -> None:
        """Read ``rows`` (the sentences of ``chunks``) about ``topics`` (presence as in the module docstring; every
        sentence is on topic when there is none), continuing a reading ``start``: a sentence counts when it holds
        a term of ``wanted`` (any sentence when ``None``), and scores ``start.mark * presence * lex(start.covered |
        its terms)``. Each entity named in it (outside ``exclude``) keeps its best reading in ``out``."""
        docs = [node.props.get("doc") for node in chunks]
        marks_of = presence(rows, {i: self.pattern(i) for i in topics}, docs)
        terms = self.idf.keys()
        for row, marks, node in zip(rows, marks_of, chunks, strict=True):
            candidates = self.candidates(node, exclude)
            if not candidates:
                continue
            parse = self.parse_of(node)
            for s, mark in zip(row, marks, strict=True):
                if mark <= 0.0:
                    continue
                if wanted is not None and wanted.isdisjoint(s.stems):
                    continue
                found = frozenset(t for t in terms if t in s.stems)
                covered = start.covered | found
                chain = start.mark * mark
                value = chain * self.lex(covered)
                named = [i for i in candidates if self.named_in(i, s)]
                if not named or value <= min((out[i].score if i in out else 0.0) for i in named):
                    continue
                near = self.placement(parse, s, found, topics, named)
                for i in named:
                    score = value * (1.0 - PLACEMENT_WEIGHT + PLACEMENT_WEIGHT * near[i]) if i in near else value
                    if score > (out[i].score if i in out else 0.0):
                        out[i] = Reading(score, chain, covered)


def closeness(parse: Parse, root: int, anchors: Sequence[tuple[int, float]], own: Container[int]) -> float:
    """``sum w(a) / d(root, a) / sum w(a)`` over the weighted ``anchors``: 1 when every anchor is one dependency
    edge from the candidate's mention (or inside it, ``own``), less the further they are; an anchor in another
    sentence's tree contributes 0."""
    up = parse.path_to_root(root)
    total = weight = 0.0
    for a, w in anchors:
        weight += w
        if a in own:
            total += w
            continue
        d = parse.distance(root, a, up)
        if d is not None and d > 0:
            total += w / d
    return total / weight if weight > 0 else 0.0


def read(
    query: str,
    linked: Sequence[LinkedEntity],
    chunks: Sequence[Node],
    entities: Mapping[str, Node],
) -> dict[str, float]:
    """Reading score of each named entity of ``entities`` that a sentence of ``chunks`` names (see the module
    docstring); the entities ``linked`` names are not candidates. ``entities`` holds every entity the chunks
    mention (``entity_ids``) that may be a candidate, with its ``name``, ``aliases`` and ``named``."""
    return {i: r.score for i, r in read_first(query, linked, chunks, entities)[1].items()}


def read_first(
    query: str,
    linked: Sequence[LinkedEntity],
    chunks: Sequence[Node],
    entities: Mapping[str, Node],
) -> tuple[Passages | None, dict[str, Reading]]:
    """:func:`read` with each entity's :class:`Reading`, and the :class:`Passages` to read on from (``None`` when
    the question has no term or there is nothing to read)."""
    terms = question_terms(query, linked)
    parses: dict[str, Parse | None] = {}
    rows = sentences_of(chunks, parses) if readable(query, linked) else []
    if not any(rows):
        return None, {}  # nothing to read for (see readable) or nothing to read
    passages = Passages.of(terms, chunks, rows, entities, parses)
    topics = list(dict.fromkeys(e.id for e in linked))
    out: dict[str, Reading] = {}
    passages.read(rows, chunks, topics, START, passages.terms or None, set(topics), out)
    return passages, out


def readable(query: str, linked: Sequence[LinkedEntity]) -> bool:
    """Whether reading can score a sentence for ``query``: it has a term outside its linked mentions, or it names
    two entities or more in different words (then a sentence naming them together is the evidence, whatever its
    words: "Who is the head of IT at Tarn Valley?" with both "head of IT" and "Tarn Valley" linked). A question
    that names one entity and says nothing more reads nothing (any sentence about the entity would score), even
    when its one mention links several entities (a short form shared by two names: alternatives, not a pair)."""
    return bool(question_terms(query, linked)) or len({(e.start, e.end) for e in linked}) >= 2


def rrf(orders: Iterable[Sequence[str]], k: float = RRF_K) -> dict[str, float]:
    """Reciprocal rank fusion (Cormack et al., SIGIR 2009): ``sum 1 / (k + rank)`` over the orders, rank from 1."""
    out: dict[str, float] = {}
    for order in orders:
        for rank, i in enumerate(order, start=1):
            out[i] = out.get(i, 0.0) + 1.0 / (k + rank)
    return out
