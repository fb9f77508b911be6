"""Entity mentions of a parsed chunk, for the spaCy extractor (:mod:`.nlp`): what is an entity, its type, and
which entity a pronoun stands for.

* **Known names**: spans the known-names ruler set (``kb_id`` names the :class:`KnownEntity`): the entity's
  preferred label, type and IRI, its other labels as aliases.
* **NER spans**: new names, typed by :func:`ner_type`; numeric and temporal labels (dates, money, ...) are not
  entities (the relation patterns keep them as keywords). A span is cut where it leaves its segment of the
  chunk's :mod:`.layout` (a line, a table cell, a heading, a field's label or value) or its sentence, and grows
  over the proper nouns the parser compounds with it ("Farid" + "Rask").
* **Proper nouns** the NER left out (runs of ``PROPN`` tokens with a capital, joined across "of": "Vale of
  Ceris"): named, type ``concept``; a run modifying a name the NER found (a title: "Dr." in "Dr. Helen
  Achebe") is left out when it is one word.
* **Not names**: words of field labels, table headers and lines written in capitals; a word capitalised only
  by its position (a common word -- the pipeline lexicon's, or written in lower case elsewhere in the chunk --
  alone at the start of a sentence, line or cell: "Usage dropped", "Role"), and common words only in a
  title-case heading or cell ("Next Steps"), unless the chunk capitalises them mid-sentence too.
* **Short names**: a one-word name that is the first or last word of a person's full name in the chunk, or the
  first word of another name but a place's, is that entity ("Lucas" -> "Lucas Pennock").
* **Common noun phrases** (the compounds and adjectives of a noun, without determiners and possessors, at
  most four words): ``named=False``; the knowledge base keeps them only when they recur across chunks.

Types are the ontology's where it has one: :func:`map_category` maps a category (person, organization,
location, product, ...) onto ``entity_types`` by a small table of English class words; with no
``entity_types`` the category itself. Evidence ranks: a known entity's type, then a class phrase that maps
onto ``entity_types`` ("X is a customer"), then an unmapped class phrase ("X is a billing platform" types X
``billing platform``: what the text says of the entity itself beats the NER's guess), then NER PERSON (and a
name a "who" clause modifies), then the other NER labels, then ``concept``; the first of the highest rank
wins.

Pronouns resolve to the nearest preceding *named* mention of the chunk that fits the pronoun's morphology
(spaCy's ``Gender``/``Number`` features): he/she to a person, it/its to a non-person (passing over places when
an organisation or thing was named in the same or the previous sentence), they/their to an organisation or a
plural name; for he/she/it a fitting subject of the same or the previous sentence comes before a nearer name.
Common noun phrases are never antecedents, nor is the name a clause or apposition holding the pronoun is
attached to ("X, who is its CEO").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from spacy.tokens import Doc, Span, Token

from hybridkg.structural.base import ExtractedEntity, ExtractedRelation, Extraction, KnownEntity
from hybridkg.structural.extract.layout import Kind, Layout, Segment
from hybridkg.structural.resolution import GENERIC_TYPE, is_generic_type, normalise_name

NUMERIC_LABELS = frozenset({"DATE", "TIME", "MONEY", "PERCENT", "QUANTITY", "CARDINAL", "ORDINAL"})
NER_CATEGORIES = {
    "PERSON": "person",
    "ORG": "organization",
    "GPE": "location",
    "LOC": "location",
    "FAC": "location",
    "PRODUCT": "product",
    "NORP": "group",
    "EVENT": "event",
    "WORK_OF_ART": "work",
    "LAW": "law",
    "LANGUAGE": "language",
}
CATEGORY_WORDS = {
    "person": ("person", "people", "human", "individual", "contact", "per"),
    "organization": (
        "organization", "organisation", "company", "business", "firm", "corporation", "institution", "startup",
        "agency", "org",
    ),
    "location": ("location", "place", "city", "country", "region", "town", "site", "gpe", "loc"),
    "product": ("product", "service", "software", "tool", "platform", "application", "app"),
    "group": ("group", "nationality", "norp"),
    "event": ("event", "meeting", "conference"),
    "work": ("work", "document", "publication"),
    "law": ("law", "regulation", "legislation"),
    "language": ("language",),
}
_WORD_CATEGORY = {w: c for c, words in CATEGORY_WORDS.items() for w in words}
MAX_PHRASE_WORDS = 4
MAX_DESCRIPTION_CHARS = 500
MAX_KEYWORDS = 6
CO_OCCURS = "co_occurs"

# type evidence ranks (see the module docstring)
RANK_NONE, RANK_NER, RANK_WEAK, RANK_PHRASE, RANK_CLASS, RANK_KNOWN = range(6)
LAYOUT = "hybridkg_layout"  # Doc.user_data key of the chunk's layout.Layout
_NO_NAMES = frozenset({Kind.LABEL, Kind.HEADER})  # segments whose words are field names, never entity names
_TITLED = frozenset({Kind.HEADING, Kind.CELL})  # segments written in title case by convention

_PHRASE_DEPS = frozenset({"compound", "amod", "nmod"})
_PHRASE_POS = frozenset({"NOUN", "ADJ", "PROPN", "VERB"})


def fold_type(name: str) -> str:
    """``"crm:SalesRep"``/``"Sales representative"`` -> ``"salesrep"``/``"salesrepresentative"``."""
    return re.sub(r"\W+", "", re.split(r"[#/:]", name)[-1]).casefold()


def map_category(category: str, entity_types: Sequence[str]) -> str:
    """The ``entity_types`` entry a category (person, organization, ...) stands for; else the category."""
    if not entity_types:
        return category
    table = {fold_type(t): t for t in entity_types}
    for word in (category, *CATEGORY_WORDS.get(category, ())):
        if word in table:
            return table[word]
    return category


def ner_type(label: str, entity_types: Sequence[str]) -> str:
    """The type of an NER span: its category mapped onto ``entity_types``, else the label in lower case."""
    category = NER_CATEGORIES.get(label)
    return map_category(category, entity_types) if category else label.lower()


def class_type(phrase: str, head: str, entity_types: Sequence[str]) -> str | None:
    """The ``entity_types`` entry (or, with none given, the category) a class phrase names, if any: the phrase or
    its head noun equal to a type's name, else the head noun's category."""
    table = {fold_type(t): t for t in entity_types}
    for key in (fold_type(phrase), fold_type(head)):
        if key in table:
            return table[key]
    category = _WORD_CATEGORY.get(head.casefold())
    return map_category(category, entity_types) if category else None


def category_of(entity_type: str) -> str | None:
    """The category (person, organization, ...) a type string names, for pronoun agreement."""
    return _WORD_CATEGORY.get(fold_type(entity_type))


def clip(text: str, limit: int = MAX_DESCRIPTION_CHARS) -> str:
    text = " ".join(text[: limit * 4].split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit - 1] + "…"


@dataclass(slots=True)
class Draft:
    """An entity of the chunk as the patterns learn about it."""

    name: str
    type: str
    rank: int
    named: bool
    sentence: str
    iri: str | None = None
    aliases: tuple[str, ...] = ()
    category: str | None = None
    plural: bool = False
    facts: list[str] = field(default_factory=list)
    def retype(self, entity_type: str, rank: int) -> None:
        if rank > self.rank:
            self.type, self.rank = entity_type, rank
            self.category = category_of(entity_type) or self.category

    def entity(self) -> ExtractedEntity:
        description = self.sentence
        if self.facts:
            description = clip("; ".join(self.facts) + ". " + description)
        return ExtractedEntity(self.name, self.type, description, self.iri, self.named, self.aliases)


@dataclass(slots=True)
class Mention:
    key: str
    start: int  # token index
    end: int  # exclusive
    sent: int  # sentence index


@dataclass(slots=True)
class _Relation:
    src: str
    dst: str
    type: str
    keywords: list[str]
    description: str
    weight: float


class ChunkGraph:
    """The entities and relations of one chunk, merged across its sentences; ``token_key[i]`` is the entity
    token ``i`` belongs to."""

    def __init__(self, doc: Doc) -> None:
        self.doc = doc
        self.drafts: dict[str, Draft] = {}
        self.mentions: list[Mention] = []
        self.token_key: list[str | None] = [None] * len(doc)
        self.relations: dict[tuple[str, str, str], _Relation] = {}
        self.kids: list[list[Token]] = [[] for _ in range(len(doc))]  # Token.children, computed once
        tokens = list(doc)
        self.lower_words = {t.text for t in tokens if t.text.islower()}  # words the chunk writes in lower case
        for token, offset in zip(tokens, doc.to_array("HEAD").astype("int64").tolist(), strict=True):
            if offset:
                self.kids[token.i + offset].append(token)
        self._sent_of = [0] * len(doc)
        for i, s in enumerate(doc.sents):
            for t in range(s.start, s.end):
                self._sent_of[t] = i
        self._antecedents: dict[int, str | None] = {}
        self.classes: dict[str, str | None] = {}  # class phrase or head noun -> the one entity it describes
        self.classes_sentence: dict[str, int] = {}
        self.layout: Layout | None = doc.user_data.get(LAYOUT)
        self.segment_of: list[Segment | None] = [None] * len(doc)
        if self.layout is not None:
            segments = sorted(self.layout.segments, key=lambda s: s.start)
            n = 0
            for token in tokens:
                while n < len(segments) and segments[n].end <= token.idx:
                    n += 1
                if n < len(segments) and segments[n].start <= token.idx and not token.is_space:
                    self.segment_of[token.i] = segments[n]

    def sentence_index(self, token: Token) -> int:
        return self._sent_of[token.i]

    def add(self, key: str, tokens: Span | Sequence[Token], draft: Draft) -> None:
        prior = self.drafts.get(key)
        if prior is None:
            self.drafts[key] = draft
        else:
            prior.named = prior.named or draft.named
            prior.retype(draft.type, draft.rank)
        first, last = tokens[0].i, tokens[-1].i
        for i in range(first, last + 1):
            self.token_key[i] = key
        self.mentions.append(Mention(key, first, last + 1, self._sent_of[first]))

    def describe_as(self, key: str, phrase: str, head: str, sentence: int) -> None:
        """Note that a class phrase (and its head noun) describes entity ``key``; a phrase describing two
        entities describes none."""
        for word in dict.fromkeys((phrase, head)):
            if word not in self.classes:
                self.classes[word] = key
                self.classes_sentence[word] = sentence
            elif self.classes[word] != key:
                self.classes[word] = None

    def named(self, key: str | None) -> bool:
        return key is not None and self.drafts[key].named

    def relate(self, src: str, dst: str, rel_type: str, keywords: Sequence[str], sentence: str, weight: float) -> None:
        if src == dst:
            return
        if rel_type == CO_OCCURS and dst < src:
            src, dst = dst, src
        rel = self.relations.get((src, dst, rel_type))
        if rel is None:
            self.relations[(src, dst, rel_type)] = _Relation(src, dst, rel_type, list(keywords), sentence, weight)
            return
        rel.weight += weight
        rel.keywords.extend(k for k in keywords if k not in rel.keywords)

    def antecedent(self, pronoun: Token) -> str | None:
        """The named entity a personal or possessive pronoun stands for (see the module docstring)."""
        if pronoun.i not in self._antecedents:
            self._antecedents[pronoun.i] = self._resolve(pronoun)
        return self._antecedents[pronoun.i]

    def _resolve(self, pronoun: Token) -> str | None:
        morph = pronoun.morph
        person = morph.get("Person", [])
        if person and "3" not in person:
            return None
        gender, number = morph.get("Gender", []), morph.get("Number", [])
        # a pronoun inside a clause or apposition attached to a name is not that name ("X, who is its CEO")
        bound = {self.token_key[a.head.i] for a in pronoun.ancestors if a.dep_ in ("relcl", "acl", "appos")}
        before = [
            m for m in reversed(self.mentions)
            if m.end <= pronoun.i and self.drafts[m.key].named and m.key not in bound
        ]
        here = self._sent_of[pronoun.i]
        if "Masc" in gender or "Fem" in gender:
            people = [m for m in before if self.drafts[m.key].category == "person"]
            return self._salient(people, here)
        if "Neut" in gender:
            things = [m for m in before if self.drafts[m.key].category != "person"]
            recent = [m for m in things if m.sent >= here - 1 and self.drafts[m.key].category != "location"]
            if recent:
                return self._salient(recent, here)
            return things[0].key if things else None
        if "Plur" in number:
            return next(
                (m.key for m in before if self.drafts[m.key].category == "organization" or self.drafts[m.key].plural),
                None,
            )
        return None

    def _salient(self, candidates: list[Mention], here: int) -> str | None:
        """The nearest candidate, unless a subject of the pronoun's sentence or the one before is a candidate:
        then the nearest such subject ("Pillpost was built by Foxglove. Farid wants to bring it in-house")."""
        for m in candidates:
            if m.sent < here - 1:
                break
            head = next((t for t in self.doc[m.start : m.end] if not m.start <= t.head.i < m.end or t.head == t),
                        None)
            if head is not None and (
                head.dep_ in ("nsubj", "nsubjpass")
                or (head.dep_ == "appos" and head.head.dep_ in ("nsubj", "nsubjpass"))
            ):
                return m.key
        return candidates[0].key if candidates else None

    def extraction(self) -> Extraction:
        names = {k: d.name for k, d in self.drafts.items() if normalise_name(d.name)}
        relations = [
            ExtractedRelation(names[r.src], names[r.dst], r.type, tuple(r.keywords[:MAX_KEYWORDS]), r.description,
                              r.weight)
            for r in self.relations.values()
            if r.src in names and r.dst in names
        ]
        return Extraction([d.entity() for k, d in self.drafts.items() if k in names], relations)


def collect(
    doc: Doc,
    known: Callable[[str], KnownEntity | None],
    entity_types: Sequence[str],
    common_word: Callable[[str], bool] = lambda word: False,
) -> ChunkGraph:
    """The chunk's entity mentions: known names, NER spans, other proper nouns, common noun phrases.
    ``common_word(w)`` says whether the lower-case word ``w`` is a common English word (see :func:`_by_position`)."""
    graph = ChunkGraph(doc)
    sentence_of = _descriptions(graph)
    for span in doc.ents:
        if span.kb_id_:
            entity = known(span.kb_id_)
            if entity is not None:
                _add_known(graph, span, entity, sentence_of[span.start])
            continue
        if span.label_ in NUMERIC_LABELS:
            continue
        pieces = _pieces(graph, span)
        for tokens in pieces:
            tokens = _trim(tokens)
            if not tokens or not _may_name(graph, tokens):
                continue
            if len(pieces) > 1 and _by_position(graph, tokens, common_word):
                continue
            tokens = _widen(graph, tokens, common_word)
            name = doc[tokens[0].i : tokens[-1].i + 1].text
            key = normalise_name(name)
            if not key:
                continue
            category = NER_CATEGORIES.get(span.label_)
            rank = RANK_WEAK if category == "person" else RANK_NER
            draft = Draft(name, ner_type(span.label_, entity_types), rank, True, sentence_of[tokens[0].i],
                          category=category, plural=tokens[-1].tag_ in ("NNS", "NNPS"))
            graph.add(key, tokens, draft)
    _proper_nouns(graph, sentence_of, common_word)
    _short_names(graph)
    _persons_by_who(graph, entity_types)
    _common_nouns(graph, sentence_of)
    graph.mentions.sort(key=lambda m: m.start)
    return graph


def _descriptions(graph: ChunkGraph) -> list[str]:
    """Each token's description: its sentence, or for a table cell or field value the record it belongs to."""
    doc = graph.doc
    sentence_of = [""] * len(doc)
    for s in doc.sents:
        text = clip(s.text)
        for i in range(s.start, s.end):
            sentence_of[i] = text
    if graph.layout is not None and graph.layout.records:
        for record in graph.layout.records:
            text = clip(record.text)
            for f in record.fields:
                span = doc.char_span(f.start, f.end, alignment_mode="expand")
                for i in range(span.start, span.end) if span is not None else ():
                    sentence_of[i] = text
    return sentence_of


