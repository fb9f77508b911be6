"""Individuals known to be ``owl:sameAs`` appear once in an answer (the closure makes sameAs symmetric and
transitive, so one look-up over the answer's IRIs finds every pair)."""

from __future__ import annotations

from collections.abc import Sequence

from pyoxigraph import NamedNode

from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.server.ask.answer import AnswerItem

SAME_AS_PAIRS = """
PREFIX owl: <http://www.w3.org/2002/07/owl#>
SELECT DISTINCT ?a ?b WHERE {
  VALUES ?a { %(iris)s }
  VALUES ?b { %(iris)s }
  ?a owl:sameAs ?b .
  FILTER(?a != ?b)
}
"""


def _iri(value: str) -> NamedNode | None:
    if ":" not in value:
        return None
    try:
        return NamedNode(value)
    except ValueError:
        return None


def merge_same_as(kb: KnowledgeBase, items: Sequence[AnswerItem]) -> list[AnswerItem]:
    """``items`` with each group of sameAs individuals folded into its first (best-ranked) member, which
    keeps the group's best score; order is otherwise kept."""
    iris = {item.value: node for item in items if (node := _iri(item.value)) is not None}
    if len(iris) < 2:
        return list(items)
    values = " ".join(str(node) for node in iris.values())
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    rank = {item.value: i for i, item in reversed(list(enumerate(items)))}
    for a, b in kb.query(SAME_AS_PAIRS % {"iris": values}).rows:
        if not isinstance(a, NamedNode) or not isinstance(b, NamedNode):
            continue
        ra, rb = find(a.value), find(b.value)
        if ra != rb:
            keep, drop = (ra, rb) if rank[ra] <= rank[rb] else (rb, ra)
            parent[drop] = keep
    out: dict[str, AnswerItem] = {}
    for item in items:
        root = find(item.value)
        prior = out.get(root)
        if prior is None:
            out[root] = item if root == item.value else AnswerItem(root, item.label, item.score)
        elif item.score > prior.score:
            out[root] = AnswerItem(prior.value, prior.label, item.score)
    return list(out.values())
