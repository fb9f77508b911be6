"""SPARQL's function calls by IRI (SPARQL 1.1 §17.5): the casts ``xsd:string``, ``xsd:integer`` and ``xsd:boolean``,
exactly where Cypher's answer is XPath's; every other function is refused."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rdflib import Literal, Variable
from rdflib.plugins.sparql.parserutils import CompValue

from hybridkg.bridge.sparql_to_cypher.expr import (
    NULL,
    VALUES,
    XSD_BOOLEAN,
    XSD_INTEGER,
    XSD_STRING,
    EKind,
    Expr,
    args,
    num,
)
from hybridkg.errors import Unsupported

if TYPE_CHECKING:
    from hybridkg.bridge.sparql_to_cypher.functions import Compiler


def function(c: Compiler, e: Any) -> Expr:
    """A function call by IRI: the casts ``xsd:string`` (as STR, which it equals on every value the graph holds
    natively and on IRIs), ``xsd:integer`` and ``xsd:boolean``; any other function is refused."""
    iri, operands = str(e.iri), args(e.expr)
    if len(operands) == 1 and iri == XSD_STRING:
        return c.compile(CompValue("Builtin_STR", arg=operands[0]))
    if len(operands) == 1 and iri in (XSD_INTEGER, XSD_BOOLEAN) and not isinstance(operands[0], Variable | Literal):
        # the cast repeats its operand's text; FalkorDB timed out on xsd:boolean(?a - 30)
        raise Unsupported(f"a cast to <{iri}> of an expression (only of a variable or a constant)")
    if len(operands) == 1 and iri == XSD_INTEGER:
        return to_integer(c, c.compile(operands[0]))
    if len(operands) == 1 and iri == XSD_BOOLEAN:
        return to_boolean(c, c.compile(operands[0]))
    raise Unsupported(f"the function <{iri}>")


def to_integer(c: Compiler, x: Expr) -> Expr:
    """``xsd:integer`` cast (SPARQL 1.1 §17.5, XPath casting): an integer is itself, a boolean 1 or 0, a string of
    the integer lexical form (``[+-]?[0-9]+``) its value; any other string, an IRI or a blank node an error. A
    double (truncation), a string of more than 18 digits (past Cypher's 64 bits) and a string with leading or
    trailing whitespace (XPath trims it, Oxigraph does not) stop the statement."""
    if x.kind not in VALUES:
        return NULL
    s = f"toString({x.text})"
    exact = c.params.add("^[+-]?[0-9]{1,18}\\z")
    risky = c.params.add("^[ \t\n\r]*[+-]?[0-9]+[ \t\n\r]*\\z")
    matches = f"size(string.matchRegEx({s}, {exact})) > 0"
    t = f"typeOf({x.text})"
    text = (
        f"(CASE WHEN {t} = 'Integer' THEN {x.text} WHEN {t} = 'Boolean' THEN (CASE WHEN {x.text} = true THEN 1 "
        f"ELSE 0 END) WHEN {t} = 'String' AND {matches} THEN toInteger({s}) END)"
    )
    bad = (
        f"{x.text} IS NOT NULL AND ({t} = 'Float' OR ({t} = 'String' AND NOT {matches} AND "
        f"size(string.matchRegEx({s}, {risky})) > 0))"
    )
    guards = [g for g in (c.guard(x), c.refusal(bad)) if g]
    return Expr(c.guarded(" AND ".join(guards), text), EKind.NUM)


def to_boolean(c: Compiler, x: Expr) -> Expr:
    """``xsd:boolean`` cast: a boolean is itself, a number false iff 0 or NaN, the strings ``true``/``1`` and
    ``false``/``0`` their value; any other string, an IRI or a blank node an error. One of those four strings with
    leading or trailing whitespace (XPath trims it, Oxigraph does not) stops the statement."""
    if x.kind not in VALUES:
        return NULL
    s, t = f"toString({x.text})", f"typeOf({x.text})"
    trues, falses = c.params.add(["true", "1"]), c.params.add(["false", "0"])
    padded = c.params.add("^[ \t\n\r]*(true|false|1|0)[ \t\n\r]*\\z")
    text = (
        f"(CASE WHEN {t} = 'Boolean' THEN {x.text} = true WHEN {t} IN ['Integer', 'Float'] THEN "
        f"{num(x.text)} <> 0 AND {num(x.text)} = {num(x.text)} WHEN {t} = 'String' AND {s} IN {trues} THEN true "
        f"WHEN {t} = 'String' AND {s} IN {falses} THEN false END)"
    )
    bad = (
        f"{x.text} IS NOT NULL AND {t} = 'String' AND NOT {s} IN {trues} AND NOT {s} IN {falses} AND "
        f"size(string.matchRegEx({s}, {padded})) > 0"
    )
    guards = [g for g in (c.guard(x), c.refusal(bad)) if g]
    return Expr(c.guarded(" AND ".join(guards), text), EKind.BOOL)
