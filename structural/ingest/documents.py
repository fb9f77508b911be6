"""Turn an uploaded document (bytes or str) into clean text: decode, check, convert markup, normalise, hash.

Formats: plain text, Markdown and HTML, chosen by the explicit ``fmt``, else by the extension of ``name``,
else sniffed from the content. Bytes are read as UTF-8 (a UTF-8 BOM is skipped; UTF-16/UTF-32 need their
BOM). Everything that is wrong with the input is reported before anything is stored: empty, binary,
mis-encoded, too large, unknown format.

The returned text is normalised (NFC, ``\\n`` line ends, no trailing spaces, at most one blank line in a
row), and ``hash`` is the SHA-256 of that text: the same content uploaded again, as bytes or str, with
other line ends or a BOM, hashes the same.
"""

from __future__ import annotations

import codecs
import hashlib
import re
import unicodedata
from dataclasses import dataclass
from pathlib import PurePath

from hybridkg.errors import InputTooLarge, InvalidInput, UnsupportedFormat
from hybridkg.structural.ingest.markup import html_to_text, markdown_to_text

TEXT, MARKDOWN, HTML = "text", "markdown", "html"
FORMATS = (TEXT, MARKDOWN, HTML)

_FORMAT_NAMES = {
    "text": TEXT, "txt": TEXT, "plain": TEXT, "text/plain": TEXT,
    "markdown": MARKDOWN, "md": MARKDOWN, "text/markdown": MARKDOWN,
    "html": HTML, "htm": HTML, "xhtml": HTML, "text/html": HTML, "application/xhtml+xml": HTML,
}
_EXTENSIONS = {
    ".txt": TEXT, ".text": TEXT,
    ".md": MARKDOWN, ".markdown": MARKDOWN, ".mdown": MARKDOWN, ".mkd": MARKDOWN, ".mkdn": MARKDOWN,
    ".html": HTML, ".htm": HTML, ".xhtml": HTML,
}
_BINARY_EXTENSIONS = frozenset(
    {
        ".pdf", ".doc", ".docx", ".odt", ".rtf", ".xls", ".xlsx", ".ods", ".ppt", ".pptx", ".odp", ".epub", ".zip",
        ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".tar", ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".tif", ".tiff",
        ".webp", ".mp3", ".mp4", ".wav", ".avi", ".mov", ".exe", ".dll", ".so", ".bin", ".parquet"
    }
)
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_SNIFF_CHARS = 65_536
_BINARY_SHARE = 0.10
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_HTML_SNIFF = re.compile(r"^\s*(<!doctype\s+html|<html[\s>]|<\?xml[^>]*>\s*<html)", re.I)
_HTML_TAGS = re.compile(r"<(p|div|body|head|title|h[1-6]|br|span|a\s|table|ul|ol|li|meta|script)[\s/>]", re.I)
_MD_SIGNALS = (
    re.compile(r"^#{1,6}\s+\S", re.M),
    re.compile(r"^(```|~~~)", re.M),
    re.compile(r"\[[^\]\n]+\]\([^)\s]+[^)]*\)"),
    re.compile(r"^\s*[-*+]\s+\S", re.M),
    re.compile(r"(\*\*|__)\S[^\n]*?\S\1"),
    re.compile(r"^\|?[\s:]*-{3,}[\s:]*\|", re.M),
    re.compile(r"^\S[^\n]*\n(=+|-+)\s*$", re.M),
)


@dataclass(frozen=True, slots=True)
class PreparedDocument:
    """A document ready for chunking: normalised ``text``, the ``format`` it was read as, SHA-256 ``hash`` of
    the text, and its ``title`` (``<title>``/first ``<h1>``, first Markdown heading; ``None`` for plain text)."""

    text: str
    format: str
    hash: str
    title: str | None


def _label(name: str | None) -> str:
    return f"document {name!r}" if name else "the document"


def resolve_format(fmt: str | None, name: str | None) -> str | None:
    """The format ``fmt`` names, else the one ``name``'s extension implies; ``None`` means: sniff the content."""
    if fmt is not None and fmt.strip():
        key = fmt.strip().lower().split(";")[0].strip().lstrip(".")
        if key in _FORMAT_NAMES:
            return _FORMAT_NAMES[key]
        raise UnsupportedFormat(
            f"document format {fmt!r} is not supported; accepted formats: {', '.join(FORMATS)} "
            "(or leave it out to go by the file name and content)"
        )
    if name:
        suffix = PurePath(name).suffix.lower()
        if suffix in _EXTENSIONS:
            return _EXTENSIONS[suffix]
        if suffix in _BINARY_EXTENSIONS:
            raise UnsupportedFormat(
                f"{_label(name)} is a {suffix} file, which hybridkg cannot read; accepted formats: "
                f"{', '.join(FORMATS)} (convert it to text, Markdown or HTML first)"
            )
    return None


def sniff_format(text: str) -> str:
    """HTML when it starts like an HTML page or is dense with HTML tags, Markdown on two Markdown signals, else text."""
    head = text[:_SNIFF_CHARS]
    if _HTML_SNIFF.match(head) or len(_HTML_TAGS.findall(head)) >= 3:
        return HTML
    signals = sum(1 for pattern in _MD_SIGNALS if pattern.search(head))
    return MARKDOWN if signals >= 2 else TEXT


