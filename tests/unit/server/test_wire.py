"""The Sparql stream's hand-written wire codec (hybridkg.proto.wire) against the protobuf runtime itself."""

from __future__ import annotations

import random

import pytest
from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from hybridkg.proto import wire
from hybridkg.proto.hybridkg.v1 import knowledge_pb2 as pb
from hybridkg.proto.hybridkg.v1 import rdf_pb2

XSD = "http://www.w3.org/2001/XMLSchema#"


def _reference_term(value: object) -> rdf_pb2.Term:
    """What the protobuf runtime makes of a term (the codec must match it byte for byte)."""
    out = rdf_pb2.Term()
    if isinstance(value, NamedNode):
        out.iri = value.value
    elif isinstance(value, BlankNode):
        out.blank_node = value.value
    elif isinstance(value, Literal):
        out.literal.value = value.value
        out.literal.datatype = value.datatype.value
        if value.language:
            out.literal.language = value.language
    elif isinstance(value, Triple):
        out.triple.subject.CopyFrom(_reference_term(value.subject))
        out.triple.predicate.CopyFrom(_reference_term(value.predicate))
        out.triple.object.CopyFrom(_reference_term(value.object))
    return out


def _reference(kind: str, variables: list[str], boolean: bool | None, items: list[object]) -> bytes:
    msg = pb.SparqlResponse(kind=wire.KINDS[kind], variables=variables)
    if boolean is not None:
        msg.boolean = boolean
    for item in items:
        if kind == "graph":
            assert isinstance(item, Triple)
            msg.rows.add().triple.CopyFrom(_reference_term(item).triple)
        else:
            assert isinstance(item, tuple)
            msg.rows.add().values.extend([_reference_term(v) for v in item])
    return msg.SerializeToString()


def _random_term(rng: random.Random, depth: int = 0) -> object:
    text = "".join(rng.choice("aé\t\n\"<>\\ z€𝄞0") for _ in range(rng.choice([0, 1, 5, 130, 20000])))
    pick = rng.randrange(6 if depth == 0 else 5)
    if pick == 0:
        return NamedNode(f"http://example.org/{rng.randrange(10**6)}/{'x' * rng.choice([1, 200, 17000])}")
    if pick == 1:
        return BlankNode(f"b{rng.randrange(1000)}")
    if pick == 2:
        return Literal(text)
    if pick == 3:
        return Literal(text, language=rng.choice(["en", "de-CH", "fr"]))
    if pick == 4:
        return Literal(str(rng.randrange(-10**9, 10**9)), datatype=NamedNode(XSD + "integer"))
    return Triple(NamedNode("http://example.org/s"), NamedNode("http://example.org/p"), _random_term(rng, 1))  # type: ignore[arg-type]


def test_select_rows_are_byte_for_byte_what_protobuf_writes_and_read_back() -> None:
    rng = random.Random(7)
    rows = [tuple(_random_term(rng) if rng.random() > 0.2 else None for _ in range(3)) for _ in range(300)]
    rows += rows[:50]  # repeated rows: encoded from the cache the second time
    encoder = wire.SparqlEncoder("select", ["a", "b", "c"])
    ours = encoder.header() + b"".join(encoder.rows(rows))
    assert ours == _reference("select", ["a", "b", "c"], None, rows)  # type: ignore[arg-type]
    decoded = wire.SparqlDecoder()(ours)
    assert decoded.kind == pb.QUERY_KIND_SELECT
    assert decoded.variables == ["a", "b", "c"]
    assert decoded.rows == rows


def test_graph_rows_and_ask() -> None:
    rng = random.Random(8)
    triples = [Triple(BlankNode("s") if i % 3 else NamedNode(f"http://e/{i}"), NamedNode("http://e/p"),
                      _random_term(rng)) for i in range(100)]  # type: ignore[arg-type]
    encoder = wire.SparqlEncoder("graph")
    ours = encoder.header() + b"".join(encoder.rows(triples))
    assert ours == _reference("graph", [], None, triples)  # type: ignore[arg-type]
    assert wire.SparqlDecoder()(ours).rows == triples
    for value in (True, False):
        ask = wire.SparqlEncoder("ask", (), value).header()
        assert ask == _reference("ask", [], value, [])
        assert wire.SparqlDecoder()(ask).boolean is value


def test_decoder_reads_any_valid_encoding() -> None:
    """Fields out of number order, unknown fields and a later header field are all read as protobuf reads them."""
    row = pb.Row(values=[rdf_pb2.Term(iri="http://e/x"), rdf_pb2.Term()])
    msg = pb.SparqlResponse(rows=[row]).SerializeToString()
    msg += pb.SparqlResponse(kind=pb.QUERY_KIND_SELECT, variables=["x", "y"]).SerializeToString()
    msg += b"\x98\x06\x01" + b"\xa2\x06\x03abc"  # unknown fields 99 (varint) and 100 (bytes)
    body = b"\x12\x0bhttp://e/dt\x0a\x02hi"  # datatype before the lexical form
    literal_reordered = b"\x1a" + bytes([len(body)]) + body
    msg += b"\x22" + bytes([len(literal_reordered) + 2]) + b"\x0a" + bytes([len(literal_reordered)]) + literal_reordered
    decoded = wire.SparqlDecoder()(msg)
    assert decoded.variables == ["x", "y"]
    assert decoded.rows == [(NamedNode("http://e/x"), None), (Literal("hi", datatype=NamedNode("http://e/dt")),)]


@pytest.mark.parametrize("data", [
    b"\x22\x05\x0a\x03\x0a",            # a row longer than the message
    b"\x22\x02\x0a\x05",                # a value longer than its row
    b"\x22\x03\x0a\x01\xff",            # not a Term
    b"\x12\x02\xff\xfe",                # a variable name that is not UTF-8
    b"\x0f",                            # wire type 7
])
def test_malformed_bytes_are_refused(data: bytes) -> None:
    with pytest.raises(wire.MalformedMessage):
        wire.SparqlDecoder()(data)


def test_lengths_beyond_two_byte_varints() -> None:
    big = Literal("x" * 70_000, language="en")
    encoder = wire.SparqlEncoder("select", ["v"])
    ours = encoder.header() + b"".join(encoder.rows([(big,)]))
    assert ours == _reference("select", ["v"], None, [(big,)])
    assert wire.SparqlDecoder()(ours).rows == [(big,)]