def _pieces(graph: ChunkGraph, span: Span) -> list[list[Token]]:
    """An NER span cut wherever it leaves its segment or sentence: a name never runs across a line break, a
    table cell or a heading."""
    pieces: list[list[Token]] = [[]]
    for token in span:
        if token.is_space or (token.text == "|" and token.pos_ in ("PUNCT", "SYM", "X")):
            pieces.append([])
            continue
        last = pieces[-1][-1] if pieces[-1] else None
        if last is not None and (
            graph.segment_of[last.i] is not graph.segment_of[token.i] or token.is_sent_start
        ):
            pieces.append([])
        pieces[-1].append(token)
    return [p for p in pieces if p]


def _widen(graph: ChunkGraph, tokens: list[Token], common_word: Callable[[str], bool]) -> list[Token]:
    """An NER span grown over the proper nouns the parser compounds with it that it left out ("Farid" + "Rask"
    when only "Farid" was labelled); leftwards only over words that are not common words (not a title such as
    "President" or "Dr")."""
    doc = graph.doc

    def fits(t: Token) -> bool:
        return (
            t.pos_ == "PROPN"
            and not t.ent_type_
            and graph.token_key[t.i] is None
            and graph.segment_of[t.i] is graph.segment_of[tokens[0].i]
            and graph.sentence_index(t) == graph.sentence_index(tokens[0])
        )

    span = {t.i for t in tokens}
    while tokens[-1].i + 1 < len(doc):
        nxt = doc[tokens[-1].i + 1]
        if not (fits(nxt) and tokens[-1].dep_ == "compound" and tokens[-1].head.i == nxt.i):
            break
        tokens = [*tokens, nxt]
        span.add(nxt.i)
    while tokens[0].i > 0:
        prev = doc[tokens[0].i - 1]
        if not (fits(prev) and prev.dep_ == "compound" and prev.head.i in span and prev.is_alpha
                and not _is_common(graph, prev, common_word)):
            break
        tokens = [prev, *tokens]
        span.add(prev.i)
    return tokens


