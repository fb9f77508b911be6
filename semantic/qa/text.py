"""Language-level text handling for question answering: tokens with spans, normal forms, function words.

Nothing here knows a domain. The function words are English grammar (determiners, auxiliaries,
prepositions, question words); every domain word comes from the knowledge base's labels.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

#: English function words: question words, determiners, auxiliaries, pronouns, prepositions, conjunctions.
#: Grammar, not domain vocabulary; they never form a mention on their own and are skipped by the parser.
FUNCTION_WORDS = frozenset(
    [
        "a", "an", "the", "this", "that", "these", "those", "some", "any", "each", "every", "all", "no", "which",
        "what", "who", "whom", "whose", "where", "when", "why", "how", "many", "much", "is", "are", "was", "were",
        "be", "been", "being", "am", "do", "does", "did", "done", "has", "have", "had", "having", "of", "to", "in",
        "on", "at", "by", "for", "from", "with", "without", "into", "onto", "about", "as", "than", "then", "and",
        "or", "nor", "but", "not", "there", "here", "it", "its", "they", "them", "their", "he", "she", "his", "her",
        "we", "our", "you", "your", "i", "me", "my", "can", "could", "will", "would", "shall", "should", "may",
        "might", "must", "ought", "list", "name", "give", "show", "tell", "find", "please", "also", "ever",
        "currently",
    ]
)

#: Modal verbs: a question asking what someone *should* or *could* do asks for a judgement.
MODALS = frozenset(
    [
        "should", "ought", "must", "could", "might", "would", "recommend", "recommended", "advise", "advisable",
    ]
)

#: Quantifiers and evaluative adjectives of English that make a superlative or an opinion.
EVALUATIVE = frozenset(
    [
        "most", "least", "best", "worst", "better", "worse", "greatest", "fewest", "ideal", "optimal", "preferred",
    ]
)

_TOKEN = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)


@dataclass(frozen=True)
class Token:
    text: str  # as written
    norm: str  # normal form (see :func:`normalise_word`)
    start: int
    end: int


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def singular(word: str) -> str:
    """English plural -> singular by the regular rules (symmetric use on labels and questions)."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes", "zzes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is", "ous")):
        return word[:-1]
    return word


def normalise_word(word: str) -> str:
    """Case-folded, accents and apostrophes removed, possessive dropped, singular (function words as they are)."""
    w = _fold(word).replace("'", "").replace("’", "")
    if w in FUNCTION_WORDS:
        return w
    if w.endswith("s") and (word.endswith("'s") or word.endswith("’s")):
        w = w[:-1]
    return singular(w)


def tokenize(text: str) -> list[Token]:
    """Word tokens (letters and digits; inner apostrophes kept) with their character spans."""
    return [Token(m.group(0), normalise_word(m.group(0)), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def norm_key(text: str) -> tuple[str, ...]:
    """The normal form of a phrase: its normalised tokens, in order."""
    return tuple(t.norm for t in tokenize(text))


def is_function_word(norm: str) -> bool:
    return norm in FUNCTION_WORDS or _fold(norm) in FUNCTION_WORDS


def superlative_or_opinion(tokens: list[Token], known: set[str]) -> str | None:
    """The word that makes a question a superlative or a judgement (not a fact the schema states), if any.

    Morphology and grammar only: ``most``/``least``/``best``/``worst``..., a modal verb, or an adjective in
    ``-est`` right after ``the`` (``the safest``, ``the cheapest``). Words inside a linked label (``known``
    holds their normal forms) are not counted: a label may well contain "best" or "most".
    """
    for i, tok in enumerate(tokens):
        low = _fold(tok.text)
        if tok.norm in known:
            continue
        if low in EVALUATIVE or low in MODALS:
            return tok.text
        if (
            low.endswith("est") and len(low) > 5 and i > 0 and _fold(tokens[i - 1].text) == "the"
            and low not in FUNCTION_WORDS
        ):
            return tok.text
    return None
