"""The ``Sparql`` stream's messages written and read directly on the wire, not a protobuf object per row.

A result of thousands of rows costs, through the protobuf runtime, a message object per row and per term on
each side (about 5 µs a row each way in Python), several times what pyoxigraph takes to produce the row. Here
the server writes a ``SparqlResponse`` as bytes, each distinct term encoded once per query, and the client
reads those bytes back into pyoxigraph terms, each distinct term decoded once. The encoding is the one
``knowledge.proto`` defines, byte for byte what the protobuf runtime writes (fields in number order, empty
strings left out), so every gRPC client reads it as an ordinary ``SparqlResponse``; the decoder reads any
valid encoding (fields in any order, unknown fields skipped). Wire format:
https://protobuf.dev/programming-guides/encoding/.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pyoxigraph import (
    BlankNode,
    Literal,
    NamedNode,
    QueryResultsFormat,
    RdfFormat,
    Triple,
    parse,
    parse_query_results,
)

from hybridkg.proto.hybridkg.v1 import knowledge_pb2 as pb
from hybridkg.proto.hybridkg.v1 import rdf_pb2

__all__ = ["Decoded", "MalformedMessage", "SparqlDecoder", "SparqlEncoder", "TextRows", "term_from_message",
           "triple_from_message"]

Term = NamedNode | BlankNode | Literal | Triple

#: ``QueryKind`` numbers by the result kinds of :class:`~hybridkg.semantic.base.QueryStream`.
KINDS = {"select": pb.QUERY_KIND_SELECT, "ask": pb.QUERY_KIND_ASK, "graph": pb.QUERY_KIND_GRAPH}

#: Distinct terms remembered per query on each side; past this, new terms are encoded/decoded each time.
CACHE_TERMS = 200_000

_VARINTS = [bytes([n]) if n < 0x80 else bytes([(n & 0x7F) | 0x80, n >> 7]) for n in range(1 << 14)]

# field keys (number << 3 | wire type 2), as single bytes
_ROWS = b"\x22"          # SparqlResponse.rows = 4
_VALUE = b"\x0a"         # Row.values = 1
_ROW_TRIPLE = b"\x12"    # Row.triple = 2
_IRI, _BNODE, _LITERAL, _QUOTED = b"\x0a", b"\x12", b"\x1a", b"\x22"  # Term oneof 1..4
_LEX, _DATATYPE, _LANG = b"\x0a", b"\x12", b"\x1a"                   # Literal 1..3
_S, _P, _O = b"\x0a", b"\x12", b"\x1a"                               # Triple 1..3


class MalformedMessage(ValueError):
    """Bytes that are not a valid ``SparqlResponse``."""


def varint(n: int) -> bytes:
    if n < 16384:
        return _VARINTS[n]
    out = bytearray()
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _field(key: bytes, payload: bytes) -> bytes:
    return key + varint(len(payload)) + payload


def term_bytes(value: Term) -> bytes:
    """A pyoxigraph term as an encoded ``Term`` message."""
    if type(value) is NamedNode:
        iri = value.value.encode()
        return _IRI + varint(len(iri)) + iri
    if isinstance(value, NamedNode):
        return _field(_IRI, value.value.encode())
    if isinstance(value, BlankNode):
        return _field(_BNODE, value.value.encode())
    if isinstance(value, Literal):
        lexical = value.value.encode()
        body = _field(_LEX, lexical) if lexical else b""
        body += _field(_DATATYPE, value.datatype.value.encode())
        if value.language:
            body += _field(_LANG, value.language.encode())
        return _field(_LITERAL, body)
    if isinstance(value, Triple):
        return _field(_QUOTED, triple_bytes(value))
    raise TypeError(f"not an RDF term: {type(value).__name__}")


def triple_bytes(value: Triple, terms: dict[Any, bytes] | None = None) -> bytes:
    """A triple as an encoded ``Triple`` message (``terms``: a cache of encoded terms to use and fill)."""
    if terms is None:
        return (_field(_S, term_bytes(value.subject)) + _field(_P, term_bytes(value.predicate))
                + _field(_O, term_bytes(value.object)))
    parts = []
    for key, t in ((_S, value.subject), (_P, value.predicate), (_O, value.object)):
        encoded = terms.get(t)
        if encoded is None:
            encoded = term_bytes(t)
            if len(terms) < CACHE_TERMS:
                terms[t] = encoded
        parts.append(_field(key, encoded))
    return b"".join(parts)


class SparqlEncoder:
    """Encodes one query's ``SparqlResponse`` messages; one per query (it remembers the terms it has seen)."""

    def __init__(self, kind: str, variables: Sequence[str] = (), boolean: bool | None = None) -> None:
        self.kind = kind
        self.variables = tuple(variables)
        self.boolean = boolean
        self._values: dict[Any, bytes] = {None: _VALUE + b"\x00"}  # a term -> its Row.values field
        self._terms: dict[Any, bytes] = {}  # a term -> its Term message (inside quoted/graph triples)

    def header(self) -> bytes:
        """The fields only the first message carries: kind, variables, ASK's boolean."""
        msg = pb.SparqlResponse(kind=KINDS[self.kind], variables=self.variables)
        if self.boolean is not None:
            msg.boolean = self.boolean
        return msg.SerializeToString()

    def _value(self, term: Any) -> bytes:
        encoded = _field(_VALUE, term_bytes(term))
        if len(self._values) < CACHE_TERMS:
            self._values[term] = encoded
        return encoded

    def rows(self, items: Sequence[Any]) -> list[bytes]:
        """Each item (a SELECT row: a tuple of terms or None; a CONSTRUCT/DESCRIBE triple) as an encoded
        ``rows`` field; concatenated after a header (or alone) they make a message."""
        out = []
        if self.kind == "graph":
            for t in items:
                body = _field(_ROW_TRIPLE, triple_bytes(t, self._terms))
                out.append(_ROWS + varint(len(body)) + body)
            return out
        get, miss = self._values.get, self._value
        for row in items:
            body = b"".join([get(v) or miss(v) for v in row])
            out.append(_ROWS + varint(len(body)) + body)
        return out