def _may_name(graph: ChunkGraph, tokens: Sequence[Token]) -> bool:
    """Whether a segment may hold names there: not a field label, a table header or a line in capitals."""
    segment = graph.segment_of[tokens[0].i]
    return segment is None or (segment.kind not in _NO_NAMES and not segment.caps)


def _segment_start(graph: ChunkGraph, token: Token) -> bool:
    """Whether ``token`` is the first word of its sentence or segment (where English capitalises any word)."""
    if token.is_sent_start:
        return True
    segment = graph.segment_of[token.i]
    if segment is None:
        return False
    before = token.i - 1
    while before >= 0 and graph.doc[before].is_punct and graph.segment_of[before] is segment:
        before -= 1  # "1. Acquisition", "(a) Scope"
    return before < 0 or graph.segment_of[before] is not segment or graph.doc[before].like_num


def _dictionary_forms(word: str) -> tuple[str, ...]:
    """``word`` in lower case and, for a plural, its singular by the regular English endings."""
    w = word.lower()
    out = [w]
    if w.endswith("ies") and len(w) > 4:
        out.append(w[:-3] + "y")
    if w.endswith("es") and len(w) > 3:
        out.append(w[:-2])
    if w.endswith("s") and len(w) > 2:
        out.append(w[:-1])
    return tuple(out)


