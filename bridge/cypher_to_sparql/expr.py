"""Cypher expressions (WHERE, property maps, projections) as SPARQL expressions with Cypher's meaning.

Cypher's null is SPARQL's error or unbound value: both propagate the same way through comparisons, ``AND``, ``OR``
and ``NOT`` (openCypher 9 three-valued logic, SPARQL 1.1 §17.2 "Filter evaluation"). Where SPARQL would raise an
error but Cypher answers ``false`` (``'a' = 1``, ``'a' = 'a'@en``), the translation says ``false`` explicitly; where
Cypher compares values SPARQL cannot (two language-tagged strings), it compares Cypher's string encoding of them
(:func:`emit.enc`). Arithmetic, string concatenation and functions other than aggregates are refused.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from cypherast import ast
from pyoxigraph import Literal

from hybridkg.bridge.cypher_to_sparql import emit, lists
from hybridkg.bridge.cypher_to_sparql.emit import NULL, XSD, enc, num, strish
from hybridkg.bridge.mapping.values import to_value
from hybridkg.errors import InvalidQuery, Unsupported

_COMPARE = {ast.LT: "<", ast.LTE: "<=", ast.GT: ">", ast.GTE: ">="}
#: Java regex constructs XPath regexes (SPARQL REGEX) lack or read differently.
_REGEX_REFUSED = re.compile(r"\(\?|\\[pPQEbBAZzGk0-9]|[*+?}][+]|\[\[|&&")


@dataclass(frozen=True, slots=True)
class Operand:
    """A SPARQL expression; ``const`` when it is a constant literal (its Cypher kind is then known here);
    ``node`` when it stands for a node (an IRI or blank node)."""

    text: str
    const: Literal | None = None
    node: bool = False


class Resolver(Protocol):
    """What an expression needs from the query being translated."""

    def variable(self, name: str) -> Operand:
        """The operand of Cypher variable ``name`` (a node or a value)."""
        ...

    def property(self, name: str, key: str) -> str:
        """The SPARQL variable bound to the value of node ``name``'s property ``key`` (unbound: null)."""
        ...

    def parameter(self, name: str) -> object:
        """The value of query parameter ``$name``."""
        ...

    def has_labels(self, node: Operand, labels: list[str]) -> str:
        """The condition that ``node`` has every label of ``labels``."""
        ...

    def literal(self, value: object) -> Literal:
        """The literal a Cypher value stands for."""
        ...


def constant(lit: Literal) -> Operand:
    return Operand(emit.term(lit), lit)


def _kind(lit: Literal) -> str:
    v = to_value(lit)
    if isinstance(v, bool):
        return "bool"
    return "num" if isinstance(v, int | float) else "str"


def _is(kind: str, op: Operand) -> str:
    if op.const is not None:
        return "true" if _kind(op.const) == kind else "false"
    return {"num": num, "bool": emit.boolean, "str": strish}[kind](op.text)


def _enc(op: Operand) -> str:
    if op.const is not None:
        v = to_value(op.const)
        return emit.string(v) if isinstance(v, str) else NULL
    return enc(op.text)


def _both(kind: str, a: Operand, b: Operand) -> str:
    parts = [p for p in (_is(kind, a), _is(kind, b)) if p != "true"]
    return "false" if "false" in parts else " && ".join(parts) or "true"


def _if(cond: str, then: str, otherwise: str) -> str:
    if cond == "true":
        return then
    if cond == "false":
        return otherwise
    return f"IF({cond}, {then}, {otherwise})"


def equals(a: Operand, b: Operand) -> str:
    """Cypher ``a = b``: numbers by value, any other two values only when they are the same literal (or node)."""
    if a.node or b.node:
        if not (a.node and b.node):
            raise Unsupported("comparing a node with a value")
        return f"sameTerm({a.text}, {b.text})"
    if a.const is not None and b.const is not None:
        return f"({a.text} = {b.text})" if _both("num", a, b) == "true" else f"sameTerm({a.text}, {b.text})"
    return _if(_both("num", a, b), f"({a.text} = {b.text})", f"sameTerm({a.text}, {b.text})")


def compare(op: str, a: Operand, b: Operand) -> str:
    """Cypher ``<``, ``<=``, ``>``, ``>=``: numbers, booleans or strings among themselves, else null."""
    if a.node or b.node:
        raise Unsupported("ordering comparison of nodes")
    out = NULL
    out = _if(_both("str", a, b), f"({_enc(a)} {op} {_enc(b)})", out)
    out = _if(_both("bool", a, b), f"({_bit(a)} {op} {_bit(b)})", out)  # SPARQL does not order booleans
    return _if(_both("num", a, b), f"({a.text} {op} {b.text})", out)


