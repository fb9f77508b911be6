"""Embedded pyoxigraph store, on disk (a directory) or in memory."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from pyoxigraph import BlankNode, NamedNode, Quad, RdfFormat, Store

from hybridkg.errors import BackendUnavailable, InvalidQuery
from hybridkg.semantic.base import GraphName, Object, QueryResult, QueryStream, Subject
from hybridkg.semantic.store.results import to_query_result, to_query_stream


class OxigraphStore:
    """A :class:`~hybridkg.semantic.base.TripleStore` over an embedded pyoxigraph ``Store``."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        try:
            if self.path is None:
                self._store = Store()
            else:
                self.path.mkdir(parents=True, exist_ok=True)
                self._store = Store(str(self.path))
        except OSError as e:
            raise BackendUnavailable(
                f"cannot open the store at {self.path}: {e}; is another hybridkg process using it (or, in this "
                "process, a knowledge base over it that was not closed)?"
            ) from e

    def __repr__(self) -> str:
        return f"OxigraphStore({str(self.path) if self.path else 'memory'})"

    def query(self, sparql: str, *, default_graphs: Sequence[NamedNode] | None = None) -> QueryResult:
        try:
            if default_graphs is None:
                raw = self._store.query(sparql, use_default_graph_as_union=True)
            else:
                raw = self._store.query(sparql, default_graph=list(default_graphs))
            return to_query_result(raw)
        except SyntaxError as e:
            raise InvalidQuery(f"SPARQL syntax error: {e.msg}") from e
        except (ValueError, OSError) as e:
            raise InvalidQuery(f"SPARQL query failed: {e}") from e

    def stream(
        self,
        sparql: str,
        *,
        default_graphs: Sequence[NamedNode] | None = None,
        named_graphs: Sequence[NamedNode] | None = None,
    ) -> QueryStream:
        named: list[NamedNode | BlankNode] | None = list(named_graphs) if named_graphs is not None else None
        try:
            if default_graphs is None:
                raw = self._store.query(sparql, use_default_graph_as_union=True, named_graphs=named)
            else:
                raw = self._store.query(sparql, default_graph=list(default_graphs), named_graphs=named)
        except SyntaxError as e:
            raise InvalidQuery(f"SPARQL syntax error: {e.msg}") from e
        except (ValueError, OSError) as e:
            raise InvalidQuery(f"SPARQL query failed: {e}") from e
        stream = to_query_stream(raw)
        write = stream.write_native
        return QueryStream(stream.kind, stream.variables, stream.boolean, _query_errors(stream.items),
                           None if write is None else functools.partial(_write_errors, write))

    def update(self, sparql: str) -> None:
        try:
            self._store.update(sparql)
        except SyntaxError as e:
            raise InvalidQuery(f"SPARQL update syntax error: {e.msg}") from e
        except (ValueError, OSError) as e:
            raise InvalidQuery(f"SPARQL update failed: {e}") from e

    def add(self, quads: Iterable[Quad], *, bulk: bool = False) -> int:
        items = quads if isinstance(quads, list) else list(quads)
        if bulk:
            self._store.bulk_extend(items)
        else:
            self._store.extend(items)
        return len(items)

    def remove(self, quads: Iterable[Quad]) -> int:
        items = list(quads)
        if not items:
            return 0
        # One transaction for ground quads: a DELETE DATA update is atomic in oxigraph. SPARQL
        # forbids blank nodes in DELETE DATA, so those quads are removed one by one.
        ground = [q for q in items if not _has_bnode(q)]
        if ground:
            body = "\n".join(f"GRAPH {q.graph_name} {{ {q.subject} {q.predicate} {q.object} }}" for q in ground)
            self._store.update(f"DELETE DATA {{ {body} }}")
        for q in items:
            if _has_bnode(q):
                self._store.remove(q)
        return len(items)

    def quads(
        self,
        subject: Subject | None = None,
        predicate: NamedNode | None = None,
        object: Object | None = None,  # noqa: A002
        graph: GraphName | None = None,
    ) -> Iterator[Quad]:
        return iter(self._store.quads_for_pattern(subject, predicate, object, graph))

    def graphs(self) -> list[NamedNode | BlankNode]:
        return list(self._store.named_graphs())

    def clear_graph(self, graph: NamedNode) -> None:
        if self._store.contains_named_graph(graph):
            self._store.remove_graph(graph)

    def load_stream(
        self, stream: IO[bytes], fmt: RdfFormat, graph: NamedNode, *, base_iri: str | None = None
    ) -> None:
        """Oxigraph's bulk loader on ``stream`` (triples go to ``graph``; with N-Quads, the default graph's): parsed
        and written in Rust, no Python objects, and nothing is stored if it fails. Blank nodes get new labels, as in
        every bulk load. A stream is parsed on one thread."""
        self._store.bulk_load(stream, format=fmt, base_iri=base_iri, to_graph=graph)

    def load_path(
        self, path: Path, fmt: RdfFormat, graph: NamedNode, *, base_iri: str | None = None, lenient: bool = False
    ) -> None:
        """:meth:`load_stream` on a file (or FIFO) that Oxigraph reads itself, without Python in between.
        ``lenient`` skips Oxigraph's IRI checks: only for files of terms it has checked before.

        A path that is not a regular file (a FIFO, a pipe) is opened here and read as a stream: given a path, on a
        machine of four cores or more Oxigraph splits the file by its size for parallel parsing, and a FIFO's size
        is 0, so it would read nothing."""
        if path.is_file():
            self._store.bulk_load(path=str(path), format=fmt, base_iri=base_iri, to_graph=graph, lenient=lenient)
            return
        with open(path, "rb", buffering=0) as stream:  # unbuffered: the loader's reads go straight to the file
            self._store.bulk_load(stream, format=fmt, base_iri=base_iri, to_graph=graph, lenient=lenient)

    def dump_graph(self, graph: NamedNode, path: Path) -> None:
        """Write one graph's triples as N-Triples (one a line, as Oxigraph writes them) to ``path``."""
        self._store.dump(output=str(path), format=RdfFormat.N_TRIPLES, from_graph=graph)

    def flush(self) -> None:
        if self.path is not None and not isinstance(self._store, _Closed):
            self._store.flush()

    def close(self) -> None:
        """Flush and let go of the store (idempotent): its directory's lock is freed (once no query result still
        reads it), so the path can be opened again in this process; any later use raises BackendUnavailable."""
        if isinstance(self._store, _Closed):
            return
        self.flush()
        self._store = _Closed(self.path)  # type: ignore[assignment]


def _has_bnode(q: Quad) -> bool:
    return (
        isinstance(q.subject, BlankNode)
        or isinstance(q.object, BlankNode)
        or isinstance(q.graph_name, BlankNode)
    )


def _write_errors(write: Callable[[Any, str], None], output: Any, fmt: str) -> None:
    """Evaluation errors met while writing are the query's fault too (the output's own errors pass through)."""
    try:
        write(output, fmt)
    except (ValueError, OSError) as e:
        raise InvalidQuery(f"SPARQL query failed: {e}") from e


def _query_errors(items: Iterator[Any]) -> Iterator[Any]:
    """Evaluation errors surface while reading; report them as the query's fault, like at start."""
    try:
        yield from items
    except (ValueError, OSError) as e:
        raise InvalidQuery(f"SPARQL query failed: {e}") from e


class _Closed:
    """What a closed :class:`OxigraphStore` holds instead of its ``Store``: every use is a clear error."""

    def __init__(self, path: Path | None) -> None:
        self._path = path

    def __getattr__(self, name: str) -> object:
        raise BackendUnavailable(f"the store at {self._path or 'memory'} was closed; open it again to use it")
