"""The offline extractor: entities and relations from a chunk without an LLM, deterministic and fast.

1. **Known entities**: mentions of labels/altLabels of :class:`KnownEntity` records (a :class:`Gazetteer`)
   become entities carrying the known ``iri``, ``type`` and preferred label.
2. **New entities**: runs of capitalised words (named entities, e.g. "World Health Organization"; a lone
   capitalised word opening a sentence, and Title Case headlines, are read as ordinary words) and noun
   phrases (runs of content words: not a stopword, number, verb or adverb; trailing adjectives dropped; at
   most four words). Generic nouns ("way", "result") and predicate adjectives ("is old") alone are
   skipped. Types are guessed from a few cues (a title before a name, "Inc", "University", drug and
   disease suffixes) and mapped onto ``entity_types`` when one matches, else ``"concept"``. An entity's
   description is the sentence it first appears in.
3. **Relations**: one per entity pair and sentence, each mention paired with its ``max_neighbours``
   nearest successors only (linear in sentence length). Between adjacent mentions, a verb ("X treats Y",
   "X is prescribed for Y", "Y was acquired by X") types the relation with the verb (third person, or the
   participle of a passive); otherwise the type is ``co_occurs``. Keywords are the verb phrase and the
   content words between the two mentions; the description is the sentence; each sentence adds 1 to the
   weight.

Part-of-speech guesses come from the word lists in :mod:`.lexicon`; they are wrong sometimes, in ways a
reader can predict and a test can pin down.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

from hybridkg.structural.base import ExtractedEntity, ExtractedRelation, Extraction, KnownEntity
from hybridkg.structural.extract import lexicon as lx
from hybridkg.structural.extract.matcher import Gazetteer, Mention
from hybridkg.structural.extract.sentences import Word, sentence_spans, words
from hybridkg.structural.resolution import GENERIC_TYPE, normalise_name

CO_OCCURS = "co_occurs"
MAX_NAME_WORDS = 6
MAX_PHRASE_WORDS = 4
MAX_VERB_GAP = 10
MAX_KEYWORDS = 6
MAX_DESCRIPTION_CHARS = 500

_NUMBER = re.compile(r"^[\d.,%/:+-]+$")
_LOWER_WORD = re.compile(r"(?<![\w'’-])[a-z][a-z'’-]*[a-z]")
_TYPE_ALIASES = {
    "person": ("person", "people", "human", "individual", "per"),
    "organization": ("organization", "organisation", "org", "company", "institution", "corporation"),
    "location": ("location", "place", "geo", "gpe", "country", "city", "loc"),
    "drug": ("drug", "medication", "medicine", "medicinalproduct", "pharmaceutical", "chemical", "substance"),
    "disease": ("disease", "condition", "disorder", "illness", "diagnosis", "medicalcondition"),
}


@dataclass(slots=True)
class _Found:
    """One entity mention in a sentence: ``key`` in the chunk's registry, words ``first``..``last``."""

    key: str
    first: int
    last: int


@dataclass(slots=True)
class _Relation:
    src: str
    dst: str
    type: str
    keywords: list[str]
    description: str
    weight: float = 1.0


@dataclass(slots=True)
class _Chunk:
    """Entities and relations of one chunk, merged as sentences are read."""

    lowercase: frozenset[str] = frozenset()
    names: dict[str, ExtractedEntity] = field(default_factory=dict)
    relations: dict[tuple[str, str, str], _Relation] = field(default_factory=dict)

    def entity(self, key: str, entity: ExtractedEntity) -> str:
        self.names.setdefault(key, entity)
        return key

    def relate(self, src: str, dst: str, rel_type: str, keywords: Sequence[str], sentence: str) -> None:
        if rel_type == CO_OCCURS and (dst, src, rel_type) in self.relations:
            src, dst = dst, src
        rel = self.relations.get((src, dst, rel_type))
        if rel is None:
            self.relations[(src, dst, rel_type)] = _Relation(src, dst, rel_type, list(keywords), sentence)
            return
        rel.weight += 1.0
        rel.keywords.extend(k for k in keywords if k not in rel.keywords)

    def extraction(self) -> Extraction:
        relations = [
            ExtractedRelation(
                self.names[r.src].name,
                self.names[r.dst].name,
                r.type,
                tuple(r.keywords[:MAX_KEYWORDS]),
                r.description,
                r.weight,
            )
            for r in self.relations.values()
        ]
        return Extraction(list(self.names.values()), relations)