def _bit(op: Operand) -> str:
    """A boolean as 0 or 1 (false < true, as Cypher orders them)."""
    if op.const is not None:
        return "1" if to_value(op.const) is True else "0"
    return f"IF({op.text}, 1, 0)"


def _string_predicate(fn: str, a: Operand, b: Operand) -> str:
    return _if(_both("str", a, b), f"{fn}({_enc(a)}, {_enc(b)})", NULL)


class Translator:
    """Translates one expression tree against a :class:`Resolver`."""

    def __init__(self, resolver: Resolver) -> None:
        self.r = resolver

    def condition(self, e: ast.AstNode) -> str:
        """A boolean SPARQL expression (a FILTER's, an operand of AND/OR/XOR/NOT). A value that is not a boolean is
        null here (Cypher raises a type error), never SPARQL's effective boolean value (``'a'`` is not true)."""
        op = self.operand(e)
        if op.node:
            raise Unsupported("a node used as a condition")
        if isinstance(e, ast.Identifier | ast.Property | ast.Parameter | ast.Coalesce) or op.const is not None:
            return _if(_is("bool", op), op.text, NULL)
        return op.text

    def operand(self, e: ast.AstNode) -> Operand:  # noqa: C901 - one case per construct
        match e:
            case ast.Null():
                return Operand(NULL)
            case ast.Boolean() | ast.Integer() | ast.Float() | ast.String():
                return constant(self.r.literal(e.this))
            case ast.Neg(this=ast.Integer() | ast.Float() as inner):
                return constant(self.r.literal(-inner.this))
            case ast.Parameter():
                return self._parameter(e.name)
            case ast.Identifier():
                return self.r.variable(e.this)
            case ast.Property(this=ast.Identifier() as owner):
                return Operand(self.r.property(owner.this, e.name))
            case ast.And() | ast.Or():
                sep = " && " if isinstance(e, ast.And) else " || "
                return Operand(f"({self.condition(e.this)}{sep}{self.condition(e.expression)})")
            case ast.Xor():  # null when either side is null, as IF's condition and !b are errors then
                a, b = self.condition(e.this), self.condition(e.expression)
                return Operand(f"IF({a}, !{b}, {b})")
            case ast.Not():
                return Operand(f"(!{self.condition(e.this)})")
            case ast.EQ():
                return Operand(equals(self.operand(e.this), self.operand(e.expression)))
            case ast.NEQ():
                return Operand(f"(!{equals(self.operand(e.this), self.operand(e.expression))})")
            case ast.LT() | ast.LTE() | ast.GT() | ast.GTE():
                return Operand(compare(_COMPARE[type(e)], self.operand(e.this), self.operand(e.expression)))
            case ast.StartsWith() | ast.EndsWith() | ast.Contains():
                fn = {ast.StartsWith: "STRSTARTS", ast.EndsWith: "STRENDS", ast.Contains: "CONTAINS"}[type(e)]
                return Operand(_string_predicate(fn, self.operand(e.this), self.operand(e.expression)))
            case ast.RegexMatch():
                return Operand(self._regex(self.operand(e.this), e.expression))
            case ast.In():
                return Operand(self._in(self.operand(e.this), e.expression))
            case ast.LabelPredicate(this=ast.Identifier() as owner, labels=ast.LabelExpression() as lx):
                if lx.expression:
                    raise Unsupported(f"label expression {lx.expression!r}")
                node = self.r.variable(owner.this)
                if not node.node:
                    raise Unsupported(f"a label test of {owner.this!r}, which is not a node")
                return Operand(_if(f"BOUND({node.text})", self.r.has_labels(node, list(lx.labels)), NULL))
            case ast.Coalesce():
                ops = [self.operand(x) for x in e.expressions]
                if any(op.node for op in ops):
                    raise Unsupported("coalesce() of nodes")
                consts = [op.const for op in ops if op.const is not None]
                return Operand(f"COALESCE({', '.join(op.text for op in ops)})", consts[0] if len(ops) == 1 else None)
            case ast.IsNull():
                tested = self.operand(e.this)
                neg = "" if e.not_ else "!"
                if re.fullmatch(r"\?\w+", tested.text):
                    return Operand(f"{neg}BOUND({tested.text})")
                if tested.node:
                    raise Unsupported("IS NULL of a node expression")
                # a value expression is null exactly when it is an error (its values are literals)
                return Operand(f"{neg}COALESCE(isLiteral({tested.text}), false)")
        raise Unsupported(f"Cypher expression {_name(e)} (not in the translated fragment)")

    def _parameter(self, name: str) -> Operand:
        value = self.r.parameter(name)
        if value is None:
            return Operand(NULL)
        if isinstance(value, list | tuple | dict):
            raise Unsupported(f"parameter ${name} is a list or map where a single value is expected")
        return constant(self.r.literal(value))

    def items(self, e: ast.AstNode) -> list[Operand]:
        """The elements of a list literal or a list parameter."""
        if isinstance(e, ast.List):
            return [self.operand(x) for x in e.expressions]
        if isinstance(e, ast.Parameter):
            value = self.r.parameter(e.name)
            if not isinstance(value, list | tuple):
                raise InvalidQuery(f"parameter ${e.name} must be a list")
            return [Operand(NULL) if v is None else constant(self.r.literal(v)) for v in value]
        if isinstance(e, ast.Identifier):
            self.r.variable(e.this)  # a collect() list: refused by name
        raise Unsupported(f"a list given by {_name(e)} (only list literals and list parameters are translated)")

    def _in(self, x: Operand, rhs: ast.AstNode) -> str:
        options = self.items(rhs)
        return "(" + " || ".join(equals(x, o) for o in options) + ")" if options else "false"

    def _regex(self, x: Operand, rhs: ast.AstNode) -> str:
        pattern = self.operand(rhs)
        if pattern.const is None or not isinstance(to_value(pattern.const), str):
            raise Unsupported("=~ with a pattern that is not a string constant or parameter")
        text = pattern.const.value
        if _REGEX_REFUSED.search(text):
            raise Unsupported(f"=~ pattern {text!r}: Java regex constructs without an XPath (SPARQL) equivalent")
        return _if(_is("str", x), f"REGEX({_enc(x)}, {emit.string('^(' + text + ')$')})", NULL)


