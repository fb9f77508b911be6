"""Reading RDF: every format from a file, bytes or a stream; precise, atomic errors."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from pyoxigraph import DefaultGraph, NamedNode, Quad, RdfFormat, Triple, serialize

from hybridkg.errors import InputTooLarge, ParseError, UnsupportedFormat
from hybridkg.semantic.formats import parse_document, resolve_format

EX = "http://example.org/"
G = NamedNode(EX + "g")
TRIPLES = [
    Triple(NamedNode(EX + "a"), NamedNode(EX + "p"), NamedNode(EX + "b")),
    Triple(NamedNode(EX + "b"), NamedNode(EX + "p"), NamedNode(EX + "c")),
]


@pytest.mark.parametrize(
    ("fmt", "ext"),
    [
        (RdfFormat.TURTLE, "ttl"),
        (RdfFormat.N_TRIPLES, "nt"),
        (RdfFormat.RDF_XML, "rdf"),
        (RdfFormat.JSON_LD, "jsonld"),
        (RdfFormat.N_QUADS, "nq"),
        (RdfFormat.TRIG, "trig"),
    ],
)
def test_every_format_from_file_bytes_and_stream(tmp_path: Path, fmt: RdfFormat, ext: str) -> None:
    if fmt in (RdfFormat.N_QUADS, RdfFormat.TRIG):
        data = serialize([Quad(t.subject, t.predicate, t.object, DefaultGraph()) for t in TRIPLES], format=fmt)
    else:
        data = serialize(TRIPLES, format=fmt)
    assert data is not None
    path = tmp_path / f"doc.{ext}"
    path.write_bytes(data)
    assert resolve_format(None, path) == fmt
    for source in (path, data, io.BytesIO(data)):
        doc = parse_document(source, fmt, G)
        assert {q.triple for q in doc.quads} == set(TRIPLES)
        assert all(q.graph_name == G for q in doc.quads)


def test_quad_formats_keep_their_named_graphs() -> None:
    trig = f"<{EX}a> <{EX}p> <{EX}b> . <{EX}other> {{ <{EX}x> <{EX}p> <{EX}y> }}".encode()
    doc = parse_document(trig, RdfFormat.TRIG, G)
    assert {q.graph_name.value for q in doc.quads} == {G.value, EX + "other"}


def test_error_on_line_90000_names_format_line_and_column() -> None:
    good = f"<{EX}a> <{EX}p> <{EX}b> .\n".encode() * 89_999
    bad = good + f'<{EX}a> <{EX}p> "unterminated .\n'.encode()
    with pytest.raises(ParseError) as info:
        parse_document(bad, RdfFormat.N_TRIPLES, G)
    err = info.value
    assert err.format == "N-Triples"
    assert err.line == 90_000
    assert err.column is not None
    assert "line 90000" in str(err)


def test_unknown_format_lists_accepted_ones() -> None:
    with pytest.raises(UnsupportedFormat, match="accepted formats: .*turtle"):
        resolve_format("yaml")
    with pytest.raises(UnsupportedFormat, match="accepted"):
        resolve_format(None, "data.csv")


def test_oversized_input_rejected_for_files_bytes_and_streams(tmp_path: Path) -> None:
    data = f"<{EX}a> <{EX}p> <{EX}b> .\n".encode() * 1000
    path = tmp_path / "big.nt"
    path.write_bytes(data)
    for source in (path, data):
        with pytest.raises(InputTooLarge, match="limit of 1,000 bytes"):
            parse_document(source, RdfFormat.N_TRIPLES, G, max_bytes=1000)
    with pytest.raises(InputTooLarge):
        parse_document(io.BytesIO(data), RdfFormat.N_TRIPLES, G, max_bytes=5000)


def test_mis_encoded_input_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="Turtle"):
        parse_document(b"<http://a> <http://b> \"\xff\xfe\" .", RdfFormat.TURTLE, G)
