"""Evaluate parsed update operations into one pending change (quads added and removed), without writing.

WHERE clauses run on the real store (``SELECT * WHERE {...}`` with the request's prologue and the
operation's dataset), so their semantics are oxigraph's; templates and data are instantiated by
oxigraph on a scratch store that holds only the solutions. Cost: the solutions and the change, plus
one store lookup per changed quad.

Later operations of a request must see earlier ones' effect. Trade-off chosen: rather than rewrite
each WHERE to correct for the pending change (exact only for monotonic patterns), a WHERE that can
read a graph the pending change touches runs on a scratch in-memory store holding just the graphs it
can read (WITH/USING, ``GRAPH <iri>``), with the change applied. A WHERE that can read every graph
(a default-graph pattern without WITH/USING, or ``GRAPH ?var``) after an earlier operation wrote
would need a copy of the whole store: it is refused past :data:`MAX_OVERLAY_QUADS` (Unsupported:
send the operations as separate requests, or name the graphs). Inferences are not re-derived between
operations of one request (the closure is updated once, at commit).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from pyoxigraph import BlankNode, DefaultGraph, NamedNode, Quad, Store, Variable

from hybridkg.errors import InvalidInput, InvalidQuery, Unsupported
from hybridkg.semantic.base import INFERRED_GRAPH, Term, TripleStore
from hybridkg.semantic.store.embedded import OxigraphStore
from hybridkg.semantic.update.parse import DataOp, GraphOp, ModifyOp, Operation, TransferOp

#: Largest store copied to evaluate a WHERE that reads every graph after an earlier operation wrote.
MAX_OVERLAY_QUADS = 200_000

#: Names a graph that never holds anything: the default graph of ``USING NAMED``-only datasets.
EMPTY_GRAPH = NamedNode("urn:hybridkg:graph:empty")

_SELECT = "{prologue}\nSELECT * WHERE {group}"


@dataclass(frozen=True)
class UpdateDataset:
    """The dataset of WHERE clauses that have no WITH/USING, as ``KnowledgeBase.stream`` takes it.

    ``default_graphs``/``named_graphs``: the SPARQL 1.1 Protocol's ``using-graph-uri`` and
    ``using-named-graph-uri``, each independent of the other (``None``: the union of every graph /
    every named graph). ``inference=False`` hides the inferred graph from both.
    """

    default_graphs: tuple[NamedNode, ...] | None = None
    named_graphs: tuple[NamedNode, ...] | None = None
    inference: bool = True

    @classmethod
    def of(
        cls, default_graphs: Iterable[str] | None, named_graphs: Iterable[str] | None, *, inference: bool = True
    ) -> UpdateDataset:
        """From graph IRIs as strings; raises InvalidInput for one that is not an IRI."""
        return cls(_iris(default_graphs), _iris(named_graphs), inference)


def _iris(names: Iterable[str] | None) -> tuple[NamedNode, ...] | None:
    if names is None:
        return None
    out = []
    for name in names:
        try:
            out.append(NamedNode(name))
        except ValueError as e:
            raise InvalidInput(f"graph name {name!r} is not a valid IRI: {e}") from e
    return tuple(out)


@dataclass
class PendingChange:
    """The change a request makes so far, relative to the store: only real changes are kept."""

    store: TripleStore
    added: dict[Quad, None] = field(default_factory=dict)
    removed: set[Quad] = field(default_factory=set)

    def _stored(self, q: Quad) -> bool:
        return next(iter(self.store.quads(q.subject, q.predicate, q.object, q.graph_name)), None) is not None

    def add(self, q: Quad) -> None:
        if q in self.removed:
            self.removed.discard(q)
        elif q not in self.added and not self._stored(q):
            self.added[q] = None

    def remove(self, q: Quad) -> None:
        if q in self.added:
            del self.added[q]
        elif q not in self.removed and self._stored(q):
            self.removed.add(q)

    def graph_quads(self, graph: NamedNode) -> list[Quad]:
        """The graph's quads as the request has left it so far."""
        out = [q for q in self.store.quads(graph=graph) if q not in self.removed]
        out.extend(q for q in self.added if q.graph_name == graph)
        return out

    def graphs(self) -> set[NamedNode]:
        """Asserted graphs that may hold quads now (never the inferred graph)."""
        names = {g for g in self.store.graphs() if isinstance(g, NamedNode)}
        names.update(q.graph_name for q in self.added if isinstance(q.graph_name, NamedNode))
        names.discard(INFERRED_GRAPH)
        return names

    def touched_graphs(self) -> set[NamedNode]:
        return {q.graph_name for q in (*self.added, *self.removed) if isinstance(q.graph_name, NamedNode)}

    @property
    def empty(self) -> bool:
        return not self.added and not self.removed


