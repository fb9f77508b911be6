"""How the ``auto`` validator splits a SHACL shapes graph between pyshacl-turbo and pySHACL.

The shapes graph is cut into *units*: the weakly connected parts of the graph whose nodes are the
subjects of its triples. A shape references another shape (``sh:node``, ``sh:property``,
``sh:qualifiedValueShape``, ``sh:not``, the ``sh:and``/``sh:or``/``sh:xone`` lists), a path or a
list through a triple from one subject to another, so a unit holds every shape, path and list its
shapes reference, and a shape used from two places joins both into one unit. Each unit is validated
whole by one engine, so the two reports never overlap and can be merged.

A unit goes to pySHACL when one of the rules below finds a feature where
``python -m bench.shacl_turbo_audit`` measured turbo disagreeing with pySHACL (see ``docs/shacl.md``):

* order comparisons (``sh:minInclusive``, ``sh:minExclusive``, ``sh:maxInclusive``,
  ``sh:maxExclusive``, ``sh:lessThan``, ``sh:lessThanOrEquals``) whose operands are not all of one
  kind that both engines order alike (turbo follows SPARQL, where an incomparable pair fails the
  constraint; pySHACL compares Python values, and passes or raises on such pairs);
* ``sh:qualifiedValueShape`` without ``sh:qualifiedMinCount`` or ``sh:qualifiedMaxCount`` (pySHACL
  rejects the shape, turbo accepts it);
* a constraint parameter in ``TURBO_UNRELIABLE``.

A shapes graph that uses SHACL-SPARQL goes to pySHACL whole: a custom constraint component applies to
every shape that uses its parameters, and a query can read the shapes graph, so a split could change
what a shape means. Spec: https://www.w3.org/TR/shacl/.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

_SH = "http://www.w3.org/ns/shacl#"
_XSD = "http://www.w3.org/2001/XMLSchema#"
_RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")


def _sh(*names: str) -> frozenset[NamedNode]:
    return frozenset(NamedNode(_SH + n) for n in names)


#: Constraint parameters that always send a unit to pySHACL. Empty: the audit found no constraint
#: component that turbo gets wrong whatever the data; the rules in the module docstring are conditional.
TURBO_UNRELIABLE: frozenset[NamedNode] = frozenset()

_PATH = NamedNode(_SH + "path")
_BOUNDS = _sh("minInclusive", "minExclusive", "maxInclusive", "maxExclusive")
_PAIRS = _sh("lessThan", "lessThanOrEquals")
_QUALIFIED = NamedNode(_SH + "qualifiedValueShape")
_COUNTS = _sh("qualifiedMinCount", "qualifiedMaxCount")
_SPARQL = _sh("sparql", "select", "ask", "validator", "nodeValidator", "propertyValidator")
_SPARQL_TYPES = _sh("ConstraintComponent", "SPARQLConstraint", "SPARQLAskValidator", "SPARQLSelectValidator")
_SHAPE_MARKS = _sh("targetClass", "targetNode", "targetSubjectsOf", "targetObjectsOf", "target")
_SHAPE_TYPES = _sh("NodeShape", "PropertyShape")

Subject = NamedNode | BlankNode


@dataclass(frozen=True)
class Routing:
    """The shapes triples each engine validates, and why each unit sent to pySHACL went there."""

    turbo: tuple[Triple, ...]
    pyshacl: tuple[Triple, ...]
    reasons: tuple[str, ...] = ()


def route(
    shapes: Iterable[Triple], data: Iterable[Triple], unreliable: frozenset[NamedNode] = TURBO_UNRELIABLE
) -> Routing:
    """Split ``shapes`` into the part turbo validates and the part pySHACL validates.

    ``data`` is the graph the engines will see (data plus ontology); it is read only when a shape
    compares values, to learn which kinds of values meet.
    """
    shapes = list(shapes)
    if any(t.predicate in _SPARQL or (t.predicate == _RDF_TYPE and t.object in _SPARQL_TYPES) for t in shapes):
        reason = "the whole shapes graph: it uses SHACL-SPARQL, which a split shapes graph may change"
        return Routing(turbo=(), pyshacl=tuple(shapes), reasons=(reason,))
    units = [(unit, _comparisons(unit)) for unit in _units(shapes)]
    values = _Values(data, {p for _, checks in units for c in checks for p in c.predicates})
    turbo: list[Triple] = []
    pyshacl: list[Triple] = []
    reasons: list[str] = []
    for unit, checks in units:
        why = _static_reasons(unit, unreliable) + [r for c in checks if (r := c.problem(values)) is not None]
        if why:
            pyshacl += unit
            reasons.append(f"{_names(unit)}: {'; '.join(why)}")
        else:
            turbo += unit
    return Routing(tuple(turbo), tuple(pyshacl), tuple(reasons))


def _units(shapes: list[Triple]) -> list[list[Triple]]:
    """The triples of each weakly connected part of the subject graph, in first-seen order."""
    parent: dict[Subject, Subject] = {t.subject: t.subject for t in shapes}  # type: ignore[misc]

    def find(node: Subject) -> Subject:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for t in shapes:
        if t.object in parent:
            parent[find(t.object)] = find(t.subject)  # type: ignore[arg-type]
    units: dict[Subject, list[Triple]] = {}
    for t in shapes:
        units.setdefault(find(t.subject), []).append(t)  # type: ignore[arg-type]
    return list(units.values())


def _names(unit: list[Triple]) -> str:
    """The shapes a log line names: the unit's targeted or typed shapes, else its first subject."""
    named = dict.fromkeys(
        str(t.subject) for t in unit
        if t.predicate in _SHAPE_MARKS or (t.predicate == _RDF_TYPE and t.object in _SHAPE_TYPES)
    )
    names = list(named) or [str(unit[0].subject)]
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")


