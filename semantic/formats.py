"""Reading RDF documents: format resolution, size limits, atomic parsing with precise errors.

Every load parses the whole document before anything is written, so a syntax error on line
90,000 leaves the store untouched; the error names the format, line and column.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, BinaryIO

from pyoxigraph import BlankNode, DefaultGraph, NamedNode, Quad, RdfFormat, parse, serialize

from hybridkg.errors import InputTooLarge, InvalidInput, ParseError, UnsupportedFormat
from hybridkg.semantic.settings import DEFAULT_MAX_BYTES

#: Accepted format names (and file extensions) -> pyoxigraph format.
FORMAT_NAMES: dict[str, RdfFormat] = {
    "turtle": RdfFormat.TURTLE,
    "ttl": RdfFormat.TURTLE,
    "ntriples": RdfFormat.N_TRIPLES,
    "n-triples": RdfFormat.N_TRIPLES,
    "nt": RdfFormat.N_TRIPLES,
    "nquads": RdfFormat.N_QUADS,
    "n-quads": RdfFormat.N_QUADS,
    "nq": RdfFormat.N_QUADS,
    "trig": RdfFormat.TRIG,
    "rdfxml": RdfFormat.RDF_XML,
    "rdf/xml": RdfFormat.RDF_XML,
    "xml": RdfFormat.RDF_XML,
    "rdf": RdfFormat.RDF_XML,
    "owl": RdfFormat.RDF_XML,
    "jsonld": RdfFormat.JSON_LD,
    "json-ld": RdfFormat.JSON_LD,
}

#: Default maximum input size: 1 GiB.

Source = bytes | str | Path | BinaryIO


def accepted_formats() -> str:
    return ", ".join(sorted(FORMAT_NAMES))


def resolve_format(name: str | None, filename: str | os.PathLike[str] | None = None) -> RdfFormat:
    """Pick the RDF format from an explicit name, else from the file extension."""
    if name:
        fmt = FORMAT_NAMES.get(name.strip().lower())
        if fmt is None:
            raise UnsupportedFormat(f"unknown RDF format {name!r}; accepted formats: {accepted_formats()}")
        return fmt
    if filename is not None:
        suffixes = [s.lstrip(".").lower() for s in Path(filename).suffixes]
        if suffixes and suffixes[-1] == "gz":
            suffixes = suffixes[:-1]
        if suffixes and suffixes[-1] in FORMAT_NAMES:
            return FORMAT_NAMES[suffixes[-1]]
        raise UnsupportedFormat(
            f"cannot tell the RDF format of {str(filename)!r} from its extension; "
            f"pass a format (accepted: {accepted_formats()})"
        )
    raise UnsupportedFormat(f"no RDF format given; accepted formats: {accepted_formats()}")


class _LimitedReader(io.RawIOBase):
    """A binary reader that counts bytes, enforces a size limit and reports progress."""

    def __init__(self, raw: IO[bytes], limit: int, on_read: Callable[[int], None] | None) -> None:
        self._raw = raw
        self._limit = limit
        self._seen = 0
        self._on_read = on_read

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self._raw.read(len(buffer))
        n = len(data)
        self._seen += n
        if self._seen > self._limit:
            raise InputTooLarge(
                f"input is larger than the configured limit of {self._limit:,} bytes; "
                "raise the limit (store.max_input_bytes) or split the file"
            )
        buffer[:n] = data
        if self._on_read is not None and n:
            self._on_read(n)
        return n


@dataclass(frozen=True)
class ParsedDocument:
    quads: list[Quad]
    format: RdfFormat
    bytes_read: int


def _format_label(fmt: RdfFormat) -> str:
    return fmt.name


def _open(source: Source) -> tuple[IO[bytes], int | None, bool]:
    """Returns (stream, size if known, whether we own the stream)."""
    if isinstance(source, bytes):
        return io.BytesIO(source), len(source), True
    if isinstance(source, str):
        data = source.encode("utf-8")
        return io.BytesIO(data), len(data), True
    if isinstance(source, Path):
        if not source.exists():
            raise InvalidInput(f"no such file: {source}")
        if source.is_dir():
            raise InvalidInput(f"{source} is a directory, not an RDF file")
        return open(source, "rb"), source.stat().st_size, True  # noqa: SIM115 - closed by caller
    return source, None, False


def parse_document(
    source: Source,
    fmt: RdfFormat,
    graph: NamedNode | BlankNode | DefaultGraph,
    *,
    max_bytes: int = DEFAULT_MAX_BYTES,
    base_iri: str | None = None,
    on_read: Callable[[int], None] | None = None,
) -> ParsedDocument:
    """Parse a whole document into quads; triples in the document's default graph go to ``graph``.

    Raises :class:`ParseError` (format, line, column), :class:`InputTooLarge` or
    :class:`InvalidInput`; never returns a partial result.
    """
    stream, size, owned = _open(source)
    if size is not None and size > max_bytes:
        if owned:
            stream.close()
        raise InputTooLarge(
            f"input is {size:,} bytes, above the configured limit of {max_bytes:,} bytes; "
            "raise the limit (store.max_input_bytes) or split the file"
        )
    reader = _LimitedReader(stream, max_bytes, on_read)
    buffered = io.BufferedReader(reader, buffer_size=1 << 20)
    quads: list[Quad] = []
    append = quads.append
    try:
        for q in parse(buffered, format=fmt, base_iri=base_iri):
            if isinstance(q.graph_name, DefaultGraph):
                append(Quad(q.subject, q.predicate, q.object, graph))
            else:
                append(q)
    except SyntaxError as e:
        raise ParseError(_format_label(fmt), e.lineno, e.offset, e.msg) from e
    except UnicodeDecodeError as e:
        raise ParseError(_format_label(fmt), None, None, f"input is not valid UTF-8 ({e.reason})") from e
    except ValueError as e:
        raise ParseError(_format_label(fmt), None, None, str(e)) from e
    except OSError as e:
        # pyoxigraph wraps errors raised by the reader (size limit) in OSError
        cause = e.__context__ or e.__cause__
        if isinstance(cause, InputTooLarge):
            raise cause from None
        if isinstance(e.__cause__, InputTooLarge):
            raise e.__cause__ from None
        if "larger than the configured limit" in str(e):
            raise InputTooLarge(str(e)) from e
        raise ParseError(_format_label(fmt), None, None, str(e)) from e
    finally:
        if owned:
            stream.close()
    return ParsedDocument(quads=quads, format=fmt, bytes_read=reader._seen)


def serialize_triples(quads: Iterator[Quad] | list[Quad], fmt: RdfFormat) -> bytes:
    """Serialise quads: as triples for triple formats, as quads for N-Quads/TriG."""
    if fmt in (RdfFormat.N_QUADS, RdfFormat.TRIG):
        out = serialize(quads, format=fmt)
    else:
        out = serialize((q.triple for q in quads), format=fmt)
    assert out is not None
    return out