# ------------------------------------------------------------------------------------------------ reading


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    b = buf[i]
    if b < 0x80:
        return b, i + 1
    result, shift = 0, 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, i
        shift += 7
        if shift > 63:
            raise MalformedMessage("a varint longer than 10 bytes")


def _skip(buf: bytes, i: int, wire_type: int) -> int:
    if wire_type == 0:
        return _varint(buf, i)[1]
    if wire_type == 1:
        return i + 8
    if wire_type == 2:
        length, i = _varint(buf, i)
        return i + length
    if wire_type == 5:
        return i + 4
    raise MalformedMessage(f"unsupported wire type {wire_type}")


def term_from_message(msg: rdf_pb2.Term) -> Term | None:
    """A ``Term`` message as a pyoxigraph term (None for an unbound variable)."""
    kind = msg.WhichOneof("kind")
    if kind == "iri":
        return NamedNode(msg.iri)
    if kind == "blank_node":
        return BlankNode(msg.blank_node)
    if kind == "literal":
        lit = msg.literal
        if lit.language:
            return Literal(lit.value, language=lit.language)
        return Literal(lit.value, datatype=NamedNode(lit.datatype) if lit.datatype else None)
    if kind == "triple":
        return triple_from_message(msg.triple)
    return None


def triple_from_message(msg: rdf_pb2.Triple) -> Triple:
    s, p, o = term_from_message(msg.subject), term_from_message(msg.predicate), term_from_message(msg.object)
    if not isinstance(p, NamedNode) or s is None or isinstance(s, Literal) or o is None:
        raise MalformedMessage(f"a malformed triple: {msg}")
    return Triple(s, p, o)


_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"


def _simple_term(data: bytes, datatypes: dict[bytes, NamedNode]) -> Term | None:
    """An IRI, blank node or literal Term as the encoder writes it (fields in number order, nothing else),
    read without the protobuf runtime; None for anything else (the caller reads it with the runtime).
    ``datatypes``: datatype IRIs already made, by their bytes."""
    key = data[0]
    length, i = _varint(data, 1)
    if i + length != len(data):
        return None
    if key == 0x0A:
        return NamedNode(data[i:].decode())
    if key == 0x12:
        return BlankNode(data[i:].decode())
    if key != 0x1A:
        return None
    end = len(data)
    lexical, datatype, language = b"", b"", b""
    while i < end:
        field_key = data[i]
        length, j = _varint(data, i + 1)
        if field_key == 0x0A and not datatype and not language:
            lexical = data[j:j + length]
        elif field_key == 0x12 and not language:
            datatype = data[j:j + length]
        elif field_key == 0x1A:
            language = data[j:j + length]
        else:
            return None
        i = j + length
    if i != end:
        return None
    if language:
        return Literal(lexical.decode(), language=language.decode())
    dt = datatypes.get(datatype)
    if dt is None:
        if not datatype:
            return None
        dt = datatypes[datatype] = NamedNode(datatype.decode())
    return Literal(lexical.decode(), datatype=dt)


@dataclass
class Decoded:
    """One ``SparqlResponse``: ``rows`` holds tuples of terms (SELECT) or triples (CONSTRUCT/DESCRIBE)."""

    kind: int = 0
    variables: list[str] = field(default_factory=list)
    boolean: bool | None = None
    rows: list[Any] = field(default_factory=list)
    text: bytes = b""


