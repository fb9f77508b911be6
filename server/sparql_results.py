"""Streaming writers for SPARQL query results, and content negotiation between them.

SELECT and ASK: SPARQL 1.1 Query Results JSON (https://www.w3.org/TR/sparql11-results-json/), XML
(https://www.w3.org/TR/rdf-sparql-XMLres/), CSV and TSV (https://www.w3.org/TR/sparql11-results-csv-tsv/).
CONSTRUCT and DESCRIBE: Turtle, N-Triples, JSON-LD and RDF/XML through pyoxigraph's serialisers.

A writer turns a result into bytes piece by piece: :meth:`ResultWriter.head` once, :meth:`ResultWriter.batch`
for each batch of rows or triples, :meth:`ResultWriter.tail` once, so a front end can stream a large result
without holding it. Graph results are serialised one batch at a time; blank-node labels are kept, so a blank
node that appears in two batches is still one node in the document.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from pyoxigraph import BlankNode, Literal, NamedNode, RdfFormat, Triple, serialize

from hybridkg.server.sparql_json import term_json

_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_RESULTS_NS = "http://www.w3.org/2005/sparql-results#"


@dataclass(frozen=True)
class ResultFormat:
    """A serialisation the endpoint offers: its name (for ``format=``) and the media type it sends."""

    name: str
    media_type: str
    #: other media types a client may ask for to get this format
    aliases: tuple[str, ...] = ()
    #: ``format=`` values naming it, besides ``name``
    tokens: tuple[str, ...] = ()

    #: text formats say their charset (JSON and XML documents are UTF-8 by their own rules)
    charset: bool = False

    @property
    def content_type(self) -> str:
        return f"{self.media_type}; charset=utf-8" if self.charset else self.media_type


JSON = ResultFormat("json", "application/sparql-results+json", ("application/json", "text/javascript",
                                                                 "application/javascript"))
XML = ResultFormat("xml", "application/sparql-results+xml", ("application/xml", "text/xml"))
CSV = ResultFormat("csv", "text/csv", charset=True)
TSV = ResultFormat("tsv", "text/tab-separated-values", charset=True)
TURTLE = ResultFormat("turtle", "text/turtle", ("application/x-turtle", "text/n3", "text/rdf+n3"), ("ttl", "n3"), True)
NTRIPLES = ResultFormat("ntriples", "application/n-triples", ("text/plain",), ("nt", "n-triples"), True)
JSONLD = ResultFormat("jsonld", "application/ld+json", ("application/json",), ("json-ld", "json"))
RDFXML = ResultFormat("rdfxml", "application/rdf+xml", ("application/xml", "text/xml"), ("rdf+xml", "xml", "rdf"))

#: What each query kind can be written as, the preferred (default) format first.
FORMATS: dict[str, tuple[ResultFormat, ...]] = {
    "select": (JSON, XML, CSV, TSV),
    "ask": (JSON, XML, CSV, TSV),
    "graph": (TURTLE, NTRIPLES, JSONLD, RDFXML),
}

_RDF_FORMATS = {"turtle": RdfFormat.TURTLE, "ntriples": RdfFormat.N_TRIPLES, "jsonld": RdfFormat.JSON_LD,
                "rdfxml": RdfFormat.RDF_XML}


def _accept_ranges(accept: str) -> list[tuple[str, float, int]]:
    """``Accept`` -> (media range, q, position), ranges with q=0 dropped."""
    out = []
    for position, part in enumerate(accept.split(",")):
        fields = [f.strip() for f in part.split(";")]
        media = fields[0].lower()
        if not media:
            continue
        q = 1.0
        for param in fields[1:]:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if q > 0:
            out.append((media, q, position))
    return out


def _matches(media_range: str, fmt: ResultFormat) -> int:
    """How specifically ``media_range`` names ``fmt``: 3 exactly, 2 by an alias, 1 by a wildcard, 0 not at all."""
    if media_range == fmt.media_type:
        return 3
    if media_range in fmt.aliases:
        return 2
    if media_range == "*/*" or (media_range.endswith("/*") and fmt.media_type.startswith(media_range[:-1])):
        return 1
    return 0


def negotiate(kind: str, accept: str | None, format_params: Sequence[str] = ()) -> ResultFormat | None:
    """The format to answer a ``kind`` result in, or None when the client accepts none we offer.

    ``format_params`` (names such as ``json``, ``turtle``, ``csv``, or media types; the first one that fits
    wins, as SPARQLWrapper sends ``format=tsv&format=text/tab-separated-values``) override ``Accept``.
    """
    offered = FORMATS[kind]
    wanted = [w.strip().lower() for w in format_params if w.strip()]
    if wanted:
        for value in wanted:
            for fmt in offered:
                if value in (fmt.name, *fmt.tokens) or _matches(value, fmt) >= 2:
                    return fmt
        return None
    if not accept or not accept.strip():
        return offered[0]
    best: tuple[float, int, int, int] | None = None
    chosen: ResultFormat | None = None
    for preference, fmt in enumerate(offered):
        for media, q, position in _accept_ranges(accept):
            how = _matches(media, fmt)
            if how:
                key = (q, how, -position, -preference)
                if best is None or key > best:
                    best, chosen = key, fmt
    return chosen


def offered_types(kind: str) -> str:
    return ", ".join(f.media_type for f in FORMATS[kind])


# --------------------------------------------------------------------------- writers


class ResultWriter:
    """Writes one result; subclasses per format."""

    def head(self) -> bytes:
        return b""

    def batch(self, items: Sequence[Any]) -> bytes:
        return b""

    def tail(self) -> bytes:
        return b""


class _Cells:
    """A term's text in one format, made once per distinct term of a result (rows repeat terms)."""

    def __init__(self, encode: Callable[[Any], str], limit: int = 200_000) -> None:
        self._encode = encode
        self._cache: dict[Any, str] = {}
        self._limit = limit
        self.get = self._cache.get

    def miss(self, term: Any) -> str:
        text = self._encode(term)
        if len(self._cache) < self._limit:
            self._cache[term] = text
        return text


