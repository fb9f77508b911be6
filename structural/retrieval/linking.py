"""Query entity linking: the names a query states, found among the graph's entity names, become seeds.

An :class:`EntityLinker` matches the ``name`` and ``aliases`` of the graph's ``Entity`` nodes, one
:class:`~hybridkg.structural.extract.matcher.Gazetteer` per domain (the matcher ingestion uses: word
boundaries, leftmost-longest, case-insensitive except short acronyms, regular plurals of lower-case names).
Entities kept only as recurring common noun phrases (``named`` false) are left out, as they are for the
extractors. It is built from the graph on first use (``SharedRecords`` when the store keeps its records in
process, else one Cypher query) and kept current by :meth:`EntityLinker.names_changed`, which the knowledge
base's writer calls after every write.

Normalisation follows :func:`hybridkg.structural.resolution.normalise_name` (the key two names share to be one
entity): besides each name as written, a name is also matched without a leading article ("The Acme Group" ->
"Acme Group"), with its punctuation read as spaces ("Acme, Inc." -> "Acme Inc"), and a lower-case name also in
the singular; the query is matched as written and with its punctuation read as spaces.

Short forms: writers shorten a proper name to its leading words once it is introduced ("Nordvik Turbines" ->
"Nordvik", "Tarn Valley Logistics" -> "Tarn Valley", "Sofia Lindgren" -> "Sofia"), and so do people asking.
A name of two or more words, each capitalised (a proper name: "Head of IT" and "Piet van Aalst" have none), is
also matched by its leading alphabetic words (all but the last), when the first is not a stop word and has at
least :data:`SHORT_MIN_CHARS` letters. A full
name in the query wins over a short form inside it (leftmost-longest); a short form that up to
:data:`SHORT_MAX_SHARED` entities share links all of them (often one entity extracted twice), one that more
share links none: it names a family of entities ("North ..."), and linking them all would flood the seeds.

Typos: a query word that no entity name contains is corrected to a word of a name in the domain when

* both words have at least :data:`FUZZY_MIN_CHARS` (5) characters and the query word is not a stop word
  (:data:`hybridkg.structural.extract.lexicon.STOPWORDS`): one edit in a shorter word changes too large a
  share of it, and short words collide with ordinary words;
* they are within ``RetrievalConfig.link_max_edits`` edits (optimal string alignment: an insertion, deletion,
  substitution or swap of two adjacent letters is one edit; swaps are among the commonest typing errors);
* they start with the same letter (misspellings rarely change the first letter; it also keeps the candidate
  set small);
* the correction is unambiguous: exactly one name word is at the smallest distance.

The corrected query is matched again; a mention that needs a correction is reported as ``fuzzy``. A query
word that is itself an ordinary word one edit from a name word ("leads" and a company "Leeds") can still be
linked: nothing here knows the English vocabulary. The seed it adds is weighted by its own cosine.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rapidfuzz import process
from rapidfuzz.distance import OSA

from hybridkg.errors import Unsupported
from hybridkg.structural.base import ENTITY, GraphStore, KnownEntity, SharedRecords
from hybridkg.structural.extract.lexicon import STOPWORDS
from hybridkg.structural.extract.matcher import Gazetteer, Mention, fold_label
from hybridkg.structural.resolution import normalise_name
from hybridkg.structural.retrieval.results import LinkedEntity

FUZZY_MIN_CHARS = 5
SHORT_MIN_CHARS = 3
SHORT_MAX_SHARED = 3
NAMES_QUERY = (
    "MATCH (e:Entity) RETURN e.id AS id, e.name AS name, e.aliases AS aliases, e.domain AS domain, "
    "e.named AS named"
)
_PUNCT = re.compile(r"[^\w\s]")
_WORD = re.compile(r"\w+")
_ARTICLES = ("the ", "a ", "an ")


@dataclass(frozen=True, slots=True)
class _Target(KnownEntity):
    """A gazetteer entry for one graph entity."""

    id: str = ""
    domain: str = ""
    full: frozenset[str] = frozenset()  # folded full names (not short forms)


def name_variants(name: str) -> list[str]:
    """``name`` and the forms :func:`normalise_name` equates with it that the matcher would not find by itself."""
    text = " ".join(name.split())
    out = [text]
    spaced = " ".join(_PUNCT.sub(" ", text).split())
    for form in (text, spaced):
        lowered = form.casefold()
        for article in _ARTICLES:
            if lowered.startswith(article) and len(form) > len(article):
                out.append(form[len(article) :])
                break
    out.append(spaced)
    if text.islower():
        out.append(normalise_name(text))
    return [v for v in dict.fromkeys(out) if v.strip()]


def short_forms(name: str) -> list[str]:
    """The leading-word forms of a capitalised multi-word ``name`` (see the module docstring)."""
    words = name.split()
    if len(words) < 2 or not all(w[:1].isupper() or not w[:1].isalpha() for w in words):
        return []
    first = words[0]
    if len(first) < SHORT_MIN_CHARS or not first.isalpha() or first.casefold() in STOPWORDS:
        return []
    out = []
    for n in range(1, len(words)):
        if not words[n - 1][:1].isupper() or not words[n - 1].isalpha():
            break
        out.append(" ".join(words[:n]))
    return out


class EntityLinker:
    """Finds the graph entities a query names (see the module docstring)."""

    def __init__(self, graph: GraphStore, max_edits: int) -> None:
        self._graph = graph
        self._max_edits = max_edits
        self._lock = threading.Lock()
        self._loaded = False
        self._gazetteers: dict[str, Gazetteer] = {}
        self._targets: dict[str, _Target] = {}
        # per domain: (first letter, length) -> name word -> how many names use it (fuzzy candidates)
        self._words: dict[str, dict[tuple[str, int], dict[str, int]]] = {}
        # per domain: a folded short form -> the entities it shortens (the gazetteer reports one of them)
        self._shorts: dict[str, dict[str, set[str]]] = {}

    @property
    def loaded(self) -> bool:
        return self._loaded

    def load(self) -> int:
        """Read every entity name from the graph, unless done already; returns the number of entities held."""
        with self._lock:
            if not self._loaded:
                for eid, props in self._read_all():
                    self._put(eid, props)
                for gazetteer in self._gazetteers.values():
                    gazetteer.build()  # the first linked query would otherwise pay it (0.7 s at 100k names)
                self._loaded = True
            return len(self._targets)

    def names_changed(self, added: Mapping[str, Sequence[str]], removed: Sequence[str]) -> None:
        """Entities written (id -> all its names, the name first) and entities deleted. Before the first
        :meth:`load` nothing is held, and nothing needs doing: the load will read the graph as written."""
        with self._lock:
            if not self._loaded:
                return
            for eid in [*removed, *added]:
                self._drop(eid)
            if not added:
                return
            nodes = self._nodes(list(added))
            for eid, names in added.items():
                node = nodes.get(eid)
                if node is not None:
                    names = [n for n in names if isinstance(n, str)]
                    self._put(eid, {**node, "name": names[0] if names else node.get("name"), "aliases": names[1:]})

    def link(self, query: str, domain: str | None) -> list[LinkedEntity]:
        """The entities ``query`` names, in query order (every domain when ``domain`` is ``None``)."""
        self.load()
        if domain is not None:
            gazetteer = self._gazetteers.get(domain)
            domains = [(domain, gazetteer)] if gazetteer is not None else []
        else:
            domains = list(self._gazetteers.items())
        found: list[tuple[Mention, bool]] = []
        spaced = _PUNCT.sub(" ", query)
        for name, gazetteer in domains:
            exact = [*gazetteer.find(query), *gazetteer.find(spaced)]
            found.extend((m, False) for m in exact)
            if self._max_edits > 0:
                found.extend((m, True) for m in self._fuzzy(name, gazetteer, spaced, exact))
        return self._expand_shorts(_resolve(found, query), [d for d, _ in domains])

    def _expand_shorts(self, linked: list[LinkedEntity], domains: Sequence[str]) -> list[LinkedEntity]:
        """A mention that is a short form of several entities' names links all of them."""
        out: dict[str, LinkedEntity] = {}
        for e in linked:
            target = self._targets.get(e.id)
            key = fold_label(e.mention)
            if target is None or key in target.full:
                out.setdefault(e.id, e)
                continue
            shared = sorted({i for d in domains for i in self._shorts.get(d, {}).get(key, ())} | {e.id})
            if len(shared) > SHORT_MAX_SHARED:
                continue  # a family of names ("North ..."), not one entity
            for other in shared:
                if other not in out:
                    names = self._targets[other].labels
                    out[other] = LinkedEntity(other, names[0], e.mention, e.start, e.end, e.fuzzy)
        return list(out.values())

    # ------------------------------------------------------------------------------------------ internals

    def _fuzzy(self, domain: str, gazetteer: Gazetteer, text: str, exact: Sequence[Mention]) -> list[Mention]:
        """Mentions found only after correcting typos in ``text`` (offsets into ``text``)."""
        words = self._words.get(domain)
        if not words:
            return []
        covered = [(m.start, m.end) for m in exact]
        pieces: list[str] = []
        offsets: list[int] = []  # for each character of the corrected text, its offset in ``text``
        corrected: list[tuple[int, int]] = []  # spans of corrected words, in the corrected text
        last = 0
        for match in _WORD.finditer(text):
            start, end = match.span()
            word = match.group().casefold()
            if any(lo < end and start < hi for lo, hi in covered):
                continue
            fix = self._correction(words, word)
            if fix is None:
                continue
            pieces.append(text[last:start])
            offsets.extend(range(last, start))
            at = len(offsets)
            pieces.append(fix)
            offsets.extend(min(start + i, end - 1) for i in range(len(fix)))
            corrected.append((at, at + len(fix)))
            last = end
        if not corrected:
            return []
        pieces.append(text[last:])
        offsets.extend(range(last, len(text)))
        offsets.append(len(text))
        fixed = "".join(pieces)
        out = []
        for m in gazetteer.find(fixed):
            if any(lo < m.end and m.start < hi for lo, hi in corrected):
                start, end = offsets[m.start], offsets[m.end - 1] + 1
                out.append(Mention(start, end, text[start:end], m.label, m.entity))
        return out

    def _correction(self, words: Mapping[tuple[str, int], Mapping[str, int]], word: str) -> str | None:
        if len(word) < FUZZY_MIN_CHARS or word in STOPWORDS or not word.isalpha():
            return None
        edits = self._max_edits
        candidates = [  # list() copies a bucket in one step: names_changed may grow it meanwhile
            w
            for length in range(max(len(word) - edits, FUZZY_MIN_CHARS), len(word) + edits + 1)
            for w in list(words.get((word[0], length), ()))
        ]
        if not candidates or word in words.get((word[0], len(word)), ()):
            return None
        hits = process.extract(word, candidates, scorer=OSA.distance, score_cutoff=edits, limit=None)
        if not hits:
            return None
        best = min(h[1] for h in hits)
        closest = [h[0] for h in hits if h[1] == best]
        return closest[0] if len(closest) == 1 else None

    def _read_all(self) -> Iterable[tuple[str, Mapping[str, Any]]]:
        graph = self._graph
        if isinstance(graph, SharedRecords):
            nodes = graph.shared_nodes(ENTITY, graph.shared_ids(ENTITY))
            return ((i, n.props) for i, n in nodes.items())
        try:
            rows = graph.query(NAMES_QUERY)
        except Unsupported:
            return ()
        return ((str(r["id"]), r) for r in rows if r.get("id") is not None)

    def _nodes(self, ids: Sequence[str]) -> dict[str, Mapping[str, Any]]:
        graph = self._graph
        if isinstance(graph, SharedRecords):
            return {i: n.props for i, n in graph.shared_nodes(ENTITY, ids).items()}
        found = graph.neighbourhood(ENTITY, ids, depth=0, props=["domain", "named", "name"]).nodes
        return {i: n.props for i, n in found.items() if n.label == ENTITY}

    def _put(self, eid: str, props: Mapping[str, Any]) -> None:
        name, domain = props.get("name"), props.get("domain")
        if not isinstance(name, str) or not name.strip() or not isinstance(domain, str):
            return
        if props.get("named") is False:
            return
        aliases = props.get("aliases")
        names = [name, *(a for a in aliases if isinstance(a, str))] if isinstance(aliases, list | tuple) else [name]
        full = tuple(dict.fromkeys(v for n in names for v in name_variants(n)))
        full_keys = frozenset(fold_label(v) for v in full)
        shorts = [f for n in names for f in short_forms(n) if fold_label(f) not in full_keys]
        labels = tuple(dict.fromkeys([*full, *shorts]))
        target = _Target(None, labels, str(props.get("type") or "concept"), "", eid, domain, full_keys)
        self._targets[eid] = target
        by_short = self._shorts.setdefault(domain, {})
        for f in shorts:
            by_short.setdefault(fold_label(f), set()).add(eid)
        gazetteer = self._gazetteers.get(domain)
        if gazetteer is None:
            gazetteer = self._gazetteers[domain] = Gazetteer()
        gazetteer.add([target])
        index = self._words.setdefault(domain, {})
        for word in _name_words(labels):
            bucket = index.setdefault((word[0], len(word)), {})
            bucket[word] = bucket.get(word, 0) + 1

    def _drop(self, eid: str) -> None:
        target = self._targets.pop(eid, None)
        if target is None:
            return
        self._gazetteers[target.domain].remove([target])
        by_short = self._shorts.get(target.domain, {})
        for label in target.labels:
            key = fold_label(label)
            ids = by_short.get(key)
            if ids is not None:
                ids.discard(eid)
                if not ids:
                    del by_short[key]
        index = self._words.get(target.domain, {})
        for word in _name_words(target.labels):
            bucket = index.get((word[0], len(word)), {})
            left = bucket.get(word, 0) - 1
            if left > 0:
                bucket[word] = left
            else:
                bucket.pop(word, None)


def _name_words(labels: Iterable[str]) -> set[str]:
    return {w for label in labels for w in _WORD.findall(label.casefold()) if len(w) >= FUZZY_MIN_CHARS}


def _resolve(found: Sequence[tuple[Mention, bool]], query: str) -> list[LinkedEntity]:
    """Leftmost-longest over all mentions (exact before fuzzy on the same span); entities named by the same
    span in several domains are all kept; each entity once, at its first mention."""
    ordered = sorted(found, key=lambda f: (f[0].start, -(f[0].end - f[0].start), f[1]))
    out: dict[str, LinkedEntity] = {}
    span: tuple[int, int] | None = None
    last_end = -1
    for m, fuzzy in ordered:
        here = (m.start, m.end)
        if m.start < last_end and here != span:
            continue
        target = m.entity
        if not isinstance(target, _Target) or target.id in out:
            continue
        if span == here and fuzzy and any(not e.fuzzy and (e.start, e.end) == here for e in out.values()):
            continue
        out[target.id] = LinkedEntity(target.id, target.labels[0], query[m.start : m.end], m.start, m.end, fuzzy)
        span, last_end = here, m.end
    return list(out.values())