def _is_common(graph: ChunkGraph, token: Token, common_word: Callable[[str], bool]) -> bool:
    """A capitalised word that is a common English word: the pipeline's lexicon knows its lower-case form, or
    the chunk writes it in lower case elsewhere. Function words and punctuation count as common."""
    if token.is_punct or token.is_stop or not token.is_alpha:
        return token.is_punct or token.is_stop
    if any(common_word(form) for form in _dictionary_forms(token.text)):
        return True
    return token.lower_ in graph.lower_words


def _by_position(graph: ChunkGraph, tokens: Sequence[Token], common_word: Callable[[str], bool]) -> bool:
    """Capitalised only by position, so not a name: a single common word starting a sentence, a line or a cell
    ("Usage dropped", "Role", "Risks and ..."), or, in a heading or table cell (written in title case), common
    words only ("Next Steps", "Chief Operations Officer")."""
    if not tokens[0].text[:1].isupper() or _capitalised_elsewhere(graph, tokens):
        return False
    segment = graph.segment_of[tokens[0].i]
    words = [t for t in tokens if t.is_alpha]
    if (
        segment is not None
        and segment.kind in _TITLED
        and words
        and all(_is_common(graph, t, common_word) for t in tokens)
        and not all(t.is_stop for t in words)
    ):
        return True
    return len(words) == 1 and len(tokens) == 1 and _segment_start(graph, tokens[0]) and _is_common(
        graph, tokens[0], common_word
    )