def _name(e: ast.AstNode) -> str:
    if isinstance(e, ast.FunctionCall):
        return f"function {e.name}()"
    return type(e).__name__


#: The Cypher aggregate functions the translation knows.
AGGREGATES = frozenset({"count", "collect", "sum", "avg", "min", "max"})


def aggregate(
    call: ast.FunctionCall,
    arg: Callable[[ast.AstNode], Operand],
    numeric: Callable[[Operand], None],
    bind: Callable[[str], str],
) -> str:
    """A SPARQL aggregate expression with Cypher's result for ``count``/``sum``/``avg``/``min``/``max``;
    ``numeric(x)`` is called for the argument of sum/avg/min/max (it must only hold numbers: Cypher orders and adds
    other values differently, e.g. ``min`` of strings and numbers is a string); ``bind(e)`` binds expression ``e``
    to a new variable before grouping (an error leaves it unbound: SPARQL's aggregates fail on errors)."""
    name = call.name.lower()
    distinct = "DISTINCT " if call.distinct else ""
    exprs = call.expressions or []
    if name == "count" and (not exprs or isinstance(exprs[0], ast.Star)):
        return "COUNT(*)"
    if len(exprs) != 1:
        raise Unsupported(f"{name}() with {len(exprs)} arguments")
    x = arg(exprs[0])
    if not x.text.startswith("?"):
        raise Unsupported(f"{name}() of an expression other than a variable or a property")
    v = x.text
    if name == "count":  # DISTINCT by Cypher equality (1 and 1.0 are one value)
        return f"COUNT({distinct}{v if x.node or not distinct else bind(emit.same_value(v))})"
    if name == "collect":
        if distinct:
            raise Unsupported("collect(DISTINCT ...)")
        return lists.aggregate(bind(lists.encode(v)))
    if x.node:
        raise Unsupported(f"{name}() of nodes")
    if name in ("sum", "avg", "min", "max"):
        numeric(x)
    if name == "sum":
        return f"SUM({distinct}IF(BOUND({v}), {v}, 0))"
    if name == "avg":
        total = f"<{XSD}double>(SUM({distinct}IF(BOUND({v}), {v}, 0)))"
        return f"IF(COUNT({distinct}{v}) > 0, {total} / COUNT({distinct}{v}), {NULL})"
    if name in ("min", "max"):  # an unbound value makes SPARQL's MIN an error; Cypher skips nulls
        inf = f'"{"" if name == "min" else "-"}INF"^^<{XSD}double>'
        return f"IF(COUNT({v}) > 0, {name.upper()}(COALESCE({v}, {inf})), {NULL})"
    raise Unsupported(f"aggregate {name}()")
