"""The ``duckdb`` OWL 2 RL engine: semi-naive evaluation as SQL joins over dictionary-encoded triples.

Terms become 64-bit ids (:class:`Dictionary`; the two low bits give the kind: IRI, blank node, literal), the
closure is one DuckDB table ``t(s, p, o, r)`` where ``r`` is the iteration that first derived the triple (0 for
asserted ones), and every OWL 2 RL instance rule is a join of the last iteration's new triples (the delta ``d``)
with the closure and with the ground rule tables compiled from the schema (:mod:`.tbox`). An iteration inserts the
distinct heads that are not in ``t`` yet, with the next rank; the fixpoint is reached when one inserts nothing.
A new schema triple (a subclass axiom derived from data, say) recompiles the tables and re-runs one round over
the whole closure. The premises of a triple of rank ``k`` all have ranks below ``k`` (explanations use it).

Equality is a union-find, not rules: ``owl:sameAs`` edges (asserted, or heads of prp-fp/ifp, cls-maxc2/maxqc,
prp-key) join classes represented by their smallest id, ``t`` holds every triple in its representatives' form
(plus ``z owl:sameAs z`` per class), a merge rewrites what it touches (the next delta), and the output expands each
representative to its class. Ranks of expanded triples and of sameAs pairs are computed on demand (:meth:`ranks`).

Incremental: additions are the delta of a new round; deletions follow DRed: over-delete everything that
depends on a removed triple (the same rules, run from the removed set over the old closure), then re-derive what
still has a derivation from what is left, then saturate from the re-derived triples. A retraction that may split
an equality class dissolves that class only (:meth:`DuckDBClosure._split`); only a retracted schema triple
recomputes the closure from the asserted triples (:meth:`DuckDBClosure.remove`).

The inferred set handed out is normalised in SQL exactly as :func:`~.normalize.normalize_inferred` documents (the
same noise is dropped), then decoded: only the result becomes Python terms.
"""

from __future__ import annotations

import logging
import os
import re
import tempfile
import threading
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

import duckdb
import numpy as np
from pyoxigraph import BlankNode, Literal, NamedNode, RdfFormat, Triple, parse

from hybridkg.errors import InputTooLarge, InvalidInput
from hybridkg.semantic.base import InferenceDelta, ReasoningSession
from hybridkg.semantic.perf import cores, gc_paused
from hybridkg.semantic.reasoning.complete import DECLARATIONS
from hybridkg.semantic.reasoning.normalize import (
    _REFLEXIVE_VIRTUAL,
    _SCHEMA_BOTH,
    _SCHEMA_OBJECT,
    _SCHEMA_SUBJECT,
    _TO_THING,
    META_CLASSES,
)
from hybridkg.semantic.reasoning.tbox import TBox, compile_tbox
from hybridkg.semantic.vocab import (
    ALL,
    BUILTIN_NAMESPACES,
    CHAIN,
    DOMAIN,
    EQ_CLASS,
    EQ_PROPERTY,
    FIRST,
    HAS_KEY,
    HAS_VALUE,
    INTERSECTION,
    INVERSE,
    MAX_CARD,
    MAX_QCARD,
    ON_CLASS,
    ON_PROPERTY,
    ONE_OF,
    OWL,
    RANGE,
    REST,
    SAME_AS,
    SOME,
    SUBCLASS,
    SUBPROPERTY,
    THING,
    TYPE,
    UNION,
)

_log = logging.getLogger(__name__)

Term = NamedNode | BlankNode | Literal | Triple
IRI, BNODE, LITERAL = 0, 1, 2

#: Predicates whose triples the schema compiler reads (with ``rdf:type`` of the meta classes and declarations).
SCHEMA_PREDICATES = (
    SUBCLASS, SUBPROPERTY, EQ_CLASS, EQ_PROPERTY, DOMAIN, RANGE, INVERSE, ON_PROPERTY, ON_CLASS, SOME, ALL,
    HAS_VALUE, MAX_CARD, MAX_QCARD, INTERSECTION, UNION, ONE_OF, CHAIN, HAS_KEY, FIRST, REST,
)
_MAX_ROUNDS = 100_000
#: A delta with more distinct (predicate, rdf:type class) pairs than this is not profiled: every rule runs.
_PROFILE_ROWS = 10_000

#: What a row must be to trigger a rule, or what a rule's heads are: ``(preds, classes)``, a triple with a predicate
#: among ``preds`` or an ``rdf:type`` triple with a class among ``classes``; ``None``: any triple.
Shape = tuple[frozenset[int], frozenset[int]] | None
_NONE: frozenset[int] = frozenset()


class _Rule(NamedTuple):
    """One rule as SQL (:meth:`DuckDBClosure._rules`), with the shape a premise taken from the delta must have for it
    to give heads (``fires``), the shape of its heads (``head``), and the premise column its heads' subject is
    (``subject``). The SQL's first ``WHERE``, if any, is its main one, a conjunction."""

    sql: str
    fires: Shape
    head: Shape
    subject: str

    def about(self, table: str) -> str:
        """The SQL with only the heads whose subject is a subject of ``table`` (the condition on the premise, where a
        scan can apply it, not on the heads)."""
        cond = f"{self.subject} IN (SELECT s FROM {table})"
        main = self.sql.find(" WHERE ")
        if main < 0:
            return f"{self.sql} WHERE {cond}"
        return f"{self.sql[:main]} WHERE {cond} AND {self.sql[main + 7:]}"


class _Profile(NamedTuple):
    """The predicates, and the classes of the ``rdf:type`` triples, a table of triples holds: which rules it can
    trigger (:meth:`meets` a rule's ``fires``), or which rules can give one of its triples (``head``)."""

    preds: frozenset[int]
    types: frozenset[int]

    def meets(self, shape: Shape) -> bool:
        return shape is None or not self.preds.isdisjoint(shape[0]) or not self.types.isdisjoint(shape[1])