def _capitalised_elsewhere(graph: ChunkGraph, tokens: Sequence[Token]) -> bool:
    """Evidence the words are a name after all: the chunk capitalises them where position does not force it
    ("Sofia to pick ..." after "Sofia Lindgren reported"), outside headings and cells."""
    first = tokens[0].text
    for t in graph.doc:
        if t.text != first or t.i == tokens[0].i or _segment_start(graph, t):
            continue
        segment = graph.segment_of[t.i]
        if segment is not None and segment.kind in _TITLED:
            continue
        if all(t.i + n < len(graph.doc) and graph.doc[t.i + n].text == w.text for n, w in enumerate(tokens)):
            return True
    return False


def _persons_by_who(graph: ChunkGraph, entity_types: Sequence[str]) -> None:
    """A name a relative clause with "who"/"whom" modifies is a person (English uses "which" for things) unless
    something better than the NER's guess said what it is."""
    for token in graph.doc:
        if token.lower_ not in ("who", "whom") or token.tag_ != "WP" or token.head.dep_ != "relcl":
            continue
        key = graph.token_key[token.head.head.i]
        if key is not None and graph.drafts[key].named and graph.drafts[key].rank <= RANK_NER:
            draft = graph.drafts[key]
            draft.retype(map_category("person", entity_types), RANK_WEAK)
            draft.category = "person"


