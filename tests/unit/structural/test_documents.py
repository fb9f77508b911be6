"""Preparing documents: formats, decoding, conversion, normalisation, and every way input can be bad."""

from __future__ import annotations

import codecs
import hashlib

import pytest

from hybridkg.errors import InputTooLarge, InvalidInput, UnsupportedFormat
from hybridkg.structural.ingest.documents import prepare_document

LIMIT = 1_000_000


def prep(data: bytes | str, fmt: str | None = None, name: str | None = "doc.txt", max_bytes: int = LIMIT):  # noqa: ANN201
    return prepare_document(data, fmt=fmt, name=name, max_bytes=max_bytes)


def test_plain_text() -> None:
    doc = prep(b"Aspirin relieves pain.\n")
    assert (doc.text, doc.format, doc.title) == ("Aspirin relieves pain.", "text", None)
    assert doc.hash == hashlib.sha256(b"Aspirin relieves pain.").hexdigest()


def test_the_same_content_hashes_the_same() -> None:
    text = "Line one.  \r\nLine two.\r\n\r\n\r\n\r\nLine three.\n"
    variants = [
        text,
        text.encode("utf-8"),
        codecs.BOM_UTF8 + text.encode("utf-8"),
        text.replace("\r\n", "\n"),
        codecs.BOM_UTF16_LE + text.encode("utf-16-le"),
        codecs.BOM_UTF16_BE + text.encode("utf-16-be"),
    ]
    docs = [prep(v) for v in variants]
    assert {d.hash for d in docs} == {docs[0].hash}
    assert docs[0].text == "Line one.\nLine two.\n\nLine three."


def test_unicode_is_nfc_normalised() -> None:
    assert prep("Cafe\u0301").text == "Café"


@pytest.mark.parametrize("data", [b"", b"   \n\t ", "", "  \n ", codecs.BOM_UTF8, "\ufeff\n"])
def test_empty(data: bytes | str) -> None:
    with pytest.raises(InvalidInput, match="document 'doc.txt' is empty"):
        prep(data)


def test_markup_without_text_is_empty() -> None:
    with pytest.raises(InvalidInput, match=r"is empty \(no text left after removing the html markup\)"):
        prep("<html><head><script>alert(1)</script></head><body>  </body></html>", name="a.html")


def test_unnamed_documents_are_still_named_in_errors() -> None:
    with pytest.raises(InvalidInput, match="the document is empty"):
        prep(b"", name=None)


def test_nul_bytes_look_binary() -> None:
    with pytest.raises(InvalidInput, match=r"looks binary \(NUL byte at offset 3\)"):
        prep(b"PK\x03\x00\x14\x00 some zip")


def test_utf16_without_bom_looks_binary_and_says_why() -> None:
    with pytest.raises(InvalidInput, match="UTF-16 needs a byte-order mark"):
        prep("Hello world".encode("utf-16-le"))


def test_many_control_characters_look_binary() -> None:
    with pytest.raises(InvalidInput, match=r"looks binary \(\d+ control characters"):
        prep(bytes(range(1, 32)) * 20 + b"text")
    with pytest.raises(InvalidInput, match=r"looks binary \(\d+ control bytes"):
        prep(bytes(range(1, 9)) * 40 + b"\xff\xfe\xfa" * 10)


def test_mis_encoded_bytes_name_the_offset_and_the_fix() -> None:
    with pytest.raises(InvalidInput, match=r"not valid UTF-8: byte 0xe9 at byte offset 3") as info:
        prep("Café au lait".encode("latin-1"))
    assert "re-encode it as UTF-8" in str(info.value)


def test_a_bom_that_lies() -> None:
    with pytest.raises(InvalidInput, match="UTF-16-LE"):
        prep(codecs.BOM_UTF16_LE + "\ud800".encode("utf-16-le", "surrogatepass"))


def test_too_large() -> None:
    with pytest.raises(InputTooLarge, match=r"is 2,000 bytes; the limit is 1,000 bytes") as info:
        prep(b"a" * 2000, max_bytes=1000)
    assert "max_document_bytes" in str(info.value)
    with pytest.raises(InputTooLarge, match="is 1,200 bytes"):
        prep("é" * 600, max_bytes=1000)
    assert prep("é" * 400, max_bytes=1000).text == "é" * 400


def test_unknown_format_lists_the_accepted_ones() -> None:
    with pytest.raises(UnsupportedFormat, match="text, markdown, html"):
        prep("hello", fmt="docx")


def test_binary_file_types_are_refused_by_name() -> None:
    with pytest.raises(UnsupportedFormat, match=r"\.pdf file"):
        prep(b"%PDF-1.7 ...", name="paper.pdf")


