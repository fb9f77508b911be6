"""Relations from the dependency parse of one chunk, for the spaCy extractor (:mod:`.nlp`).

Each pattern reads spaCy's (ClearNLP-style) dependency labels; the relation's description is its sentence, its
keywords the verb or role phrase plus the sentence's numbers and dates. Endpoints are the entities of
:mod:`.mentions`; a pronoun stands for its antecedent, a relative pronoun ("who", "which") for the noun its
clause modifies (as does "whose"; as an object, the noun's named modifiers count too: "the Harlin depot, which
X bought" -> X -[buy]-> Harlin), a common noun for the named entity in apposition to it or named by it ("its chief
technology officer, Dana Reyes, spoke" makes Dana Reyes the speaker), and a definite noun phrase ("the
carrier") for the one named entity an earlier sentence of the chunk described by that phrase or its head noun
("Tarn Freight, a regional carrier, ...") or, failing that, for the one earlier name ending in its head noun
("Lumen Learning Trust ... the trust").

* **Verbs** (subject-verb-object with prepositions): ``subject -[lemma]-> object`` and
  ``subject -[lemma_prep]-> prepositional object``: "Dana joined from Corvid Labs in 2020" ->
  Dana -[join_from]-> Corvid Labs (keyword "2020"). A particle joins the lemma (``set_up``), a negation prefixes
  ``not_``. Passive with an agent turns active ("Vireo was acquired by Orbital" -> Orbital -[acquire]-> Vireo);
  a passive or participle keeps its form ("is based in" -> ``based_in``); a participle conjoined to a passive with
  an agent of its own is passive too ("is run by X and funded by Y"). In a prose sentence the tagger left without
  a verb, a plural noun compounded with the name before it is that name's verb ("Marlowe Trust funds A and B",
  "funds" tagged NNS): the names after it are its objects. A passive's subject is its object for
  the agent: its named modifiers and what it leads to ("The audit of Ossory Mills was carried out by Sarn" -> Sarn
  -[carry_out_audit_of]-> Ossory Mills), as is a named modifier of the agent ("owned by the Harlin family").
  An object predicate describes the passive's subject or the active verb's object like a copula ("X was elected
  treasurer of Y", "Y named X treasurer" -> X -[treasurer_of]-> Y).
* **Named modifiers**: a name modifying the object noun is an object too: "Sam manages the Kestrel account" ->
  Sam -[manage]-> account and Sam -[manage]-> Kestrel (keyword "account").
* **Through the object**: a common-noun object (or prepositional object) leads to the names of its own
  prepositions and to its written possessor: "Maya scheduled a workshop with Tomas" -> Maya
  -[schedule_workshop_with]-> Tomas; "Corvid reviews Halden's accounts" -> Corvid -[review_account_of]->
  Halden.
* **Shared subjects**: a verb conjoined with "and" (or an ``xcomp``: "plans to open", or a gerund after a
  preposition: "Before joining X, Y ...") without a subject of its own takes its head's; conjoined subjects and
  objects ("A and B met C") each get the relation.
* **Participial modifiers**: "Halden, headquartered in Lisbon, ..." -> Halden -[headquartered_in]-> Lisbon (a
  participle modifying a noun, or a participial clause taking the main clause's subject); relative clauses
  likewise ("Maria, who joined Vireo" -> Maria -[join]-> Vireo).
* **Copulas and appositions** pair an entity with a common noun phrase. With an employer -- a possessor
  ("Corvid's", "its") or an of/at/for object of the noun -- the entity gets a role relation named by the phrase
  plus ``_of``: "Its chief technology officer, Dana Reyes", "Dana is the CTO at Corvid", "Corvid's largest
  customer is Halden Foods" -> Dana -[chief_technology_officer_of]-> Corvid, Halden Foods
  -[largest_customer_of]-> Corvid; "head of sales at Vireo" -> ``head_of_sales_of``. Without one, a class
  statement: X -[is_a]-> the phrase, and the phrase becomes X's type (see :mod:`.mentions` for the ranks) and
  leads its description ("X is a payments company", "X, a logistics firm, ..."). A plural noun beside one
  singular name is a list item, not a description ("Ada Voss (chair), four directors"); a name the parser
  took for an adjective complement ("is Tillway") is an attribute. A person's name with a name that is not a
  person's in parentheses is affiliated with it: "Nora Quist (Elmstead Council)" -> Nora Quist -[of]-> Elmstead
  Council.
* **Naming**: a participle with an object predicate or "as" ("the billing platform called Ledgerline", "a tool
  named Tempo", "the startup is known as Quillet") is a class statement about the name: its type and
  description come from the noun phrase (and a possessor makes a role: "Corvid's platform called X" ->
  X -[platform_of]-> Corvid).
* **Noun prepositions** between two entities, at least one named: "the office in Porto" -> office -[in]->
  Porto; "Priya Nair from finance" -> Priya Nair -[from]-> finance. A common noun's owner (possessor) or the
  names modifying it relate to a named object too: "its headquarters in Caddon" -> owner
  -[headquarters_in]-> Caddon.
* **Nominalisations**: a common noun relating its named "of" object to a named "by" object ("the acquisition of
  X by Y" -> Y -[acquisition_of]-> X) or to another preposition's ("the sale of X to Y" -> X -[sale_to]-> Y), or
  the conjoined names of its "between" object ("the partnership between X and Y" -> X -[partnership_with]-> Y).
* **Names in modifiers**: a name joined to a participle modifying a noun ("X, the Omaha-based supplier" -> X
  -[based]-> Omaha); a role compounded before a name with its employer's name before it ("Harlow Shipping CFO
  Ana Ruiz" -> Ana Ruiz -[cfo_of]-> Harlow Shipping).
* **Table rows** (see :mod:`.layout`): the row's first cell that is one name is the subject; each other cell's
  names, or its value when it is a short phrase (a named entity when in title case), the object of a relation
  named by the column header: "Contact | Role" / "Ottilie Marrow | Head of IT" -> Ottilie Marrow -[role]-> Head
  of IT; the row ("Contact: Ottilie Marrow; Role: Head of IT") is the description.
* **Fields** (``label: value`` lines, see :mod:`.layout`): when a heading before them consists of one name alone
  (headings naming nothing passed over; one naming something amid other words, "Meeting with X", stops the
  search) or, for a record opening the chunk, the first field's value when it is one name ("From: Ana Ruiz" /
  "To: Femi Ade"; "Customer: Halden Foods" / "Owner: Leah Brennan"), that entity -[label]-> each name of a
  value made of names only: "Calloway Income Fund" / "Fund manager: Rowan Ashdown" -> Calloway Income Fund
  -[fund_manager]-> Rowan Ashdown; the record is the description. Values that are phrases or sentences give no
  field relation.
* **Co-occurrence**: two named entities in one sentence with no typed relation between them there (each with
  its next ``window`` named mentions) get ``co_occurs`` of weight ``co_occurrence_weight`` per sentence.

Limits a reader can predict: only what the parser attaches is found, so a misparse (a prepositional phrase hung
on the wrong word) misses or misdirects a relation; clausal objects ("said that ...") and ellipsis are not
followed; a pronoun never refers to a common noun or to something named in an earlier chunk; pairs of named
entities in copulas or appositions ("The winner was Orbital") give no typed relation; relation names are the
text's own verbs, so synonyms ("buy", "acquire") stay different types.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from spacy.tokens import Span, Token

from hybridkg.structural.extract.layout import Kind, Record
from hybridkg.structural.extract.mentions import (
    CO_OCCURS,
    MAX_PHRASE_WORDS,
    NUMERIC_LABELS,
    RANK_CLASS,
    RANK_NONE,
    RANK_PHRASE,
    ChunkGraph,
    Draft,
    class_type,
    clip,
    phrase_text,
    phrase_tokens,
)
from hybridkg.structural.resolution import GENERIC_TYPE, normalise_name

IS_A = "is_a"
ROLE_PREPOSITIONS = frozenset({"of", "at", "for"})
CO_OCCURRENCE_WINDOW = 3
_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
_OBJECTS = frozenset({"dobj", "dative"})
_NOUNS = frozenset({"NOUN", "PROPN", "PRON"})
_NOMINAL_DEPS = frozenset({"nsubj", "nsubjpass", "dobj", "pobj"})


def _is_verb(token: Token) -> bool:
    return token.pos_ in ("VERB", "AUX") and token.dep_ not in ("aux", "auxpass")


def _parenthesised(token: Token) -> bool:
    """Whether the phrase ``token`` heads opens right after "("."""
    return token.left_edge.i > 0 and token.doc[token.left_edge.i - 1].text == "("


def slug(text: str) -> str:
    return re.sub(r"[^\w]+", "_", text.casefold()).strip("_")


class _Sentence:
    """The relation patterns over one sentence of a chunk."""

    def __init__(self, graph: ChunkGraph, sent: Span, entity_types: Sequence[str], weight: float) -> None:
        self.g = graph
        self.entity_types = entity_types
        self.sent = sent
        self.description = clip(sent.text)
        self.weight = weight
        self.typed: set[frozenset[str]] = set()
        self.seen: set[tuple[str, str, str]] = set()  # each typed relation counts once per sentence
        self.used_preps: set[int] = set()
        self.numbers: dict[int, list[str]] = {}
        self._entities: dict[int, str | None] = {}
        for ent in sent.ents:
            if ent.label_ in NUMERIC_LABELS:
                verb = next((a for a in ent.root.ancestors if _is_verb(a)), None)
                if verb is not None:
                    self.numbers.setdefault(verb.i, []).append(ent.text)

    # -- entities of tokens

    def entity(self, token: Token, depth: int = 0) -> str | None:
        """The entity a token stands for (see the module docstring)."""
        if depth == 0:
            if token.i not in self._entities:
                self._entities[token.i] = self._entity(token, 0)
            return self._entities[token.i]
        return self._entity(token, depth)

    def _entity(self, token: Token, depth: int) -> str | None:
        key = self.g.token_key[token.i]
        if key is not None:
            if not self.g.drafts[key].named and depth < 3:
                named = self._named_for(token) or self._definite(token)
                if named is not None:
                    return named
            return key
        if (token.pos_ != "PRON" and token.tag_ != "WP$") or depth >= 3:  # "whose" is tagged DET
            return None
        if token.tag_ in ("WP", "WDT", "WP$") or (token.lower_ == "that" and token.head.dep_ == "relcl"):
            clause = next((a for a in token.ancestors if a.dep_ in ("relcl", "acl")), None)
            return self.entity(clause.head, depth + 1) if clause is not None else None
        return self.g.antecedent(token)

    def _named_for(self, noun: Token) -> str | None:
        """The named entity in apposition to a common noun, or named by it ("the platform called X")."""
        candidates: list[Token] = [c for c in self.g.kids[noun.i] if c.dep_ == "appos"]
        if noun.dep_ == "appos":
            candidates.append(noun.head)
        if noun.dep_ == "attr":
            candidates.extend(c for c in self.g.kids[noun.head.i] if c.dep_ in _SUBJECTS)
        for child in self.g.kids[noun.i]:
            if child.dep_ == "acl":
                candidates.extend(self._naming_complements(child))
        for c in candidates:
            key = self.g.token_key[c.i]
            if self.g.named(key):
                return key
        return None

    def _definite(self, noun: Token) -> str | None:
        """The named entity a definite noun phrase refers back to: the one an earlier sentence of the chunk
        described by that phrase or its head noun ("Tarn Freight, a regional carrier, ... The carrier plans"),
        when it described only one that way."""
        if not any(c.dep_ == "det" and c.lower_ in ("the", "this", "that") for c in self.g.kids[noun.i]):
            return None
        for phrase in (phrase_text(phrase_tokens(noun, self.g)), noun.lemma_.lower()):
            key = self.g.classes.get(phrase)
            if key is not None and self.g.classes_sentence.get(phrase, -1) < self.g.sentence_index(noun):
                return key
        head = noun.lemma_.lower()  # or the one earlier name of the chunk ending in that noun ("the trust")
        named = {m.key for m in self.g.mentions if m.end <= noun.i and self.g.named(m.key)
                 and len(words := self.g.drafts[m.key].name.split()) > 1 and words[-1].lower() in (head, noun.lower_)}
        return named.pop() if len(named) == 1 else None

    def _naming_complements(self, verb: Token) -> list[Token]:
        """The names a participle gives: its object predicate ("called X") or "as" object ("known as X")."""
        if verb.tag_ != "VBN":
            return []
        out = [c for c in self.g.kids[verb.i] if c.dep_ == "oprd"]
        out += [g for c in self.g.kids[verb.i] if c.dep_ == "prep" and c.lower_ == "as" for g in self.g.kids[c.i]
                if g.dep_ == "pobj"]
        return [t for t in out if self.g.named(self.g.token_key[t.i])]

    def is_common(self, token: Token) -> bool:
        """A common noun that is an entity of its own (not a name, not standing for one)."""
        key = self.g.token_key[token.i]
        return token.pos_ == "NOUN" and key is not None and not self.g.drafts[key].named

    def stand_in(self, token: Token) -> Token:
        """The noun a relative pronoun stands for ("the Ashgrove plant, which X opened": "plant"), else ``token``."""
        if token.tag_ in ("WDT", "WP") or (token.lower_ == "that" and token.head.dep_ == "relcl"):
            clause = next((a for a in token.ancestors if a.dep_ in ("relcl", "acl")), None)
            if clause is not None:
                return clause.head
        return token

    def nominal(self, token: Token) -> bool:
        """A common noun that is an entity of its own, or a subject/object the tagger did not take for a noun
        ("Work on the bridge was carried out by X", "Work" tagged VERB)."""
        return self.is_common(token) or (
            self.g.token_key[token.i] is None and token.pos_ not in ("PRON", "DET") and token.dep_ in _NOMINAL_DEPS
        )

    @staticmethod
    def group(token: Token) -> list[Token]:
        """A noun and the nouns conjoined with it ("A and B")."""
        return [token, *(c for c in token.conjuncts if c.pos_ in _NOUNS)]

    def relate(self, src: str | None, dst: str | None, rel_type: str, keywords: Iterable[str]) -> None:
        if src is None or dst is None or src == dst or not rel_type or (src, dst, rel_type) in self.seen:
            return
        self.seen.add((src, dst, rel_type))
        self.typed.add(frozenset((src, dst)))
        self.g.relate(src, dst, rel_type, list(dict.fromkeys(keywords)), self.description, 1.0)

    # -- patterns

    def run(self, window: int) -> None:
        self.noun_verb()
        for token in self.sent:
            if _is_verb(token):
                self.verb(token)
            if token.dep_ == "appos" and (_parenthesised(token) or not self.in_list(token.head)):
                self.pair(token.head, token)
                if _parenthesised(token):
                    self.affiliation(token.head, token)
        for token in self.sent:
            if token.pos_ in ("NOUN", "PROPN"):
                self.noun_prepositions(token)
                self.nominalisation(token)
                self.title(token)
            if token.dep_ == "amod" and token.tag_ == "VBN":
                self.participle_modifier(token)
        self.co_occurrence(window)

    def subjects(self, verb: Token, depth: int = 0) -> list[Token]:
        own = [c for c in self.g.kids[verb.i] if c.dep_ in _SUBJECTS]
        if own:
            return [t for s in own for t in self.group(s)]
        if depth > 5:
            return []
        if verb.dep_ in ("conj", "xcomp"):
            return self.subjects(verb.head, depth + 1)
        if verb.dep_ == "acl":
            return [verb.head]
        if verb.dep_ == "advcl" and verb.tag_ in ("VBN", "VBG"):
            return self.subjects(verb.head, depth + 1)
        if verb.dep_ == "pcomp" and verb.tag_ == "VBG" and verb.head.dep_ == "prep" and _is_verb(verb.head.head):
            return self.subjects(verb.head.head, depth + 1)  # "After leaving X, Y consulted ..." -> Y left X
        return []

    def verb(self, verb: Token) -> None:
        if verb.dep_ == "acl" and self._naming_complements(verb):
            for name in self._naming_complements(verb):
                self.pair(verb.head, name)
            return
        subjects = self.subjects(verb)
        attrs = [  # a name the parser took for an adjective complement ("is Tillway" as acomp) is an attribute
            t for c in self.g.kids[verb.i]
            if c.dep_ == "attr" or (c.dep_ == "acomp" and self.g.named(self.g.token_key[c.i])) for t in self.group(c)
        ]
        if attrs:
            for s in subjects:
                for a in attrs:
                    self.pair(s, a)
            return
        passive = any(c.dep_ in ("nsubjpass", "auxpass") for c in self.g.kids[verb.i]) or (
            verb.tag_ == "VBN"
            and (verb.dep_ in ("acl", "advcl") or (verb.dep_ == "conj" and any(c.dep_ == "agent" for c in
                                                                                 self.g.kids[verb.i])))
        )
        if passive and self._naming_complements(verb):
            for s in subjects:
                if self.is_common(s):
                    for name in self._naming_complements(verb):
                        self.pair(name, s)
                    return
        negated = "not_" if any(c.dep_ == "neg" for c in self.g.kids[verb.i]) else ""
        particle = "".join(f"_{c.lower_}" for c in self.g.kids[verb.i] if c.dep_ == "prt")
        lemma = negated + slug(verb.lemma_) + particle
        form = negated + slug(verb.lower_) + particle
        phrase = (verb.lemma_ + particle.replace("_", " ")).lower()
        numbers = self.numbers.get(verb.i, [])
        agents = [g for c in self.g.kids[verb.i] if c.dep_ == "agent" for p in self.g.kids[c.i] if p.dep_ == "pobj"
                  for g in self.group(p)]
        preps = [(c, g) for c in self.g.kids[verb.i] if c.dep_ == "prep" or (c.dep_ == "dative" and c.pos_ == "ADP")
                 for p in self.g.kids[c.i] if p.dep_ == "pobj" for g in self.group(p)]
        subject_keys = [self.entity(t) for t in subjects]
        predicates = [g for c in self.g.kids[verb.i] if c.dep_ == "oprd" and self.is_common(c) for g in self.group(c)]
        if passive:
            for agent in agents:
                agent_keys = [self.entity(agent), *self.named_modifiers(agent)]  # "owned by the Kearney family"
                for src in agent_keys:
                    for key in subject_keys:
                        self.relate(src, key, lemma, [phrase, *numbers])
                for subject in subjects:  # the subject is the object: "The board of X is chaired by Y"
                    noun = self.stand_in(subject)
                    for modifier in self.named_modifiers(noun):
                        self.relate(agent_keys[0], modifier, lemma, [phrase, noun.lower_, *numbers])
                    self.through(agent_keys[0], noun, lemma, [phrase, *numbers])
            for prep, obj in preps:
                for key in subject_keys:
                    words = [f"{verb.lower_} {prep.lower_}", *numbers]
                    self.relate(key, self.entity(obj), f"{form}_{slug(prep.lower_)}", words)
            for subject in subjects:  # "X was appointed chair of Y": the object predicate describes the subject
                for noun in predicates:
                    self.pair(subject, noun)
            return
        objects = [g for c in self.g.kids[verb.i] if c.dep_ in _OBJECTS and c.pos_ != "ADP" for g in self.group(c)]
        if not objects:  # an object predicate without an object ("X called Y", misparsed) is the object
            objects = [g for c in self.g.kids[verb.i] if c.dep_ == "oprd" for g in self.group(c)]
        for key in subject_keys:
            for obj in objects:
                self.relate(key, self.entity(obj), lemma, [phrase, *numbers])
                noun = self.stand_in(obj)
                for modifier in self.named_modifiers(noun):
                    self.relate(key, modifier, lemma, [phrase, noun.lower_, *numbers])
                self.through(key, noun, lemma, [phrase, *numbers])
            for prep, obj in preps:
                words = [f"{phrase} {prep.lower_}", *numbers]
                self.relate(key, self.entity(obj), f"{lemma}_{slug(prep.lower_)}", words)
                for modifier in self.named_modifiers(obj):
                    self.relate(key, modifier, f"{lemma}_{slug(prep.lower_)}", [*words, obj.lower_])
                self.through(key, obj, f"{lemma}_{slug(prep.lower_)}", words)
        if objects and predicates:  # "The board named X chair of Y": the object predicate describes the object
            for obj in objects:
                for noun in predicates:
                    if noun not in objects:
                        self.pair(obj, noun)

    def through(self, key: str | None, noun: Token, rel_type: str, keywords: list[str]) -> None:
        """Names a common noun object leads to: its possessor and the (named) objects of its prepositions:
        "Maya scheduled a workshop with Tomas on the Harbor migration" -> Maya -[schedule_workshop_with]->
        Tomas, Maya -[schedule_workshop_on]-> Harbor; "Corvid audits Halden's accounts" -> Corvid
        -[audit_accounts_of]-> Halden."""
        if key is None or not self.nominal(noun) or self._named_for(noun) is not None:
            return
        head = slug(noun.lemma_)
        for c in self.g.kids[noun.i]:
            if c.dep_ == "poss" and c.pos_ != "PRON":  # a written name, not a pronoun's guess
                owner = self.entity(c)
                if owner is not None and self.g.named(owner):
                    self.relate(key, owner, f"{rel_type}_{head}_of", [*keywords, noun.lower_])
            if c.dep_ != "prep":
                continue
            for obj in (g for p in self.g.kids[c.i] if p.dep_ == "pobj" for g in self.group(p)):
                dst = self.entity(obj)
                targets = [dst] if dst is not None and self.g.named(dst) else self.named_modifiers(obj)
                for t in targets:
                    self.relate(key, t, f"{rel_type}_{head}_{slug(c.lower_)}", [*keywords, noun.lower_, c.lower_])

    def named_modifiers(self, noun: Token) -> list[str]:
        """Named entities modifying a common noun ("the Kestrel account", "the Oslo sales team")."""
        if not self.is_common(noun) or self._named_for(noun) is not None:
            return []
        out: list[str] = []
        for t in noun.lefts:
            if t.dep_ == "compound":
                key = self.g.token_key[t.i]
                if self.g.named(key) and key is not None and key not in out:
                    out.append(key)
            elif t.dep_ in ("amod", "compound") and t.pos_ == "NOUN":
                out.extend(k for k in self.named_modifiers(t) if k not in out)
        return out

    def in_list(self, token: Token) -> bool:
        """A name in a list of names ("Ada Voss (Halden), Piet Oram (Halden), our support team"): it is an
        item attached to a name, or has one attached (not in parentheses); then a common noun attached to it is
        the next item, not an apposition to it (one in parentheses is: "Ada Voss (chair)")."""

        def item(t: Token) -> bool:
            return (
                t.dep_ in ("appos", "conj")
                and self.g.named(self.g.token_key[t.i])
                and self.g.token_key[t.i] != self.g.token_key[t.head.i]
                and not _parenthesised(t)
            )

        if not self.g.named(self.g.token_key[token.i]):
            return False
        return (item(token) and self.g.named(self.g.token_key[token.head.i])) or any(
            item(c) for c in self.g.kids[token.i]
        )

    def pair(self, a: Token, b: Token) -> None:
        """A copula, apposition or naming between ``a`` and ``b``: one an entity, the other a common noun. A
        plural noun beside one singular name is a list item, not its description ("Ada Voss (chair), four
        directors")."""
        if self.is_common(a) != self.is_common(b):
            noun, name = (a, b) if self.is_common(a) else (b, a)
            if noun.tag_ == "NNS" and name.tag_ not in ("NNS", "NNPS") and not name.conjuncts:
                return
        if self.is_common(b) and not self.is_common(a):
            self.describe(a, b)
        elif self.is_common(a) and not self.is_common(b):
            self.describe(b, a)

    def affiliation(self, name: Token, note: Token) -> None:
        """A person's name with another name in parentheses after it, not a person's: where the person is from
        ("Nora Quist (Elmstead Council)" -> Nora Quist -[of]-> Elmstead Council)."""
        person, other = self.entity(name), self.entity(note)
        if person is None or other is None or not (self.g.named(person) and self.g.named(other)):
            return
        if self.g.drafts[person].category == "person" and self.g.drafts[other].category != "person":
            self.relate(person, other, "of", ["of"])

    def role(self, noun: Token) -> tuple[str, list[Token]]:
        """The role phrase of a noun ("head of sales") and the tokens naming whom it is held at (possessor,
        or an of/at/for object that is an entity)."""
        words = phrase_text(phrase_tokens(noun, self.g))
        employers = [c for c in self.g.kids[noun.i] if c.dep_ == "poss"]
        current = noun
        for _ in range(3):
            follow: Token | None = None
            for prep in self.g.kids[current.i]:
                if prep.dep_ != "prep" or prep.lower_ not in ROLE_PREPOSITIONS:
                    continue
                for obj in (c for c in self.g.kids[prep.i] if c.dep_ == "pobj"):
                    if obj.pos_ == "PRON" or self.g.named(self.entity(obj)):
                        employers.extend(self.group(obj))
                        self.used_preps.add(prep.i)
                    elif obj.pos_ in ("NOUN", "ADJ", "PROPN") and prep.lower_ == "of" and follow is None:
                        words += " of " + phrase_text(phrase_tokens(obj, self.g))
                        self.used_preps.add(prep.i)
                        follow = obj
            if follow is None:
                break
            current = follow
        return words, employers

    def describe(self, entity_token: Token, noun: Token) -> None:
        key = self.entity(entity_token)
        if key is None or self.g.token_key[noun.i] is None:
            return
        draft = self.g.drafts[key]
        words, employers = self.role(noun)
        employer_keys = [k for k in (self.entity(e) for e in employers) if k is not None and k != key]
        if employer_keys:
            for k in employer_keys:
                self.relate(key, k, f"{slug(words)}_of", [words])
                fact = f"{words} of {self.g.drafts[k].name}"
                if fact not in draft.facts:
                    draft.facts.append(fact)
            return
        self.relate(key, self.g.token_key[noun.i], IS_A, [words])
        self.g.describe_as(key, words, noun.lemma_.lower(), self.g.sentence_index(noun))
        if words not in draft.facts:
            draft.facts.append(words)
        mapped = class_type(words, noun.lemma_, self.entity_types)
        if mapped is not None:
            draft.retype(mapped, RANK_CLASS)
        else:
            draft.retype(words, RANK_PHRASE)

    def noun_prepositions(self, noun: Token) -> None:
        """A preposition between two entities, at least one named; for a common noun, also its owner (a
        possessor: "its headquarters in Caddon" -> owner -[headquarters_in]-> Caddon) and the names modifying
        it ("the Invoxa connector for Stackmill" -> Invoxa -[connector_for]-> Stackmill) to a named object."""
        src = self.entity(noun)
        if src is None:
            return
        owners: list[str] = []
        if self.is_common(noun) and src == self.g.token_key[noun.i]:
            owners = [k for c in self.g.kids[noun.i] if c.dep_ == "poss" and (k := self.entity(c)) is not None
                      and self.g.named(k)]
            owners += self.named_modifiers(noun)
        for prep in self.g.kids[noun.i]:
            if prep.dep_ != "prep" or prep.i in self.used_preps:
                continue
            for obj in (g for c in self.g.kids[prep.i] if c.dep_ == "pobj" for g in self.group(c)):
                dst = self.entity(obj)
                if dst is None:
                    continue
                if frozenset((src, dst)) not in self.typed and (self.g.named(src) or self.g.named(dst)):
                    self.relate(src, dst, slug(prep.lower_), [prep.lower_])
                if self.g.named(dst):
                    words = phrase_text(phrase_tokens(noun, self.g))
                    for owner in owners:
                        self.relate(owner, dst, f"{slug(words)}_{slug(prep.lower_)}", [words, prep.lower_])

    def noun_verb(self) -> None:
        """A sentence of prose the tagger left without a verb, where a plural noun right after a name compounds
        with it: the noun is the name's verb ("Pellham Dairy supplies Rook Bakery and Cinder Cafe", "supplies"
        tagged NNS) and the names after it its objects, through a preposition its prepositional objects."""
        if any(t.pos_ in ("VERB", "AUX") for t in self.sent):
            return
        for t in self.sent:
            prev = t.doc[t.i - 1] if t.i > self.sent.start else None
            if prev is None or t.tag_ != "NNS" or prev.head.i != t.i or t.dep_ not in ("ROOT", "compound"):
                continue
            segment = self.g.segment_of[t.i]
            subject = self.g.token_key[prev.i]
            if not self.g.named(subject) or (segment is not None and segment.kind is not Kind.PROSE):
                continue
            assert subject is not None
            lemma, top = slug(t.lemma_), (t if t.dep_ == "ROOT" else t.head)
            for tok in top.subtree:
                key = self.g.token_key[tok.i]
                if tok.i <= t.i or key is None or key == subject or not self.g.named(key):
                    continue
                prep = next((a for a in tok.ancestors if a.dep_ == "prep" and a.i > t.i), None)
                if prep is None:
                    self.relate(subject, key, lemma, [t.lemma_.lower()])
                else:
                    self.relate(subject, key, f"{lemma}_{slug(prep.lower_)}", [f"{t.lemma_.lower()} {prep.lower_}"])
            return

    def nominalisation(self, noun: Token) -> None:
        """A common noun relating two named prepositional objects: its "of" object and a "by" object as the
        object and agent ("the acquisition of X by Y" -> Y -[acquisition_of]-> X), its "of" object and another
        preposition's ("the sale of X to Y" -> X -[sale_to]-> Y), or a "between"/"among" object's conjoined
        names ("the partnership between X and Y" -> X -[partnership_with]-> Y). A common-noun object counts by
        the names modifying it ("the sale of the Kestrel depot to Y" -> Kestrel -[sale_to]-> Y)."""
        if not self.is_common(noun) or self.entity(noun) != self.g.token_key[noun.i]:
            return
        named: list[tuple[str, list[str]]] = []
        for prep in self.g.kids[noun.i]:
            if prep.dep_ != "prep":
                continue
            keys = [k for c in self.g.kids[prep.i] if c.dep_ == "pobj" for g in self.group(c)
                    for k in self._named_or_modifiers(g)]
            if keys:
                named.append((prep.lower_, list(dict.fromkeys(keys))))
        if not named:
            return
        words = phrase_text(phrase_tokens(noun, self.g))
        themes = [k for p, keys in named if p == "of" for k in keys]
        for word, keys in named:
            if word in ("between", "among"):
                for other in keys[1:]:
                    self.relate(keys[0], other, f"{slug(words)}_with", [words])
            elif word == "by":
                for agent in keys:
                    for theme in themes:
                        self.relate(agent, theme, f"{slug(words)}_of", [words, word])
            elif word != "of":
                for theme in themes:
                    for k in keys:
                        self.relate(theme, k, f"{slug(words)}_{slug(word)}", [words, word])

    def _named_or_modifiers(self, token: Token) -> list[str]:
        """The named entity ``token`` stands for, else the names modifying it ("the Quillon connector")."""
        key = self.entity(token)
        return [key] if key is not None and self.g.named(key) else self.named_modifiers(token)

    def participle_modifier(self, participle: Token) -> None:
        """A name joined to a participle modifying a noun ("the Omaha-based supplier", "a Quillon-owned depot"):
        the entity the noun stands for -[participle]-> the name."""
        src = self.entity(participle.head)
        for c in self.g.kids[participle.i]:
            if c.dep_ in ("npadvmod", "compound", "nmod"):
                dst = self.entity(c)
                if dst is not None and self.g.named(dst):
                    self.relate(src, dst, slug(participle.lower_), [participle.lower_])

    def title(self, name: Token) -> None:
        """A role written before a name with the employer's name before it ("Harlow Shipping CFO Ana Ruiz"):
        the name -[role_of]-> the employer; not in headings and table cells."""
        person = self.g.token_key[name.i]
        if not self.g.named(person) or (name.head.i != name.i and self.g.token_key[name.head.i] == person):
            return  # not the name's last word
        segment = self.g.segment_of[name.i]
        if segment is not None and segment.kind in (Kind.HEADING, Kind.CELL, Kind.HEADER):
            return  # a title-case line strings names and words together
        for role in self.g.kids[name.i]:
            if role.dep_ != "compound" or role.i > name.i or self.g.token_key[role.i] is not None:
                continue
            words = [t for t in role.subtree if self.g.token_key[t.i] is None and t.is_alpha]
            employers = [k for t in role.subtree if (k := self.g.token_key[t.i]) is not None and self.g.named(k)
                         and k != person]
            if words and employers and role.pos_ in ("NOUN", "PROPN"):
                phrase = " ".join(t.lower_ for t in words)
                for k in dict.fromkeys(employers):
                    self.relate(person, k, f"{slug(phrase)}_of", [phrase])

    def co_occurrence(self, window: int) -> None:
        keys: list[str] = []
        for token in self.sent:
            key = self.g.token_key[token.i]
            if key is not None and self.g.named(key) and key not in keys:
                keys.append(key)
        verbs = [t.lemma_.lower() for t in self.sent if t.pos_ == "VERB"][:3]
        for i, a in enumerate(keys):
            for b in keys[i + 1 : i + 1 + window]:
                if frozenset((a, b)) not in self.typed:
                    self.g.relate(a, b, CO_OCCURS, verbs, self.description, self.weight)


def relations(
    graph: ChunkGraph,
    entity_types: Sequence[str],
    co_occurrence_weight: float,
    window: int = CO_OCCURRENCE_WINDOW,
) -> None:
    """Add the relations of every sentence and table row of ``graph.doc`` to ``graph``."""
    for sent in graph.doc.sents:
        _Sentence(graph, sent, entity_types, co_occurrence_weight).run(window)
    if graph.layout is not None:
        for record in graph.layout.records:
            if record.table:
                _row(graph, record, entity_types)
            else:
                _fields(graph, record)


def _tokens(graph: ChunkGraph, start: int, end: int) -> list[Token]:
    span = graph.doc.char_span(start, end, alignment_mode="expand")
    return [t for t in span if not t.is_space and not t.is_punct] if span is not None else []


def _only_names(graph: ChunkGraph, tokens: Sequence[Token]) -> list[str]:
    """The named entities ``tokens`` consist of (a name, or a list of names joined by commas and "and"); empty
    when any other word is among them (a phrase or a sentence about the names)."""
    keys: list[str] = []
    for t in tokens:
        key = graph.token_key[t.i]
        if graph.named(key):
            assert key is not None
            if key not in keys:
                keys.append(key)
        elif not (t.dep_ in ("cc", "det") or t.lower_ in ("and", "&")):
            return []
    return keys


def _record_subject(graph: ChunkGraph, record: Record) -> str | None:
    """What a block of ``label: value`` fields is about: the named entity a heading before it consists of alone
    ("Calloway Income Fund" above "Fund manager: ..."), passing over headings that name nothing ("Key facts");
    a heading naming something amid other words ("Meeting with X") leaves the subject unknown. For a record that
    opens the chunk, the first field's value when it is one name ("Customer: Halden Foods", "From: Ana Ruiz")."""
    if graph.layout is None or not record.fields:
        return None
    first = record.fields[0].start
    headings = [s for s in graph.layout.segments if s.kind is Kind.HEADING and s.end <= first]
    for heading in sorted(headings, key=lambda s: s.start, reverse=True):
        tokens = _tokens(graph, heading.start, heading.end)
        keys = [k for t in tokens if (k := graph.token_key[t.i]) is not None and graph.named(k)]
        if not keys:
            continue
        names = _only_names(graph, tokens)
        return names[0] if len(names) == 1 else None
    if sum(1 for s in graph.layout.segments if s.end <= first) > 1:  # more than the first field's label
        return None
    names = _only_names(graph, _tokens(graph, record.fields[0].start, record.fields[0].end))
    return names[0] if len(names) == 1 else None


def _fields(graph: ChunkGraph, record: Record) -> None:
    """``label: value`` fields whose subject is clear (:func:`_record_subject`): the subject -[label]-> each
    name of a value that consists of names ("Fund manager: Rowan Ashdown" -> fund -[fund_manager]-> Rowan
    Ashdown); a value that is a phrase or a sentence gives no relation."""
    src = _record_subject(graph, record)
    if src is None:
        return
    description = clip(record.text)
    for f in record.fields:
        rel_type = slug(f.name)
        for dst in _only_names(graph, _tokens(graph, f.start, f.end)):
            if dst != src and rel_type:
                graph.relate(src, dst, rel_type, [f.name.lower()], description, 1.0)


def _row(graph: ChunkGraph, record: Record, entity_types: Sequence[str]) -> None:
    """A table row: its first cell that is one name is the subject; each other cell's names, or its value when
    it is a short phrase, the object of a relation named by the column header; numbers and dates keywords."""
    doc = graph.doc
    cells: list[tuple[str, list[Token], list[str]]] = []
    for f in record.fields:
        span = doc.char_span(f.start, f.end, alignment_mode="expand")
        if span is None:
            continue
        tokens = [t for t in span if not t.is_space and not t.is_punct]
        keys = list(dict.fromkeys(k for t in tokens if (k := graph.token_key[t.i]) is not None))
        cells.append((f.name, tokens, keys))
    subject = next(
        (
            (name, keys[0])
            for name, tokens, keys in cells
            if len(keys) == 1 and graph.named(keys[0]) and all(graph.token_key[t.i] == keys[0] for t in tokens)
        ),
        None,
    )
    if subject is None:
        return
    header, src = subject
    mapped = class_type(header, header.split()[-1], entity_types) if header.split() else None
    if mapped is not None:
        graph.drafts[src].retype(mapped, RANK_PHRASE)
    description = clip(record.text)
    numbers = [t.text for _, tokens, _ in cells for t in tokens if t.ent_type_ in NUMERIC_LABELS or t.like_num]
    for name, tokens, keys in cells:
        if not tokens or src in keys:
            continue
        rel_type = slug(name)
        named = [k for k in keys if graph.named(k)]
        if not named and _short_value(tokens):
            value = doc[tokens[0].i : tokens[-1].i + 1].text
            key = normalise_name(value)
            graph.add(key, tokens, Draft(value, GENERIC_TYPE, RANK_NONE, _title_case(tokens), description))
            named = [key]
        for dst in named:
            if dst != src and rel_type:
                graph.relate(src, dst, rel_type, list(dict.fromkeys([name.lower(), *numbers])), description, 1.0)


def _title_case(tokens: Sequence[Token]) -> bool:
    """A cell value of several words each capitalised but the function words ("Head of IT", "Chief Operations
    Officer") is a term of its own, kept as an entity (named); other values ("positive", "Procurement lead")
    are kept only when they recur, like any common noun phrase."""
    words = [t for t in tokens if t.is_alpha]
    return len(words) >= 2 and all(t.text[0].isupper() for t in words if not t.is_stop)


def _short_value(tokens: Sequence[Token]) -> bool:
    """A cell value that is a term (a few words, not a number or date), not a sentence."""
    words = [t for t in tokens if t.is_alpha]
    return 0 < len(words) <= MAX_PHRASE_WORDS and not any(t.ent_type_ in NUMERIC_LABELS or t.like_num for t in tokens)
