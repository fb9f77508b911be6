"""Parse and format single triples in N-Triples syntax (the CLI's and explanations' wire form)."""

from __future__ import annotations

from pyoxigraph import RdfFormat, Triple, parse

from hybridkg.errors import InvalidInput


def parse_triple(text: str) -> Triple:
    """Parse one N-Triples statement such as ``'<s> <p> <o> .'`` (the final dot is optional)."""
    stripped = text.strip()
    if not stripped.endswith("."):
        stripped += " ."
    try:
        quads = list(parse(stripped.encode(), format=RdfFormat.N_TRIPLES))
    except SyntaxError as e:
        raise InvalidInput(f"not an N-Triples statement: {text!r} ({e.msg})") from e
    if len(quads) != 1:
        raise InvalidInput(f"expected exactly one N-Triples statement, got {len(quads)}: {text!r}")
    q = quads[0]
    return Triple(q.subject, q.predicate, q.object)


def format_triple(triple: Triple) -> str:
    return f"{triple} ."
