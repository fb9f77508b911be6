"""Query entity linking: names and aliases found in the query (normalised, small typos corrected) become seeds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from support.structural_fakes import TableEmbedder, add_entities, add_relations, cos_vector, index_of, unit

from hybridkg.structural.base import ENTITY
from hybridkg.structural.graphstore.memory import InMemoryGraphStore
from hybridkg.structural.retrieval import LinkedEntity, Retriever
from hybridkg.structural.retrieval.linking import NAMES_QUERY, EntityLinker, name_variants, short_forms
from hybridkg.structural.settings import FeedbackConfig, RetrievalConfig

ENTITIES = [
    {"id": "ent:crm:corvid labs", "name": "Corvid Labs", "aliases": ["Corvid"]},
    {"id": "ent:crm:dana reyes", "name": "Dana Reyes"},
    {"id": "ent:crm:ledgerline", "name": "Ledgerline"},
    {"id": "ent:crm:acme, inc.", "name": "Acme, Inc."},
    {"id": "ent:crm:acme group", "name": "The Acme Group"},
    {"id": "ent:crm:payment terminal", "name": "payment terminal"},
    {"id": "ent:crm:company", "name": "company", "named": False},  # a recurring common noun, not a name
    {"id": "ent:crm:halden foods", "name": "Halden Foods"},
    {"id": "ent:crm:halden food", "name": "Halden Food"},
]


@pytest.fixture
def graph() -> InMemoryGraphStore:
    g = InMemoryGraphStore()
    add_entities(g, ENTITIES, domain="crm")
    add_entities(g, [{"id": "ent:med:corvid labs", "name": "Corvid Labs"}], domain="med")
    return g


def linked(linker: EntityLinker | Retriever, query: str, domain: str | None = "crm") -> list[tuple[str, str, bool]]:
    return [(e.id, e.mention, e.fuzzy) for e in linker.link(query, domain)]


def test_names_and_aliases_are_linked_case_insensitively(graph: InMemoryGraphStore) -> None:
    linker = EntityLinker(graph, max_edits=1)
    assert linked(linker, "who is the CTO of corvid labs? ask DANA REYES") == [
        ("ent:crm:corvid labs", "corvid labs", False),
        ("ent:crm:dana reyes", "DANA REYES", False),
    ]
    assert linked(linker, "Corvid's largest customer") == [("ent:crm:corvid labs", "Corvid", False)]


def test_plural_punctuation_and_article_forms_are_normalised(graph: InMemoryGraphStore) -> None:
    linker = EntityLinker(graph, max_edits=0)
    assert linked(linker, "which payment terminals failed") == [
        ("ent:crm:payment terminal", "payment terminals", False)
    ]
    assert linked(linker, "is Acme Inc late") == [("ent:crm:acme, inc.", "Acme Inc", False)]
    assert linked(linker, "who runs Acme Group?") == [("ent:crm:acme group", "Acme Group", False)]
    assert linked(linker, "who runs the Acme-Group") == [("ent:crm:acme group", "the Acme-Group", False)]


def test_variants_follow_normalise_name() -> None:
    assert name_variants("The Acme Group") == ["The Acme Group", "Acme Group"]
    assert name_variants("Acme, Inc.") == ["Acme, Inc.", "Acme Inc"]
    assert name_variants("payment terminals") == ["payment terminals", "payment terminal"]
    assert name_variants("Halden Foods") == ["Halden Foods"]  # a proper name is not singularised


def test_common_noun_phrases_and_other_domains_are_not_linked(graph: InMemoryGraphStore) -> None:
    linker = EntityLinker(graph, max_edits=1)
    assert linked(linker, "which company sells terminals") == []
    assert linked(linker, "Corvid Labs", domain="med") == [("ent:med:corvid labs", "Corvid Labs", False)]
    assert linked(linker, "Corvid Labs", domain="nowhere") == []
    assert {i for i, _, _ in linked(linker, "Corvid Labs", domain=None)} == {
        "ent:crm:corvid labs",
        "ent:med:corvid labs",
    }


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("who built Ledgerlin", [("ent:crm:ledgerline", "Ledgerlin", True)]),  # a deletion
        ("who built ledgrline", [("ent:crm:ledgerline", "ledgrline", True)]),  # a deletion inside
        ("who built Ledgerlien", [("ent:crm:ledgerline", "Ledgerlien", True)]),  # two letters swapped
        ("the CTO of Corvd Labs", [("ent:crm:corvid labs", "Corvd Labs", True)]),  # one word of a longer name
        ("who built Ledgarlime", []),  # two edits
        ("who built Kedgerline", []),  # the first letter differs
    ],
)
def test_small_typos_in_longer_words_are_corrected(
    graph: InMemoryGraphStore, query: str, expected: list[tuple[str, str, bool]]
) -> None:
    assert linked(EntityLinker(graph, max_edits=1), query) == expected


def test_typo_rules_short_words_stop_words_ambiguity_and_off() -> None:
    g = InMemoryGraphStore()
    add_entities(g, [{"id": "ent:x:abcd", "name": "Abcd"}, {"id": "ent:x:about", "name": "Aboutx"}], domain="x")
    add_entities(g, [{"id": "ent:x:halden", "name": "Haldenx"}, {"id": "ent:x:haldeny", "name": "Haldeny"}], domain="x")
    linker = EntityLinker(g, max_edits=1)
    assert linked(linker, "what is Abce", domain="x") == []  # 4 letters: never corrected
    assert linked(linker, "which about it", domain="x") == []  # a stop word
    assert linked(linker, "tell me about Haldenz", domain="x") == []  # Haldenx or Haldeny: ambiguous
    assert linked(EntityLinker(g, max_edits=0), "tell me about Aboutz", domain="x") == []
    assert linked(linker, "tell me about Aboutz", domain="x") == [("ent:x:about", "Aboutz", True)]


def test_an_exact_name_is_never_replaced_by_a_fuzzy_one(graph: InMemoryGraphStore) -> None:
    # "Halden Food" is both an exact name and one edit from "Halden Foods": the exact one wins
    assert linked(EntityLinker(graph, max_edits=1), "orders of Halden Food") == [
        ("ent:crm:halden food", "Halden Food", False)
    ]


def test_names_changed_keeps_the_linker_current(graph: InMemoryGraphStore) -> None:
    linker = EntityLinker(graph, max_edits=1)
    linker.names_changed({"ent:crm:ghost": ["Ghost"]}, [])  # before the first load: nothing to do
    assert linker.load() == 9  # every named entity of both domains
    add_entities(graph, [{"id": "ent:crm:zebulon", "name": "Zebulon Works", "aliases": ["ZW"]}], domain="crm")
    assert linked(linker, "Zebulon Works") == []  # written, not yet announced
    linker.names_changed({"ent:crm:zebulon": ["Zebulon Works", "ZW"]}, [])
    assert linked(linker, "did ZW buy from Zebulon Works") == [("ent:crm:zebulon", "ZW", False)]
    # a rename: the entity's names are replaced, not added to
    linker.names_changed({"ent:crm:ledgerline": ["Quillpay"]}, [])
    assert linked(linker, "Quillpay") == [("ent:crm:ledgerline", "Quillpay", False)]
    assert linked(linker, "is Ledgerline up") == []
    graph.delete(ENTITY, ["ent:crm:dana reyes"])
    linker.names_changed({}, ["ent:crm:dana reyes"])
    assert linked(linker, "Dana Reyes") == []
    assert linked(linker, "Corvid Labs") == [("ent:crm:corvid labs", "Corvid Labs", False)]


class CypherOnly:
    """The graph through the GraphStore protocol alone, answering the linker's one Cypher query (remote stores)."""

    def __init__(self, inner: InMemoryGraphStore) -> None:
        self._inner = inner
        self.upsert_nodes, self.upsert_edges, self.neighbourhood = (
            inner.upsert_nodes,
            inner.upsert_edges,
            inner.neighbourhood,
        )
        self.edges, self.delete, self.close = inner.edges, inner.delete, inner.close
        self.queries: list[str] = []

    def query(self, cypher: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        self.queries.append(cypher)
        assert cypher == NAMES_QUERY
        nodes = self._inner.shared_nodes(ENTITY, self._inner.shared_ids(ENTITY))
        keys = ("name", "aliases", "domain", "named")
        return [{"id": i, **{k: n.props.get(k) for k in keys}} for i, n in nodes.items()]


def test_a_store_without_shared_records_is_read_with_one_query(graph: InMemoryGraphStore) -> None:
    remote = CypherOnly(graph)
    linker = EntityLinker(remote, max_edits=1)  # type: ignore[arg-type]
    assert linked(linker, "Corvid Labs and Ledgerlin") == [
        ("ent:crm:corvid labs", "Corvid Labs", False),
        ("ent:crm:ledgerline", "Ledgerlin", True),
    ]
    linker.link("Dana Reyes", "crm")
    assert remote.queries == [NAMES_QUERY]
    add_entities(graph, [{"id": "ent:crm:new co", "name": "New Co"}], domain="crm")
    linker.names_changed({"ent:crm:new co": ["New Co"]}, [])
    assert linked(linker, "New Co") == [("ent:crm:new co", "New Co", False)]


# --------------------------------------------------------------------------------------------- retrieval


QUERY = "who is the chief technology officer of corvid labs"


@pytest.fixture
def company() -> tuple[InMemoryGraphStore, Any]:
    """Corvid Labs -employs-> Dana Reyes, and generic phrases whose vectors resemble the query more than the
    company's does (the failure the linking fixes): the vector seeds alone never reach the company."""
    g = InMemoryGraphStore()
    names = {"corvid": "Corvid Labs", "dana": "Dana Reyes", "soft": "logistics software", "firm": "technology firm"}
    add_entities(g, [{"id": f"ent:crm:{k}", "name": n} for k, n in names.items()], domain="crm")
    add_entities(g, [{"id": "ent:other:corvid", "name": "Corvid Labs"}], domain="other")
    add_relations(g, [("rel:1", "ent:crm:corvid", "ent:crm:dana", {"type": "employs", "w_struct": 1.0})], domain="crm")
    add_relations(g, [("rel:2", "ent:crm:soft", "ent:crm:firm", {"type": "co_occurs", "w_struct": 0.25})], domain="crm")
    # the company's weight 0.05 / 0.7 is below theta: only being named gets it expanded
    cosines = {"ent:crm:soft": 0.7, "ent:crm:firm": 0.6, "ent:crm:corvid": 0.05, "ent:crm:dana": 0.1}
    vectors = {i: cos_vector({0: c}, free=2 + n) for n, (i, c) in enumerate(cosines.items())}
    vectors["ent:other:corvid"] = cos_vector({0: 0.3}, free=9)
    indexes = (index_of(vectors), index_of({}), index_of({}))

    def retriever(**overrides: Any) -> Retriever:
        config = RetrievalConfig(**{"k": 2, **overrides})
        return Retriever(g, *indexes, TableEmbedder({QUERY: unit(0)}), config, FeedbackConfig())

    return g, retriever


def test_a_linked_entity_is_a_seed_with_its_own_alpha(company: tuple[InMemoryGraphStore, Any]) -> None:
    _, retriever = company
    off = retriever(link_entities=False).retrieve(QUERY, mode="local", domain="crm", top_k=10)
    assert "ent:crm:corvid" not in off.subgraph_nodes
    assert off.linked == []
    on = retriever().retrieve(QUERY, mode="local", domain="crm", top_k=10)
    assert on.linked == [LinkedEntity("ent:crm:corvid", "Corvid Labs", "corvid labs", 39, 50)]
    items = {e.id: e for e in on.items}
    assert items["ent:crm:corvid"].alpha == pytest.approx(0.05, abs=1e-6)
    assert "ent:crm:dana" in items  # reached through the linked company, expanded though its gate is low
    assert items["ent:crm:dana"].alpha == pytest.approx(0.1, abs=1e-6)
    assert on.to_json()["linked"] == [
        {
            "id": "ent:crm:corvid",
            "name": "Corvid Labs",
            "mention": "corvid labs",
            "start": 39,
            "end": 50,
            "fuzzy": False,
        }
    ]


@pytest.mark.parametrize("mode", ["global", "hybrid", "mix"])
def test_linked_entities_seed_every_graph_mode(company: tuple[InMemoryGraphStore, Any], mode: str) -> None:
    _, retriever = company
    result = retriever().retrieve(QUERY, mode=mode, domain="crm", top_k=10)
    assert [e.id for e in result.linked] == ["ent:crm:corvid"]
    assert {"ent:crm:corvid", "ent:crm:dana"} <= set(result.subgraph_nodes)


def test_linking_respects_the_domain(company: tuple[InMemoryGraphStore, Any]) -> None:
    _, retriever = company
    r = retriever()
    assert {e.id for e in r.retrieve(QUERY, mode="local", top_k=10).linked} == {"ent:crm:corvid", "ent:other:corvid"}
    assert [e.id for e in r.retrieve(QUERY, mode="local", domain="other", top_k=10).linked] == ["ent:other:corvid"]
    assert r.retrieve(QUERY, mode="naive", top_k=10).linked == []


def test_the_retriever_follows_names_changed(company: tuple[InMemoryGraphStore, Any]) -> None:
    graph, retriever = company
    r = retriever()
    assert r.retrieve(QUERY, mode="local", domain="crm").linked
    graph.delete(ENTITY, ["ent:crm:corvid"])
    r.names_changed({}, ["ent:crm:corvid"])
    assert r.link(QUERY, "crm") == []
    assert r.retrieve(QUERY, mode="local", domain="crm").linked == []


def test_short_forms_of_proper_names() -> None:
    assert short_forms("Tarn Valley Logistics") == ["Tarn", "Tarn Valley"]
    assert short_forms("Sofia Lindgren") == ["Sofia"]
    assert short_forms("Ridley & Crane Maltings") == ["Ridley"]  # stops at the first non-alphabetic word
    # not a proper name in every word, a stop word or too short a first word, or one word: no short form
    assert short_forms("Head of IT") == []
    assert short_forms("Piet van Aalst") == []
    assert short_forms("payment terminal") == []
    assert short_forms("The Acme Group") == []
    assert short_forms("Bo Lind") == []
    assert short_forms("Ledgerline") == []


def test_a_short_form_links_unless_the_full_name_is_there(graph: InMemoryGraphStore) -> None:
    linker = EntityLinker(graph, max_edits=0)
    assert linked(linker, "who did Dana hire?") == [("ent:crm:dana reyes", "Dana", False)]
    assert linked(linker, "is Dana Reyes at Halden Foods") == [
        ("ent:crm:dana reyes", "Dana Reyes", False),
        ("ent:crm:halden foods", "Halden Foods", False),
    ]
    # a short form two entities share links both ("Halden Foods" and "Halden Food")
    assert {i for i, _, _ in linked(linker, "what did Halden order?")} == {
        "ent:crm:halden foods",
        "ent:crm:halden food",
    }


def test_a_short_form_many_entities_share_links_none() -> None:
    g = InMemoryGraphStore()
    rows = [{"id": f"ent:crm:north {i}", "name": f"North {w}"} for i, w in enumerate(["Star", "Sea", "Gate", "Pier"])]
    add_entities(g, [*rows, {"id": "ent:crm:nordvik", "name": "Nordvik Turbines"}], domain="crm")
    linker = EntityLinker(g, max_edits=0)
    assert linked(linker, "who runs North?") == []  # four entities: a family of names
    assert linked(linker, "who runs North Sea?") == [("ent:crm:north 1", "North Sea", False)]
    assert linked(linker, "who runs Nordvik?") == [("ent:crm:nordvik", "Nordvik", False)]


def test_load_builds_the_automata_so_the_first_query_does_not(graph: InMemoryGraphStore) -> None:
    linker = EntityLinker(graph, max_edits=1)
    linker.load()
    gazetteers = linker._gazetteers.values()
    assert gazetteers
    assert all(not any(g._stale) for g in gazetteers)  # nothing left to rebuild on the first find
