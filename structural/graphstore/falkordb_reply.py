"""FalkorDB's compact reply format (``--compact``), decoded without the ``falkordb`` client's result classes.

A compact reply is ``[header, rows, stats]`` (``[stats]`` for a statement that returns nothing); every value is a
``[type, payload]`` pair, and nodes and relationships name their labels, relationship type and property keys by
number: the graph's *schema* (:class:`Schema`, read with :data:`SCHEMA_QUERY`) turns the numbers into names.
The schema only grows while the graph exists, and the server gives it a version: a statement sent with
``version V`` of another schema is refused before anything runs (:func:`mismatch`), so the caller reads the schema
again and resends. Scalars need no schema and take the fast path of :meth:`Decoder.rows` (a reply of 7,790
strings decodes in about a millisecond; the ``falkordb`` client's ``QueryResult`` took ~10).

Nodes, relationships and paths come out as :class:`RawNode`, :class:`RawEdge` and :class:`RawPath` (ids as the
server's numbers), which the store turns into its records. Other values: ``null`` -> ``None``, booleans, integers,
doubles (the server sends 15 significant digits), strings, lists, maps (``dict``), points
(``{"latitude", "longitude"}``), ``vecf32`` (list of floats), datetime / date / time (UTC) and durations
(``timedelta``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from redis import ResponseError

from hybridkg.errors import BackendUnavailable

#: One statement reading the schema: label, relationship type and property key names in id order (kind 0, 1, 2).
SCHEMA_QUERY = (
    "CALL db.labels() YIELD label RETURN 0 AS k, label AS n UNION ALL "
    "CALL db.relationshipTypes() YIELD relationshipType RETURN 1 AS k, relationshipType AS n UNION ALL "
    "CALL db.propertyKeys() YIELD propertyKey RETURN 2 AS k, propertyKey AS n"
)
_MISMATCH = "version mismatch"
_NULL, _STRING, _INTEGER, _BOOLEAN, _DOUBLE, _ARRAY, _EDGE, _NODE, _PATH, _MAP, _POINT, _VECTOR = range(1, 13)
_DATETIME, _DATE, _TIME, _DURATION = range(13, 17)


@dataclass(frozen=True, slots=True)
class Schema:
    """The names behind a graph's label, relationship type and property key numbers, at one schema version."""

    version: int
    labels: tuple[str, ...]
    types: tuple[str, ...]
    keys: tuple[str, ...]

    @classmethod
    def of(cls, version: int, reply: list[Any]) -> Schema:
        names: tuple[list[str], list[str], list[str]] = ([], [], [])
        for (_, kind), (_, name) in reply[1]:
            names[kind].append(name)
        return cls(version, tuple(names[0]), tuple(names[1]), tuple(names[2]))


@dataclass(slots=True)
class RawNode:
    id: int
    labels: tuple[str, ...]
    props: dict[str, Any]


@dataclass(slots=True)
class RawEdge:
    id: int
    type: str
    src: int
    dst: int
    props: dict[str, Any]


@dataclass(slots=True)
class RawPath:
    nodes: list[RawNode]
    edges: list[RawEdge]


def mismatch(reply: Any) -> int | None:
    """The server's schema version when ``reply`` refuses a statement sent with another one (nothing ran)."""
    refused = isinstance(reply, list) and len(reply) == 2 and isinstance(reply[0], ResponseError)
    return int(reply[1]) if refused and _MISMATCH in str(reply[0]) else None


def check(reply: Any) -> list[Any]:
    """``reply``, or the error it carries raised (redis-py raises a top-level error itself)."""
    if not isinstance(reply, list) or not reply:
        raise BackendUnavailable(f"FalkorDB sent a reply of an unknown shape: {reply!r:.200}")
    if isinstance(reply[-1], ResponseError):
        raise reply[-1]
    return reply