def _check_size(size: int, max_bytes: int, name: str | None) -> None:
    if size > max_bytes:
        raise InputTooLarge(
            f"{_label(name)} is {size:,} bytes; the limit is {max_bytes:,} bytes "
            "(structural.chunking.max_document_bytes); split the document or raise the limit"
        )


def _check_controls(text: str, name: str | None) -> None:
    nul = text.find("\x00", 0, _SNIFF_CHARS * 16)
    if nul >= 0:
        raise InvalidInput(
            f"{_label(name)} looks binary (NUL character at offset {nul}); hybridkg reads UTF-8 text, Markdown "
            "and HTML (UTF-16 needs a byte-order mark)"
        )
    head = text[:_SNIFF_CHARS]
    controls = len(_CONTROL.findall(head))
    if head and controls / len(head) > _BINARY_SHARE:
        raise InvalidInput(
            f"{_label(name)} looks binary ({controls} control characters in the first {len(head)} characters); "
            "hybridkg reads UTF-8 text, Markdown and HTML"
        )


def decode(data: bytes, name: str | None) -> str:
    """Bytes to str: UTF-8 (BOM optional), or UTF-16/UTF-32 with a BOM; binary and mis-encoded input is refused."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(encoding)
            except UnicodeDecodeError as e:
                raise InvalidInput(
                    f"{_label(name)} starts with a {encoding.upper()} byte-order mark but is not valid "
                    f"{encoding.upper()} at byte offset {e.start + len(bom)}; re-encode it as UTF-8"
                ) from e
    nul = data.find(b"\x00", 0, _SNIFF_CHARS * 16)
    if nul >= 0:
        raise InvalidInput(
            f"{_label(name)} looks binary (NUL byte at offset {nul}); hybridkg reads UTF-8 text, Markdown and "
            "HTML (UTF-16 needs a byte-order mark)"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        head = data[:_SNIFF_CHARS]
        odd = sum(1 for b in head if (b < 32 and b not in (9, 10, 12, 13)) or b == 127)
        if odd / max(len(head), 1) > _BINARY_SHARE:
            raise InvalidInput(
                f"{_label(name)} looks binary ({odd} control bytes in the first {len(head)} bytes); hybridkg "
                "reads UTF-8 text, Markdown and HTML"
            ) from e
        raise InvalidInput(
            f"{_label(name)} is not valid UTF-8: byte 0x{data[e.start]:02x} at byte offset {e.start} "
            f"({e.reason}); re-encode it as UTF-8, e.g. `iconv -f latin1 -t utf-8`"
        ) from e


_TRAILING_SPACE = re.compile(r"[ \t\u00a0]+$", re.M)
_BLANK_LINES = re.compile(r"\n{3,}")
_STRAY_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def normalise_text(text: str) -> str:
    """NFC, ``\\n`` line ends, form feeds as blank lines, no trailing spaces, at most one blank line in a row."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\u2028", "\n").replace("\u2029", "\n\n")
    text = text.replace("\x0c", "\n\n")
    text = _STRAY_CONTROLS.sub("", text)
    text = unicodedata.normalize("NFC", text)
    text = _TRAILING_SPACE.sub("", text)
    text = _BLANK_LINES.sub("\n\n", text)
    return text.strip("\n").rstrip()


def prepare_document(data: bytes | str, *, fmt: str | None, name: str | None, max_bytes: int) -> PreparedDocument:
    """Check, decode and convert one document; raises :class:`InvalidInput` (or a subclass) on bad input."""
    forced = resolve_format(fmt, name)
    if isinstance(data, bytes | bytearray | memoryview):
        raw = bytes(data)
        _check_size(len(raw), max_bytes, name)
        if not raw.strip():
            raise InvalidInput(f"{_label(name)} is empty")
        text = decode(raw, name)
    elif isinstance(data, str):
        if len(data) * 4 > max_bytes:
            _check_size(len(data.encode("utf-8", "surrogatepass")), max_bytes, name)
        text = data
    else:
        raise InvalidInput(f"{_label(name)} must be bytes or str, not {type(data).__name__}")
    text = text.removeprefix("\ufeff")
    if not text.strip():
        raise InvalidInput(f"{_label(name)} is empty")
    _check_controls(text, name)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InvalidInput(
            f"{_label(name)} contains an unpaired surrogate at character offset {e.start}; re-encode it as UTF-8"
        ) from e

    format_ = forced or sniff_format(text)
    title: str | None = None
    if format_ == HTML:
        text, title = html_to_text(text)
    elif format_ == MARKDOWN:
        text, title = markdown_to_text(text)
    text = normalise_text(text)
    if not text.strip():
        raise InvalidInput(f"{_label(name)} is empty (no text left after removing the {format_} markup)")
    if title is not None:
        title = " ".join(unicodedata.normalize("NFC", title).split()) or None
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return PreparedDocument(text=text, format=format_, hash=digest, title=title)
