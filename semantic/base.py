"""Seams of the semantic layer: one small Protocol per backend, plus the typed values they exchange.

Terms inside ``semantic/`` are pyoxigraph terms (``NamedNode``, ``BlankNode``, ``Literal``,
``Triple``, ``Quad``); conversions to rdflib live only in :mod:`hybridkg.semantic.convert`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable
from typing import Literal as TypingLiteral

from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Quad, Triple

Subject = NamedNode | BlankNode | Triple
Object = NamedNode | BlankNode | Literal | Triple
Term = NamedNode | BlankNode | Literal | Triple
GraphName = NamedNode | BlankNode | DefaultGraph

#: Named graph holding every inferred (entailed, not asserted) triple.
INFERRED_GRAPH = NamedNode("urn:hybridkg:graph:inferred")


# --------------------------------------------------------------------------- store


@dataclass(frozen=True)
class QueryResult:
    """The result of a SPARQL query, independent of the backend that produced it.

    ``kind`` is ``"select"``, ``"ask"`` or ``"graph"`` (CONSTRUCT/DESCRIBE).
    """

    kind: TypingLiteral["select", "ask", "graph"]
    variables: tuple[str, ...] = ()
    rows: tuple[tuple[Term | None, ...], ...] = ()
    boolean: bool | None = None
    triples: tuple[Triple, ...] = ()

    def __len__(self) -> int:
        if self.kind == "select":
            return len(self.rows)
        if self.kind == "graph":
            return len(self.triples)
        return 1


@dataclass(frozen=True)
class QueryStream:
    """A query result read lazily: ``items`` yields rows (SELECT) or triples (CONSTRUCT/DESCRIBE).

    The store took its snapshot when the query started, so the stream never sees a later write.
    ``kind`` and ``variables`` are as in :class:`QueryResult`; ``boolean`` is set for ASK.
    """

    kind: TypingLiteral["select", "ask", "graph"]
    variables: tuple[str, ...] = ()
    boolean: bool | None = None
    items: Iterator[tuple[Term | None, ...]] | Iterator[Triple] = field(default_factory=lambda: iter(()))
    #: When the backend can write the result itself (pyoxigraph, in Rust): ``write_native(output, fmt)`` writes
    #: all of it to ``output`` (an object with ``write(bytes)``) in ``fmt``: "tsv", "json" or "xml" (SPARQL 1.1
    #: Query Results) for SELECT, "ntriples" for CONSTRUCT/DESCRIBE. It reads the same result as ``items``:
    #: use one or the other.
    write_native: Callable[[Any, str], None] | None = None


@runtime_checkable
class TripleStore(Protocol):
    """An RDF dataset: named graphs of quads, SPARQL 1.1 query and update."""

    def query(
        self, sparql: str, *, default_graphs: Sequence[NamedNode] | None = None
    ) -> QueryResult:
        """Run a SPARQL query.

        ``default_graphs=None`` makes the default graph the union of all graphs;
        otherwise the default graph is the union of the listed named graphs.
        """
        ...

    def stream(
        self,
        sparql: str,
        *,
        default_graphs: Sequence[NamedNode] | None = None,
        named_graphs: Sequence[NamedNode] | None = None,
    ) -> QueryStream:
        """Start a SPARQL query and read its results lazily (see :class:`QueryStream`).

        ``default_graphs`` as in :meth:`query`; ``named_graphs`` limits what ``GRAPH`` can see
        (``None``: every named graph).
        """
        ...

    def update(self, sparql: str) -> None:
        """Run a SPARQL 1.1 update atomically."""
        ...

    def add(self, quads: Iterable[Quad], *, bulk: bool = False) -> int:
        """Insert quads in one transaction (all or nothing); returns how many were given."""
        ...

    def remove(self, quads: Iterable[Quad]) -> int:
        """Delete quads in one transaction; returns how many were given."""
        ...

    def quads(
        self,
        subject: Subject | None = None,
        predicate: NamedNode | None = None,
        object: Object | None = None,  # noqa: A002 - RDF vocabulary
        graph: GraphName | None = None,
    ) -> Iterator[Quad]:
        """Quads matching a pattern; ``None`` is a wildcard."""
        ...

    def graphs(self) -> list[NamedNode | BlankNode]:
        """Names of the non-empty named graphs."""
        ...


# --------------------------------------------------------------------------- reasoning


@dataclass(frozen=True)
class InferenceDelta:
    """How the inferred set changed after asserted triples were added or removed."""

    added: frozenset[Triple] = frozenset()
    removed: frozenset[Triple] = frozenset()


@runtime_checkable
class ReasoningSession(Protocol):
    """A closure kept up to date as asserted triples come and go."""

    @property
    def inferred(self) -> frozenset[Triple]:
        """The current normalised inferred set (closure minus asserted)."""
        ...

    def apply(self, added: Iterable[Triple] = (), removed: Iterable[Triple] = ()) -> InferenceDelta:
        """Change the asserted set; every inferred triple nothing supports any more is retracted."""
        ...


@runtime_checkable
class Reasoner(Protocol):
    """An OWL 2 RL materialiser."""

    name: str

    def materialize(self, triples: Iterable[Triple]) -> set[Triple]:
        """Return the inferred triples: the normalised OWL 2 RL closure of ``triples`` minus ``triples``."""
        ...

    def session(self, triples: Iterable[Triple]) -> ReasoningSession:
        """Start an incremental session on an initial asserted set."""
        ...


@runtime_checkable
class GraphView(Protocol):
    """Read access to an asserted set and its closure, used by explanations."""

    def is_asserted(self, triple: Triple) -> bool: ...

    def holds(self, triple: Triple) -> bool:
        """True if the triple is asserted or inferred."""
        ...

    def match(
        self, subject: Subject | None, predicate: NamedNode | None, object: Object | None  # noqa: A002
    ) -> Iterator[Triple]:
        """Triples of the closure (asserted and inferred) matching a pattern."""
        ...


@dataclass(frozen=True)
class Explanation:
    """Why a triple holds: asserted, not entailed, or a derivation by an OWL 2 RL rule.

    ``rule`` is the rule's name in the OWL 2 RL spec (section 4.3, tables 4-9), e.g.
    ``cax-sco``; ``premises`` explain each premise triple, recursively, down to asserted triples.
    """

    triple: Triple
    status: TypingLiteral["asserted", "inferred", "not_entailed"]
    rule: str | None = None
    premises: tuple[Explanation, ...] = ()

    def to_json(self) -> dict[str, object]:
        node: dict[str, object] = {"triple": f"{self.triple} .", "status": self.status}
        if self.rule is not None:
            node["rule"] = self.rule
        if self.status == "inferred":
            node["premises"] = [p.to_json() for p in self.premises]
        return node


# --------------------------------------------------------------------------- validation


class Severity(StrEnum):
    VIOLATION = "Violation"
    WARNING = "Warning"
    INFO = "Info"


@dataclass(frozen=True)
class ValidationResult:
    """One SHACL validation result; terms are in N-Triples syntax, paths in SPARQL path syntax."""

    focus: str
    path: str | None
    constraint: str
    value: str | None
    severity: Severity
    message: str
    source_shape: str | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "focus": self.focus,
            "path": self.path,
            "constraint": self.constraint,
            "value": self.value,
            "severity": str(self.severity),
            "message": self.message,
        }


@dataclass(frozen=True)
class ValidationReport:
    conforms: bool
    results: tuple[ValidationResult, ...] = ()
    engine: str = ""

    @property
    def violations(self) -> tuple[ValidationResult, ...]:
        return tuple(r for r in self.results if r.severity == Severity.VIOLATION)

    def to_json(self) -> dict[str, object]:
        return {"conforms": self.conforms, "results": [r.to_json() for r in self.results]}


@runtime_checkable
class ShapeValidator(Protocol):
    """A SHACL Core validator."""

    name: str

    def validate(
        self,
        data: Iterable[Triple],
        shapes: Iterable[Triple],
        ontology: Iterable[Triple] = (),
    ) -> ValidationReport:
        """Validate ``data`` (plus ``ontology`` as class/subclass context) against ``shapes``."""
        ...


# --------------------------------------------------------------------------- change feed


@dataclass(frozen=True)
class ChangeSet:
    """Everything one committed write changed: asserted and inferred deltas, per graph."""

    asserted_added: tuple[Quad, ...] = ()
    asserted_removed: tuple[Quad, ...] = ()
    inferred_added: tuple[Triple, ...] = ()
    inferred_removed: tuple[Triple, ...] = ()
    domain: str | None = None
    warnings: tuple[ValidationResult, ...] = field(default=())
    #: Graphs written by a bulk load whose triples (asserted, and the inferred ones they brought) are not listed
    #: above: a listener re-reads from the store what it needs (a full sync, a cache dropped).
    bulk_graphs: tuple[NamedNode, ...] = ()

    @property
    def empty(self) -> bool:
        return not (
            self.asserted_added or self.asserted_removed or self.inferred_added or self.inferred_removed
            or self.bulk_graphs
        )


class ChangeListener(Protocol):
    """Called after every committed change, in commit order."""

    def __call__(self, change: ChangeSet) -> None: ...
