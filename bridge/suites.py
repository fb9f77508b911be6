"""The query suites the differential proof runs (issue 11 §4): the W3C SPARQL 1.0/1.1 query-evaluation tests and
the SP2Bench queries, read into :class:`Case` records, and a runner that feeds them to
:mod:`hybridkg.bridge.differential` with a fresh property graph per data set.

W3C: every ``mf:QueryEvaluationTest`` of every ``manifest*.ttl`` under the suite's folder (each test once, keyed
by its IRI), its feature the manifest's folder (``sparql11/aggregates``). ``qt:data`` files make the default
graph, ``qt:graphData`` named graphs (which the mapping refuses: "data does not map"); the expected result is
read from SPARQL XML/JSON/TSV results, an RDF result set (``rs:ResultSet``) or, for CONSTRUCT, the graph.
CSV results (types lost) are not read. Tests under an entailment regime are run like the others (both engines do
simple entailment), but their expected results assume entailment, so Oxigraph's answer is not checked there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox
import rdflib
from rdflib.collection import Collection
from rdflib.namespace import RDF, RDFS

from hybridkg.bridge.differential import Answer, Differential, Solutions, Verdict
from hybridkg.structural.base import GraphStore

MF = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
QT = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-query#")
SD = rdflib.Namespace("http://www.w3.org/ns/sparql-service-description#")
RS = "http://www.w3.org/2001/sw/DataAccess/tests/result-set#"

_RDF_FORMATS = {".ttl": ox.RdfFormat.TURTLE, ".rdf": ox.RdfFormat.RDF_XML, ".nt": ox.RdfFormat.N_TRIPLES,
                ".n3": ox.RdfFormat.N3}
_RESULT_FORMATS = {".srx": ox.QueryResultsFormat.XML, ".srj": ox.QueryResultsFormat.JSON,
                   ".tsv": ox.QueryResultsFormat.TSV}


@dataclass(frozen=True)
class Case:
    """One query on one data set: ``data`` files make the default graph, ``graphs`` (name -> file) named graphs."""

    name: str
    feature: str
    query: Path
    data: tuple[Path, ...] = ()
    graphs: tuple[tuple[str, Path], ...] = ()
    result: Path | None = None
    entailment: bool = False

    def statements(self) -> list[ox.Triple | ox.Quad]:
        out: list[ox.Triple | ox.Quad] = []
        for path in self.data:
            out.extend(q.triple for q in _parse(path))
        for name, path in self.graphs:
            out.extend(ox.Quad(q.subject, q.predicate, q.object, ox.NamedNode(name)) for q in _parse(path))
        return out

    def expected(self) -> Answer | None:
        """The expected answer, when given in a form read here (``None`` otherwise)."""
        if self.result is None or self.entailment:
            return None
        try:
            return read_answer(self.result)
        except (SyntaxError, ValueError, OSError):
            return None


def _parse(path: Path) -> Iterator[ox.Quad]:
    return ox.parse(path=str(path), format=_RDF_FORMATS[path.suffix], base_iri=path.as_uri())


def read_answer(path: Path) -> Answer | None:
    """A suite's expected answer: SPARQL results (XML, JSON, TSV), an RDF result set, or a graph."""
    if path.suffix in _RESULT_FORMATS:
        res = ox.parse_query_results(path=str(path), format=_RESULT_FORMATS[path.suffix])
        if isinstance(res, ox.QueryBoolean):
            return bool(res)
        names = tuple(v.value for v in res.variables)
        return Solutions(names, tuple(tuple(s[n] for n in names) for s in res))
    if path.suffix not in _RDF_FORMATS:
        return None
    triples = [q.triple for q in _parse(path)]
    sets = [t.subject for t in triples if t.predicate == RDF_TYPE and t.object == ox.NamedNode(RS + "ResultSet")]
    if not sets:
        return frozenset(triples)
    return _result_set(triples, sets[0])


RDF_TYPE = ox.NamedNode(str(RDF.type))


def _result_set(triples: list[ox.Triple], head: ox.NamedNode | ox.BlankNode | ox.Triple) -> Answer:
    by: dict[tuple[object, str], list[object]] = {}
    for t in triples:
        by.setdefault((t.subject, t.predicate.value), []).append(t.object)

    def one(s: object, p: str) -> object | None:
        values = by.get((s, RS + p), [])
        return values[0] if values else None

    boolean = one(head, "boolean")
    if isinstance(boolean, ox.Literal):
        return boolean.value == "true"
    names = tuple(str(v.value) for v in by.get((head, RS + "resultVariable"), []) if isinstance(v, ox.Literal))
    rows = []
    for sol in by.get((head, RS + "solution"), []):
        row: dict[str, object] = {}
        for b in by.get((sol, RS + "binding"), []):
            var = one(b, "variable")
            if isinstance(var, ox.Literal):
                row[var.value] = one(b, "value")
        index = one(sol, "index")
        rows.append((int(index.value) if isinstance(index, ox.Literal) else 0, row))
    rows.sort(key=lambda r: r[0])
    return Solutions(names, tuple(tuple(r.get(n) for n in names) for _, r in rows))  # type: ignore[misc]