class Dictionary:
    """Terms <-> ids, kept in DuckDB (``terms(id, nt)``: each term in its N-Triples form, as Oxigraph writes it)
    with a Python cache of the terms already seen as objects. ``id >> 2`` is the term's number; ``id & 3`` its
    kind (IRI, blank node, literal), so SQL can tell literals and IRIs apart without a join."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con
        con.execute("CREATE TABLE terms (id BIGINT, nt VARCHAR)")
        self.ids: dict[Term, int] = {}
        self.cache: dict[int, Term] = {}
        self.next = 0
        self.from_files = False  # whether DuckDB holds terms the Python side has not seen (read from a file)

    @staticmethod
    def kind_sql(nt: str) -> str:
        return f"(CASE left({nt}, 1) WHEN '<' THEN {IRI} WHEN '_' THEN {BNODE} ELSE {LITERAL} END)"

    def id(self, term: Term) -> int:
        found = self.ids.get(term)
        return found if found is not None else self.encode_terms([term])[0]

    def encode_terms(self, terms: list[Term]) -> list[int]:
        """Ids of ``terms``: looked up in DuckDB by N-Triples form, new ones numbered and stored."""
        unknown = [t for t in dict.fromkeys(terms) if t not in self.ids]
        if unknown:
            nts = [str(t) for t in unknown]
            found: dict[int, int] = {}
            if self.from_files:
                self.con.register("_q", {"k": np.arange(len(nts), dtype=np.int64), "nt": np.array(nts, dtype=object)})
                found = dict(self.con.execute("SELECT k, id FROM _q JOIN terms USING (nt)").fetchall())
                self.con.unregister("_q")
            fresh_k, fresh_id = [], []
            for k, term in enumerate(unknown):
                i = found.get(k)
                if i is None:
                    kind = LITERAL if type(term) is Literal else BNODE if type(term) is BlankNode else IRI
                    i = (self.next << 2) | kind
                    self.next += 1
                    fresh_k.append(k)
                    fresh_id.append(i)
                self.ids[term] = i
                self.cache[i] = term
            if fresh_k:
                self.con.register("_n", {"id": np.array(fresh_id, dtype=np.int64),
                                         "nt": np.array([nts[k] for k in fresh_k], dtype=object)})
                self.con.execute("INSERT INTO terms SELECT id, nt FROM _n")
                self.con.unregister("_n")
        return [self.ids[t] for t in terms]

    def encode(self, triples: Iterable[Triple]) -> dict[str, np.ndarray]:
        """Columns ``s, p, o`` of ids (RDF-star triples, with a quoted triple as a term, are passed over)."""
        rows = [t for t in triples if type(t.subject) is not Triple and type(t.object) is not Triple]
        get = self.ids.get
        missing = [x for t in rows for x in (t.subject, t.predicate, t.object)
                   if get(x) is None]  # type: ignore[call-overload]
        if missing:
            self.encode_terms(missing)  # type: ignore[arg-type]
        ids = self.ids
        return {
            "s": np.array([ids[t.subject] for t in rows], dtype=np.int64),  # type: ignore[index]
            "p": np.array([ids[t.predicate] for t in rows], dtype=np.int64),
            "o": np.array([ids[t.object] for t in rows], dtype=np.int64),  # type: ignore[index]
        }

    def _fetch(self, ids: Iterable[int]) -> None:
        """Parse the terms of ``ids`` not in the cache from their N-Triples forms."""
        want = [i for i in set(ids) if i not in self.cache]
        if not want:
            return
        self.con.register("_w", {"id": np.array(want, dtype=np.int64)})
        rows = self.con.execute("SELECT terms.id, terms.nt FROM _w JOIN terms USING (id)").fetchall()
        self.con.unregister("_w")
        for i, term in _parse_terms(rows).items():
            self.cache[i] = term
            self.ids.setdefault(term, i)

    def decode(self, cols: dict[str, np.ndarray]) -> list[Triple]:
        s, p, o = cols["s"].tolist(), cols["p"].tolist(), cols["o"].tolist()
        self._fetch([*s, *p, *o])
        c = self.cache
        return [Triple(c[a], c[b], c[x]) for a, b, x in zip(s, p, o, strict=True)]  # type: ignore[arg-type]

    def load_ntriples(
        self, path: Path | list[Path], *, strict: bool = False, max_bytes: int | None = None, table: str = "_in"
    ) -> str | None:
        """Read canonical N-Triples (as Oxigraph writes them: one triple a line, single spaces) into the temp table
        ``_in(s, p, o)`` of ids, numbering new terms; returns the table's name. RDF-star lines are passed over.
        gzip-compressed files are read as such.

        ``strict``: the file is a user's, not Oxigraph's, so every line must be in the one spelling the store
        gives its terms (:data:`_CANONICAL_LINE`: no blank nodes, whose labels the store renames; no escapes but
        quote, backslash, newline and carriage return; no ``^^xsd:string``; lower-case language tags), else nothing
        is read and ``None`` is returned."""
        con = self.con
        try:
            con.execute(
                "CREATE OR REPLACE TEMP TABLE _lines AS SELECT line FROM read_csv(?, "
                "columns={'line': 'VARCHAR'}, delim='\0', header=false, quote='', escape='', auto_detect=false)",
                [[str(p) for p in path] if isinstance(path, list) else str(path)],
            )
        except (duckdb.IOException, duckdb.InvalidInputException) as e:  # a cut gzip stream, bytes not UTF-8
            raise InvalidInput(f"{path} could not be read as N-Triples ({str(e).splitlines()[0]}): the file is "
                               "corrupt, truncated or not UTF-8; nothing was stored") from e
        if max_bytes is not None:
            size = con.execute("SELECT coalesce(sum(strlen(line) + 1), 0) FROM _lines").fetchall()[0][0]
            if size > max_bytes:
                con.execute("DROP TABLE _lines")
                raise InputTooLarge(
                    f"{path} holds {size:,} bytes of N-Triples, above the configured limit of {max_bytes:,} bytes; "
                    "raise the limit (store.max_input_bytes) or split the file"
                )
        if strict:
            odd = con.execute(
                "SELECT count(*) FROM _lines WHERE NOT regexp_full_match(line, ?) OR contains(line, ?)",
                [_CANONICAL_LINE, f"^^<{XSD_STRING}>"],
            ).fetchall()[0][0]
            if odd:
                con.execute("DROP TABLE _lines")
                return None
        if not strict:  # (a strict read has checked every line whole) four parts or more, the last one '.'
            bad = con.execute("SELECT count(*) FROM _lines WHERE line NOT LIKE '% % % .'").fetchall()[0][0]
            if bad:
                con.execute("DROP TABLE _lines")
                raise InvalidInput(
                    f"{path}: {bad} line(s) are not canonical N-Triples (one triple a line, ' .' at the end)"
                )
        # split in the same statement: a table of the split lines would be one more copy of the file
        con.execute(
            "CREATE OR REPLACE TEMP TABLE _raw AS SELECT x[1] AS s, x[2] AS p, array_to_string(x[3:len(x) - 1], ' ') "
            "AS o FROM (SELECT string_split(line, ' ') AS x FROM _lines) WHERE x[1] NOT LIKE '<<%' "
            "AND x[3] NOT LIKE '<<%'"
        )
        con.execute("DROP TABLE _lines")
        con.execute(
            "CREATE OR REPLACE TEMP TABLE _new AS SELECT nt FROM (SELECT s AS nt FROM _raw UNION SELECT p FROM _raw "
            "UNION SELECT o FROM _raw) ANTI JOIN terms USING (nt)"
        )
        n = con.execute("SELECT count(*) FROM _new").fetchall()[0][0]
        con.execute(
            f"INSERT INTO terms SELECT (({self.next} + row_number() OVER () - 1) << 2) | {self.kind_sql('nt')}, nt "
            "FROM _new"
        )
        self.next += int(n)
        self.from_files = self.from_files or bool(n)
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT a.id AS s, b.id AS p, c.id AS o FROM _raw "
            "JOIN terms a ON a.nt = _raw.s JOIN terms b ON b.nt = _raw.p JOIN terms c ON c.nt = _raw.o"
        )
        con.execute("DROP TABLE _raw")
        con.execute("DROP TABLE _new")
        return table

    def write_ntriples(self, table: str, path: Path | Sequence[Path], *, graph: str | None = None) -> int:
        """Write the triples of ``table(s, p, o)`` as N-Triples (N-Quads in ``graph``, an IRI); returns how many.
        Several paths share the triples out by subject (each subject's triples in one file), for loaders that run
        side by side."""
        paths = [path] if isinstance(path, Path) else list(path)
        n = self.con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]
        end = " ." if graph is None else f" {NamedNode(graph)} ."
        if "'" in end:
            raise InvalidInput(f"a graph name with a quote cannot be handed to DuckDB: {graph}")
        for i, out in enumerate(paths):
            share = f" WHERE (x.s >> 2) % {len(paths)} = {i}" if len(paths) > 1 else ""
            self.con.execute(
                f"COPY (SELECT a.nt || ' ' || b.nt || ' ' || c.nt || '{end}' FROM {table} x JOIN terms a ON a.id = x.s "
                f"JOIN terms b ON b.id = x.p JOIN terms c ON c.id = x.o{share}) TO "
                f"'{_sql_path(out)}' (FORMAT csv, HEADER false, QUOTE '', ESCAPE '', DELIMITER '\x1f')"
            )
        return int(n)


def _parse_terms(rows: Sequence[tuple[int, str]]) -> dict[int, Term]:
    """Terms by id from their N-Triples forms (``terms`` rows), parsed in one document."""
    doc = "".join(f"<urn:x:s> <urn:x:p> {nt} .\n" for _, nt in rows)
    parsed = parse(doc.encode(), format=RdfFormat.N_TRIPLES)
    return {i: q.object for (i, _), q in zip(rows, parsed, strict=True)}  # type: ignore[misc]


XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_GROUND = f"(s & 3) <> {BNODE} AND (o & 3) <> {BNODE}"
_IRI = r'<[^<>"{}|^`\\\x00-\x20]*>'
_LITERAL = r'"(?:[^"\\\x00-\x1f]|\\["\\nr])*"(?:@[a-z]+(?:-[a-z0-9]+)*|\^\^' + _IRI + ")?"
#: A line of N-Triples in the spelling Oxigraph gives its terms (:meth:`Dictionary.load_ntriples`, ``strict``).
_CANONICAL_LINE = f"{_IRI} {_IRI} (?:{_IRI}|{_LITERAL}) \\."


def _sql_path(path: Path) -> str:
    text = str(path)
    if "'" in text:
        raise InvalidInput(f"a path with a quote cannot be handed to DuckDB: {text}")
    return text


#: A SQL condition on the N-Triples form ``nt`` of a term: it is in a built-in namespace (RDF, RDFS, OWL, XSD).
_BUILTIN_NT = " OR ".join(f"starts_with(nt, '<{ns}')" for ns in BUILTIN_NAMESPACES)

#: The rule tables a rule's SQL joins (``JOIN sco ON``, ``JOIN ints i2 ON``).
_JOINED = re.compile(r"JOIN (sco|spo|dom|rng|inv|symp|fp|ifp|svf|avf|hv|maxc|maxqc|ints) ")

#: The OWL terms the inconsistency checks read (:meth:`DuckDBClosure.inconsistencies`).
_CLASH_TERMS = ("disjointWith", "complementOf", "Nothing", "maxCardinality", "onProperty", "IrreflexiveProperty",
                "AsymmetricProperty", "propertyDisjointWith", "differentFrom", "sameAs")
#: Every term the engine itself names, numbered at once when a closure starts.
_VOCABULARY: list[Term] = list(dict.fromkeys([
    TYPE, SAME_AS, THING, *SCHEMA_PREDICATES, *META_CLASSES, *DECLARATIONS, *_REFLEXIVE_VIRTUAL, *_TO_THING,
    *_SCHEMA_BOTH, *_SCHEMA_SUBJECT, *_SCHEMA_OBJECT, *(NamedNode(OWL + name) for name in _CLASH_TERMS),
]))

#: The rewriting of every member of a class to its representative, with the rank of ``member owl:sameAs rep``, as
#: the ``mapping(old, new, c)`` of :meth:`DuckDBClosure._rewritten`.
_TO_REPS = "(SELECT id AS old, rep AS new, c_to AS c FROM uf WHERE id <> rep)"


def _rep_form(x: str) -> tuple[str, str, str, str]:
    """The representatives' form of the rows of the table aliased ``x`` (columns ``s, p, o``): the joins that find
    each position's class in ``uf`` (aliased ``x_s``, ``x_p``, ``x_o``), then the three representatives' terms as SQL
    expressions (a term in no class is its own)."""
    joins = " ".join(f"LEFT JOIN uf {x}_{k} ON {x}_{k}.id = {x}.{k}" for k in "spo")
    s, p, o = (f"coalesce({x}_{k}.rep, {x}.{k})" for k in "spo")
    return joins, s, p, o


def _member_form(x: str) -> tuple[str, str, str, str]:
    """The other way from :func:`_rep_form`: the rows of the table aliased ``x`` with each representative replaced by
    each member of its class (one row a combination), as the joins (``x_s``, ``x_p``, ``x_o`` on ``uf.rep``) and the
    three members' terms as SQL expressions (a term that represents no class stays)."""
    joins = " ".join(f"LEFT JOIN uf {x}_{k} ON {x}_{k}.rep = {x}.{k}" for k in "spo")
    s, p, o = (f"coalesce({x}_{k}.id, {x}.{k})" for k in "spo")
    return joins, s, p, o


def _rep_same_as_rep(same: int, where: str = "TRUE") -> str:
    """``rep owl:sameAs rep`` with its rank for each class whose representative satisfies ``where`` (on ``u.rep``), as
    a SELECT of ``(s, p, o, r)``: eq-rep-s applied to ``m owl:sameAs rep`` of its nearest member ``m``, one rank
    above that pair's."""
    return (f"SELECT u.rep, {same}, u.rep, 1 + min(u.c_to) FROM uf u WHERE u.id <> u.rep AND ({where}) "
            "GROUP BY u.rep")

#: The share of physical memory DuckDB may use before it spills to its temporary directory.
MEMORY_SHARE = 0.4


def _physical_bytes() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return 8 << 30


def _connect(temp_dir: Path) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(
        config={
            "threads": cores(),
            "preserve_insertion_order": False,
            "temp_directory": str(temp_dir),
            # beside Oxigraph's bulk loader and the Python process: spill to disk rather than crowd them out
            "memory_limit": f"{max(1, int(_physical_bytes() * MEMORY_SHARE) >> 20)}MB",
        }
    )
    con.execute("SET enable_progress_bar = false")
    return con


def _ids(xs: Iterable[int]) -> str:
    """A SQL list of integer ids (ids are ints made here, never user text)."""
    items = sorted({int(x) for x in xs})
    return "(" + ", ".join(map(str, items)) + ")" if items else "(NULL)"


def _mentions(ids: Iterable[int]) -> str:
    """A SQL condition: the row's ``s``, ``p`` or ``o`` is one of ``ids``."""
    listed = _ids(ids)
    return f"(s IN {listed} OR p IN {listed} OR o IN {listed})"


def _pair_ranks(edges: list[tuple[int, int, int]], source: int, *, reverse: bool = False) -> dict[int, int]:
    """The rank of ``source owl:sameAs x`` (``reverse``: of ``x owl:sameAs source``) for every ``x`` the equality
    ``edges`` (``a``, ``b``, rank of ``a owl:sameAs b``) connect to ``source``: the least, over paths, of the highest
    arc cost on the path plus ``ceil(log2(hops))``, an edge ``a -> b`` costing its rank and ``b -> a`` one more
    (eq-sym). A path of that value is a proof: eq-trans joins its two halves (each a path of at most half the hops,
    so ranked at least one lower), as semi-naive evaluation of eq-trans doubles the paths it spans each round."""
    arcs = sorted([(r, a, b) for a, b, r in edges] + [(r + 1, b, a) for a, b, r in edges])
    if reverse:
        arcs = [(c, b, a) for c, a, b in arcs]
    nodes = len({a for _, a, _ in arcs})
    adj: dict[int, list[int]] = {}
    best: dict[int, int] = {}
    k = 0
    while k < len(arcs):
        cost = arcs[k][0]
        if best and cost >= max(best.values()) and len(best) + 1 >= nodes:
            break  # every node found, and no higher threshold can do better
        while k < len(arcs) and arcs[k][0] == cost:
            adj.setdefault(arcs[k][1], []).append(arcs[k][2])
            k += 1
        seen, frontier, hops = {source}, [source], 0
        while frontier:
            hops += 1
            nxt = []
            for u in frontier:
                for v in adj.get(u, ()):
                    if v not in seen:
                        seen.add(v)
                        nxt.append(v)
                        value = cost + (hops - 1).bit_length()  # ceil(log2(hops))
                        if value < best.get(v, value + 1):
                            best[v] = value
            frontier = nxt
    return best


class DuckDBClosure:
    """The OWL 2 RL closure of an asserted set, kept in DuckDB and updated incrementally."""

    def __init__(self, asserted: Iterable[Triple] = (), *, blank_node_types: bool = True) -> None:
        self.blank_node_types = blank_node_types
        self._tmp = tempfile.TemporaryDirectory(prefix="hkg-duckdb-")
        self.con = _connect(Path(self._tmp.name))
        self.dict = Dictionary(self.con)
        d = self.dict
        d.encode_terms(_VOCABULARY)  # one statement for the engine's own terms (each d.id below is a cache hit)
        self.TYPE, self.SAME, self.THING = d.id(TYPE), d.id(SAME_AS), d.id(THING)
        self._schema_p = [d.id(p) for p in SCHEMA_PREDICATES]
        self._meta = [d.id(c) for c in (*META_CLASSES, *DECLARATIONS)]
        self._declared = [d.id(c) for c in DECLARATIONS]
        self.rank = 0
        self.tbox = TBox()
        # equality classes (union-find): member -> representative (the smallest id), representative -> members,
        # representative -> the class's equality edges (a, b, rank of ``a owl:sameAs b``); only classes of two or more
        self._rep: dict[int, int] = {}
        self._members: dict[int, list[int]] = {}
        self._edges: dict[int, list[tuple[int, int, int]]] = {}
        self._pairs: dict[tuple[int, bool], dict[int, int]] = {}  # (source, reverse) -> _pair_ranks, per class
        self._schema_merged = False  # a merge joined declared terms (classes, properties): the schema changed
        self.rebuilds = 0  # full recomputations (a schema triple retracted), for tests
        self.splits = 0  # retractions that dissolved equality classes (:meth:`_split`), for tests
        self.local_snapshots = 0  # snapshots found from the rows a change touched (:meth:`_snapshot_local`), for tests
        # the rank before the current change (None: built or recomputed since, the checks scan everything) and the
        # inconsistency vocabulary seen in the closure (:meth:`inconsistencies`)
        self._mark: int | None = None
        self._in_change = False
        self._snapshotted = False  # whether the table inf holds the inferred set of the last snapshot
        # the closure's version (one up per change) and the version the table _unstored was built at (:meth:`unstored`)
        self._version = 0
        self._unstored_at = -1
        self._unstored_lock = threading.Lock()
        # the current change only added triples through add(), without a merge, a schema change or a recomputation:
        # the inferred set's delta can be found from the rows it touched (:meth:`snapshot_tables`)
        self._local = False
        self._present: set[int] = set()
        self._next_profile: _Profile | None = None  # the profile of _next (:meth:`_schema_in_next`)
        con = self.con
        con.execute("CREATE TABLE t (s BIGINT, p BIGINT, o BIGINT, r INTEGER)")
        # uf: every member of a class with its representative and the ranks of member sameAs rep (c_to) and of
        # rep sameAs member (c_from); orig: asserted triples not in representative form (their rewriting is in t);
        # hist: triples of t rewritten by a merge, with the rank they had (explanations may still use them)
        con.execute("CREATE TABLE uf (id BIGINT, rep BIGINT, c_to INTEGER, c_from INTEGER)")
        con.execute("CREATE TABLE orig (s BIGINT, p BIGINT, o BIGINT)")
        con.execute("CREATE TABLE hist (s BIGINT, p BIGINT, o BIGINT, r INTEGER)")
        # fresh: rows a change put into t below its rank mark (new asserted ones, rank 0; rewritten by a merge)
        con.execute("CREATE TABLE fresh (s BIGINT, p BIGINT, o BIGINT)")
        # the ids of the terms in the built-in namespaces, as far as the dictionary's number _builtin_upto
        con.execute("CREATE TEMP TABLE _builtin (id BIGINT)")
        self._builtin_upto = 0
        self._empty: set[str] = set()  # the rule tables without rows (created at first, then kept while empty)
        self._rule_tables(TBox())
        with gc_paused():
            cols = d.encode(asserted)
        con.register("_in", cols)
        self._assert("_in")
        con.unregister("_in")
        self._saturate()

    def close(self) -> None:
        try:
            self.con.close()
        finally:
            self._tmp.cleanup()

    # ------------------------------------------------------------------ schema

    def _schema_filter(self, alias: str = "", *, equality: bool = True) -> str:
        """The schema triples (``equality``: with ``owl:sameAs`` from a declared term) as a SQL condition."""
        a = f"{alias}." if alias else ""
        same = (f" OR ({a}p = {self.SAME} AND {a}s IN (SELECT s FROM t WHERE p = {self.TYPE} "
                f"AND o IN {_ids(self._declared)}))") if equality else ""
        return f"({a}p IN {_ids(self._schema_p)} OR ({a}p = {self.TYPE} AND {a}o IN {_ids(self._meta)}){same})"

    def _schema_triples(self) -> list[Triple]:
        """The schema triples of ``t``, and the equality edges of the classes of declared terms (classes,
        properties: ``c1 owl:sameAs c2`` makes them equivalent, which the representatives' form cannot say)."""
        cols = self.con.execute(f"SELECT s, p, o FROM t WHERE {self._schema_filter()}").fetchnumpy()
        if self._edges:
            declared = {int(x) for x, in self.con.execute(
                f"SELECT DISTINCT s FROM t WHERE p = {self.TYPE} AND o IN {_ids(self._declared)} "
                f"AND s IN {_ids(self._edges)}").fetchall()}
            edges = [(a, self.SAME, b) for z in declared for a, b, _ in self._edges[z]]
            if edges:
                cols = {k: np.concatenate([cols[k], np.array([e[j] for e in edges], dtype=np.int64)])
                        for j, k in enumerate("spo")}
        return self.dict.decode(cols)

    def _rule_tables(self, tb: TBox) -> None:
        """Load the ground rule tables of ``tb`` (ids, in the representatives' form) into DuckDB."""
        rep_of, term_id = self._rep, self.dict.id
        self.dict.encode_terms([x for rows in (tb.sco, tb.spo, tb.domain, tb.range, tb.inverse, tb.some, tb.all,
                                                tb.has_value, tb.max_one, tb.max_one_q, tb.one_of) for row in rows
                                for x in row] + [*tb.symmetric, *tb.transitive, *tb.functional,
                                                 *tb.inverse_functional]
                               + [x for c, ms in tb.intersections for x in (c, *ms)]
                               + [x for p, ps in (*tb.chains, *tb.keys) for x in (p, *ps)]
                               + [x for t in tb.derived for x in (t.subject, t.predicate, t.object)
                                  if type(x) is not Triple])  # type: ignore[misc]

        def i(term: Term) -> int:
            x = term_id(term)
            return rep_of.get(x, x)

        tables: dict[str, tuple[str, list[tuple[int, ...]]]] = {
            "sco": ("c BIGINT, d BIGINT", [(i(a), i(b)) for a, b in tb.sco]),
            "spo": ("p BIGINT, q BIGINT", [(i(a), i(b)) for a, b in tb.spo]),
            "dom": ("p BIGINT, c BIGINT", [(i(a), i(b)) for a, b in tb.domain]),
            "rng": ("p BIGINT, c BIGINT", [(i(a), i(b)) for a, b in tb.range]),
            "inv": ("p BIGINT, q BIGINT", [(i(a), i(b)) for a, b in tb.inverse]),
            "symp": ("p BIGINT", [(i(a),) for a in tb.symmetric]),
            "trp": ("p BIGINT", [(i(a),) for a in tb.transitive]),
            "fp": ("p BIGINT", [(i(a),) for a in tb.functional]),
            "ifp": ("p BIGINT", [(i(a),) for a in tb.inverse_functional]),
            "svf": ("r BIGINT, p BIGINT, y BIGINT", [(i(r), i(p), i(y)) for r, p, y in tb.some]),
            "avf": ("r BIGINT, p BIGINT, y BIGINT", [(i(r), i(p), i(y)) for r, p, y in tb.all]),
            "hv": ("r BIGINT, p BIGINT, v BIGINT", [(i(r), i(p), i(v)) for r, p, v in tb.has_value]),
            "maxc": ("r BIGINT, p BIGINT", [(i(r), i(p)) for r, p in tb.max_one]),
            "maxqc": ("r BIGINT, p BIGINT, c BIGINT", [(i(r), i(p), i(c)) for r, p, c in tb.max_one_q]),
            # one row per member of each intersection list (k: which list; a class may have several)
            "ints": ("c BIGINT, k BIGINT, m BIGINT, n BIGINT",
                     [(i(c), k, i(m), len(set(ms))) for k, (c, ms) in enumerate(tb.intersections) for m in set(ms)]),
        }
        #: the rule tables without rows: the rules joining them are left out of the SQL (tiny graphs plan faster)
        was_empty = self._empty
        self._empty = {name for name, (_, rows) in tables.items() if not rows}
        for name, (columns, rows) in tables.items():
            if name in was_empty and not rows:
                continue  # empty and was empty: nothing to replace
            self.con.execute(f"CREATE OR REPLACE TABLE {name} ({columns})")
            if rows:
                width = len(rows[0])
                cols = {f"c{k}": np.array([r[k] for r in rows], dtype=np.int64) for k in range(width)}
                self.con.register("_rows", cols)
                self.con.execute(f"INSERT INTO {name} SELECT DISTINCT * FROM _rows")
                self.con.unregister("_rows")
        #: each rule table's columns as sets of ids: which rules a delta can trigger (:class:`_Profile`)
        self._columns = {(name, k): frozenset(r[k] for r in rows)
                         for name, (_, rows) in tables.items() if rows for k in range(len(rows[0]))}
        self.tbox = tb
        self._chains = [(i(p), [i(x) for x in ps]) for p, ps in tb.chains]
        self._keys = [(i(c), [i(x) for x in ps]) for c, ps in tb.keys]
        self._facts = [(i(m), self.TYPE, i(c)) for m, c in tb.one_of]
        self._facts += [(i(t.subject), i(t.predicate), i(t.object)) for t in tb.derived  # type: ignore[arg-type]
                        if type(t.subject) is not Triple and type(t.object) is not Triple]

    def _recompile(self) -> None:
        self._local = False  # (every schema change and restart comes here)
        self._rule_tables(compile_tbox(self._schema_triples()))

    # ------------------------------------------------------------------ rules

    def _rules(self, d: str, t: str, *, reflexive: bool = False) -> list[_Rule]:
        """The rules as SELECTs of ``(s, p, o)`` heads with at least one premise in ``d`` and the others in ``t``, each
        with what its premise in ``d`` must be to fire and what its heads can be (:class:`_Rule`). ``reflexive``: the
        rules with an ``owl:sameAs`` head also give ``x owl:sameAs x`` (a class's own support, which the
        representatives' form shows so, for DRed)."""
        TY, SAME, THING_ = self.TYPE, self.SAME, self.THING
        ne = (lambda a, b: "true") if reflexive else (lambda a, b: f"{a} <> {b}")
        col = self._columns

        def P(table: str, k: int) -> Shape:  # a predicate among a rule table's column k
            return col.get((table, k), _NONE), _NONE

        def C(table: str, k: int) -> Shape:  # an rdf:type with a class among a rule table's column k
            return _NONE, col.get((table, k), _NONE)

        same: Shape = (frozenset({SAME}), _NONE)
        q = [
            # cax-sco / cax-eqc1/2 / cls-int2 / cls-uni (sco is closed)
            _Rule(f"SELECT x.s, {TY}, sco.d FROM {d} x JOIN sco ON x.o = sco.c WHERE x.p = {TY}",
                  C("sco", 0), C("sco", 1), "x.s"),
            # prp-dom, prp-rng
            _Rule(f"SELECT x.s, {TY}, dom.c FROM {d} x JOIN dom ON x.p = dom.p", P("dom", 0), C("dom", 1), "x.s"),
            _Rule(f"SELECT x.o, {TY}, rng.c FROM {d} x JOIN rng ON x.p = rng.p", P("rng", 0), C("rng", 1), "x.o"),
            # prp-spo1 (spo is closed), prp-eqp1/2
            _Rule(f"SELECT x.s, spo.q, x.o FROM {d} x JOIN spo ON x.p = spo.p", P("spo", 0), P("spo", 1), "x.s"),
            # prp-inv1/2, prp-symp
            _Rule(f"SELECT x.o, inv.q, x.s FROM {d} x JOIN inv ON x.p = inv.p", P("inv", 0), P("inv", 1), "x.o"),
            _Rule(f"SELECT x.o, x.p, x.s FROM {d} x JOIN symp ON x.p = symp.p", P("symp", 0), P("symp", 0), "x.o"),
            # prp-fp, prp-ifp
            _Rule(f"SELECT x.o, {SAME}, y.o FROM {d} x JOIN fp ON x.p = fp.p JOIN {t} y ON y.s = x.s AND y.p = x.p "
                  f"WHERE {ne('x.o', 'y.o')}", P("fp", 0), same, "x.o"),
            _Rule(f"SELECT x.s, {SAME}, y.s FROM {d} x JOIN ifp ON x.p = ifp.p JOIN {t} y ON y.o = x.o "
                  f"AND y.p = x.p WHERE {ne('x.s', 'y.s')}", P("ifp", 0), same, "x.s"),
            # cls-svf1/2
            _Rule(f"SELECT x.s, {TY}, svf.r FROM {d} x JOIN svf ON x.p = svf.p AND svf.y = {THING_}",
                  P("svf", 1), C("svf", 0), "x.s"),
            _Rule(f"SELECT x.s, {TY}, svf.r FROM {d} x JOIN svf ON x.p = svf.p JOIN {t} y "
                  f"ON y.s = x.o AND y.p = {TY} AND y.o = svf.y", P("svf", 1), C("svf", 0), "x.s"),
            _Rule(f"SELECT x.s, {TY}, svf.r FROM {d} y JOIN svf ON y.p = {TY} AND y.o = svf.y JOIN {t} x "
                  "ON x.o = y.s AND x.p = svf.p", C("svf", 2), C("svf", 0), "x.s"),
            # cls-avf
            _Rule(f"SELECT x.o, {TY}, avf.y FROM {d} x JOIN avf ON x.p = avf.p JOIN {t} y "
                  f"ON y.s = x.s AND y.p = {TY} AND y.o = avf.r", P("avf", 1), C("avf", 2), "x.o"),
            _Rule(f"SELECT x.o, {TY}, avf.y FROM {d} y JOIN avf ON y.p = {TY} AND y.o = avf.r JOIN {t} x "
                  "ON x.s = y.s AND x.p = avf.p", C("avf", 0), C("avf", 2), "x.o"),
            # cls-hv1/2
            _Rule(f"SELECT x.s, hv.p, hv.v FROM {d} x JOIN hv ON x.p = {TY} AND x.o = hv.r",
                  C("hv", 0), P("hv", 1), "x.s"),
            _Rule(f"SELECT x.s, {TY}, hv.r FROM {d} x JOIN hv ON x.p = hv.p AND x.o = hv.v",
                  P("hv", 1), C("hv", 0), "x.s"),
            # cls-int1: a subject with a new type gets every intersection all of whose members it has
            _Rule(f"SELECT y.s, {TY}, ints.c FROM {t} y JOIN ints ON y.p = {TY} AND y.o = ints.m "
                  f"WHERE y.s IN (SELECT x.s FROM {d} x JOIN ints i2 ON x.p = {TY} AND x.o = i2.m) "
                  "GROUP BY y.s, ints.c, ints.k, ints.n HAVING count(DISTINCT y.o) = ints.n",
                  C("ints", 2), C("ints", 0), "y.s"),
            # cls-maxc2, cls-maxqc3/4: x has a new type or a new edge
            _Rule(f"SELECT a.o, {SAME}, b.o FROM {t} ty JOIN maxc ON ty.p = {TY} AND ty.o = maxc.r "
                  f"JOIN {t} a ON a.s = ty.s AND a.p = maxc.p JOIN {t} b ON b.s = ty.s AND b.p = maxc.p "
                  f"WHERE {ne('a.o', 'b.o')} AND ty.s IN (SELECT s FROM {d})",
                  (col.get(("maxc", 1), _NONE), col.get(("maxc", 0), _NONE)), same, "a.o"),
            _Rule(f"SELECT a.o, {SAME}, b.o FROM {t} ty JOIN maxqc ON ty.p = {TY} AND ty.o = maxqc.r "
                  f"JOIN {t} a ON a.s = ty.s AND a.p = maxqc.p JOIN {t} b ON b.s = ty.s AND b.p = maxqc.p "
                  f"WHERE {ne('a.o', 'b.o')} AND (maxqc.c = {THING_} OR ("
                  f"EXISTS (SELECT 1 FROM {t} ca WHERE ca.s = a.o AND ca.p = {TY} AND ca.o = maxqc.c) AND "
                  f"EXISTS (SELECT 1 FROM {t} cb WHERE cb.s = b.o AND cb.p = {TY} AND cb.o = maxqc.c))) "
                  f"AND (ty.s IN (SELECT s FROM {d}) OR a.o IN (SELECT s FROM {d}) OR b.o IN (SELECT s FROM {d}))",
                  (col.get(("maxqc", 1), _NONE), col.get(("maxqc", 0), _NONE) | col.get(("maxqc", 2), _NONE)),
                  same, "a.o"),
            # eq-sym, eq-trans, eq-rep-s/p/o: none; equality is a union-find with every triple rewritten to the
            # representatives of its terms (_merge), so the rules above see one term per class
            # every subject is an owl:Thing (as the default engine; normalisation drops it for schema terms)
            _Rule(f"SELECT DISTINCT x.s, {TY}, {THING_} FROM {d} x", None, (_NONE, frozenset({THING_})), "x.s"),
        ]
        for p, chain in self._chains:  # prp-spo2: one variant per position of the delta
            for pos in range(len(chain)):
                src = [d if k == pos else t for k in range(len(chain))]
                joins = " ".join(
                    f"JOIN {src[k]} e{k} ON e{k}.s = e{k - 1}.o AND e{k}.p = {chain[k]}" for k in range(1, len(chain))
                )
                q.append(_Rule(f"SELECT e0.s, {p}, e{len(chain) - 1}.o FROM {src[0]} e0 {joins} "
                               f"WHERE e0.p = {chain[0]}", (frozenset({chain[pos]}), _NONE), (frozenset({p}), _NONE),
                               "e0.s"))
        q = [rule for rule in q if not self._empty.intersection(_JOINED.findall(rule.sql))]
        for c, props in self._keys:  # prp-key: x and y of class c agreeing on every key property
            def side(n: str, props: list[int] = props) -> str:
                joins = " ".join(
                    f"JOIN {t} {n}{k} ON {n}{k}.s = {n}.s AND {n}{k}.p = {p}" for k, p in enumerate(props)
                )
                return f"{t} {n} {joins}"
            agree = " AND ".join(f"a{k}.o = b{k}.o" for k in range(len(props)))
            q.append(_Rule(
                f"SELECT a.s, {SAME}, b.s FROM {side('a')} JOIN {side('b')} ON {agree} "
                f"WHERE a.p = {TY} AND a.o = {c} AND b.p = {TY} AND b.o = {c} AND {ne('a.s', 'b.s')} "
                f"AND (a.s IN (SELECT s FROM {d}) OR b.s IN (SELECT s FROM {d}))",
                (frozenset(props), frozenset({c})), same, "a.s"))
        return q

    def _transitive(self, d: str, delta: _Profile | None = None) -> str | None:
        """prp-trp as one closure step: the transitive closure of each transitive property touched by ``d`` (whose
        profile ``delta`` is, if known)."""
        if "trp" in self._empty:
            return None
        if delta is not None:
            if not delta.meets((self._columns[("trp", 0)], _NONE)):
                return None
        elif not self.con.execute(f"SELECT 1 FROM {d} JOIN trp ON {d}.p = trp.p LIMIT 1").fetchall():
            return None
        return (
            "WITH RECURSIVE tc(p, s, o) AS (SELECT t.p, t.s, t.o FROM t JOIN trp ON t.p = trp.p "
            "UNION SELECT tc.p, tc.s, e.o FROM tc JOIN t e ON e.p = tc.p AND e.s = tc.o) SELECT s, p, o FROM tc"
        )

    # ------------------------------------------------------------------ evaluation

    def _profile(self, table: str) -> _Profile | None:
        """The :class:`_Profile` of the triples of ``table`` (``None``: too varied to be worth it)."""
        rows = self.con.execute(f"SELECT DISTINCT p, CASE WHEN p = {self.TYPE} THEN o END FROM {table} "
                                f"LIMIT {_PROFILE_ROWS + 1}").fetchall()
        if len(rows) > _PROFILE_ROWS:
            return None
        return _Profile(frozenset(int(p) for p, _ in rows), frozenset(int(o) for _, o in rows if o is not None))

    def _heads(self, d: str, *, reflexive: bool = False, delta: _Profile | None = None,
               wanted: _Profile | None = None, about: str | None = None) -> str | None:
        """Every rule's heads from the delta table ``d`` over the closure ``t``, one UNION ALL. Generalised heads (a
        literal subject) are kept while reasoning, as the reference engines do: they can lead back to plain triples
        (``x p "v"``, p's inverse q: ``"v" q x``, q's inverse p'...); the inferred set leaves them out
        (:meth:`_normalised_sql`). Only the rules the delta can trigger (``delta``: the profile of ``d``) and, if
        ``wanted`` is given, that can give a triple of that profile, with a subject among those of the table ``about``
        if given (and for the transitive closure, whatever its subject); ``None`` if no rule is left."""
        selects = [rule.sql if about is None else rule.about(about) for rule in self._rules(d, "t", reflexive=reflexive)
                   if (delta is None or delta.meets(rule.fires)) and (wanted is None or wanted.meets(rule.head))]
        trp = self._transitive(d, delta)
        if trp and (wanted is None or wanted.meets((self._columns[("trp", 0)], _NONE))):
            selects.append(trp)
        return " UNION ALL ".join(f"({s})" for s in selects) if selects else None

    def _register_facts(self) -> bool:
        """The TBox's own conclusions (scm-* closure, cls-oo) as the registered table ``_facts``, if any."""
        if not self._facts:
            return False
        cols = {k: np.array([f[j] for f in self._facts], dtype=np.int64) for j, k in enumerate("spo")}
        self.con.register("_facts", cols)
        return True

    def _round(self, d: str, delta: _Profile | None = None) -> int:
        """One semi-naive round from the delta table ``d`` (of profile ``delta``, found if not given): insert the new
        heads with the next rank, merge the classes new ``owl:sameAs`` heads join; the next delta (new and rewritten
        triples) is left in ``_next``."""
        rank = self.rank + 1
        con, SAME = self.con, self.SAME
        heads = self._heads(d, delta=delta if delta is not None else self._profile(d))
        if heads is None:
            return 0
        con.execute(f"CREATE OR REPLACE TEMP TABLE _cand AS SELECT DISTINCT h.s, h.p, h.o FROM ({heads}) h(s, p, o)")
        edges = con.execute(f"SELECT s, o FROM _cand WHERE p = {SAME} AND s <> o").fetchall()
        n = con.execute(
            f"INSERT INTO t SELECT c.s, c.p, c.o, {rank} FROM _cand c "
            f"ANTI JOIN t ON t.s = c.s AND t.p = c.p AND t.o = c.o WHERE NOT (c.p = {SAME} AND c.s <> c.o)"
        ).fetchall()[0][0]
        if not n and not edges:
            return 0
        self.rank = rank
        con.execute(f"CREATE OR REPLACE TEMP TABLE _next AS SELECT s, p, o FROM t WHERE r = {rank}")
        if edges:
            self._merge([(a, b, rank) for a, b in edges])
        return int(con.execute("SELECT count(*) FROM _next").fetchall()[0][0])

    # ------------------------------------------------------------------ equality

    def _nonrep(self) -> str:
        """The members of classes that are not their representative, as a SQL subquery."""
        return "(SELECT id FROM uf WHERE id <> rep)"

    def _rewritten(self, src: str, mapping: str) -> None:
        """The rows of ``src(s, p, o, r)`` with their terms replaced as ``mapping(old, new, c)`` says, as the table
        ``_rw(s, p, o, r)``: one position a step (eq-rep-s, then -p, then -o), each step ranked one above the
        highest of the rank before and the rank ``c`` of the sameAs pair used. The steps between go to ``hist``,
        so that each rewritten triple keeps a proof from ranks below its own."""
        con = self.con
        con.execute(
            "CREATE OR REPLACE TEMP TABLE _steps AS "
            "WITH x1 AS (SELECT x.s, x.p, x.o, x.r, coalesce(a.new, x.s) AS s1, a.new IS NOT NULL AS ms, "
            "CASE WHEN a.new IS NULL THEN x.r ELSE greatest(x.r, a.c) + 1 END AS r1 "
            f"FROM {src} x LEFT JOIN {mapping} a ON a.old = x.s), "
            "x2 AS (SELECT x1.*, coalesce(b.new, x1.p) AS p2, b.new IS NOT NULL AS mp, "
            "CASE WHEN b.new IS NULL THEN r1 ELSE greatest(r1, b.c) + 1 END AS r2 "
            f"FROM x1 LEFT JOIN {mapping} b ON b.old = x1.p) "
            "SELECT x2.*, coalesce(c.new, x2.o) AS o3, c.new IS NOT NULL AS mo, "
            "CASE WHEN c.new IS NULL THEN r2 ELSE greatest(r2, c.c) + 1 END AS r3 "
            f"FROM x2 LEFT JOIN {mapping} c ON c.old = x2.o"
        )
        # only steps hist lacks at that rank or lower (``ranks`` reads the least): a DRed removal rewrites the kept
        # asserted triples again, and hist would otherwise collect their steps once per removal
        con.execute("INSERT INTO hist SELECT n.s, n.p, n.o, min(n.r) FROM (SELECT s1, p, o, r1 FROM _steps WHERE ms "
                    "AND (mp OR mo) UNION ALL SELECT s1, p2, o, r2 FROM _steps WHERE mp AND mo) n(s, p, o, r) "
                    "WHERE NOT EXISTS (SELECT 1 FROM hist h WHERE h.s = n.s AND h.p = n.p AND h.o = n.o "
                    "AND h.r <= n.r) GROUP BY n.s, n.p, n.o")
        con.execute("CREATE OR REPLACE TEMP TABLE _rw AS SELECT s1 AS s, p2 AS p, o3 AS o, min(r3) AS r "
                    "FROM _steps GROUP BY ALL")

    def _rewrite_into_t(self, src: str, mapping: str, *, delta: bool = True) -> None:
        """Insert the rows of ``src(s, p, o, r)`` rewritten (:meth:`_rewritten`) into ``t`` and ``fresh``; those new
        to ``t`` join ``_next`` if ``delta``."""
        con = self.con
        self._rewritten(src, mapping)
        con.execute("CREATE OR REPLACE TEMP TABLE _rwd AS SELECT * FROM _rw ANTI JOIN t "
                    "ON t.s = _rw.s AND t.p = _rw.p AND t.o = _rw.o")
        top = con.execute("SELECT max(r) FROM _rwd").fetchall()[0][0]
        if top is None:
            return
        con.execute("INSERT INTO t SELECT s, p, o, r FROM _rwd")
        if delta:
            con.execute("INSERT INTO _next SELECT s, p, o FROM _rwd")
        con.execute("INSERT INTO fresh SELECT s, p, o FROM _rwd")
        self.rank = max(self.rank, int(top))

    def _merge(self, edges: list[tuple[int, int, int]]) -> None:
        """Add equality edges ``(a, b, rank)``: join their classes (union-find, the smallest id represents), recompute
        the pair ranks of the classes touched, and rewrite the triples of ``t`` that mention a representative
        that no longer is one (the originals go to ``hist``, or ``orig`` if asserted). The rewritten triples and the
        representatives' ``rep owl:sameAs rep`` join ``_next``."""
        self._local = False
        con, rep_of = self.con, self._rep
        parent: dict[int, int] = {}

        def find(x: int) -> int:
            root = x
            while parent.get(root, root) != root:
                root = parent[root]
            while parent.get(x, x) != root:
                parent[x], x = root, parent[x]
            return root

        old_reps = {rep_of.get(x, x) for a, b, _ in edges for x in (a, b)}
        for r in old_reps:
            for m in self._members.get(r, (r,)):
                parent[m] = r
        for a, b, _ in edges:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
        groups: dict[int, list[int]] = {}
        for m in parent:
            groups.setdefault(find(m), []).append(m)
        new_edges: dict[int, list[tuple[int, int, int]]] = {}
        for e in edges:
            new_edges.setdefault(find(e[0]), []).append(e)
        uf_rows: list[tuple[int, int, int, int]] = []
        moves: list[tuple[int, int, int]] = []  # old representative -> new one, rank of old sameAs new
        for z, members in groups.items():
            class_edges = [e for r in {rep_of.get(m, m) for m in members} for e in self._edges.get(r, ())]
            class_edges += new_edges.get(z, [])
            for r in {rep_of.get(m, m) for m in members}:
                self._members.pop(r, None)
                self._edges.pop(r, None)
            members.sort()
            self._members[z] = members
            self._edges[z] = class_edges
            c_to = _pair_ranks(class_edges, z, reverse=True)
            c_from = _pair_ranks(class_edges, z)
            for m in members:
                if m != z and rep_of.get(m, m) == m:
                    moves.append((m, z, c_to[m]))
                rep_of[m] = z
                uf_rows.append((m, z, c_to.get(m, 0), c_from.get(m, 0)))
        self._pairs.clear()
        self._schema_merged = self._schema_merged or bool(con.execute(
            f"SELECT 1 FROM t WHERE p = {self.TYPE} AND o IN {_ids(self._declared)} AND s IN {_ids(old_reps)} "
            "LIMIT 1").fetchall())
        con.execute(f"DELETE FROM uf WHERE rep IN {_ids(old_reps)}")
        self._put("uf", ["id", "rep", "c_to", "c_from"], uf_rows)
        self._put("_m", ["old", "new", "c"], moves, temp=True)
        touch = "s IN (SELECT old FROM _m) OR p IN (SELECT old FROM _m) OR o IN (SELECT old FROM _m)"
        con.execute(f"CREATE OR REPLACE TEMP TABLE _touch AS SELECT * FROM t WHERE {touch}")
        con.execute(f"DELETE FROM t WHERE {touch}")
        con.execute(f"DELETE FROM _next WHERE {touch}")
        con.execute("INSERT INTO hist SELECT * FROM _touch WHERE r > 0")
        con.execute("INSERT INTO orig SELECT s, p, o FROM _touch WHERE r = 0")
        # each new class's rep sameAs rep (with uf as just written)
        con.execute("INSERT INTO _touch " + _rep_same_as_rep(self.SAME, f"u.rep IN {_ids(groups)}"))
        self._rewrite_into_t("_touch", "_m")

    def _put(self, table: str, columns: list[str], rows: Sequence[tuple[int, ...]], *, temp: bool = False) -> None:
        """Rows of integers into ``table`` (created, or emptied, first if ``temp``)."""
        con = self.con
        if temp:
            con.execute(f"CREATE OR REPLACE TEMP TABLE {table} ({', '.join(c + ' BIGINT' for c in columns)})")
        if not rows:
            return
        con.register("_rows", {c: np.array([r[k] for r in rows], dtype=np.int64) for k, c in enumerate(columns)})
        con.execute(f"INSERT INTO {table} SELECT {', '.join(columns)} FROM _rows")
        con.unregister("_rows")

    def _insert_facts(self) -> int:
        """The TBox's own conclusions (scm-* closure, cls-oo) not yet in the closure, with the next rank."""
        if not self._register_facts():
            return 0
        rank = self.rank + 1
        n = self.con.execute(
            f"INSERT INTO t SELECT DISTINCT f.s, f.p, f.o, {rank} FROM _facts f ANTI JOIN t "
            "ON t.s = f.s AND t.p = f.p AND t.o = f.o"
        ).fetchall()[0][0]
        self.con.unregister("_facts")
        if n:
            self.rank = rank
        return int(n)

    def _saturate(self) -> None:
        """Run rounds to the fixpoint with the whole closure as the delta (at the start, after a schema change)."""
        self._restart()
        self._continue()

    def _restart(self) -> None:
        """Recompile the schema, add its own conclusions and make the whole closure the delta ``d``."""
        self._schema_merged = False
        self._recompile()
        self._insert_facts()
        self.con.execute("CREATE OR REPLACE TEMP TABLE d AS SELECT s, p, o FROM t")

    # ------------------------------------------------------------------ changes

    def add(self, triples: Iterable[Triple]) -> None:
        """Assert more triples and saturate from them."""
        cols = self.dict.encode(triples)
        if not len(cols["s"]):
            return
        self._begin_change()
        self.con.register("_in", cols)
        try:
            self._add_table("_in")
        finally:
            self.con.unregister("_in")

    def add_ntriples(
        self, path: Path | list[Path], *, strict: bool = False, max_bytes: int | None = None,
        besides: Path | None = None,
    ) -> tuple[int, int] | None:
        """Assert the triples of a canonical N-Triples file (:meth:`Dictionary.load_ntriples`) and saturate;
        returns how many triples the file holds and how many distinct ones are not in ``besides`` (the graph's
        content before, as N-Triples) (``None``: ``strict`` and not canonical, nothing done)."""
        table = self.dict.load_ntriples(path, strict=strict, max_bytes=max_bytes)
        if table is None:
            return None
        self._begin_change()
        self._local = False  # a file: the whole snapshot (its delta is most of the closure)
        con = self.con
        try:
            read = int(con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0])
            new = None
            if besides is not None:
                self.dict.load_ntriples(besides, table="_before")
                new = con.execute(f"SELECT count(*) FROM (SELECT s, p, o FROM {table} EXCEPT "
                                  "SELECT s, p, o FROM _before)").fetchall()[0][0]
                con.execute("DROP TABLE _before")
            distinct = self._add_table(table)
            if new is None:  # counted by _assert's own DISTINCT (a second one took 0.7 s of CPU on LUBM(50))
                new = distinct
        finally:
            con.execute(f"DROP TABLE IF EXISTS {table}")
        return read, int(new)

    def _assert(self, table: str) -> int:
        """Take the triples of ``table(s, p, o)`` as asserted: ``owl:sameAs`` between two terms merges their classes,
        a triple mentioning a non-representative is kept in ``orig`` and enters ``t`` rewritten, the others enter
        ``t`` with rank 0. What is new to ``t`` is left in ``_next``. Returns how many distinct triples ``table``
        holds."""
        con, SAME = self.con, self.SAME
        con.execute(f"CREATE OR REPLACE TEMP TABLE _ins AS SELECT DISTINCT s, p, o FROM {table}")
        if self._local:
            con.execute("INSERT INTO _added SELECT s, p, o FROM _ins")
        distinct = int(con.execute("SELECT count(*) FROM _ins").fetchall()[0][0])
        con.execute("CREATE OR REPLACE TEMP TABLE _next (s BIGINT, p BIGINT, o BIGINT)")
        edges = con.execute(f"SELECT s, o FROM _ins WHERE p = {SAME} AND s <> o").fetchall()
        away = 0
        if edges or self._rep:
            moved = f"(p = {SAME} AND s <> o)"
            if self._rep:
                nr = self._nonrep()
                moved = f"({moved} OR s IN {nr} OR p IN {nr} OR o IN {nr})"
            away = con.execute(f"CREATE OR REPLACE TEMP TABLE _away AS SELECT s, p, o, 0 AS r FROM _ins "
                               f"WHERE {moved}").fetchall()[0][0]
            if away:
                con.execute("INSERT INTO orig SELECT s, p, o FROM _away ANTI JOIN orig "
                            "ON orig.s = _away.s AND orig.p = _away.p AND orig.o = _away.o")
                con.execute(f"DELETE FROM _ins WHERE {moved}")
        # already derived: asserted now (rank 0); the closure does not change
        con.execute("UPDATE t SET r = 0 FROM _ins i WHERE t.s = i.s AND t.p = i.p AND t.o = i.o AND t.r > 0")
        start = self.rank + 1
        n = con.execute(f"INSERT INTO t SELECT i.s, i.p, i.o, {start} FROM _ins i ANTI JOIN t "
                        "ON t.s = i.s AND t.p = i.p AND t.o = i.o").fetchall()[0][0]
        if n:  # new asserted triples enter as the delta, then become rank 0
            self.rank = start
            con.execute(f"INSERT INTO _next SELECT s, p, o FROM t WHERE r = {start}")
            con.execute("INSERT INTO fresh SELECT s, p, o FROM _next")
            con.execute(f"UPDATE t SET r = 0 WHERE r = {start}")
        if self._rep and away > len(edges):  # (the asserted owl:sameAs edges are in _away too: they merge, below)
            con.execute(f"DELETE FROM _away WHERE p = {SAME} AND s <> o")
            self._rewrite_into_t("_away", _TO_REPS)
        if edges:
            self._merge([(a, b, 0) for a, b in edges])
        return distinct

    def _add_table(self, table: str) -> int:
        """:meth:`_assert` ``table`` and saturate; returns how many distinct triples it holds."""
        distinct = self._assert(table)
        con = self.con
        if not con.execute("SELECT count(*) FROM _next").fetchall()[0][0] and not self._schema_merged:
            return distinct
        if self._schema_in_next():
            self._saturate()
            return distinct
        con.execute("CREATE OR REPLACE TEMP TABLE d AS SELECT * FROM _next")
        self._continue(self._next_profile)
        return distinct

    def _schema_in_next(self) -> bool:
        """Whether the delta ``_next`` holds a schema triple, or a merge joined declared terms. Leaves the profile of
        ``_next`` in ``_next_profile``."""
        merged, self._schema_merged = self._schema_merged, False
        prof = self._next_profile = self._profile("_next")
        if merged:
            return True
        if prof is not None:
            if not prof.preds.isdisjoint(self._schema_p) or not prof.types.isdisjoint(self._meta):
                return True
            if self.SAME not in prof.preds:
                return False
        return bool(self.con.execute(f"SELECT 1 FROM _next WHERE {self._schema_filter()} LIMIT 1").fetchall())

    def _continue(self, delta: _Profile | None = None) -> None:
        """Rounds from the current ``d`` table (of profile ``delta``, if known) to the fixpoint; a new schema triple
        restarts from the whole closure."""
        for _ in range(_MAX_ROUNDS):
            if not self._round("d", delta):
                return
            if self._schema_in_next():
                self._restart()
                delta = None
                continue
            delta = self._next_profile
            self.con.execute("CREATE OR REPLACE TEMP TABLE d AS SELECT DISTINCT s, p, o FROM _next")
        raise RuntimeError("OWL 2 RL evaluation did not reach a fixpoint")  # pragma: no cover

    def remove(self, triples: Iterable[Triple]) -> None:
        """Retract asserted triples (DRed): over-delete what depends on them, re-derive what is still entailed.
        DRed runs on the representatives' closure; a retraction that may split an equality class (an asserted
        ``owl:sameAs`` removed, or over-deletion reaching a class with a derived one) dissolves that class only
        (:meth:`_split`). A removed schema triple recomputes from the asserted triples (:meth:`_rebuild`)."""
        cols = self.dict.encode(triples)
        if not len(cols["s"]):
            return
        self._begin_change()
        con, SAME = self.con, self.SAME
        con.register("_out", cols)
        con.execute(
            "CREATE OR REPLACE TEMP TABLE gone AS SELECT DISTINCT t.s, t.p, t.o FROM t JOIN _out x "
            "ON t.s = x.s AND t.p = x.p AND t.o = x.o WHERE t.r = 0 UNION SELECT orig.s, orig.p, orig.o FROM orig "
            "JOIN _out x ON orig.s = x.s AND orig.p = x.p AND orig.o = x.o"
        )
        con.unregister("_out")
        if not con.execute("SELECT count(*) FROM gone").fetchall()[0][0]:
            return
        if con.execute(f"SELECT 1 FROM gone WHERE {self._schema_filter(equality=False)} LIMIT 1").fetchall():
            self._rebuild()  # the rules themselves change: what was derived with them is all suspect
            return
        # the classes that lose an asserted equality edge: dissolved, and rebuilt from the edges that still hold
        split = {self._rep[int(s)] for s, in con.execute(
            f"SELECT DISTINCT s FROM gone WHERE p = {SAME} AND s <> o").fetchall() if int(s) in self._rep}
        # the representatives' form of what goes (a triple of t may stand for several asserted ones: re-derived)
        if self._rep:
            joins, rs, rp, ro = _rep_form("g")
            con.execute(f"CREATE OR REPLACE TEMP TABLE gone_r AS SELECT DISTINCT {rs} AS s, {rp} AS p, {ro} AS o "
                        f"FROM gone g {joins}")
        else:
            con.execute("CREATE OR REPLACE TEMP TABLE gone_r AS SELECT * FROM gone")
        # over-delete: the inferred consequences of the removed triples, transitively, over the old closure, and
        # every triple that mentions the representative of a class that may split (it may stand for members that
        # are no longer equal). A class with a derived owl:sameAs shows its support in the representatives' form as
        # rep sameAs rep: if over-deletion reaches one, the class may split too
        derived = {z for z, edges in self._edges.items() if any(r > 0 for _, _, r in edges)}
        con.execute("CREATE OR REPLACE TEMP TABLE od AS SELECT s, p, o FROM gone_r SEMI JOIN t "
                    "ON t.s = gone_r.s AND t.p = gone_r.p AND t.o = gone_r.o")
        if split:
            con.execute(f"INSERT INTO od SELECT s, p, o FROM t WHERE {_mentions(split)} EXCEPT SELECT * FROM od")
        con.execute("CREATE OR REPLACE TEMP TABLE d AS SELECT * FROM od")
        for _ in range(_MAX_ROUNDS):
            heads = self._heads("d", reflexive=bool(derived), delta=self._profile("d"))
            if heads is None:
                break
            con.execute(f"CREATE OR REPLACE TEMP TABLE _h AS SELECT DISTINCT * FROM ({heads}) h(s, p, o)")
            if con.execute(f"SELECT 1 FROM _h WHERE p = {SAME} AND s <> o LIMIT 1").fetchall():
                self._rebuild()  # two classes a saturated closure did not merge: not expected, but safe
                return
            reached = {int(z) for z, in con.execute(
                f"SELECT DISTINCT s FROM _h WHERE p = {SAME} AND s IN {_ids(derived)}").fetchall()} - split
            split |= reached
            con.execute(
                "CREATE OR REPLACE TEMP TABLE d AS SELECT t.s, t.p, t.o FROM _h h "
                "JOIN t ON t.s = h.s AND t.p = h.p AND t.o = h.o WHERE t.r > 0"
                + (f" UNION SELECT s, p, o FROM t WHERE {_mentions(reached)}" if reached else "")
                + " EXCEPT SELECT s, p, o FROM od"
            )
            if not con.execute("SELECT count(*) FROM d").fetchall()[0][0]:
                break
            con.execute("INSERT INTO od SELECT s, p, o FROM d")
        schema = bool(split) and bool(con.execute(
            f"SELECT 1 FROM t WHERE ({_mentions(split)}) AND {self._schema_filter(equality=False)} LIMIT 1"
        ).fetchall())
        if self._local:  # what may leave the inferred set (:meth:`_snapshot_local`)
            con.execute("INSERT INTO _dropped SELECT s, p, o FROM od UNION ALL SELECT s, p, o FROM gone")
        con.execute("DELETE FROM t WHERE EXISTS (SELECT 1 FROM od WHERE od.s = t.s AND od.p = t.p AND od.o = t.o) "
                    "AND (r > 0 OR EXISTS (SELECT 1 FROM gone g WHERE g.s = t.s AND g.p = t.p AND g.o = t.o))")
        con.execute("DELETE FROM orig WHERE EXISTS (SELECT 1 FROM gone g WHERE g.s = orig.s AND g.p = orig.p "
                    "AND g.o = orig.o)")
        if split:
            self._split(split, schema=schema)
            return
        # re-derive: one round of every rule over what is left, keeping the heads among the deleted triples; with
        # the asserted triples kept in orig (rewritten) and the representatives' rep sameAs rep
        # (only the rules that can give an over-deleted triple)
        rank = self.rank + 1
        parts = [f"({heads})"] if (heads := self._heads("t", wanted=self._profile("od"), about="od")) else []
        facts = self._register_facts()
        if facts:
            parts.append("(SELECT s, p, o FROM _facts)")
        con.execute(f"CREATE OR REPLACE TEMP TABLE _re AS SELECT h.s, h.p, h.o, {rank} AS r FROM "
                    f"({' UNION ALL '.join(parts) or 'SELECT 0, 0, 0 WHERE false'}) h(s, p, o)")
        if facts:
            con.unregister("_facts")
        if self._rep:
            con.execute("CREATE OR REPLACE TEMP TABLE _next (s BIGINT, p BIGINT, o BIGINT)")
            # (only those whose representatives' form was over-deleted: the others are still in t)
            joins, rs, rp, ro = _rep_form("x")
            con.execute(f"CREATE OR REPLACE TEMP TABLE _back AS SELECT x.s, x.p, x.o, 0 AS r FROM orig x {joins} "
                        f"WHERE NOT (x.p = {SAME} AND x.s <> x.o) AND EXISTS (SELECT 1 FROM od WHERE od.s = {rs} "
                        f"AND od.p = {rp} AND od.o = {ro})")
            con.execute("INSERT INTO _back " + _rep_same_as_rep(SAME, f"EXISTS (SELECT 1 FROM od WHERE od.s = u.rep "
                                                                      f"AND od.p = {SAME} AND od.o = u.rep)"))
            self._forget_hist()
            self._rewritten("_back", _TO_REPS)
            con.execute("INSERT INTO _re SELECT s, p, o, r FROM _rw")
        n = con.execute(
            "INSERT INTO t SELECT h.s, h.p, h.o, min(h.r) FROM _re h "
            "SEMI JOIN od ON od.s = h.s AND od.p = h.p AND od.o = h.o "
            "ANTI JOIN t ON t.s = h.s AND t.p = h.p AND t.o = h.o GROUP BY ALL"
        ).fetchall()[0][0]
        if not n:
            return
        top = con.execute("SELECT max(r) FROM _re SEMI JOIN od ON od.s = _re.s AND od.p = _re.p "
                          "AND od.o = _re.o").fetchall()[0][0]
        self.rank = max(rank, int(top))
        con.execute("CREATE OR REPLACE TEMP TABLE d AS SELECT s, p, o FROM t SEMI JOIN od "
                    "ON od.s = t.s AND od.p = t.p AND od.o = t.o")
        self._continue()

    def _forget_hist(self) -> None:
        """Drop the ranks kept for rewritten triples (``hist``) whose representatives' form is over-deleted (``od``):
        they no longer hold."""
        con = self.con
        joins, rs, rp, ro = _rep_form("h")
        con.execute(f"CREATE OR REPLACE TEMP TABLE _hk AS SELECT h.s, h.p, h.o FROM hist h {joins} "
                    f"SEMI JOIN od ON od.s = {rs} AND od.p = {rp} AND od.o = {ro}")
        con.execute("DELETE FROM hist WHERE EXISTS (SELECT 1 FROM _hk k WHERE k.s = hist.s AND k.p = hist.p "
                    "AND k.o = hist.o)")

    def _split(self, reps: set[int], *, schema: bool) -> None:
        """Dissolve the equality classes of ``reps`` after over-deletion (every triple of ``t`` mentioning them is in
        ``od`` and, unless asserted, deleted): every member becomes its own representative, the asserted triples
        that mention a member (``orig``) are asserted again, so that the equality edges that still hold join new
        classes and the triples enter ``t`` in their form (:meth:`_assert`), the schema is recompiled if ``schema``
        (a schema triple mentioned a representative) or a new class joins declared terms, and one round over the
        whole closure re-derives what still holds (:meth:`_continue` saturates from there). The derived equality
        edges of the classes are dropped: re-derived, they merge again."""
        con = self.con
        self.splits += 1
        self._local = False
        members = sorted({m for z in reps for m in self._members.pop(z)})
        for z in reps:
            self._edges.pop(z, None)
        for m in members:
            self._rep.pop(m, None)
        self._pairs.clear()
        con.execute(f"DELETE FROM uf WHERE rep IN {_ids(reps)}")
        con.execute(f"DELETE FROM hist WHERE {_mentions(members)}")
        self._forget_hist()
        con.execute(f"CREATE OR REPLACE TEMP TABLE _back AS SELECT s, p, o FROM orig WHERE {_mentions(members)}")
        con.execute(f"DELETE FROM orig WHERE {_mentions(members)}")
        self._assert("_back")
        # the other classes' asserted triples and rep sameAs rep whose representatives' form was over-deleted
        joins, rs, rp, ro = _rep_form("x")
        con.execute(
            f"CREATE OR REPLACE TEMP TABLE _back AS SELECT x.s, x.p, x.o, 0 AS r FROM orig x {joins} "
            f"WHERE NOT (x.p = {self.SAME} AND x.s <> x.o) AND NOT EXISTS (SELECT 1 FROM t "
            f"WHERE t.s = {rs} AND t.p = {rp} AND t.o = {ro})"
        )
        con.execute("INSERT INTO _back " + _rep_same_as_rep(self.SAME, f"NOT EXISTS (SELECT 1 FROM t WHERE t.s = "
                                                                       f"u.rep AND t.p = {self.SAME} AND t.o = u.rep)"))
        self._rewrite_into_t("_back", _TO_REPS, delta=False)
        con.execute("DROP TABLE _back")
        if self._schema_in_next() or schema:
            self._restart()
        else:
            self._insert_facts()
            con.execute("CREATE OR REPLACE TEMP TABLE d AS SELECT s, p, o FROM t")
        self._continue()

    def _begin_change(self) -> None:
        """Mark the closure before a change: what the change adds is then ranked above the mark or in ``fresh``
        (:meth:`inconsistencies` with ``fresh``). Two changes in one session step (removals, then additions) keep
        the first mark."""
        if not self._in_change:
            self._in_change = True
            self._mark = self.rank
            self._local = True
            # a new table rather than a DELETE: after a bulk load it held every row of the file (53 ms at LUBM(10))
            self.con.execute("CREATE OR REPLACE TABLE fresh (s BIGINT, p BIGINT, o BIGINT)")
            self.con.execute("CREATE OR REPLACE TEMP TABLE _added (s BIGINT, p BIGINT, o BIGINT)")
            self.con.execute("CREATE OR REPLACE TEMP TABLE _dropped (s BIGINT, p BIGINT, o BIGINT)")

    def end_change(self) -> None:
        """The end of a session step: the next change sets a new mark."""
        self._in_change = False
        self._version += 1

    def _rebuild(self) -> None:
        """Recompute the closure from the asserted triples left after ``gone``: the rules changed (a schema triple
        retracted). The next inconsistency check scans everything."""
        self.rebuilds += 1
        self._mark = None
        con = self.con
        con.execute("CREATE OR REPLACE TEMP TABLE _all AS (SELECT s, p, o FROM t WHERE r = 0 UNION "
                    "SELECT s, p, o FROM orig) EXCEPT SELECT s, p, o FROM gone")
        for table in ("t", "uf", "orig", "hist"):
            con.execute(f"DELETE FROM {table}")
        self._rep.clear()
        self._members.clear()
        self._edges.clear()
        self._pairs.clear()
        self.rank = 0
        self._assert("_all")
        con.execute("DROP TABLE _all")
        self._saturate()

    # ------------------------------------------------------------------ output

    def inconsistencies(self, limit: int = 5, *, fresh: bool = False) -> list[tuple[str, list[Triple]]]:
        """The OWL 2 RL rules with ``false`` as head that the closure violates (cax-dw, cls-com, cls-nothing2,
        cls-maxc1, prp-irp, prp-asyp, prp-pdw, eq-diff1), each with up to ``limit`` offending triples in the
        original terms (each representative expanded to the members of its class, asserted triples first; for
        eq-diff1, pairs ``a owl:sameAs b``, ``a owl:differentFrom b``). The closure is still materialised (as the
        other engines do); the knowledge base logs these as warnings.

        ``fresh``: only the violations one of whose triples the last change added (:meth:`_begin_change`: rows
        ranked above the rank before it, new asserted and rewritten rows), each check joined with the closure for
        its other triples; a full scan if there was no change since the closure was built or recomputed."""
        d, TY, con = self.dict, self.TYPE, self.con
        v = {name: d.id(NamedNode(OWL + name)) for name in _CLASH_TERMS}
        # which checks can fire at all: their predicate, or their class as an rdf:type object, is in the closure
        needs = {"cax-dw": v["disjointWith"], "cls-com": v["complementOf"], "cls-nothing2": v["Nothing"],
                 "cls-maxc1": v["maxCardinality"], "prp-irp": v["IrreflexiveProperty"],
                 "prp-asyp": v["AsymmetricProperty"], "prp-pdw": v["propertyDisjointWith"],
                 "eq-diff1": v["differentFrom"]}
        wanted = _ids(needs.values())
        fresh = fresh and self._mark is not None
        # the vocabulary anywhere in the closure (a filter scan of t): without it no check fires, and the table of
        # the fresh rows, a UNION over most of t after a first large load, is not built
        self._present |= {int(x) for x, in con.execute(
            f"SELECT DISTINCT p FROM t WHERE p IN {wanted} UNION SELECT DISTINCT o FROM t "
            f"WHERE p = {TY} AND o IN {wanted}").fetchall()}
        present = self._present
        if not present:
            return []
        if fresh:
            con.execute(f"CREATE OR REPLACE TEMP TABLE _fresh AS SELECT s, p, o FROM t WHERE r > {self._mark} "
                        "UNION SELECT s, p, o FROM fresh SEMI JOIN t ON t.s = fresh.s AND t.p = fresh.p "
                        "AND t.o = fresh.o")
        zero = _ids(i for term, i in list(d.ids.items()) if type(term) is Literal and term.value.strip() == "0") \
            if v["maxCardinality"] in present else "(NULL)"
        # {0}, {1}, ...: the tables of the check's triples (t; with ``fresh``, each in turn the fresh rows)
        checks = {
            "cax-dw": f"SELECT a.s, a.p, a.o FROM {{0}} w JOIN {{1}} a ON a.p = {TY} AND a.o = w.s JOIN {{2}} b "
                      f"ON b.s = a.s AND b.p = {TY} AND b.o = w.o WHERE w.p = {v['disjointWith']}",
            "cls-com": f"SELECT a.s, a.p, a.o FROM {{0}} w JOIN {{1}} a ON a.p = {TY} AND a.o = w.s JOIN {{2}} b "
                       f"ON b.s = a.s AND b.p = {TY} AND b.o = w.o WHERE w.p = {v['complementOf']}",
            "cls-nothing2": f"SELECT s, p, o FROM {{0}} WHERE p = {TY} AND o = {v['Nothing']}",
            "cls-maxc1": f"SELECT e.s, e.p, e.o FROM {{0}} m JOIN {{1}} op ON op.s = m.s "
                         f"AND op.p = {v['onProperty']} JOIN {{2}} ty ON ty.p = {TY} AND ty.o = m.s JOIN {{3}} e "
                         f"ON e.s = ty.s AND e.p = op.o WHERE m.p = {v['maxCardinality']} AND m.o IN {zero}",
            "prp-irp": f"SELECT e.s, e.p, e.o FROM {{0}} c JOIN {{1}} e ON e.p = c.s AND e.s = e.o "
                       f"WHERE c.p = {TY} AND c.o = {v['IrreflexiveProperty']}",
            "prp-asyp": f"SELECT e.s, e.p, e.o FROM {{0}} c JOIN {{1}} e ON e.p = c.s JOIN {{2}} f ON f.p = e.p "
                        f"AND f.s = e.o AND f.o = e.s WHERE c.p = {TY} AND c.o = {v['AsymmetricProperty']}",
            "prp-pdw": f"SELECT a.s, a.p, a.o FROM {{0}} w JOIN {{1}} a ON a.p = w.s JOIN {{2}} b ON b.p = w.o "
                       f"AND b.s = a.s AND b.o = a.o WHERE w.p = {v['propertyDisjointWith']}",
            # in the representatives' form: z differentFrom z, z sameAs z
            "eq-diff1": f"SELECT a.s, a.p, a.o FROM {{0}} a JOIN {{1}} b ON b.s = a.s AND b.o = a.o "
                        f"AND b.p = {v['differentFrom']} WHERE a.p = {v['sameAs']}",
        }
        found = []
        for rule, template in checks.items():
            if needs[rule] not in present:
                continue
            width = len(re.findall(r"\{\d\}", template))
            if fresh:
                sql = " UNION ".join(
                    template.format(*("_fresh" if k == j else "t" for k in range(width))) for j in range(width))
            else:
                sql = template.format(*(["t"] * width))
            if not con.execute(f"CREATE OR REPLACE TEMP TABLE _clash AS SELECT DISTINCT * FROM ({sql}) x(s, p, o) "
                               f"LIMIT {int(limit)}").fetchall()[0][0]:
                continue
            if rule == "eq-diff1":
                triples = self._different_pairs(v["differentFrom"], int(limit))
            else:
                triples = self._expanded_rows("_clash", int(limit))
            if triples:
                found.append((rule, triples))
        return found

    def _expanded_rows(self, table: str, limit: int) -> list[Triple]:
        """Up to ``limit`` triples in the original terms that the representatives' form rows of ``table`` stand
        for (each representative replaced by each member of its class), asserted ones first."""
        sql = f"SELECT s, p, o FROM {table}"
        if self._rep:
            joins, ms, mp, mo = _member_form("x")
            sql = f"SELECT {ms} AS s, {mp} AS p, {mo} AS o FROM {table} x {joins}"
        cols = self.con.execute(
            f"SELECT s, p, o FROM ({sql}) e ORDER BY NOT (EXISTS (SELECT 1 FROM orig WHERE orig.s = e.s "
            "AND orig.p = e.p AND orig.o = e.o) OR EXISTS (SELECT 1 FROM t WHERE t.r = 0 AND t.s = e.s "
            f"AND t.p = e.p AND t.o = e.o)), s, p, o LIMIT {limit}").fetchnumpy()
        return self.dict.decode(cols)

    def _different_pairs(self, different: int, limit: int) -> list[Triple]:
        """For the eq-diff1 rows ``z owl:sameAs z`` of ``_clash``: up to ``limit`` pairs of triples in the original
        terms, ``a owl:sameAs b`` (asserted, or derived: the class of ``z`` holds both) and
        ``a owl:differentFrom b``, the asserted ``owl:differentFrom`` first."""
        con = self.con
        con.execute(f"CREATE OR REPLACE TEMP TABLE _dz AS SELECT s, {different} AS p, o FROM _clash")
        pairs = self._expanded_rows("_dz", limit)
        out = []
        for t in pairs:
            out += [Triple(t.subject, SAME_AS, t.object), t]
        return out

    def report(self, *, fresh: bool = False) -> list[tuple[str, list[Triple]]]:
        """:meth:`inconsistencies` (``fresh``: only those the last change introduced), each logged as a warning
        with up to three of its triples; returns them."""
        found = self.inconsistencies(fresh=fresh)
        for rule, triples in found:
            _log.warning("inconsistent input: OWL 2 RL rule %s is violated, e.g. by %s", rule,
                         "; ".join(str(t) for t in triples[:3]))
        return found

    def _expanded(self) -> str:
        """The closure with each representative expanded to every member of its class, as a SQL query of
        ``(s, p, o, asserted)``."""
        if not self._rep:
            return "SELECT s, p, o, r = 0 AS asserted FROM t"
        joins, ms, mp, mo = _member_form("t")
        return (
            "SELECT x.s, x.p, x.o, (x.same AND x.r = 0) OR EXISTS (SELECT 1 FROM orig WHERE orig.s = x.s "
            f"AND orig.p = x.p AND orig.o = x.o) AS asserted FROM (SELECT {ms} AS s, {mp} AS p, {mo} AS o, t.r, "
            f"{ms} = t.s AND {mp} = t.p AND {mo} = t.o AS same FROM t {joins}) x"
        )

    def _schema_terms_sql(self, x: str, among: str | None = None) -> str:
        """The terms the rows of ``x`` make schema terms (properties, classes, declared terms), as SQL; ``among``: only
        those in the column ``x`` of that (small) table, each branch then a semi-join probe of ``x``."""
        d, TY = self.dict, self.TYPE
        both, subj, obj = (_ids(d.id(p) for p in ps) for ps in (_SCHEMA_BOTH, _SCHEMA_SUBJECT, _SCHEMA_OBJECT))
        meta = _ids(d.id(c) for c in META_CLASSES)

        def only(col: str) -> str:
            return "" if among is None else f" AND {col} IN (SELECT x FROM {among})"

        return (
            f"SELECT p AS x FROM {x} WHERE TRUE{only('p')} UNION SELECT o FROM {x} WHERE p = {TY}{only('o')} "
            f"UNION SELECT s FROM {x} WHERE p = {TY} AND o IN {meta}{only('s')} "
            f"UNION SELECT s FROM {x} WHERE p IN {both}{only('s')} "
            f"UNION SELECT o FROM {x} WHERE p IN {both}{only('o')} "
            f"UNION SELECT s FROM {x} WHERE p IN {subj}{only('s')} UNION SELECT o FROM {x} WHERE p IN {obj}{only('o')}"
        )

    def _builtin_ids(self) -> str:
        """The table of the ids of the terms in the built-in namespaces (RDF, RDFS, OWL, XSD), brought up to date
        with the terms numbered since the last call (ids only grow): a scan of the new terms, not of them all. For
        the writer's thread (a temporary table of its connection)."""
        upto = self.dict.next
        if upto != self._builtin_upto:
            self.con.execute(f"INSERT INTO _builtin SELECT id FROM terms WHERE id >= {self._builtin_upto << 2} "
                             f"AND ({_BUILTIN_NT})")
            self._builtin_upto = upto
        return "(SELECT id FROM _builtin)"

    def _normalised_sql(self, *, unstored: bool = False, rows: str | None = None, among: str | None = None,
                        writer: bool = False) -> str:
        """The inferred triples minus the noise :mod:`.normalize` lists (virtual, axiomatic, schema Things);
        ``unstored``: instead, those of them the inferred set leaves out (``x rdf:type _:c`` without
        ``blank_node_types``). ``rows``: only those rows of t (inferred ones, without representatives); the schema
        terms still from all of t, looked up among the terms of the table ``among`` (column ``x``) if given.
        ``writer``: on the writer's thread (the built-in terms from :meth:`_builtin_ids`)."""
        d, TY, THING_ = self.dict, self.TYPE, self.THING
        reflexive = _ids(d.id(p) for p in _REFLEXIVE_VIRTUAL)
        to_thing = _ids(d.id(p) for p in _TO_THING)
        x = "t" if not self._rep else "_x"
        schema_terms = self._schema_terms_sql(x, among)
        source = f"{rows} WHERE TRUE" if rows else "t WHERE r > 0" if not self._rep else "_x WHERE NOT asserted"
        builtin = self._builtin_ids() if writer else f"(SELECT id FROM terms WHERE {_BUILTIN_NT})"
        return (
            ("" if not self._rep else f"WITH _x AS ({self._expanded()}) ")
            + f"SELECT s, p, o FROM {source} AND (s & 3) <> {LITERAL} AND (p & 3) = {IRI} "
            f"AND s NOT IN {builtin} "
            f"AND NOT (p IN {reflexive} AND s = o) AND NOT (p IN {to_thing} AND o = {THING_}) "
            f"AND NOT (p = {TY} AND o = {THING_} AND s IN ({schema_terms}))"
            + (f" AND p = {TY} AND (o & 3) = {BNODE}" if unstored
               else "" if self.blank_node_types else f" AND NOT (p = {TY} AND (o & 3) = {BNODE})")
        )

    def inferred(self) -> set[Triple]:
        cols = self.con.execute(self._normalised_sql()).fetchnumpy()
        with gc_paused():
            return set(self.dict.decode(cols))

    def snapshot(self) -> tuple[set[Triple], set[Triple]]:
        """Record the normalised inferred set; returns what joined and left it since the last snapshot."""
        self.snapshot_tables()
        with gc_paused():
            return (set(self.dict.decode(self.con.execute("SELECT s, p, o FROM _plus").fetchnumpy())),
                    set(self.dict.decode(self.con.execute("SELECT s, p, o FROM _minus").fetchnumpy())))

    def snapshot_tables(self) -> tuple[int, int]:
        """:meth:`snapshot` into the tables ``_plus`` and ``_minus`` (ids, not decoded); returns their sizes."""
        con = self.con
        if self._snapshotted and self._local and self._mark is not None and not self._rep:
            self._local = False  # once: a second snapshot without a change finds nothing new the whole way
            return self._snapshot_local()
        con.execute(f"CREATE OR REPLACE TABLE inf_new AS {self._normalised_sql(writer=True)}")
        if self._snapshotted:  # (a lookup in DuckDB's catalog took 5 ms)
            con.execute("CREATE OR REPLACE TEMP TABLE _plus AS SELECT * FROM inf_new EXCEPT SELECT * FROM inf")
            con.execute("CREATE OR REPLACE TEMP TABLE _minus AS SELECT * FROM inf EXCEPT SELECT * FROM inf_new")
        else:
            con.execute("CREATE OR REPLACE TEMP TABLE _plus AS SELECT s, p, o FROM inf_new")
            con.execute("CREATE OR REPLACE TEMP TABLE _minus AS SELECT s, p, o FROM inf_new LIMIT 0")
        con.execute("DROP TABLE IF EXISTS inf")
        con.execute("ALTER TABLE inf_new RENAME TO inf")
        self._snapshotted = True
        plus = con.execute("SELECT count(*) FROM _plus").fetchall()[0][0]
        minus = con.execute("SELECT count(*) FROM _minus").fetchall()[0][0]
        return int(plus), int(minus)

    def _snapshot_local(self) -> tuple[int, int]:
        """:meth:`snapshot_tables` after a change without a merge, a split, a schema change or a recomputation (and no
        equality classes): the inferred set can change only at the triples the change touched, so only they are
        looked at. They are the rows ranked above the change's mark (derived or re-derived), the asserted rows added
        (``_added``: an inferred triple asserted leaves the set), the rows DRed over-deleted and the retracted ones
        (``_dropped``), and ``x rdf:type owl:Thing`` for each term those rows make schema terms (normalisation leaves
        it out while the term is one). Each is in the new inferred set if it is an inferred row of ``t`` that
        normalisation keeps; the difference with its old status is the delta. The cost follows the change, not the
        closure (but for filter scans)."""
        self.local_snapshots += 1
        con, TY, THING_ = self.con, self.TYPE, self.THING
        con.execute(f"CREATE OR REPLACE TEMP TABLE _touched AS SELECT s, p, o FROM t WHERE r > {self._mark} "
                    "UNION ALL SELECT s, p, o FROM _added UNION ALL SELECT s, p, o FROM _dropped")
        con.execute(f"CREATE OR REPLACE TEMP TABLE _cands AS SELECT s, p, o FROM _touched UNION "
                    f"SELECT x, {TY}, {THING_} FROM ({self._schema_terms_sql('_touched')})")
        match = "SEMI JOIN _cands c ON c.s = {0}.s AND c.p = {0}.p AND c.o = {0}.o"
        con.execute(f"CREATE OR REPLACE TEMP TABLE _cin AS SELECT t.s, t.p, t.o FROM t {match.format('t')} "
                    "WHERE t.r > 0")
        # the schema terms are looked up for the subjects of the candidates' owl:Thing rows only
        con.execute(f"CREATE OR REPLACE TEMP TABLE _things AS SELECT DISTINCT s AS x FROM _cin "
                    f"WHERE p = {TY} AND o = {THING_}")
        con.execute(f"CREATE OR REPLACE TEMP TABLE _new AS "
                    f"{self._normalised_sql(rows='_cin', among='_things', writer=True)}")
        con.execute(f"CREATE OR REPLACE TEMP TABLE _old AS SELECT inf.s, inf.p, inf.o FROM inf {match.format('inf')}")
        plus = con.execute("CREATE OR REPLACE TEMP TABLE _plus AS SELECT * FROM _new EXCEPT SELECT * FROM _old"
                           ).fetchall()[0][0]
        minus = con.execute("CREATE OR REPLACE TEMP TABLE _minus AS SELECT * FROM _old EXCEPT SELECT * FROM _new"
                            ).fetchall()[0][0]
        if minus:
            con.execute("DELETE FROM inf USING _minus m WHERE inf.s = m.s AND inf.p = m.p AND inf.o = m.o")
        if plus:
            con.execute("INSERT INTO inf SELECT s, p, o FROM _plus")
        return int(plus), int(minus)

    def ranks(self, triples: Collection[Triple]) -> dict[Triple, int]:
        """The ranks of those of ``triples`` in the closure (0: asserted), from any thread: explanations run on
        reader threads while the session lives on the writer's, and a DuckDB connection is not for concurrent
        use, so every call takes a cursor of its own. Term ids come from the Python cache, else from ``terms``
        by N-Triples form (terms read from files). A closed closure gives no ranks."""
        asked = list(triples)
        try:
            cursor = self.con.cursor()
            try:
                ids = self._term_ids(cursor, [x for t in asked for x in (t.subject, t.predicate, t.object)])
                wanted: dict[tuple[int, int, int], Triple] = {}
                for t in asked:
                    s, p, o = ids[t.subject], ids[t.predicate], ids[t.object]
                    if s is not None and p is not None and o is not None:
                        wanted[(s, p, o)] = t
                if not wanted:
                    return {}
                key = np.array(list(wanted), dtype=np.int64)
                cursor.register("_asked", {"s": key[:, 0], "p": key[:, 1], "o": key[:, 2]})
                # a triple's rank: 0 if asserted; else that of its representatives' form in t, one up per
                # position replaced (eq-rep-s/p/o with rep sameAs member); the rank it had before a merge
                # rewrote it, if lower; for x sameAs y in one class, the rank of the pair (_pair_ranks) if lower
                joins, rs, rp, ro = _rep_form("a")
                rows = cursor.execute(
                    f"WITH q AS (SELECT a.s, a.p, a.o, {rs} AS rs, {rp} AS rp, {ro} AS ro, "
                    "greatest(CASE WHEN a_s.rep <> a.s THEN a_s.c_from END, CASE WHEN a_p.rep <> a.p THEN a_p.c_from "
                    "END, CASE WHEN a_o.rep <> a.o THEN a_o.c_from END) AS c, "
                    f"({rs} <> a.s)::INTEGER + ({rp} <> a.p)::INTEGER + ({ro} <> a.o)::INTEGER AS n "
                    f"FROM _asked a {joins}) "
                    "SELECT q.s, q.p, q.o, q.rs, q.ro, CASE WHEN EXISTS (SELECT 1 FROM orig WHERE orig.s = q.s "
                    "AND orig.p = q.p AND orig.o = q.o) THEN 0 ELSE least(greatest(t.r, q.c) + q.n, "
                    "(SELECT min(h.r) FROM hist h WHERE h.s = q.s AND h.p = q.p AND h.o = q.o)) END "
                    "FROM q JOIN t ON t.s = q.rs AND t.p = q.rp AND t.o = q.ro").fetchall()
            finally:
                cursor.close()
        except duckdb.ConnectionException:  # closed meanwhile
            return {}
        found = {}
        for s, p, o, rs, ro, r in rows:
            if p == self.SAME and s != o and rs == ro and rs in self._edges:
                r = min(r, self._pair_rank(rs, s, o))
            found[wanted[(s, p, o)]] = int(r)
        return found

    def _term_ids(self, cursor: duckdb.DuckDBPyConnection, terms: Iterable[object]) -> dict[object, int | None]:
        """The ids of ``terms`` (``None``: not in the closure's dictionary), through ``cursor`` (any thread): from
        the Python cache, else from ``terms`` by N-Triples form (terms read from files)."""
        cached = self.dict.ids.get  # a dict read: safe beside the writer thread's inserts
        ids: dict[object, int | None] = {x: cached(x) for x in terms}  # type: ignore[call-overload]
        unknown = {str(x): x for x, i in ids.items() if i is None}
        if unknown:
            cursor.register("_nt", {"nt": np.array(list(unknown), dtype=object)})
            ids.update((unknown[nt], i) for i, nt in cursor.execute(
                "SELECT terms.id, terms.nt FROM terms SEMI JOIN _nt USING (nt)").fetchall())
            cursor.unregister("_nt")
        return ids

    def unstored(self, subject: object = None, predicate: object = None, object_: object = None) -> list[Triple]:
        """The inferred triples the inferred set leaves out (``x rdf:type _:c``, ``_:c`` a blank-node class, when
        ``blank_node_types`` is off) that match a pattern (``None``: any term), from any thread (a cursor of its
        own, as :meth:`ranks`): explanations see them, the store does not hold them. Built once per version of the
        closure, in the table ``_unstored``."""
        if self.blank_node_types or (predicate is not None and predicate != TYPE) or (
                object_ is not None and type(object_) is not BlankNode):
            return []
        try:
            cursor = self.con.cursor()
            try:
                with self._unstored_lock:
                    if self._unstored_at != self._version:
                        version = self._version
                        cursor.execute(f"CREATE OR REPLACE TABLE _unstored AS {self._normalised_sql(unstored=True)}")
                        self._unstored_at = version
                bound = {k: x for k, x in (("s", subject), ("o", object_)) if x is not None}
                ids = self._term_ids(cursor, bound.values())
                if any(ids[x] is None for x in bound.values()):
                    return []
                where = " AND ".join(f"{k} = ?" for k in bound) or "TRUE"
                rows = cursor.execute(f"SELECT s, o FROM _unstored WHERE {where}",
                                      [ids[x] for x in bound.values()]).fetchall()
                if not rows:
                    return []
                want = {i for row in rows for i in row}
                cursor.register("_w", {"id": np.array(sorted(want), dtype=np.int64)})
                nts = cursor.execute("SELECT terms.id, terms.nt FROM _w JOIN terms USING (id)").fetchall()
                cursor.unregister("_w")
            finally:
                cursor.close()
        except duckdb.ConnectionException:  # closed meanwhile
            return []
        terms = _parse_terms(nts)
        return [Triple(terms[a], TYPE, terms[b]) for a, b in rows]  # type: ignore[arg-type]

    def _pair_rank(self, rep: int, a: int, b: int) -> int:
        """The rank of ``a owl:sameAs b`` in the class of ``rep`` (:func:`_pair_ranks`, cached per source)."""
        key = (a, False)
        got = self._pairs.get(key)
        if got is None:
            got = self._pairs[key] = _pair_ranks(self._edges[rep], a)
        return got[b]