def _short_names(graph: ChunkGraph) -> None:
    """A one-word name that is the first or last word of a person's full name in the chunk ("Lucas" after
    "Lucas Pennock"), or the first word of another name but a place's ("Pembury" after "Pembury Foods"), is
    that entity, whatever type the NER gave the word alone; when it fits two, it stays itself."""
    full: dict[str, set[str]] = {}
    for key, draft in graph.drafts.items():
        words = draft.name.split()
        if len(words) < 2 or not draft.named:
            continue
        if draft.category == "person":
            full.setdefault(words[0], set()).add(key)
            full.setdefault(words[-1], set()).add(key)
        elif draft.category != "location":
            full.setdefault(words[0], set()).add(key)
    if not full:
        return
    for key, draft in list(graph.drafts.items()):
        targets = full.get(draft.name, set()) - {key}
        if len(targets) != 1 or len(draft.name.split()) != 1 or draft.iri is not None:
            continue
        target = targets.pop()
        graph.drafts[target].retype(draft.type, draft.rank)
        if graph.drafts[target].category is None:
            graph.drafts[target].category = draft.category
        for m in graph.mentions:
            if m.key == key:
                m.key = target
                for i in range(m.start, m.end):
                    graph.token_key[i] = target
        del graph.drafts[key]


def _add_known(graph: ChunkGraph, span: Span, entity: KnownEntity, sentence: str) -> None:
    labels = [label.strip() for label in entity.labels if label.strip()]
    name = labels[0] if labels else span.text
    aliases = tuple(dict.fromkeys(label for label in labels[1:] if label != name))
    entity_type = entity.type or GENERIC_TYPE
    rank = RANK_NONE if is_generic_type(entity_type) else RANK_KNOWN
    draft = Draft(name, entity_type, rank, True, sentence, entity.iri, aliases, category_of(entity_type),
                  plural=span.root.tag_ in ("NNS", "NNPS"))
    graph.add(span.kb_id_, span, draft)