def evaluate(
    store: TripleStore, ops: Sequence[Operation], *, default_graph: NamedNode,
    dataset: UpdateDataset = UpdateDataset(),
) -> PendingChange:
    """Run the operations in order against the store plus the change so far; nothing is written."""
    change = PendingChange(store)
    for op in ops:
        match op:
            case DataOp():
                _data(change, op, default_graph)
            case ModifyOp():
                _modify(change, op, default_graph, dataset)
            case GraphOp():
                _graph_op(change, op, default_graph)
            case TransferOp():
                _transfer(change, op, default_graph)
    return change


# ---------------------------------------------------------------------------------------- operations


def _refuse_inferred(graph: object, what: str) -> None:
    if graph == INFERRED_GRAPH:
        raise InvalidInput(f"{INFERRED_GRAPH.value} holds inferred triples and cannot be {what} by an update")


def _data(change: PendingChange, op: DataOp, default_graph: NamedNode) -> None:
    scratch = Store()
    _run(scratch, f"{op.prologue}\nINSERT DATA {op.data}")  # blank nodes: one per label, per operation
    for q in _collect(scratch, default_graph, skip=None):
        if op.kind == "insert":
            _refuse_inferred(q.graph_name, "written")
            change.add(q)
        else:
            _refuse_inferred(q.graph_name, "changed")
            change.remove(q)


def _modify(change: PendingChange, op: ModifyOp, default_graph: NamedNode, dataset: UpdateDataset) -> None:
    names, rows = _solutions(change, op, dataset)
    target = op.with_graph or default_graph
    deletes = _instantiate(op.prologue, op.delete, names, rows, target)
    inserts = _instantiate(op.prologue, op.insert, names, rows, target)
    for q in deletes:
        if q.graph_name != INFERRED_GRAPH:  # inferred triples go when their support goes
            change.remove(q)
    for q in inserts:
        _refuse_inferred(q.graph_name, "written")
        change.add(q)


def _resolve(ref: NamedNode | None, default_graph: NamedNode) -> NamedNode:
    return default_graph if ref is None else ref


def _graph_op(change: PendingChange, op: GraphOp, default_graph: NamedNode) -> None:
    if op.kind == "create":
        graph = op.target if isinstance(op.target, NamedNode) else default_graph
        _refuse_inferred(graph, "created")
        if not op.silent and change.graph_quads(graph):
            raise InvalidInput(f"CREATE GRAPH: graph {graph} already exists (use CREATE SILENT to ignore)")
        return  # the knowledge base keeps no empty graphs
    graphs: Iterable[NamedNode]
    if op.target == "ALL":
        graphs = change.graphs()
    elif op.target == "NAMED":
        graphs = change.graphs() - {default_graph}
    else:
        graph = op.target if isinstance(op.target, NamedNode) else default_graph
        _refuse_inferred(graph, "cleared")
        graphs = [graph]
    for g in graphs:
        for q in change.graph_quads(g):
            change.remove(q)


def _transfer(change: PendingChange, op: TransferOp, default_graph: NamedNode) -> None:
    source = _resolve(op.source, default_graph)
    destination = _resolve(op.destination, default_graph)
    if source == destination:
        return  # section 3.2.3-3.2.5: a no-op
    _refuse_inferred(destination, "written")
    if op.kind == "move":
        _refuse_inferred(source, "changed")
    quads = change.graph_quads(source)
    if op.kind in ("copy", "move"):
        keep = {q.triple for q in quads}
        for q in change.graph_quads(destination):
            if q.triple not in keep:
                change.remove(q)
    for q in quads:
        change.add(Quad(q.subject, q.predicate, q.object, destination))
    if op.kind == "move":
        for q in quads:
            change.remove(q)


# ---------------------------------------------------------------------------------------- WHERE


def _where_dataset(
    op: ModifyOp, dataset: UpdateDataset, change: PendingChange
) -> tuple[list[NamedNode] | None, list[NamedNode] | None]:
    """(default graphs, named graphs) for the WHERE; ``None`` is every graph (default: their union)."""
    if op.has_dataset:
        return list(op.using) or [EMPTY_GRAPH], list(op.using_named) or [EMPTY_GRAPH]
    every = None if dataset.inference else sorted(change.graphs(), key=str)
    named = every if dataset.named_graphs is None else list(dataset.named_graphs) or [EMPTY_GRAPH]
    if op.with_graph is not None:
        return [op.with_graph], named
    default = every if dataset.default_graphs is None else list(dataset.default_graphs) or [EMPTY_GRAPH]
    return default, named