class Decoder:
    """Decodes one reply's values; ``schema()`` gives the current :class:`Schema` and ``refresh()`` reads it again
    (for a number the schema in hand does not know yet: a label the statement itself created)."""

    __slots__ = ("_get", "_refresh", "_schema", "entities")

    def __init__(self, schema: Callable[[], Schema], refresh: Callable[[], Schema]) -> None:
        self._schema: Schema | None = None
        self._get, self._refresh = schema, refresh
        self.entities = False  # whether a node, relationship or path was decoded

    def columns(self, reply: list[Any]) -> list[str]:
        return [str(name) for _, name in reply[0]] if len(reply) == 3 else []

    def rows(self, reply: list[Any]) -> list[list[Any]]:
        if len(reply) != 3:
            return []
        cell = self.cell
        # null, string and integer payloads are the values already (the connection decodes strings)
        return [[v if t <= _INTEGER else cell(t, v) for t, v in row] for row in reply[1]]

    def dicts(self, reply: list[Any]) -> list[dict[str, Any]]:
        """The rows as ``{column: value}``; written out for up to three columns, where ``dict(zip(...))`` took
        three times as long as the decoding (0.5 us a row)."""
        if len(reply) != 3:
            return []
        columns, cell = self.columns(reply), self.cell
        match columns:
            case [a]:
                return [{a: v if t <= _INTEGER else cell(t, v)} for ((t, v),) in reply[1]]
            case [a, b]:
                return [
                    {a: v if t <= _INTEGER else cell(t, v), b: w if u <= _INTEGER else cell(u, w)}
                    for (t, v), (u, w) in reply[1]
                ]
            case [a, b, c]:
                return [
                    {
                        a: v if t <= _INTEGER else cell(t, v),
                        b: w if u <= _INTEGER else cell(u, w),
                        c: y if x <= _INTEGER else cell(x, y),
                    }
                    for (t, v), (u, w), (x, y) in reply[1]
                ]
        return [
            {k: v if t <= _INTEGER else cell(t, v) for k, (t, v) in zip(columns, row, strict=True)} for row in reply[1]
        ]

    def cell(self, t: int, v: Any) -> Any:
        if t <= _INTEGER:
            return v
        if t == _BOOLEAN:
            return v == "true"
        if t == _DOUBLE:
            return float(v)
        if t == _ARRAY:
            return [x[1] if x[0] <= _INTEGER else self.cell(x[0], x[1]) for x in v]
        if t == _NODE:
            self.entities = True
            return RawNode(int(v[0]), tuple(self._name("labels", i) for i in v[1]), self._props(v[2]))
        if t == _EDGE:
            self.entities = True
            return RawEdge(int(v[0]), self._name("types", v[1]), int(v[2]), int(v[3]), self._props(v[4]))
        if t == _PATH:
            self.entities = True
            return RawPath(self.cell(*v[0]), self.cell(*v[1]))
        if t == _MAP:
            return {str(v[i]): self.cell(*v[i + 1]) for i in range(0, len(v), 2)}
        if t == _POINT:
            return {"latitude": float(v[0]), "longitude": float(v[1])}
        if t == _VECTOR:
            return [float(x) for x in v]
        if t == _DATETIME:
            return datetime.fromtimestamp(v, tz=UTC)
        if t == _DATE:
            return datetime.fromtimestamp(v, tz=UTC).date()
        if t == _TIME:
            return datetime.fromtimestamp(v, tz=UTC).time()
        if t == _DURATION:
            return timedelta(seconds=v)
        raise BackendUnavailable(f"FalkorDB sent a value of unknown type {t}: {v!r:.200}")

    def _props(self, props: list[Any]) -> dict[str, Any]:
        return {self._name("keys", k): v if t <= _INTEGER else self.cell(t, v) for k, t, v in props}

    def _name(self, kind: str, number: int) -> str:
        schema = self._schema or self._get()
        self._schema = schema
        names: tuple[str, ...] = getattr(schema, kind)
        if number >= len(names):
            self._schema = schema = self._refresh()
            names = getattr(schema, kind)
            if number >= len(names):
                raise BackendUnavailable(f"FalkorDB named {kind} number {number}, which its schema does not hold")
        return names[number]