def _static_reasons(unit: list[Triple], unreliable: frozenset[NamedNode]) -> list[str]:
    why = sorted({f"uses {_short(t.predicate)}" for t in unit if t.predicate in unreliable})
    counted = {t.subject for t in unit if t.predicate in _COUNTS}
    if any(t.predicate == _QUALIFIED and t.subject not in counted for t in unit):
        why.append("sh:qualifiedValueShape without sh:qualifiedMinCount/MaxCount (pySHACL rejects it, turbo not)")
    return why


def _short(term: NamedNode) -> str:
    return "sh:" + term.value.removeprefix(_SH) if term.value.startswith(_SH) else str(term)


class _Values:
    """The objects of a few predicates in the data graph, gathered in one pass."""

    def __init__(self, data: Iterable[Triple], predicates: set[NamedNode]) -> None:
        self._objects: dict[NamedNode, set[object]] = {p: set() for p in predicates}
        get = self._objects.get
        for t in data if predicates else ():
            found = get(t.predicate)
            if found is not None:
                found.add(t.object)

    def of(self, predicate: NamedNode) -> set[object]:
        return self._objects[predicate]


@dataclass(frozen=True)
class _Comparison:
    """One order comparison in a shape: ``param`` with argument ``arg`` on values of ``path``."""

    shape: Subject
    param: NamedNode
    arg: object
    path: NamedNode | None

    @property
    def predicates(self) -> tuple[NamedNode, ...]:
        if self.path is None:
            return ()
        if self.param in _PAIRS and isinstance(self.arg, NamedNode):
            return self.path, self.arg
        return (self.path,)

    def problem(self, values: _Values) -> str | None:
        """Why turbo and pySHACL may disagree on this comparison over ``values``, or None."""
        what = f"{_short(self.param)} {self.arg} on {self.shape}"
        if self.path is None:
            return f"{what} compares values reached by a path other than one predicate"
        if self.param in _BOUNDS:
            bound = comparison_kind(self.arg)
            if bound in (None, "node"):
                return f"{what}: the bound is not a literal both engines order alike"
            odd: set[object] = {
                v for v in values.of(self.path) if isinstance(v, Literal) and comparison_kind(v) != bound
            }
        elif isinstance(self.arg, NamedNode):
            operands = values.of(self.path) | values.of(self.arg)
            kinds = {comparison_kind(v) for v in operands}
            odd = operands if len(kinds) > 1 or kinds & {None, "node"} else set()
        else:
            return f"{what}: the argument is not a property"
        if odd:
            examples = ", ".join(sorted(map(str, odd))[:3])
            return f"{what} meets values the engines order differently ({examples})"
        return None


def _comparisons(unit: list[Triple]) -> list[_Comparison]:
    paths: dict[object, list[object]] = {}
    for t in unit:
        if t.predicate == _PATH:
            paths.setdefault(t.subject, []).append(t.object)
    out = []
    for t in unit:
        if t.predicate in _BOUNDS or t.predicate in _PAIRS:
            path = paths.get(t.subject, [])
            simple = path[0] if len(path) == 1 and isinstance(path[0], NamedNode) else None
            out.append(_Comparison(t.subject, t.predicate, t.object, simple))  # type: ignore[arg-type]
    return out


_INTEGER = re.compile(r"[+-]?\d{1,18}")
_DECIMAL = re.compile(r"[+-]?(\d{1,18}(\.\d{0,18})?|\.\d{1,18})")
_DOUBLE = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?")
_DATE = re.compile(r"\d{4}-\d\d-\d\d")
_DATETIME = re.compile(r"\d{4}-\d\d-\d\dT([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,6})?(?P<tz>Z|[+-]\d\d:\d\d)?")


@lru_cache(maxsize=1 << 16)
def comparison_kind(term: object) -> str | None:
    """The kind of ``term`` within which turbo and pySHACL order values alike, or None.

    Measured by the audit: integers and decimals (exact in both, up to 18 digits a side), finite
    doubles, ``xsd:string``, dates without a timezone, and dateTimes either all with or all without
    a timezone (fractions up to microseconds). IRIs and blank nodes are their own kind (both engines
    report them against a literal bound). Everything else (floats, booleans, language-tagged strings,
    NaN and INF, ill-formed or out-of-range literals, other datatypes) is None: treat as disagreeing.
    """
    if isinstance(term, NamedNode | BlankNode):
        return "node"
    if not isinstance(term, Literal) or term.language:
        return None
    datatype, text = term.datatype.value.removeprefix(_XSD), term.value
    if datatype == "integer" and _INTEGER.fullmatch(text) or datatype == "decimal" and _DECIMAL.fullmatch(text):
        return "decimal"
    if datatype == "double" and _DOUBLE.fullmatch(text):
        return "double" if math.isfinite(float(text)) else None
    if datatype == "string":
        return "string"
    try:
        if datatype == "date" and _DATE.fullmatch(text):
            date.fromisoformat(text)
            return "date"
        if datatype == "dateTime" and (m := _DATETIME.fullmatch(text)):
            datetime.fromisoformat(text)
            return "dateTime with timezone" if m["tz"] else "dateTime"
    except ValueError:  # the pattern matched but the calendar rejects it (month 13, 30 February, year 0)
        return None
    return None