@pytest.mark.parametrize(
    ("fmt", "name", "data", "expected"),
    [
        ("markdown", "x.txt", "# Title\n\nBody", "markdown"),
        ("MD", None, "# Title", "markdown"),
        ("text/html", None, "<p>x</p>", "html"),
        ("txt", "x.html", "<p>x</p>", "text"),
        (None, "notes.md", "Just text", "markdown"),
        (None, "page.HTM", "<p>x</p>", "html"),
        (None, None, "<!DOCTYPE html><html><body><p>x</p></body></html>", "html"),
        (None, "data.csv", "# Heading\n\n- item\n- item two\n", "markdown"),
        (None, None, "Plain prose, nothing else. # not a heading", "text"),
    ],
)
def test_format_by_name_then_extension_then_content(
    fmt: str | None, name: str | None, data: str, expected: str
) -> None:
    assert prep(data, fmt=fmt, name=name).format == expected


HTML = """<!DOCTYPE html>
<html><head><title>Aspirin  &amp; Pain</title><meta charset="utf-8">
<style>p { color: red }</style><script>var x = "<p>not text</p>";</script></head>
<body><nav>Home</nav><h1>Aspirin</h1><p>Aspirin   relieves
<b>pain</b> &lt;and&gt; fever&nbsp;fast.</p>
<ul><li>Dose: 500 mg</li><li>Class: NSAID</li></ul>
<table><tr><th>Drug</th><th>Use</th></tr><tr><td>Aspirin</td><td>pain</td></tr></table>
<pre>keep   this
  indented</pre><div>one<br>two</div><noscript>enable js</noscript></body></html>"""


def test_html_to_text() -> None:
    doc = prep(HTML, name="a.html")
    assert doc.title == "Aspirin & Pain"
    assert doc.text == (
        "Home\n\nAspirin\n\nAspirin relieves pain <and> fever fast.\n\nDose: 500 mg\nClass: NSAID\n\n"
        "Drug | Use\nAspirin | pain\n\nkeep   this\n  indented\n\none\ntwo"
    )
    for hidden in ("not text", "color", "enable js"):
        assert hidden not in doc.text


def test_html_title_falls_back_to_the_first_h1() -> None:
    assert prep("<h1>Main <i>heading</i></h1><p>x</p><h1>Other</h1>", fmt="html").title == "Main heading"


MARKDOWN = """---
title: Front title
---
# Aspirin *basics*

**Aspirin** is an [NSAID](https://en.wikipedia.org/wiki/NSAID "NSAIDs") used for `pain_relief`.
![a white pill](pill.png) See <https://example.org> &amp; the [docs][1].

* relieves __pain__
1. lowers ~~temperature~~ fever

> Quoted advice.

| Drug | Dose |
|------|-----:|
| Aspirin | 500 mg |

```python
def dose(weight):  # *not* emphasis
    return weight * 10
```
Setext heading
--------------
[1]: https://example.org/docs
snake_case_name stays.
"""


def test_markdown_to_text() -> None:
    doc = prep(MARKDOWN, name="aspirin.md")
    assert doc.title == "Aspirin basics"
    assert doc.text == (
        "Aspirin basics\n\nAspirin is an NSAID used for pain_relief. "  # a soft line break is a space
        "a white pill See https://example.org & the docs.\n\n"
        "relieves pain\nlowers temperature fever\n\nQuoted advice.\n\n"
        "Drug | Dose\nAspirin | 500 mg\n\n"
        "def dose(weight):  # *not* emphasis\n    return weight * 10\n\n"
        "Setext heading\n\nsnake_case_name stays."
    )


def test_markdown_soft_breaks_join_and_list_items_and_hard_breaks_stay_lines() -> None:
    text = prep(
        "Brackwater Mills renewed for three years and asked for\nquarterly reviews with the account team.\n\n"
        "- first item that is long enough to\n  wrap onto a second line\n- second item\n\n"
        "Signed by Ada Voss  \nTreasurer\\\nHalden Foods",
        fmt="markdown",
    ).text
    assert text == (
        "Brackwater Mills renewed for three years and asked for quarterly reviews with the account team.\n\n"
        "first item that is long enough to wrap onto a second line\nsecond item\n\n"
        "Signed by Ada Voss\nTreasurer\nHalden Foods"
    )


def test_markdown_table_keeps_empty_cells_in_their_columns() -> None:
    text = prep("| Contact | Role | Mood |\n|---|---|---|\n| Ada Voss | | calm |", fmt="markdown").text
    assert text == "Contact | Role | Mood\nAda Voss |  | calm"


def test_markdown_title_from_front_matter_when_there_is_no_heading() -> None:
    assert prep("---\ntitle: 'Only front'\n---\nBody text.", fmt="markdown").title == "Only front"