def _json_text(term: Any) -> str:
    return json.dumps(term_json(term), ensure_ascii=False, separators=(",", ":"))


class _JsonSelect(ResultWriter):
    def __init__(self, variables: Sequence[str]) -> None:
        self.variables = variables
        self.first = True
        self._keys = [json.dumps(v, ensure_ascii=False) + ":" for v in variables]
        self._cells = _Cells(_json_text)

    def head(self) -> bytes:
        return ('{"head":{"vars":' + json.dumps(list(self.variables)) + '},"results":{"bindings":[').encode()

    def batch(self, items: Sequence[Any]) -> bytes:
        if not items:
            return b""
        get, miss, keys = self._cells.get, self._cells.miss, self._keys
        text = ",".join([
            "{" + ",".join([k + (get(t) or miss(t)) for k, t in zip(keys, row, strict=True) if t is not None]) + "}"
            for row in items
        ])
        if not self.first:
            text = "," + text
        self.first = False
        return text.encode("utf-8")

    def tail(self) -> bytes:
        return b"]}}"


def _xml_term(term: Any) -> str:
    if isinstance(term, NamedNode):
        return f"<uri>{escape(term.value)}</uri>"
    if isinstance(term, BlankNode):
        return f"<bnode>{escape(term.value)}</bnode>"
    if isinstance(term, Literal):
        if term.language:
            return f"<literal xml:lang={quoteattr(term.language)}>{escape(term.value)}</literal>"
        if term.datatype.value != _XSD_STRING:
            return f"<literal datatype={quoteattr(term.datatype.value)}>{escape(term.value)}</literal>"
        return f"<literal>{escape(term.value)}</literal>"
    if isinstance(term, Triple):
        return (f"<triple><subject>{_xml_term(term.subject)}</subject><predicate>{_xml_term(term.predicate)}"
                f"</predicate><object>{_xml_term(term.object)}</object></triple>")
    raise TypeError(type(term).__name__)


class _XmlSelect(ResultWriter):
    def __init__(self, variables: Sequence[str]) -> None:
        self.variables = variables
        self._names = [f"<binding name={quoteattr(v)}>" for v in variables]
        self._cells = _Cells(_xml_term)

    def head(self) -> bytes:
        names = "".join(f"<variable name={quoteattr(v)}/>" for v in self.variables)
        return f'<?xml version="1.0"?>\n<sparql xmlns="{_RESULTS_NS}"><head>{names}</head><results>'.encode()

    def batch(self, items: Sequence[Any]) -> bytes:
        get, miss, names = self._cells.get, self._cells.miss, self._names
        return "".join([
            "<result>" + "".join([n + (get(t) or miss(t)) + "</binding>"
                                  for n, t in zip(names, row, strict=True) if t is not None]) + "</result>\n"
            for row in items
        ]).encode("utf-8")

    def tail(self) -> bytes:
        return b"</results></sparql>\n"


