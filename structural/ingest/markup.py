"""HTML and Markdown to plain text, keeping block structure as line breaks, and the document's title.

HTML (stdlib ``html.parser``): ``<script>``, ``<style>``, ``<head>`` and friends are dropped, block elements
become line breaks (paragraph-like ones a blank line), table cells are joined with `` | ``, entities are
unescaped, ``<pre>`` keeps its whitespace; the title is ``<title>``, else the first ``<h1>``.

Markdown (line-based, no dependency): heading markers, emphasis, links (their text stays), images (their alt
text stays), list and quote markers, rules and table separators go; fenced and indented code stays as text;
table rows become cells joined with `` | `` (empty cells kept, so columns line up); a paragraph's or list
item's soft line breaks become spaces (a hard break -- two trailing spaces or a backslash -- and each list item
start a line); the title is the first heading (else a front-matter ``title:``).
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

_SKIP = frozenset({"script", "style", "noscript", "template", "svg", "math", "iframe", "object", "canvas"})
_PARAGRAPH = frozenset(
    {
        "p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "table", "ul", "ol", "dl", "section", "article",
        "header", "footer", "figure", "hr", "main", "aside", "nav", "form", "fieldset", "details", "address"
    }
)
_LINE = frozenset(
    {
        "div", "li", "dt", "dd", "tr", "caption", "figcaption", "summary", "legend", "body", "html", "center", "tbody",
        "thead", "tfoot"
    }
)
_CELL = frozenset({"td", "th"})
_SPACE = re.compile(r"\s+")


class _HtmlText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title_parts: list[str] = []
        self.h1_parts: list[str] = []
        self.skip = 0
        self.pre = 0
        self.in_head = False
        self.in_title = False
        self.h1_state = 0  # 0: none seen, 1: inside the first <h1>, 2: done
        self.cells = 0
        self.line_start = True

    def _newlines(self, n: int) -> None:
        have = 0
        for part in reversed(self.parts):
            stripped = part.rstrip(" ")
            have += len(stripped) - len(stripped.rstrip("\n"))
            if stripped.strip("\n"):
                break
        if self.parts and have < n:
            self.parts.append("\n" * (n - have))
        self.line_start = True

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self.skip += 1
        elif tag == "head":
            self.in_head = True
        elif tag == "body":
            self.in_head = False
        elif tag == "title":
            self.in_title = True
        elif tag == "br":
            self._newlines(1)
        elif tag == "pre":
            self.pre += 1
        if tag == "h1" and self.h1_state == 0:
            self.h1_state = 1
        if tag == "tr":
            self.cells = 0
        if tag in _CELL:
            if self.cells:
                self.parts.append(" | ")
                self.line_start = False
            self.cells += 1
        elif tag in _PARAGRAPH:
            self._newlines(2)
        elif tag in _LINE:
            self._newlines(1)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            return
        self.handle_starttag(tag, attrs)
        if tag not in ("br", "hr"):
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag == "head":
            self.in_head = False
        elif tag == "title":
            self.in_title = False
        elif tag == "pre":
            self.pre = max(0, self.pre - 1)
        if tag == "h1" and self.h1_state == 1:
            self.h1_state = 2
        if tag in _PARAGRAPH:
            self._newlines(2)
        elif tag in _LINE:
            self._newlines(1)

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.in_title:
            self.title_parts.append(data)
            return
        if self.in_head:
            return
        if self.h1_state == 1:
            self.h1_parts.append(data)
        if self.pre:
            self.parts.append(data)
            self.line_start = data.endswith("\n")
            return
        text = _SPACE.sub(" ", data)
        if self.line_start:
            text = text.lstrip(" ")
        if text:
            self.parts.append(text)
            self.line_start = False


def html_to_text(source: str) -> tuple[str, str | None]:
    """The visible text of an HTML document and its title (``None`` when it has neither title nor ``<h1>``)."""
    parser = _HtmlText()
    try:
        parser.feed(source)
        parser.close()
    except AssertionError:
        return html.unescape(re.sub(r"<[^>]*>", " ", source)), None
    title = " ".join("".join(parser.title_parts).split()) or " ".join("".join(parser.h1_parts).split())
    return "".join(parser.parts), title or None


_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^\s{0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_RULE = re.compile(r"^\s{0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)+\|?\s*$|^\s*\|\s*:?-+:?\s*\|\s*$")
_REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*\S+")
_QUOTE = re.compile(r"^\s{0,3}(>\s?)+")
_LIST = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?")
_HARD_BREAK = re.compile(r"(?:  +|\\)$")
_FRONT_TITLE = re.compile(r"^title:\s*(.+?)\s*$", re.I)
_CODE_SPAN = re.compile(r"(`+)([^\n]+?)\1")
_INLINE = (
    ("![", re.compile(r"!\[([^\]]*)\]\((?:[^()]|\([^()]*\))*\)"), r"\1"),
    ("](", re.compile(r"\[([^\]]+)\]\((?:[^()]|\([^()]*\))*\)"), r"\1"),
    ("][", re.compile(r"\[([^\]]+)\]\[[^\]]*\]"), r"\1"),
    ("<", re.compile(r"<((?:https?|ftp)://[^>\s]+|[^>@\s]+@[^>\s]+)>"), r"\1"),
    ("<", re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>"), ""),
    ("**", re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*"), r"\1"),
    ("__", re.compile(r"__(?=\S)(.+?)(?<=\S)__"), r"\1"),
    ("~~", re.compile(r"~~(?=\S)(.+?)(?<=\S)~~"), r"\1"),
    ("*", re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])"), r"\1"),
    ("_", re.compile(r"(?<![\w_])_(?=[^\s_])([^_\n]+?)(?<=[^\s_])_(?![\w_])"), r"\1"),
    ("\\", re.compile(r"\\([\\`*_{}\[\]()#+\-.!|>~<])"), r"\1"),
)


def _inline(text: str) -> str:
    """Markdown inline syntax to plain text; code spans keep their content verbatim."""
    if "`" not in text:
        return _inline_plain(text)
    out: list[str] = []
    pos = 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_inline_plain(text[pos : m.start()]))
        out.append(m.group(2).strip() if m.group(2).strip() else m.group(2))
        pos = m.end()
    out.append(_inline_plain(text[pos:]))
    return "".join(out)


def _inline_plain(text: str) -> str:
    for trigger, pattern, repl in _INLINE:
        if trigger in text:
            text = pattern.sub(repl, text)
    return html.unescape(text) if "&" in text else text


def _table_row(line: str) -> str:
    body = line.strip()
    body = body.removeprefix("|")
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", body)]
    return " | ".join(_inline(c) for c in cells)  # empty cells stay, so a row's cells keep their columns


def _front_matter(lines: list[str]) -> tuple[int, str | None]:
    """Lines a leading YAML front matter block spans, and its ``title:``."""
    if not lines or lines[0].strip() != "---":
        return 0, None
    for i in range(1, min(len(lines), 200)):
        if lines[i].strip() in ("---", "..."):
            title = None
            for line in lines[1:i]:
                m = _FRONT_TITLE.match(line)
                if m:
                    title = m.group(1).strip("'\"") or None
                    break
            return i + 1, title
    return 0, None


def markdown_to_text(source: str) -> tuple[str, str | None]:
    """The text of a Markdown document without its syntax, and its title (first heading)."""
    lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    start, front_title = _front_matter(lines)
    out: list[str] = []
    prose: list[str] = []
    title: str | None = None
    fence: str | None = None

    def emit(*texts: str) -> None:
        if prose:
            out.append(_inline("".join(prose).strip()))
            prose.clear()
        out.extend(texts)

    hard_break = False
    i = start
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        i += 1
        if fence is not None:
            stripped = line.strip()
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                fence = None
                emit("")
            else:
                emit(line)
            continue
        m = _FENCE.match(line)
        if m:
            fence = m.group(1)
            emit("")
            continue
        quoted = _QUOTE.match(line) is not None
        line = _QUOTE.sub("", line)
        m = _ATX.match(line)
        if m:
            text = _inline(m.group(2) or "")
            title = title or text.strip() or None
            emit("", text, "")
            continue
        if line.strip() and not quoted and _SETEXT.match(nxt) and not _LIST.match(line) and "|" not in line:
            text = _inline(line.strip())
            title = title or text or None
            emit("", text, "")
            i += 1
            continue
        if _TABLE_SEP.match(line):
            continue
        if _RULE.match(line) or _REF_DEF.match(line):
            emit("")
            continue
        if "|" in line and (line.lstrip().startswith("|") or _TABLE_SEP.match(nxt)):
            emit(_table_row(line))
            continue
        if not line.strip():
            emit("")
            continue
        item = _LIST.match(line) is not None
        if prose:  # a soft line break inside a paragraph or list item is a space
            prose.append("\n" if item or hard_break else " ")
        hard_break = _HARD_BREAK.search(line) is not None
        prose.append(_HARD_BREAK.sub("", _LIST.sub("", line).strip() if item else line.strip()))
    emit()
    return "\n".join(out), title or front_title
