"""The English pipeline's ``attribute_ruler`` (parts of speech and morphology from the tagger's tags) with a
faster match step, same result.

spaCy's ``AttributeRuler`` runs a :class:`~spacy.matcher.Matcher` over its ~180 patterns on every token; on a
~100-token note that takes 4-5 ms, more than the parser. Nearly all its patterns are one token long and look at
the token's ``LOWER``, ``TAG``, ``DEP`` or ``IS_SPACE`` only, so which of them match is a function of those four
values: :class:`CachedAttributeRuler` works that out once per distinct ``(lower, tag, dep, is_space)`` and
reuses it, runs a ``Matcher`` over the few longer patterns, sorts the matches as the ruler does (later rules
take precedence) and lets the ruler apply them (``AttributeRuler.set_annotations``), so the attributes set are
the ruler's own. A ruler with a pattern this does not read (another attribute, an operator) is left as it is
(:func:`speed_up` returns ``False``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from spacy.language import Language
from spacy.matcher import Matcher
from spacy.pipeline import AttributeRuler
from spacy.tokens import Doc, Token

CACHED_ATTRIBUTE_RULER = "hybridkg_attribute_ruler"
MAX_SIGNATURES = 200_000
_READ = {"LOWER": "lower_", "TAG": "tag_", "DEP": "dep_", "IS_SPACE": "is_space"}
_OPERATORS = frozenset({"IN", "NOT_IN", "REGEX"})

Signature = tuple[str, str, str, bool]


def _value_test(spec: Any) -> Any:
    """A predicate over one attribute value for a pattern's value spec; ``None`` when the spec is not understood."""
    if isinstance(spec, str | bool):
        return lambda value: value == spec
    if isinstance(spec, Mapping) and len(spec) == 1 and next(iter(spec)) in _OPERATORS:
        op, arg = next(iter(spec.items()))
        if op == "REGEX" and isinstance(arg, str):
            rx = re.compile(arg)
            return lambda value: isinstance(value, str) and rx.search(value) is not None
        if isinstance(arg, list | tuple):
            items = frozenset(arg)
            return (lambda value: value in items) if op == "IN" else (lambda value: value not in items)
    return None


def _token_test(pattern: Mapping[Any, Any]) -> Any:
    tests = []
    for attr, spec in pattern.items():
        if attr not in _READ:
            return None
        test = _value_test(spec)
        if test is None:
            return None
        tests.append((list(_READ).index(attr), test))
    return lambda sig: all(test(sig[i]) for i, test in tests)


class CachedAttributeRuler:
    """A pipeline component doing what ``ruler`` does (see the module docstring)."""

    def __init__(self) -> None:
        self.ruler: AttributeRuler | None = None
        self._single: list[tuple[int, int, Any]] = []  # (attr id, match id, test over a signature)
        self._multi: Matcher | None = None
        self._cache: dict[Signature, tuple[tuple[int, int], ...]] = {}

    def use(self, ruler: AttributeRuler) -> bool:
        """Take over ``ruler``'s patterns; ``False`` (and nothing taken) when one is not understood."""
        single: list[tuple[int, int, Any]] = []
        multi = Matcher(ruler.vocab)
        for attr_id, entry in enumerate(ruler.patterns):
            key = str(attr_id)
            match_id = ruler.vocab.strings[key]
            longer: list[Any] = []
            patterns: Any = entry["patterns"]
            for pattern in patterns:
                if not isinstance(pattern, list):
                    return False
                if len(pattern) == 1:
                    test = _token_test(pattern[0])
                    if test is None:
                        return False
                    single.append((attr_id, match_id, test))
                else:
                    longer.append(pattern)
            if longer:
                multi.add(key, longer)
        self.ruler, self._single, self._multi, self._cache = ruler, single, multi if len(multi) else None, {}
        return True

    def _matching(self, token: Token) -> tuple[tuple[int, int], ...]:
        sig: Signature = (token.lower_, token.tag_, token.dep_, token.is_space)
        hit = self._cache.get(sig)
        if hit is None:
            found: dict[tuple[int, int], None] = {}
            for attr_id, match_id, test in self._single:
                if test(sig):
                    found[(attr_id, match_id)] = None
            hit = tuple(found)
            if len(self._cache) >= MAX_SIGNATURES:
                self._cache.clear()
            self._cache[sig] = hit
        return hit

    def match(self, doc: Doc) -> list[tuple[int, int, int, int]]:
        """``AttributeRuler.match(doc)``: ``(attr id, match id, start, end)`` sorted."""
        assert self.ruler is not None
        out = [(a, m, token.i, token.i + 1) for token in doc for a, m in self._matching(token)]
        if self._multi is not None:
            strings = self.ruler.vocab.strings
            out.extend((int(strings[m]), m, s, e) for m, s, e in self._multi(doc, allow_missing=True))
        out.sort()
        return out

    def __call__(self, doc: Doc) -> Doc:
        assert self.ruler is not None
        self.ruler.set_annotations(doc, self.match(doc))
        return doc


@Language.factory(CACHED_ATTRIBUTE_RULER)
def _make_cached_attribute_ruler(nlp: Language, name: str) -> CachedAttributeRuler:
    return CachedAttributeRuler()


def speed_up(nlp: Language, name: str = "attribute_ruler") -> bool:
    """Put a :class:`CachedAttributeRuler` in place of the pipeline's ``name`` component (which stays loaded,
    disabled, holding the patterns); ``False`` when the pipeline has none or a pattern is not understood."""
    if not nlp.has_pipe(name):
        return False
    ruler = nlp.get_pipe(name)
    if not isinstance(ruler, AttributeRuler):
        return False
    cached = CachedAttributeRuler()
    if not cached.use(ruler):
        return False
    component = nlp.add_pipe(CACHED_ATTRIBUTE_RULER, after=name)
    assert isinstance(component, CachedAttributeRuler)
    component.use(ruler)
    nlp.disable_pipe(name)
    return True