def _csv_value(term: Any) -> str:
    if term is None:
        return ""
    if isinstance(term, BlankNode):
        return f"_:{term.value}"
    if isinstance(term, NamedNode | Literal):
        return term.value
    return str(term)


class _CsvSelect(ResultWriter):
    def __init__(self, variables: Sequence[str]) -> None:
        self.variables = variables
        self._cells = _Cells(_csv_value)

    def _lines(self, rows: Sequence[Sequence[str]]) -> bytes:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\r\n")
        writer.writerows(rows)
        return buffer.getvalue().encode("utf-8")

    def head(self) -> bytes:
        return self._lines([list(self.variables)])

    def batch(self, items: Sequence[Any]) -> bytes:
        get, miss = self._cells.get, self._cells.miss
        return self._lines([[get(t) or miss(t) for t in row] for row in items])


class _TsvSelect(ResultWriter):
    def __init__(self, variables: Sequence[str]) -> None:
        self.variables = variables
        self._cells = _Cells(lambda t: "" if t is None else str(t))

    def head(self) -> bytes:
        return ("\t".join(f"?{v}" for v in self.variables) + "\n").encode("utf-8")

    def batch(self, items: Sequence[Any]) -> bytes:
        # str() of a pyoxigraph term is its N-Triples form, with tabs and newlines escaped
        get, miss = self._cells.get, self._cells.miss
        return "".join(["\t".join([get(t) or miss(t) for t in row]) + "\n" for row in items]).encode("utf-8")


class _Boolean(ResultWriter):
    def __init__(self, fmt: ResultFormat, value: bool) -> None:
        self.fmt = fmt
        self.value = value

    def head(self) -> bytes:
        text = "true" if self.value else "false"
        if self.fmt is JSON:
            return b'{"head":{},"boolean":' + text.encode() + b"}"
        if self.fmt is XML:
            return (f'<?xml version="1.0"?>\n<sparql xmlns="{_RESULTS_NS}"><head></head>'
                    f"<boolean>{text}</boolean></sparql>\n").encode()
        return text.encode()  # CSV and TSV define no boolean form; oxigraph and Jena write the bare word


class _Graph(ResultWriter):
    """Triples, one pyoxigraph serialisation per batch; JSON-LD and RDF/XML batches are unwrapped and
    joined into one document."""

    def __init__(self, fmt: ResultFormat) -> None:
        self.format = _RDF_FORMATS[fmt.name]
        self.first = True
        if self.format == RdfFormat.RDF_XML:
            empty = serialize([], format=RdfFormat.RDF_XML)
            assert empty is not None
            self._xml_head, _, self._xml_tail = empty.rpartition(b"\n")

    def head(self) -> bytes:
        if self.format == RdfFormat.JSON_LD:
            return b"["
        if self.format == RdfFormat.RDF_XML:
            return self._xml_head + b"\n"
        return b""

    def batch(self, items: Sequence[Any]) -> bytes:
        if not items:
            return b""
        data = serialize(list(items), format=self.format)
        assert data is not None
        if self.format == RdfFormat.JSON_LD:
            body = data.strip()[1:-1]
            if not body:
                return b""
            body = body if self.first else b"," + body
            self.first = False
            return body
        if self.format == RdfFormat.RDF_XML:
            start = len(self._xml_head) + 1
            end = len(data) - len(self._xml_tail)
            if not (data.startswith(self._xml_head) and data.endswith(self._xml_tail)):
                raise RuntimeError("unexpected RDF/XML framing from pyoxigraph")
            return data[start:end]
        return data

    def tail(self) -> bytes:
        if self.format == RdfFormat.JSON_LD:
            return b"]\n"
        if self.format == RdfFormat.RDF_XML:
            return self._xml_tail + b"\n"
        return b""


def writer_for(fmt: ResultFormat, kind: str, variables: Sequence[str] = (), boolean: bool | None = None
               ) -> ResultWriter:
    """The writer of a ``kind`` result (select, ask, graph) in ``fmt`` (one :func:`negotiate` returned)."""
    if kind == "ask":
        return _Boolean(fmt, bool(boolean))
    if kind == "graph":
        return _Graph(fmt)
    writers: dict[str, type[_JsonSelect | _XmlSelect | _CsvSelect | _TsvSelect]] = {
        "json": _JsonSelect, "xml": _XmlSelect, "csv": _CsvSelect, "tsv": _TsvSelect,
    }
    return writers[fmt.name](variables)


__all__ = ["FORMATS", "ResultFormat", "ResultWriter", "negotiate", "offered_types", "writer_for"]