def _clip(text: str, limit: int = MAX_DESCRIPTION_CHARS) -> str:
    text = " ".join(text[: limit * 4].split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit - 1] + "…"


def map_type(guess: str | None, entity_types: Sequence[str]) -> str:
    """The ``entity_types`` entry a guessed category (person, organization, …) stands for, else ``concept``;
    with no ``entity_types`` the guess itself."""
    if guess is None:
        return GENERIC_TYPE
    if not entity_types:
        return guess
    table = {re.sub(r"\W+", "", re.split(r"[#/:]", t)[-1]).casefold(): t for t in entity_types}
    for alias in _TYPE_ALIASES[guess]:
        if alias in table:
            return table[alias]
    return GENERIC_TYPE


def _guess_noun_type(last: str) -> str | None:
    if last in lx.DISEASE_WORDS or (len(last) >= 6 and last.endswith(lx.DISEASE_SUFFIXES)):
        return "disease"
    if len(last) >= 6 and last.endswith(lx.DRUG_SUFFIXES):
        return "drug"
    return None


def _guess_name_type(lowered: Sequence[str], titled: bool) -> str | None:
    if titled:
        return "person"
    if lowered[-1].strip(".") in lx.ORG_WORDS or (len(lowered) > 1 and lowered[0] in lx.ORG_WORDS):
        return "organization"
    if any(w in lx.PLACE_WORDS for w in lowered):
        return "location"
    return _guess_noun_type(lowered[-1])


class _Sentence:
    """Word-level view of one sentence: which words are taken, which are verbs, where punctuation breaks."""

    def __init__(self, text: str, start: int, end: int) -> None:
        self.text = text
        self.sentence = text[start:end]
        self.words: list[Word] = words(text, start, end)
        self.lower = [w.text.lower() for w in self.words]
        n = len(self.words)
        self.taken = [False] * n
        self.broken = [True] + [
            bool(text[self.words[i - 1].end : self.words[i].start].strip()) or self.words[i - 1].possessive
            for i in range(1, n)
        ]
        caps = sum(1 for w in self.words if w.text[0].isupper())
        self.headline = n >= 3 and caps / n >= 0.7
        self.description = _clip(self.sentence)

    def prev(self, i: int) -> str | None:
        return None if i == 0 or self.broken[i] else self.lower[i - 1]

    def verb(self, i: int) -> tuple[str | None, str] | None:
        """``(lemma or None, form)`` when word ``i`` reads as a verb here."""
        word = self.lower[i]
        prev = self.prev(i)
        after_det = prev is not None and lx.is_modifier(prev)
        found = lx.verb_lemma(word)
        if found is None:
            if len(word) >= 5 and word.endswith("ed") and word not in lx.ED_NOT_VERBS and not after_det:
                return None, "ed"
            if self._subject_verb(i):
                return None, "s"
            return None
        if after_det:
            return None
        if found[1] in ("ed", "ing", "s"):
            return found
        plural_before = prev is not None and prev.endswith("s") and not prev.endswith("ss") and prev not in lx.STOPWORDS
        if (prev is None and i == 0) or prev in lx.MODALS_AND_TO or prev in lx.PRONOUNS or plural_before:
            return found
        nxt = self.lower[i + 1] if i + 1 < len(self.words) and not self.broken[i + 1] else None
        return found if nxt in lx.DETERMINERS or nxt in lx.PREPOSITIONS or nxt in lx.PRONOUNS else None

    def _subject_verb(self, i: int) -> bool:
        """An unlisted "-s" word between a found entity and a determiner, name or found entity ("X lists Y")."""
        word = self.lower[i]
        if len(word) < 4 or not word.endswith("s") or word.endswith(("ss", "us", "is")) or word in lx.STOPWORDS:
            return False
        if i == 0 or self.broken[i] or not self.taken[i - 1] or i + 1 >= len(self.words) or self.broken[i + 1]:
            return False
        nxt = self.words[i + 1].text
        return self.taken[i + 1] or nxt[0].isupper() or nxt.lower() in lx.DETERMINERS

    def is_name_word(self, i: int) -> bool:
        w = self.words[i].text
        if not w[0].isupper() or self.taken[i] or self.lower[i] in lx.PERSON_TITLES:
            return False
        return (w.isupper() and len(w) >= 2) or self.lower[i] not in lx.STOPWORDS

    def titled(self, i: int) -> bool:
        """Whether a person title ("Dr", "Prof.") stands right before word ``i``."""
        if i == 0 or self.lower[i - 1] not in lx.PERSON_TITLES:
            return False
        return self.text[self.words[i - 1].end : self.words[i].start].strip() in ("", ".")

    def is_content(self, i: int) -> bool:
        word = self.lower[i]
        if self.taken[i] or word in lx.STOPWORDS or _NUMBER.match(word) or not any(c.isalpha() for c in word):
            return False
        return len(word) >= 2 and not word.endswith("ly") and self.verb(i) is None


