"""Stage 4: a reading -> SPARQL text, built from terms (pyoxigraph ``str()``), never from the question's text.

Queries run over the default graph, which the knowledge base makes the union of every graph: asserted
and inferred triples alike.
"""

from __future__ import annotations

from pyoxigraph import NamedNode, Variable

from hybridkg.semantic.qa.plan import Pattern, Reading
from hybridkg.semantic.qa.schema import OWL_SAME_AS

SELECT = "SELECT DISTINCT %(vars)s WHERE {\n%(body)s\n}"
ASK = "ASK {\n%(body)s\n}"
# individuals known to be owl:sameAs count once: each answer is keyed by the smallest IRI it is the same as
COUNT = (
    "SELECT (COUNT(DISTINCT ?key) AS ?count) WHERE {\n  { SELECT %(target)s (MIN(STR(?alias)) AS ?key) WHERE {\n"
    "%(body)s\n  %(target)s %(same)s? ?alias\n  } GROUP BY %(target)s }\n}"
)
COUNT_LITERALS = "SELECT (COUNT(DISTINCT %(target)s) AS ?count) WHERE {\n%(body)s\n}"


def term(t: str) -> str:
    """A pattern position as SPARQL: ``?name`` -> a variable, anything else -> an IRI."""
    return str(Variable(t[1:])) if t.startswith("?") else str(NamedNode(t))


def body(patterns: tuple[Pattern, ...]) -> str:
    return "\n".join(f"  {term(s)} {term(p)} {term(o)} ." for s, p, o in patterns)


def variables(reading: Reading) -> list[str]:
    seen: dict[str, None] = {}
    if reading.target:
        seen[reading.target] = None
    for s, _, o in reading.patterns:
        for t in (s, o):
            if t.startswith("?"):
                seen[t] = None
    return list(seen)


def select(reading: Reading) -> str:
    vs = variables(reading)
    return SELECT % {"vars": " ".join(term(v) for v in vs) or "*", "body": body(reading.patterns)}


def ask(reading: Reading) -> str:
    return ASK % {"body": body(reading.patterns)}


def count(reading: Reading) -> str:
    assert reading.target is not None
    if reading.literal:
        return COUNT_LITERALS % {"target": term(reading.target), "body": body(reading.patterns)}
    return COUNT % {"target": term(reading.target), "body": body(reading.patterns), "same": term(OWL_SAME_AS)}
