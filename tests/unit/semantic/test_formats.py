"""Reading RDF: every format from a file, bytes or a stream; precise, atomic errors."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tracemalloc
from pathlib import Path

import pytest
from pyoxigraph import DefaultGraph, NamedNode, Quad, RdfFormat, Triple, serialize

from hybridkg.errors import InputTooLarge, InvalidInput, ParseError, UnsupportedFormat
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


COMPRESSORS = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}
NT = b"".join(f"<{EX}s{i}> <{EX}p> <{EX}o{i}> .\n".encode() for i in range(2_000))


@pytest.mark.parametrize("ext", sorted(COMPRESSORS))
def test_compressed_files_round_trip_with_the_format_of_the_inner_extension(tmp_path: Path, ext: str) -> None:
    path = tmp_path / f"doc.nt.{ext}"
    path.write_bytes(COMPRESSORS[ext](NT))
    assert resolve_format(None, path) == RdfFormat.N_TRIPLES
    seen: list[int] = []
    doc = parse_document(path, resolve_format(None, path), G, on_read=seen.append)
    assert len(doc.quads) == 2_000
    assert doc.bytes_read == len(NT), "bytes_read counts the decompressed document"
    assert sum(seen) == path.stat().st_size, "progress counts the bytes read from the file"
    ttl = tmp_path / f"doc.ttl.{ext}"
    ttl.write_bytes(COMPRESSORS[ext](serialize(TRIPLES, format=RdfFormat.TURTLE) or b""))
    assert resolve_format(None, ttl) == RdfFormat.TURTLE
    assert {q.triple for q in parse_document(ttl, RdfFormat.TURTLE, G).quads} == set(TRIPLES)


@pytest.mark.parametrize("ext", sorted(COMPRESSORS))
def test_compression_is_recognised_by_its_magic_bytes(tmp_path: Path, ext: str) -> None:
    packed = COMPRESSORS[ext](NT)
    renamed = tmp_path / "doc"
    renamed.write_bytes(packed)
    assert len(parse_document(renamed, resolve_format("ntriples", renamed), G).quads) == 2_000
    assert len(parse_document(packed, RdfFormat.N_TRIPLES, G).quads) == 2_000
    assert len(parse_document(io.BytesIO(packed), RdfFormat.N_TRIPLES, G).quads) == 2_000


def test_an_explicit_format_wins_over_the_inner_extension(tmp_path: Path) -> None:
    path = tmp_path / "doc.txt.gz"
    path.write_bytes(gzip.compress(NT))
    with pytest.raises(UnsupportedFormat, match="doc.txt.gz"):
        resolve_format(None, path)
    assert resolve_format("nt", path) == RdfFormat.N_TRIPLES
    assert len(parse_document(path, RdfFormat.N_TRIPLES, G).quads) == 2_000


@pytest.mark.parametrize("ext", sorted(COMPRESSORS))
def test_truncated_or_corrupt_stream_names_the_file_and_returns_nothing(tmp_path: Path, ext: str) -> None:
    packed = COMPRESSORS[ext](NT)
    truncated = tmp_path / f"cut.nt.{ext}"
    truncated.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(InvalidInput, match=rf"cut\.nt\.{ext} is not a valid .* stream .*truncated or corrupt"):
        parse_document(truncated, RdfFormat.N_TRIPLES, G)
    corrupt = tmp_path / f"bad.nt.{ext}"
    corrupt.write_bytes(packed[:12] + bytes(b ^ 0x5A for b in packed[12:]))
    with pytest.raises(InvalidInput, match=rf"bad\.nt\.{ext}"):
        parse_document(corrupt, RdfFormat.N_TRIPLES, G)


def test_a_file_named_compressed_that_is_not_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "plain.nt.gz"
    path.write_bytes(NT)
    with pytest.raises(InvalidInput, match="plain.nt.gz is named like a gzip file but is not compressed"):
        parse_document(path, RdfFormat.N_TRIPLES, G)
    path = tmp_path / "other.nt.bz2"
    path.write_bytes(gzip.compress(NT))
    with pytest.raises(InvalidInput, match="named like a bzip2 file but is gzip-compressed"):
        parse_document(path, RdfFormat.N_TRIPLES, G)


def test_syntax_error_inside_a_compressed_file_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.nt.xz"
    path.write_bytes(lzma.compress(NT + f'<{EX}a> <{EX}p> "unterminated .\n'.encode()))
    with pytest.raises(ParseError, match=r"line 2001.*broken\.nt\.xz"):
        parse_document(path, RdfFormat.N_TRIPLES, G)


@pytest.mark.parametrize("ext", sorted(COMPRESSORS))
def test_a_compression_bomb_stops_at_the_limit_on_the_decompressed_size(tmp_path: Path, ext: str) -> None:
    line = f"<{EX}s> <{EX}p> <{EX}o> .\n".encode()
    bomb = COMPRESSORS[ext](line * (1_000_000 // len(line))) * 100  # 100 concatenated streams: 100 MB of N-Triples
    assert len(bomb) < 500_000
    path = tmp_path / f"bomb.nt.{ext}"
    path.write_bytes(bomb)
    tracemalloc.start()
    try:
        with pytest.raises(InputTooLarge, match=r"decompresses to more than the configured limit of 2,000,000 bytes"
                           ) as info:
            parse_document(path, RdfFormat.N_TRIPLES, G, max_bytes=2_000_000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 30_000_000, "the bomb was never decompressed as a whole"
    assert "raise the limit (store.max_input_bytes)" in str(info.value)
    assert f"bomb.nt.{ext}" in str(info.value)
    with pytest.raises(InputTooLarge):
        parse_document(bomb, RdfFormat.N_TRIPLES, G, max_bytes=2_000_000)


def test_unreadable_paths_are_invalid_input(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="no such file"):
        parse_document(tmp_path / "missing.nt", RdfFormat.N_TRIPLES, G)
    with pytest.raises(InvalidInput, match="is a directory"):
        parse_document(tmp_path, RdfFormat.N_TRIPLES, G)
