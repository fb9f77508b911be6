"""SPARQL's regular expressions (XPath's, SPARQL 1.1 §17.4.3.14) as FalkorDB's (``string.matchRegEx``), on a safe
subset: what could match differently is refused."""

from __future__ import annotations

from hybridkg.errors import Unsupported

_META = set("\\.^$*+?()|[]{}-")


def translate_regex(pattern: str, flags: str) -> str:
    """An XPath regular expression (SPARQL 1.1 §17.4.3.14) as an equivalent one for FalkorDB, or Unsupported."""
    if flags not in ("", "i"):
        raise Unsupported(f"regex flags {flags!r} (only 'i' is translated)")
    if flags and not pattern.isascii():
        raise Unsupported("a case-insensitive regex with non-ASCII characters")
    out, i, in_class = [], 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            nxt = pattern[i + 1 : i + 2]
            if nxt not in _META:
                raise Unsupported(f"the regex escape \\{nxt}")
            out.append("\\" + nxt)
            i += 2
            continue
        if in_class:
            if c == "]":
                in_class = False
            elif c == "[":
                raise Unsupported("a nested regex character class")
            out.append(c)
        elif c == "[":
            in_class = True
            out.append(c)
        elif c == ".":
            out.append("[^\\n\\r]")
        elif c == "$":
            out.append("\\z")
        elif c == "(" and pattern[i + 1 : i + 2] == "?":
            raise Unsupported("a regex group with (?")
        else:
            out.append(c)
        i += 1
    return ("(?i)" if flags else "") + "".join(out)