def w3c_cases(root: Path) -> list[Case]:
    """Every query-evaluation test of the manifests under ``root`` (``.../w3c/sparql11/sparql``), by IRI once."""
    cases: dict[str, Case] = {}
    for manifest in sorted(root.rglob("manifest*.ttl")):
        g = rdflib.Graph().parse(manifest, format="turtle", publicID=manifest.as_uri())
        feature = str(manifest.parent.relative_to(root))
        for test in _entries(g):
            if g.value(test, RDF.type) != MF.QueryEvaluationTest or str(test) in cases:
                continue
            action = g.value(test, MF.action)
            query = g.value(action, QT.query)
            if query is None:
                continue
            graphs = []
            for gd in g.objects(action, QT.graphData):
                if isinstance(gd, rdflib.BNode):
                    graphs.append((str(g.value(gd, RDFS.label)), _file(g.value(gd, QT.graph))))
                else:
                    graphs.append((str(gd), _file(gd)))
            result = g.value(test, MF.result)
            cases[str(test)] = Case(
                name=f"{feature}/{str(test).rsplit('#', 1)[-1]}",
                feature=feature,
                query=_file(query),
                data=tuple(sorted(_file(d) for d in g.objects(action, QT.data))),
                graphs=tuple(graphs),
                result=_file(result) if result is not None else None,
                entailment=g.value(action, SD.entailmentRegime) is not None,
            )
    return sorted(cases.values(), key=lambda c: c.name)


def _entries(g: rdflib.Graph) -> list[rdflib.term.Node]:
    out: list[rdflib.term.Node] = []
    for head in g.subjects(RDF.type, MF.Manifest):
        entries = g.value(head, MF.entries)
        if entries is not None:
            out.extend(Collection(g, entries))
    return out


def _file(node: rdflib.term.Node | None) -> Path:
    text = str(node)
    if not text.startswith("file://"):
        raise ValueError(f"the manifest names {text}, not a local file")
    return Path(text.removeprefix("file://"))


def sp2bench_cases(root: Path) -> list[Case]:
    """Each folder's queries (``queries/*.sparql``) on its ``rdf.ttl``, and each on every other folder's data."""
    folders = sorted(p for p in root.iterdir() if (p / "rdf.ttl").exists())
    cases = []
    for data in folders:
        for queries in folders:
            for query in sorted((queries / "queries").glob("*.sparql")):
                name = f"{queries.name}/{query.stem}" + ("" if data == queries else f"@{data.name}")
                cases.append(Case(name, queries.name, query, (data / "rdf.ttl",)))
    return cases


def applies(case: Case, diff: Differential) -> bool:
    """An SP2Bench query applies to its own folder's data, and to another's where Oxigraph's answer is not empty."""
    if "@" not in case.name:
        return True
    try:
        res = diff.oxigraph.query(case.query.read_text(encoding="utf-8"))
    except (SyntaxError, ValueError, OSError):
        return True
    if isinstance(res, ox.QueryBoolean):
        return bool(res)
    return next(iter(res), None) is not None


def run_cases(cases: list[Case], new_graph: Callable[[], GraphStore],
              keep: Callable[[Case, Differential], bool] | None = None) -> Iterator[tuple[Case, Verdict]]:
    """Run each case (``keep`` may skip one after loading), a fresh graph from ``new_graph`` per data set (cases
    sharing their data files in a row share it); each graph is closed after its last case."""
    current: tuple[tuple[Path, ...], tuple[tuple[str, Path], ...]] | None = None
    diff: Differential | None = None
    for case in cases:
        if (case.data, case.graphs) != current or diff is None:
            if diff is not None:
                diff.store.close()
            current = (case.data, case.graphs)
            diff = Differential.load(case.statements(), new_graph())
        if keep is not None and not keep(case, diff):
            continue
        yield case, diff.run(case.query.read_text(encoding="utf-8"), base_iri=case.query.as_uri(),
                             expected=case.expected())
    if diff is not None:
        diff.store.close()