class DuckDBSession:
    """A live :class:`DuckDBClosure`: additions semi-naively, removals by DRed; the inferred set's changes are
    found in SQL (a snapshot of the normalised set), so only they are decoded. Files take a path with no Python
    objects at all (:meth:`add_ntriples`); the Python view of the inferred set is then built only if asked for."""

    def __init__(self, triples: Iterable[Triple], *, blank_node_types: bool = True) -> None:
        self._closure = DuckDBClosure(triples, blank_node_types=blank_node_types)
        self._inferred: frozenset[Triple] | None = frozenset(self._closure.snapshot()[0])
        if self._inferred:
            self.report()

    def close(self) -> None:
        self._closure.close()

    @property
    def inferred(self) -> frozenset[Triple]:
        if self._inferred is None:
            self._inferred = frozenset(self._closure.inferred())
        return self._inferred

    def apply(self, added: Iterable[Triple] = (), removed: Iterable[Triple] = ()) -> InferenceDelta:
        gone = set(removed)
        new = set(added) - gone
        try:
            if gone:
                self._closure.remove(gone)
            if new:
                self._closure.add(new)
        finally:
            self._closure.end_change()
        if not gone and not new:
            return InferenceDelta()
        if new:  # a retraction alone adds no violation (OWL 2 RL is monotonic): nothing new to report
            self._closure.report(fresh=True)
        plus, minus = self._closure.snapshot()
        if not plus and not minus:
            return InferenceDelta()
        if self._inferred is not None:
            self._inferred = (self._inferred - minus) | plus
        return InferenceDelta(added=frozenset(plus), removed=frozenset(minus))

    def add_ntriples(
        self, path: Path | list[Path], *, strict: bool = False, max_bytes: int | None = None,
        besides: Path | None = None,
    ) -> tuple[int, int, int, int] | None:
        """Assert the triples of a canonical N-Triples file; returns how many it holds, how many are new to the
        graph (not in ``besides``, its content before), and how many triples joined and left the inferred set
        (:meth:`write_added`, :meth:`removed_triples` give them). ``strict``: see :meth:`Dictionary.load_ntriples`
        (``None``: not canonical, nothing done)."""
        try:
            counts = self._closure.add_ntriples(path, strict=strict, max_bytes=max_bytes, besides=besides)
        finally:
            self._closure.end_change()
        if counts is None:
            return None
        self._inferred = None
        self._closure.report(fresh=True)
        return (*counts, *self._closure.snapshot_tables())

    def ranks(self, triples: Collection[Triple]) -> dict[Triple, int]:
        """:meth:`DuckDBClosure.ranks` (any thread)."""
        return self._closure.ranks(triples)

    def unstored(self, subject: object = None, predicate: object = None, object_: object = None) -> list[Triple]:
        """:meth:`DuckDBClosure.unstored` (any thread): inferred triples held here but not stored."""
        return self._closure.unstored(subject, predicate, object_)

    def report(self) -> list[tuple[str, list[Triple]]]:
        """Log all the closure's inconsistencies (:meth:`DuckDBClosure.inconsistencies`) as warnings; returns them.
        A session reports this at its start; after each change (:meth:`apply`, :meth:`add_ntriples`) only the
        violations the change introduced, found from the rows it added."""
        return self._closure.report()

    def reconcile(self, stored: Path) -> tuple[list[Triple], list[Triple]]:
        """Compare the inferred set with ``stored`` (the store's inferred graph as Oxigraph wrote it): the triples
        missing there and those it holds in excess."""
        d = self._closure.dict
        table = d.load_ntriples(stored)
        con = self._closure.con
        try:
            missing = con.execute(f"SELECT s, p, o FROM inf EXCEPT SELECT s, p, o FROM {table}").fetchnumpy()
            extra = con.execute(f"SELECT s, p, o FROM {table} EXCEPT SELECT s, p, o FROM inf").fetchnumpy()
        finally:
            con.execute(f"DROP TABLE IF EXISTS {table}")
        return d.decode(missing), d.decode(extra)

    def write_added(self, path: Path | Sequence[Path]) -> int:
        """The triples without blank nodes the last :meth:`add_ntriples` added to the inferred set, as N-Triples
        (a bulk loader names blank nodes afresh: those go by :meth:`added_with_blank_nodes`); shared out over
        several files when given several paths."""
        con = self._closure.con
        con.execute(f"CREATE OR REPLACE TEMP TABLE _plus_ground AS SELECT * FROM _plus WHERE {_GROUND}")
        return self._closure.dict.write_ntriples("_plus_ground", path)

    def write_added_with_blank_nodes(self, path: Path, graph: NamedNode) -> int:
        """The triples with a blank node the last :meth:`add_ntriples` added to the inferred set, as N-Quads in
        ``graph`` (to be read with :func:`pyoxigraph.parse`, which keeps blank node names, unlike a bulk loader)."""
        con = self._closure.con
        con.execute(f"CREATE OR REPLACE TEMP TABLE _plus_blank AS SELECT * FROM _plus WHERE NOT ({_GROUND})")
        return self._closure.dict.write_ntriples("_plus_blank", path, graph=graph.value)

    def removed_triples(self) -> list[Triple]:
        """The triples the last :meth:`add_ntriples` took out of the inferred set (now asserted)."""
        return self._closure.dict.decode(self._closure.con.execute("SELECT s, p, o FROM _minus").fetchnumpy())


class DuckDBReasoner:
    """OWL 2 RL by semi-naive SQL evaluation in DuckDB (``reasoning.engine: duckdb``). Without
    ``store_blank_node_types`` the inferred set leaves out ``x rdf:type _:c`` (a blank-node class: an OWL
    restriction), which is still reasoned with."""

    name = "duckdb"

    def __init__(self, *, store_blank_node_types: bool = True) -> None:
        self.store_blank_node_types = store_blank_node_types

    def materialize(self, triples: Iterable[Triple]) -> set[Triple]:
        closure = DuckDBClosure(triples, blank_node_types=self.store_blank_node_types)
        try:
            closure.report()
            return closure.inferred()
        finally:
            closure.close()

    def session(self, triples: Iterable[Triple]) -> ReasoningSession:
        return DuckDBSession(triples, blank_node_types=self.store_blank_node_types)
