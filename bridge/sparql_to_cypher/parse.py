"""Parse SPARQL 1.1 into rdflib's algebra (SPARQL 1.1 §18.2), with a bounded cache: rdflib's parser costs ~20 ms
a query, and services ask the same queries again and again."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pyparsing import ParseException
from rdflib.plugins.sparql.algebra import translateQuery
from rdflib.plugins.sparql.parser import parseQuery

from hybridkg.errors import InvalidQuery

CACHE_SIZE = 512


@dataclass(frozen=True)
class Parsed:
    algebra: Any
    select_star: bool  # ``SELECT *``: project the variables in scope (rdflib's list also has MINUS's and others)
    integers_as_written: bool


@lru_cache(maxsize=CACHE_SIZE)
def parse(query: str) -> Parsed:
    """The algebra of ``query``; :class:`InvalidQuery` naming the position when it does not parse."""
    try:
        tree = parseQuery(query)
        projection = tree[1].get("projection")
        return Parsed(translateQuery(tree).algebra, not isinstance(projection, list), integers_as_written(query))
    except ParseException as e:
        raise InvalidQuery(f"SPARQL syntax error at line {e.lineno}, column {e.col}: {e.msg}") from e
    except Exception as e:  # rdflib reports unknown prefixes and some semantic errors as plain exceptions
        raise InvalidQuery(f"invalid SPARQL query: {e}") from e


_NUMBER = re.compile(r"(?<![\w.:/#@-])[+-]?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?(?![\w.])")
_CANONICAL_INTEGER = re.compile(r"^-?(?:0|[1-9]\d*)$")


def integers_as_written(query: str) -> bool:
    """Whether every bare number in ``query`` is an integer in canonical form. rdflib's parser rewrites a bare
    number's lexical form (``007`` -> ``7``, ``30.0e0`` -> ``30.0``); a triple pattern matches terms, so its
    numeric literals are only trusted when this holds (a false alarm inside a string or IRI only refuses more)."""
    return all(_CANONICAL_INTEGER.match(m.group(0)) for m in _NUMBER.finditer(query))
