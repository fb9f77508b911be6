"""Entity resolution: when two extracted names are the same entity, and how their records merge.

Two names are the same entity (in one domain) when :func:`normalise_name` maps them to the same string:
NFKC, case-folded, whitespace collapsed, punctuation stripped from the ends, a leading article dropped, and
a regular English plural in the last word of a lower-case (common-noun) name made singular.

Deliberately conservative: capitalised names are never singularised ("Williams", "Athens", "Headaches" at
a sentence start stay), words in ``-ss``/``-us``/``-is``/``-ics`` and a short list of singular-looking
plurals ("series", "diabetes", "news") are left alone, endings that could be either ("-ches", "-ses") only
lose the "s", and "a"/"an"/"the" are only dropped when something follows. A false merge is worse than a
missed one: two nodes for one thing still retrieve, one node for two things misleads.

Ids are derived, never stored in a side table: :func:`entity_id` is readable (``ent:<domain>:<normalised>``),
:func:`relation_id` is a hash (``rel:<domain>:<hex>``) of domain, endpoints and normalised relation type.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

from hybridkg.errors import InvalidInput

GENERIC_TYPE = "concept"

_END_PUNCT = "\"'`“”‘’«».,;:!?()[]{}<>*_~|/\\-–—…·•"
_ARTICLES = ("the ", "a ", "an ")
_NOT_PLURAL = frozenset(
    {
        "series", "species", "news", "diabetes", "herpes", "rabies", "measles", "mumps", "scabies", "rickets", "lens",
        "aids", "means", "physics", "mathematics", "economics", "ethics", "politics", "genetics", "statistics", "bus",
        "gas", "yes", "this", "his", "its", "was", "has", "does", "is", "chaos", "canvas", "atlas", "bias", "alias",
        "thesis", "analysis", "diagnosis", "prognosis", "basis", "crisis", "axis", "iris", "pancreas", "tetanus",
        "virus", "status", "corpus", "campus", "census", "focus", "bonus", "plus", "minus", "sinus", "fungus", "uterus",
        "lupus"
    }
)
_SENTENCE = re.compile(r"(?<=[.!?…])\s+(?=[\"'“(\[]?[A-Z0-9À-Þ])|\n+")


def _singular(word: str) -> str:
    if len(word) < 4 or not word.isalpha() or word in _NOT_PLURAL or not word.endswith("s"):
        return word
    if word.endswith(("ss", "us", "is", "ics")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "xes", "zzes")):
        return word[:-2]
    return word[:-1]


def normalise_name(name: str) -> str:
    """The key two names must share to be the same entity (see the module docstring); ``""`` for no name."""
    text = " ".join(unicodedata.normalize("NFKC", name).split())
    text = text.strip(_END_PUNCT + " ")
    common_noun = text == text.lower()
    key = text.casefold()
    for article in _ARTICLES:
        if key.startswith(article) and len(key) > len(article):
            key = key[len(article) :].lstrip(_END_PUNCT + " ")
            break
    if common_noun and key:
        head, _, last = key.rpartition(" ")
        singular = _singular(last)
        if singular != last:
            key = f"{head} {singular}" if head else singular
    return key


def entity_id(domain: str, name: str) -> str:
    """``ent:<domain>:<normalised name>``; raises :class:`InvalidInput` for a name that normalises to nothing."""
    norm = normalise_name(name)
    if not norm:
        raise InvalidInput(f"entity name {name!r} is empty after normalisation")
    return f"ent:{domain}:{norm}"


def normalise_relation_type(rel_type: str) -> str:
    """``"Is Treated With"`` -> ``"is_treated_with"``; an empty type becomes ``"related_to"``."""
    key = re.sub(r"[^\w]+", "_", unicodedata.normalize("NFKC", rel_type).casefold()).strip("_")
    return key or "related_to"


def relation_id(domain: str, src_id: str, dst_id: str, type: str) -> str:
    """A stable id for the ``type`` relation from ``src_id`` to ``dst_id`` (directed: callers order the ends of
    symmetric types)."""
    key = "\x1f".join((domain, src_id, dst_id, normalise_relation_type(type)))
    return f"rel:{domain}:{hashlib.sha256(key.encode('utf-8')).hexdigest()[:32]}"


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def _key(sentence: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", sentence.casefold()).split())


def _clip(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    cut = text.rfind(" ", 0, max_chars)
    cut = cut if cut > max_chars // 2 else max_chars - 1
    return text[:cut].rstrip(" ,;:") + "…"


def merge_descriptions(existing: str, new: str, max_chars: int = 1000) -> str:
    """``existing`` followed by the sentences of ``new`` it does not already say, at most ``max_chars`` long.

    Sentences are compared case- and punctuation-insensitively; one whose words are contained in a kept
    sentence is dropped, and one that contains a kept sentence replaces it in place. Earlier sentences win
    the space: a new sentence that does not fit whole is left out, and a first sentence longer than
    ``max_chars`` is cut at a word boundary with an ellipsis.
    """
    kept: list[str] = []
    keys: list[str] = []
    for sentence in (*_sentences(existing), *_sentences(new)):
        key = f" {_key(sentence)} "
        if not key.strip() or any(key in k for k in keys):
            continue
        covered = [i for i, k in enumerate(keys) if k in key]
        rest = [s for i, s in enumerate(kept) if i not in covered]
        if sum(map(len, rest)) + len(rest) + len(sentence) > max_chars:
            if not kept:
                return _clip(sentence, max_chars)
            continue
        if covered:
            kept[covered[0]], keys[covered[0]] = sentence, key
            for i in reversed(covered[1:]):
                del kept[i], keys[i]
        else:
            kept.append(sentence)
            keys.append(key)
    return " ".join(kept)


def is_generic_type(entity_type: str | None) -> bool:
    return not entity_type or entity_type.strip().casefold() in (GENERIC_TYPE, "unknown", "other", "entity", "thing")


def merge_types(existing: str | None, new: str | None, *, new_is_known: bool = False) -> str:
    """The type an entity keeps when a new mention says ``new``: a specific type wins over ``"concept"``
    (and other generic ones); between two specific types the existing one stays, unless ``new_is_known``
    (the new type comes from the knowledge base, which outranks extraction)."""
    if is_generic_type(new):
        return existing.strip() if existing and not is_generic_type(existing) else GENERIC_TYPE
    if new_is_known or not existing or is_generic_type(existing):
        return (new or GENERIC_TYPE).strip()
    return existing.strip()
