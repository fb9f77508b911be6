"""Parse SPARQL 1.1 into rdflib's algebra (SPARQL 1.1 §18.2), with a bounded cache: rdflib's parser costs ~20 ms
a query, and services ask the same queries again and again."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pyparsing import ParseException, ParseResults
from rdflib import Literal
from rdflib.plugins.sparql.algebra import translateQuery
from rdflib.plugins.sparql.parser import parseQuery
from rdflib.plugins.sparql.parserutils import CompValue

from hybridkg.errors import InvalidQuery, Unsupported

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
        _check_filters(tree)
        projection = tree[1].get("projection")
        return Parsed(translateQuery(tree).algebra, not isinstance(projection, list), integers_as_written(query))
    except Unsupported:
        raise
    except ParseException as e:
        raise InvalidQuery(f"SPARQL syntax error at line {e.lineno}, column {e.col}: {e.msg}") from e
    except RecursionError as e:  # rdflib's parser recurses a few dozen frames a level: about 20 levels of !( ... )
        raise Unsupported("a query nested too deeply for rdflib's SPARQL parser (Python's recursion limit)") from e
    except Exception as e:  # rdflib reports unknown prefixes and some semantic errors as plain exceptions
        raise InvalidQuery(f"invalid SPARQL query: {e}") from e


_NUMBER = re.compile(r"(?<![\w.:/#@-])[+-]?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?(?![\w.])")
_CANONICAL_INTEGER = re.compile(r"^-?(?:0|[1-9]\d*)$")


def _check_filters(tree: Any) -> None:
    """rdflib's algebra drops a FILTER whose expression is one falsy constant (``FILTER(false)``, ``FILTER(0)``):
    refuse those rather than answer as if they were not there."""
    if isinstance(tree, CompValue):
        if tree.name == "Filter":
            expr = tree.get("expr")
            while isinstance(expr, CompValue) and set(expr.keys()) <= {"expr", "_vars"}:
                expr = expr.get("expr")
            if isinstance(expr, Literal) and not expr:
                raise Unsupported(f"FILTER({expr.n3()}), a constant rdflib's algebra drops")
        for value in tree.values():
            _check_filters(value)
    elif isinstance(tree, list | ParseResults):
        for value in tree:
            _check_filters(value)


def integers_as_written(query: str) -> bool:
    """Whether every bare integer in ``query`` is in canonical form. rdflib's parser rewrites a bare number's
    lexical form (``007`` -> ``7``, ``30.0e0`` -> ``30.0``); a triple pattern matches terms, so its integer literals
    are only trusted when this holds (decimals and doubles are never matched as terms; a false alarm inside a
    string or IRI only refuses more)."""
    tokens = (m.group(0) for m in _NUMBER.finditer(query))
    return all(_CANONICAL_INTEGER.match(t) for t in tokens if not any(c in t for c in ".eE"))
