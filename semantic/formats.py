"""Reading RDF documents: format resolution, decompression, size limits, atomic parsing with precise errors.

Every load parses the whole document before anything is written, so a syntax error on line
90,000 leaves the store untouched; the error names the format, line and column. gzip, bzip2 and xz
input (found by magic bytes; ``.gz``/``.bz2``/``.xz`` files must match) is decompressed as a stream
while it is parsed, and the size limit counts the decompressed bytes, so a compression bomb stops at
the limit.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import os
import threading
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, BinaryIO, Protocol

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

#: Compressed-file extensions -> the codec they promise.
COMPRESSION_SUFFIXES: dict[str, str] = {"gz": "gzip", "bz2": "bzip2", "xz": "xz"}

#: Errors a decompressor raises on corrupt or truncated input.
_CODEC_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError)

#: Bytes read ahead to recognise a compressed stream.
_MAGIC_LEN = 10

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
        if suffixes and suffixes[-1] in COMPRESSION_SUFFIXES:
            suffixes = suffixes[:-1]  # lubm10.nt.gz is N-Triples
        if suffixes and suffixes[-1] in FORMAT_NAMES:
            return FORMAT_NAMES[suffixes[-1]]
        raise UnsupportedFormat(
            f"cannot tell the RDF format of {str(filename)!r} from its extension; "
            f"pass a format (accepted: {accepted_formats()})"
        )
    raise UnsupportedFormat(f"no RDF format given; accepted formats: {accepted_formats()}")


class _Readable(Protocol):
    def read(self, size: int = ..., /) -> bytes: ...


class ReadStopped(Exception):
    """A reader's ``stop`` event was set: its reader gave up because another part of the same work failed (that
    failure is the one to report)."""


def too_large(label: str, size: int, max_bytes: int) -> InputTooLarge:
    """The error for a document of ``size`` bytes over the ``max_bytes`` limit."""
    return InputTooLarge(
        f"{label} is {size:,} bytes, above the configured limit of {max_bytes:,} bytes; "
        "raise the limit (store.max_input_bytes) or split the file"
    )


class LimitedReader(io.RawIOBase):
    """A binary reader over ``head`` then ``raw``: counts bytes, enforces ``limit``, reports progress.

    Over a decompressor (``codec`` set), a corrupt or truncated stream becomes :class:`InvalidInput`. Once ``stop``
    is set, the next read raises :class:`ReadStopped`.
    """

    def __init__(
        self, raw: _Readable, name: str, *, head: bytes = b"", limit: int | None = None,
        on_read: Callable[[int], None] | None = None, codec: str | None = None, stop: threading.Event | None = None,
    ) -> None:
        self._raw = raw
        self._name = name
        self._stop = stop
        self._head = head
        self._limit = limit
        self._on_read = on_read
        self._codec = codec
        self.seen = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        if self._stop is not None and self._stop.is_set():
            raise ReadStopped(self._name)
        if self._head:
            data, self._head = self._head[: len(buffer)], self._head[len(buffer) :]
        else:
            try:
                data = self._raw.read(len(buffer))
            except _CODEC_ERRORS as e:
                if self._codec is None:
                    raise
                raise InvalidInput(
                    f"{self._name} is not a valid {self._codec} stream ({e}): the file is truncated or corrupt; "
                    "nothing was stored"
                ) from e
        n = len(data)
        self.seen += n
        if self._limit is not None and self.seen > self._limit:
            grows = "decompresses to more than" if self._codec else "is larger than"
            raise InputTooLarge(
                f"{self._name} {grows} the configured limit of {self._limit:,} bytes; "
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
            raise InvalidInput(f"{source} is a directory, not an RDF file; name the files in it")
        try:
            return open(source, "rb"), source.stat().st_size, True  # noqa: SIM115 - closed by caller
        except OSError as e:
            hint = "; check its permissions" if isinstance(e, PermissionError) else ""
            raise InvalidInput(f"cannot read {source}: {e.strerror or e}{hint}") from e
    return source, None, False


def _read_head(stream: IO[bytes]) -> bytes:
    head = b""
    while len(head) < _MAGIC_LEN:
        block = stream.read(_MAGIC_LEN - len(head))
        if not block:
            break
        head += block
    return head


def sniff_compression(head: bytes) -> str | None:
    """The codec (``gzip``, ``bzip2``, ``xz``) whose magic bytes start ``head``, else None."""
    if head.startswith(b"\x1f\x8b"):
        return "gzip"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "xz"
    # "BZh" + block size 1-9 + the magic of a first block (pi) or of an empty stream's end (sqrt(pi))
    if len(head) >= 10 and head[:3] == b"BZh" and head[3] in b"123456789" and head[4:10] in (
        b"\x31\x41\x59\x26\x53\x59", b"\x17\x72\x45\x38\x50\x90"
    ):
        return "bzip2"
    return None


def _compression(head: bytes, source: Source) -> str | None:
    found = sniff_compression(head)
    if isinstance(source, Path):
        promised = COMPRESSION_SUFFIXES.get(source.suffix.lstrip(".").lower())
        if promised is not None and promised != found:
            actually = f"{found}-compressed" if found else "not compressed"
            raise InvalidInput(
                f"{source} is named like a {promised} file but is {actually}; "
                "the file is corrupt or misnamed, nothing was stored"
            )
    return found


def _decompressor(codec: str, raw: BinaryIO) -> io.BufferedIOBase:
    match codec:
        case "gzip":
            return gzip.GzipFile(fileobj=raw, mode="rb")
        case "bzip2":
            return bz2.BZ2File(raw)
        case _:
            return lzma.LZMAFile(raw)


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

    gzip, bzip2 and xz input is decompressed while it is parsed; ``max_bytes`` limits the
    decompressed size and ``on_read`` sees the bytes read from ``source``.
    Raises :class:`ParseError` (format, line, column), :class:`InputTooLarge` or
    :class:`InvalidInput`, naming the file; never returns a partial result.
    """
    name = str(source) if isinstance(source, Path) else None
    with open_document(source, max_bytes=max_bytes, on_read=on_read) as reader:
        quads = _parse_quads(reader, fmt, graph, base_iri, name)
        seen = reader.raw.seen  # type: ignore[attr-defined]
    return ParsedDocument(quads=quads, format=fmt, bytes_read=seen)


