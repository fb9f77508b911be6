"""Literal <-> property value (docs/bridge.md §1.4): natives, the U+E000 encoding, exact inverse."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pyoxigraph import BaseDirection, DefaultGraph, Literal, NamedNode, Quad, Store

from hybridkg.bridge.mapping import MARK, to_literal, to_value
from hybridkg.bridge.mapping.values import XSD, double_lexical
from hybridkg.errors import InvalidInput

XSD_INTEGER, XSD_DOUBLE, XSD_BOOLEAN = (NamedNode(XSD + t) for t in ("integer", "double", "boolean"))
DATATYPES = [NamedNode(XSD + t) for t in ("string", "integer", "double", "boolean", "decimal", "date", "int")]
DATATYPES.append(NamedNode("https://example.org/dt#custom"))


@pytest.mark.parametrize(
    ("literal", "value"),
    [
        (Literal("Acme"), "Acme"),
        (Literal(""), ""),
        (Literal("42", datatype=XSD_INTEGER), 42),
        (Literal("-7", datatype=XSD_INTEGER), -7),
        (Literal("0", datatype=XSD_INTEGER), 0),
        (Literal("1.5", datatype=XSD_DOUBLE), 1.5),
        (Literal("-0.0000001", datatype=XSD_DOUBLE), -1e-7),
        (Literal("100000000000000000000", datatype=XSD_DOUBLE), 1e20),
        (Literal("0", datatype=XSD_DOUBLE), 0.0),
        (Literal("true", datatype=XSD_BOOLEAN), True),
        (Literal("false", datatype=XSD_BOOLEAN), False),
    ],
)
def test_natives(literal: Literal, value: object) -> None:
    got = to_value(literal)
    assert got == value
    assert type(got) is type(value)
    assert to_literal(got) == literal


@pytest.mark.parametrize(
    ("literal", "encoded"),
    [
        (Literal("hello", language="en"), MARK + "@en hello"),
        (Literal("مرحبا", language="ar", direction=BaseDirection.RTL), MARK + "@ar--rtl مرحبا"),
        (Literal("2.50", datatype=NamedNode(XSD + "decimal")), MARK + "^" + XSD + "decimal 2.50"),
        (Literal("042", datatype=XSD_INTEGER), MARK + "^" + XSD + "integer 042"),
        (Literal("-0", datatype=XSD_INTEGER), MARK + "^" + XSD + "integer -0"),
        (Literal(str(2**63), datatype=XSD_INTEGER), MARK + "^" + XSD + f"integer {2**63}"),
        (Literal("1.5E0", datatype=XSD_DOUBLE), MARK + "^" + XSD + "double 1.5E0"),  # XSD canonical, not the store's
        (Literal("1.50", datatype=XSD_DOUBLE), MARK + "^" + XSD + "double 1.50"),
        (Literal("1e20", datatype=XSD_DOUBLE), MARK + "^" + XSD + "double 1e20"),
        (Literal("NaN", datatype=XSD_DOUBLE), MARK + "^" + XSD + "double NaN"),
        (Literal("INF", datatype=XSD_DOUBLE), MARK + "^" + XSD + "double INF"),
        (Literal("-0", datatype=XSD_DOUBLE), MARK + "^" + XSD + "double -0"),  # -0.0 = 0.0 in Cypher
        (Literal("1", datatype=XSD_BOOLEAN), MARK + "^" + XSD + "boolean 1"),
        (Literal(MARK + "@en x"), MARK + '"' + MARK + "@en x"),
    ],
)
def test_everything_else_is_encoded_and_never_equals_a_plain_string(literal: Literal, encoded: str) -> None:
    value = to_value(literal)
    assert value == encoded
    assert to_literal(value) == literal
    if literal.language is not None or literal.datatype.value != XSD + "string":
        assert value != to_value(Literal(literal.value))  # Cypher `=` with the plain string cannot match it


def test_double_lexical_is_the_stores_form() -> None:
    assert [double_lexical(f) for f in (1.0, 123.0, 0.1, 1e20, -2.5e-8, 0.0, -0.0, float("nan"), float("inf"))] == [
        "1", "123", "0.1", "100000000000000000000", "-0.000000025", "0", "-0", "NaN", "INF",
    ]  # fmt: skip


@pytest.mark.parametrize("lexical", ["1.5E0", "1.5", "1e20", "-1.0E-7", "0.0E0", "12.50", "3"])
def test_a_double_the_store_gives_back_is_a_number(lexical: str) -> None:
    store = Store()
    store.add(Quad(NamedNode("urn:s"), NamedNode("urn:p"), Literal(lexical, datatype=XSD_DOUBLE), DefaultGraph()))
    [quad] = store
    assert isinstance(quad.object, Literal)
    value = to_value(quad.object)
    assert isinstance(value, float)
    assert value == float(lexical)
    assert to_literal(value) == quad.object


@pytest.mark.parametrize("f", [0.1 + 0.2, 1 / 3, 2**60 + 0.0, 123456789.12345679])
def test_a_double_with_more_digits_than_falkordb_replies_with_stays_encoded(f: float) -> None:
    literal = Literal(double_lexical(f), datatype=XSD_DOUBLE)  # the store's own form, but 16-17 digits
    assert float(f"{f:.15g}") != f
    value = to_value(literal)
    assert isinstance(value, str)  # a float would come back from FalkorDB rounded
    assert value.startswith(MARK)
    assert to_literal(value) == literal


@pytest.mark.parametrize("value", [MARK, MARK + "?x", MARK + "@en", MARK + "^nospace", MARK + "@en--up x"])
def test_a_malformed_encoding_is_refused(value: str) -> None:
    with pytest.raises(InvalidInput, match="U\\+E000|direction"):
        to_literal(value)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 2**63])
def test_values_no_literal_maps_to_are_refused(value: float) -> None:
    with pytest.raises(InvalidInput):
        to_literal(value)


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_LEXICALS = st.one_of(
    _TEXT,
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(double_lexical),
    st.floats().map(repr),
    st.sampled_from(["true", "false", "1", "0", "01", "+5", "-0", "1e3", " 1", MARK, MARK + "@en x"]),
    st.sampled_from(["1.0E0", "1.5", "0.0E0", "-0.0E0", "0.0E0", "-0.0E0", "INF", "NaN"]),
)
_LANGS = st.sampled_from(["en", "en-us", "de-ch-1996", "fr", "zh-hant-tw", "ar", "x-private"])


@st.composite
def literals(draw: st.DrawFn) -> Literal:
    lexical = draw(_LEXICALS)
    kind = draw(st.sampled_from(["typed", "lang", "dir"]))
    if kind == "lang":
        return Literal(lexical, language=draw(_LANGS))
    if kind == "dir":
        direction = draw(st.sampled_from([BaseDirection.LTR, BaseDirection.RTL]))
        return Literal(lexical, language=draw(_LANGS), direction=direction)
    return Literal(lexical, datatype=draw(st.sampled_from(DATATYPES)))


@given(literals())
def test_to_literal_inverts_to_value(literal: Literal) -> None:
    value = to_value(literal)
    assert to_literal(value) == literal
    if isinstance(value, str) and (literal.language is not None or literal.datatype.value != XSD + "string"):
        assert value.startswith(MARK)


@given(literals(), literals())
def test_distinct_literals_have_distinct_values(a: Literal, b: Literal) -> None:
    va, vb = to_value(a), to_value(b)
    if a != b:
        assert (type(va), va) != (type(vb), vb)