def _readable(
    op: ModifyOp, default: list[NamedNode] | None, named: list[NamedNode] | None
) -> set[NamedNode] | None:
    """Graphs the WHERE can read; ``None``: any graph."""
    graphs: set[NamedNode] = set()
    if default is not None:
        graphs.update(default)
    elif op.reads_default:
        return None  # the union of every graph
    if named is not None:
        graphs.update(named)
    elif op.where_graphs is None:
        return None
    else:
        graphs.update(op.where_graphs)
    return graphs


def _solutions(
    change: PendingChange, op: ModifyOp, dataset: UpdateDataset
) -> tuple[tuple[str, ...], list[tuple[Term | None, ...]]]:
    default, named = _where_dataset(op, dataset, change)
    readable = _readable(op, default, named)
    source: TripleStore = change.store
    if not change.empty and (readable is None or readable & change.touched_graphs()):
        source = _overlay(change, readable)
    query = _SELECT.format(prologue=op.prologue, group=op.where)
    stream = source.stream(query, default_graphs=default, named_graphs=named)
    return stream.variables, list(stream.items)  # type: ignore[arg-type]


def _overlay(change: PendingChange, readable: set[NamedNode] | None) -> OxigraphStore:
    """A scratch store with the readable graphs as the request has left them so far."""
    scratch = OxigraphStore()
    graphs: set[NamedNode] = set(readable) if readable is not None else change.graphs() | {INFERRED_GRAPH}
    copied = 0
    for g in graphs:
        quads = change.graph_quads(g) if g != INFERRED_GRAPH else list(change.store.quads(graph=g))
        copied += len(quads)
        if copied > MAX_OVERLAY_QUADS:
            raise Unsupported(
                f"this update's WHERE reads graphs an earlier operation of the same request changed, and "
                f"evaluating it would copy more than {MAX_OVERLAY_QUADS:,} quads; send the operations as "
                "separate requests, or name the graphs the WHERE reads (WITH/USING, GRAPH <iri>)"
            )
        scratch.add(quads)
    return scratch


# ---------------------------------------------------------------------------------------- templates

_ROW = NamedNode("urn:hybridkg:update:row")


def _instantiate(
    prologue: str, template: str | None, names: Sequence[str], rows: list[tuple[Term | None, ...]],
    default_graph: NamedNode,
) -> list[Quad]:
    """The template's quads for every solution, instantiated by oxigraph on a scratch store.

    The solutions are stored there (one blank node per row, one property per variable) and the
    template runs as ``INSERT <template> WHERE { <each row> }``, so unbound variables, ill-formed
    triples and fresh blank nodes per solution (section 3.1.3) follow the store's own rules.
    """
    if template is None or not rows:
        return []
    scratch = Store()
    solutions = NamedNode(f"urn:hybridkg:update:solutions:{uuid.uuid4().hex}")
    props = {name: NamedNode(f"urn:hybridkg:update:var:{name}") for name in names}
    quads = []
    for row in rows:
        node = BlankNode()
        quads.append(Quad(node, _ROW, node, solutions))
        quads.extend(Quad(node, props[n], v, solutions) for n, v in zip(names, row, strict=True) if v is not None)
    scratch.extend(quads)
    row_var = Variable("hkgrow" + uuid.uuid4().hex[:8])
    optionals = " ".join(f"OPTIONAL {{ {row_var} {props[n]} {Variable(n)} }}" for n in names)
    where = f"GRAPH {solutions} {{ {row_var} {_ROW} {row_var} {optionals} }}"
    _run(scratch, f"{prologue}\nINSERT {template} WHERE {{ {where} }}")
    return _collect(scratch, default_graph, skip=solutions)


def _run(scratch: Store, update: str) -> None:
    try:
        scratch.update(update)
    except SyntaxError as e:  # the request parsed as a whole; a fragment failing is our fault
        raise InvalidQuery(f"SPARQL update syntax error: {e.msg}") from e
    except (ValueError, RuntimeError, OSError) as e:
        raise InvalidQuery(f"SPARQL update failed: {e}") from e


def _collect(scratch: Store, default_graph: NamedNode, *, skip: NamedNode | None) -> list[Quad]:
    out = []
    for q in scratch:
        g = q.graph_name
        if g == skip:
            continue
        if isinstance(g, DefaultGraph):
            out.append(Quad(q.subject, q.predicate, q.object, default_graph))
        elif isinstance(g, NamedNode):
            out.append(q)
    return out