@contextlib.contextmanager
def open_document(
    source: Source, *, max_bytes: int = DEFAULT_MAX_BYTES, on_read: Callable[[int], None] | None = None
) -> Iterator[io.BufferedReader]:
    """The document's bytes, decompressed (gzip, bzip2, xz) and limited to ``max_bytes`` as :func:`parse_document`
    reads them (:class:`InputTooLarge` when the limit is passed); ``.raw.seen`` is the decompressed size read."""
    label = str(source) if isinstance(source, Path) else "input"
    stream, size, owned = _open(source)
    try:
        try:
            head = _read_head(stream)
        except OSError as e:
            raise InvalidInput(f"cannot read {label}: {e.strerror or e}") from e
        codec = _compression(head, source)
        if codec is None and size is not None and size > max_bytes:
            raise too_large(label, size, max_bytes)
        if codec is None:
            reader = LimitedReader(stream, label, head=head, limit=max_bytes, on_read=on_read)
        else:
            compressed = LimitedReader(stream, label, head=head, on_read=on_read)
            decompressed = _decompressor(codec, io.BufferedReader(compressed, buffer_size=1 << 16))
            reader = LimitedReader(decompressed, label, limit=max_bytes, codec=codec)
        yield io.BufferedReader(reader, buffer_size=1 << 20)
    finally:
        if owned:
            stream.close()


def _parse_quads(
    stream: IO[bytes], fmt: RdfFormat, graph: NamedNode | BlankNode | DefaultGraph, base_iri: str | None,
    name: str | None,
) -> list[Quad]:
    where = f" (in {name})" if name else ""
    label = _format_label(fmt)
    quads: list[Quad] = []
    append = quads.append
    try:
        for q in parse(stream, format=fmt, base_iri=base_iri):
            if isinstance(q.graph_name, DefaultGraph):
                append(Quad(q.subject, q.predicate, q.object, graph))
            else:
                append(q)
    except SyntaxError as e:
        raise ParseError(label, e.lineno, e.offset, f"{e.msg}{where}") from e
    except UnicodeDecodeError as e:
        raise ParseError(label, None, None, f"input is not valid UTF-8 ({e.reason}){where}") from e
    except ValueError as e:
        raise ParseError(label, None, None, f"{e}{where}") from e
    except OSError as e:
        raise InvalidInput(f"cannot read {name or 'the input'}: {e.strerror or e}") from e
    return quads


def serialize_triples(quads: Iterator[Quad] | list[Quad], fmt: RdfFormat) -> bytes:
    """Serialise quads: as triples for triple formats, as quads for N-Quads/TriG."""
    if fmt in (RdfFormat.N_QUADS, RdfFormat.TRIG):
        out = serialize(quads, format=fmt)
    else:
        out = serialize((q.triple for q in quads), format=fmt)
    assert out is not None
    return out