def _trim(span: Span | Sequence[Token]) -> list[Token]:
    tokens = list(span)
    while tokens and (tokens[0].pos_ in ("DET", "PUNCT", "SPACE") or tokens[0].dep_ == "case"):
        tokens.pop(0)
    while tokens and (tokens[-1].pos_ in ("PUNCT", "SPACE") or tokens[-1].tag_ == "POS"):
        tokens.pop()
    return tokens


def _proper_nouns(graph: ChunkGraph, sentence_of: list[str], common_word: Callable[[str], bool]) -> None:
    doc = graph.doc

    def free(token: Token) -> bool:
        return (
            token.pos_ == "PROPN"
            and graph.token_key[token.i] is None
            and not token.ent_type_
            and _may_name(graph, [token])
        )

    def joins(token: Token) -> bool:  # "of" between two proper nouns: "Vale of Ceris", "Bank of Holm"
        return (
            token.lower_ == "of"
            and token.head.i == token.i - 1
            and token.i + 1 < len(doc)
            and free(doc[token.i + 1])
            and graph.segment_of[token.i + 1] is graph.segment_of[token.i - 1]
        )

    run: list[Token] = []
    for token in [*doc, None]:
        if (
            token is not None
            and (free(token) or joins(token))
            and run
            and graph.sentence_index(run[0]) == graph.sentence_index(token)
            and graph.segment_of[run[0].i] is graph.segment_of[token.i]
            and not token.is_sent_start
        ):
            run.append(token)
            continue
        if run:
            name = doc[run[0].i : run[-1].i + 1].text
            key = normalise_name(name)
            head = run[-1].head  # a single word right before a name the NER found modifying it is a title ("Dr.")
            after = graph.token_key[run[0].i + 1] if run[0].i + 1 < len(doc) else None
            title = len(run) == 1 and after is not None and graph.token_key[head.i] == after
            if (
                not title
                and len(key) >= 2
                and any(c.isupper() for c in name)  # a name is written with a capital ("digital" tagged PROPN is not)
                and not _by_position(graph, run, common_word)
            ):
                draft = Draft(name, GENERIC_TYPE, RANK_NONE, True, sentence_of[run[0].i],
                              plural=run[-1].tag_ == "NNPS")
                graph.add(key, run, draft)
            run = []
        if token is not None and free(token):
            run = [token]


def phrase_tokens(noun: Token, graph: ChunkGraph | None = None) -> list[Token]:
    """A noun with the compounds and adjectives right before it (no determiner, possessor, number or named
    entity), at most :data:`MAX_PHRASE_WORDS` words."""
    out = [noun]
    i = noun.i - 1
    while i >= 0 and len(out) < MAX_PHRASE_WORDS:
        t = noun.doc[i]
        if t.dep_ not in _PHRASE_DEPS or t.pos_ not in _PHRASE_POS or t.ent_type_ in NUMERIC_LABELS:
            break
        if graph is not None and graph.named(graph.token_key[t.i]):
            break
        if t.head.i not in {o.i for o in out}:
            break
        out.insert(0, t)
        i -= 1
    return out


def phrase_text(tokens: Sequence[Token]) -> str:
    return " ".join(t.lower_ for t in tokens)


def _common_nouns(graph: ChunkGraph, sentence_of: list[str]) -> None:
    for token in graph.doc:
        if token.pos_ != "NOUN" or graph.token_key[token.i] is not None or token.ent_type_ in NUMERIC_LABELS:
            continue
        if token.is_stop or token.like_num or not token.is_alpha and not any(c.isalpha() for c in token.text):
            continue
        if not _may_name(graph, [token]):
            continue
        if token.dep_ in _PHRASE_DEPS and token.head.pos_ in ("NOUN", "PROPN") and token.head.i > token.i:
            continue  # part of a longer phrase
        tokens = phrase_tokens(token, graph)
        name = graph.doc[tokens[0].i : tokens[-1].i + 1].text
        if _segment_start(graph, tokens[0]) and name[:1].isupper() and name[1:2].islower():
            name = name[0].lower() + name[1:]
        key = normalise_name(name)
        if len(key) < 3:
            continue
        draft = Draft(name, GENERIC_TYPE, RANK_NONE, False, sentence_of[token.i], plural=token.tag_ == "NNS")
        graph.add(key, tokens, draft)