class SparqlDecoder:
    """Reads one query's ``SparqlResponse`` messages (call it on each message's bytes); one per query. Rows come
    back as terms; ``text`` (encoding TEXT) as the bytes it holds: :class:`TextRows` reads those."""

    def __init__(self) -> None:
        self._terms: dict[bytes, Any] = {b"": None}
        self._datatypes: dict[bytes, NamedNode] = {}

    def _term(self, data: bytes) -> Any:
        try:
            value = _simple_term(data, self._datatypes)
        except (IndexError, ValueError):  # e.g. bad UTF-8 or an invalid IRI: let the runtime say what is wrong
            value = None
        if value is None:
            try:
                value = term_from_message(rdf_pb2.Term.FromString(data))
            except Exception as e:  # noqa: BLE001 - any failure here means the bytes are not a Term
                raise MalformedMessage(f"not a Term message: {e}") from e
        if len(self._terms) < CACHE_TERMS:
            self._terms[data] = value
        return value

    def _row(self, buf: bytes, i: int, end: int) -> Any:
        values: list[Any] = []
        terms, missing = self._terms, self._term
        triple: Triple | None = None
        while i < end:
            key = buf[i]
            if key == 0x0A:  # values
                length = buf[i + 1]
                if length < 0x80:
                    i += 2
                else:
                    length, i = _varint(buf, i + 1)
                data = buf[i:i + length]
                value = terms.get(data, terms)
                values.append(missing(data) if value is terms else value)
                i += length
                continue
            key, i = _varint(buf, i)
            if key == 0x12:  # triple
                length, i = _varint(buf, i)
                try:
                    triple = triple_from_message(rdf_pb2.Triple.FromString(buf[i:i + length]))
                except MalformedMessage:
                    raise
                except Exception as e:  # noqa: BLE001
                    raise MalformedMessage(f"not a Triple message: {e}") from e
                i += length
            else:
                i = _skip(buf, i, key & 7)
        if i != end:
            raise MalformedMessage("a Row runs past its length")
        return triple if triple is not None and not values else tuple(values)

    def __call__(self, data: bytes) -> Decoded:
        out = Decoded()
        rows = out.rows
        terms, missing = self._terms, self._term
        i, end = 0, len(data)
        try:
            while i < end:
                if data[i] == 0x22:  # a row: read inline while it holds only values (what SELECT sends)
                    length = data[i + 1]
                    if length < 0x80:
                        i += 2
                    else:
                        length, i = _varint(data, i + 1)
                    stop = i + length
                    values = []
                    j = i
                    while j < stop and data[j] == 0x0A:
                        n = data[j + 1]
                        if n < 0x80:
                            j += 2
                        else:
                            n, j = _varint(data, j + 1)
                        piece = data[j:j + n]
                        value = terms.get(piece, terms)
                        values.append(missing(piece) if value is terms else value)
                        j += n
                    rows.append(tuple(values) if j == stop else self._row(data, i, stop))
                    i = stop
                    continue
                key, i = _varint(data, i)
                number, wire_type = key >> 3, key & 7
                if number == 4 and wire_type == 2:
                    length, i = _varint(data, i)
                    rows.append(self._row(data, i, i + length))
                    i += length
                elif number == 1 and wire_type == 0:
                    out.kind, i = _varint(data, i)
                elif number == 2 and wire_type == 2:
                    length, i = _varint(data, i)
                    out.variables.append(data[i:i + length].decode())
                    i += length
                elif number == 3 and wire_type == 0:
                    flag, i = _varint(data, i)
                    out.boolean = bool(flag)
                elif number == 5 and wire_type == 2:
                    length, i = _varint(data, i)
                    out.text += data[i:i + length]
                    i += length
                else:
                    i = _skip(data, i, wire_type)
        except (IndexError, UnicodeDecodeError) as e:
            raise MalformedMessage(f"a truncated or malformed SparqlResponse: {e}") from e
        if i != end:
            raise MalformedMessage("a truncated SparqlResponse")
        return out



class TextRows:
    """Reads the ``text`` of one query's messages (encoding TEXT) with pyoxigraph's own parsers: TSV lines as
    tuples of terms, N-Triples lines as triples."""

    def __init__(self, kind: int) -> None:
        self.kind = kind
        self._header: bytes | None = None

    def __call__(self, text: bytes) -> list[Any]:
        try:
            if self.kind == pb.QUERY_KIND_GRAPH:
                return [quad.triple for quad in parse(text, format=RdfFormat.N_TRIPLES)]
            if self._header is None:
                end = text.index(b"\n") + 1
                self._header, text = text[:end], text[end:]
            if not text:
                return []
            solutions = parse_query_results(self._header + text, format=QueryResultsFormat.TSV)
            return [tuple(solution) for solution in solutions]  # type: ignore[union-attr]
        except (SyntaxError, ValueError) as e:
            raise MalformedMessage(f"malformed result lines: {e}") from e