class OfflineExtractor:
    """Gazetteer linking + capitalised names + noun phrases + sentence co-occurrence (see the module doc)."""

    def __init__(self, known: Sequence[KnownEntity] = (), *, max_neighbours: int = 2) -> None:
        self._gazetteer = Gazetteer(known)
        self.max_neighbours = max(1, max_neighbours)

    def extract(self, text: str, *, entity_types: Sequence[str] = ()) -> Extraction:
        chunk = _Chunk(frozenset(_LOWER_WORD.findall(text)))
        mentions = self._gazetteer.find(text)
        m = 0
        for start, end in sentence_spans(text):
            while m < len(mentions) and mentions[m].end <= start:
                m += 1
            inside: list[Mention] = []
            while m < len(mentions) and mentions[m].start < end:
                inside.append(mentions[m])
                m += 1
            sentence = _Sentence(text, start, end)
            found = self._known(sentence, inside, chunk)
            if not sentence.headline:
                found += self._names(sentence, chunk, entity_types)
            found += self._phrases(sentence, chunk, entity_types)
            found.sort(key=lambda f: f.first)
            self._relate(sentence, found, chunk)
        return chunk.extraction()

    @staticmethod
    def _known(s: _Sentence, mentions: Sequence[Mention], chunk: _Chunk) -> list[_Found]:
        out: list[_Found] = []
        description = s.description
        ends = [w.end for w in s.words]
        for mention in mentions:
            first = stop = bisect_right(ends, mention.start)
            while stop < len(s.words) and s.words[stop].start < mention.end:
                s.taken[stop] = True
                stop += 1
            if stop == first:
                continue
            e = mention.entity
            name = e.labels[0].strip() if e.labels and e.labels[0].strip() else mention.text
            key = chunk.entity(f"iri:{e.iri}", ExtractedEntity(name, e.type or GENERIC_TYPE, description, e.iri))
            out.append(_Found(key, first, stop - 1))
        return out

    @staticmethod
    def _new(
        s: _Sentence, chunk: _Chunk, first: int, last: int, kind: str, *, phrase: bool = False
    ) -> _Found | None:
        name = " ".join(s.text[s.words[first].start : s.words[last].end].split())
        opener = s.words[first].text
        if phrase and first == 0 and not s.headline and opener[0].isupper() and opener[1:].islower():
            lowered = opener.lower()
            if lowered in chunk.lowercase or lowered.removesuffix("s") in chunk.lowercase:
                name = name[0].lower() + name[1:]
        norm = normalise_name(name)
        if not norm or _NUMBER.match(norm):
            return None
        for i in range(first, last + 1):
            s.taken[i] = True
        key = chunk.entity(norm, ExtractedEntity(name, kind, s.description))
        return _Found(key, first, last)

    def _names(self, s: _Sentence, chunk: _Chunk, entity_types: Sequence[str]) -> list[_Found]:
        out: list[_Found] = []
        n = len(s.words)
        i = 0
        while i < n:
            if not s.is_name_word(i):
                i += 1
                continue
            j = i
            while j + 1 < n and not s.broken[j + 1]:
                if s.is_name_word(j + 1):
                    j += 1
                elif self._joins(s, i, j) and j + 2 < n and not s.broken[j + 2] and s.is_name_word(j + 2):
                    j += 2
                else:
                    break
            titled = s.titled(i)
            opening = i == 0 and i == j and not s.words[i].text.isupper()
            if not opening and j - i < MAX_NAME_WORDS:
                guess = _guess_name_type(s.lower[i : j + 1], titled)
                hit = self._new(s, chunk, i, j, map_type(guess, entity_types))
                if hit is not None:
                    out.append(hit)
            i = j + 1
        return out

    @staticmethod
    def _joins(s: _Sentence, i: int, j: int) -> bool:
        """Whether the connector after word ``j`` continues the name ``i..j`` ("Bank of America", "Johnson &
        Johnson") rather than starting another ("Jane Smith of Johns Hopkins University")."""
        connector = s.lower[j + 1]
        if connector not in lx.CONNECTORS:
            return False
        if connector not in lx.HEAD_CONNECTORS:
            return True
        return any(w in lx.ORG_WORDS or w in lx.PLACE_WORDS for w in s.lower[i : j + 1])

    def _phrases(self, s: _Sentence, chunk: _Chunk, entity_types: Sequence[str]) -> list[_Found]:
        out: list[_Found] = []
        n = len(s.words)
        content = [s.is_content(k) for k in range(n)]
        i = 0
        while i < n:
            if not content[i]:
                i += 1
                continue
            j = i
            while j + 1 < n and not s.broken[j + 1] and content[j + 1]:
                j += 1
            first, last = max(i, j - MAX_PHRASE_WORDS + 1), j
            while last >= first and lx.looks_adjective(s.lower[last]):
                last -= 1
            span = s.lower[first : last + 1]
            keep = bool(span) and not all(w in lx.GENERIC_NOUNS for w in span)
            if keep and len(span) == 1:
                keep = len(span[0]) >= 3 and not lx.looks_adjective(span[0]) and s.prev(first) not in lx.COPULAS
            if keep:
                kind = map_type(_guess_noun_type(span[-1]), entity_types)
                hit = self._new(s, chunk, first, last, kind, phrase=True)
                if hit is not None:
                    out.append(hit)
            i = j + 1
        return out

    def _relate(self, s: _Sentence, found: list[_Found], chunk: _Chunk) -> None:
        """One relation per entity pair and sentence: typed by a verb between adjacent mentions, else co_occurs."""
        pairs: dict[frozenset[str], tuple[str, str, str, list[str]]] = {}
        for a, left in enumerate(found):
            for b in range(a + 1, min(a + 1 + self.max_neighbours, len(found))):
                right = found[b]
                pair = frozenset((left.key, right.key))
                if len(pair) == 1:
                    continue
                typed = self._verb_relation(s, left, right) if b == a + 1 else None
                if typed is not None:
                    rel_type, reverse, keywords = typed
                    src, dst = (right.key, left.key) if reverse else (left.key, right.key)
                    if pair not in pairs or pairs[pair][2] == CO_OCCURS:
                        pairs[pair] = (src, dst, rel_type, keywords)
                elif pair not in pairs:
                    pairs[pair] = (left.key, right.key, CO_OCCURS, self._between_words(s, left, right))
        for src, dst, rel_type, keywords in pairs.values():
            chunk.relate(src, dst, rel_type, keywords, s.description)

    @staticmethod
    def _between_words(s: _Sentence, left: _Found, right: _Found) -> list[str]:
        out: list[str] = []
        for i in range(left.last + 1, right.first):
            word = s.lower[i]
            if word not in lx.STOPWORDS and not _NUMBER.match(word) and word not in out:
                out.append(word)
        return out[:MAX_KEYWORDS]

    def _verb_relation(self, s: _Sentence, left: _Found, right: _Found) -> tuple[str, bool, list[str]] | None:
        """``(type, reversed, keywords)`` when a verb links two adjacent mentions."""
        lo, hi = left.last + 1, right.first
        if hi - lo > MAX_VERB_GAP or hi <= lo or s.prev(left.first) in lx.PREPOSITIONS:
            return None
        phrase_start: int | None = None
        passive = negated = False
        for i in range(lo, hi):
            word = s.lower[i]
            if word in lx.CONJUNCTIONS:
                return None
            if word in lx.AUXILIARIES or word in lx.NEGATIONS:
                phrase_start = i if phrase_start is None else phrase_start
                passive = passive or word in ("is", "are", "was", "were", "be", "been", "being")
                negated = negated or word in lx.NEGATIONS
                continue
            verb = s.verb(i)
            if verb is None:
                continue
            lemma, form = verb
            after = s.lower[i + 1] if i + 1 < hi else None
            passive = passive and form == "ed"
            reverse = passive and after == "by"
            if reverse and lemma is not None:
                rel_type = lx.third_person(lemma)
            elif passive or lemma is None or lemma == "be":
                rel_type = word
            else:
                rel_type = lx.third_person(lemma)
            end = i + 1 if after is None or after not in lx.PARTICLES else i + 2
            phrase = " ".join(s.lower[phrase_start if phrase_start is not None else i : end])
            keywords = [phrase, *(w for w in self._between_words(s, left, right) if w not in phrase.split())]
            return ("not_" if negated else "") + rel_type, reverse, keywords
        return None
