"""LUBM(1): load the ontology and University0, materialise, and check all 14 query counts
against the reference counts with full inference (and without inference on the raw data)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.shared import shared_path

from hybridkg.semantic.kb import KnowledgeBase
from hybridkg.semantic.reasoning.factory import make_reasoner
from hybridkg.semantic.settings import ReasoningConfig, StoreConfig, ValidationConfig
from hybridkg.semantic.store.factory import make_store
from hybridkg.semantic.validation.factory import make_validator

pytestmark = pytest.mark.slow
QUERIES = [f"Q{i}" for i in range(1, 15)]


@pytest.fixture(scope="module", params=["reasonable", "duckdb"])
def lubm_kb(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> KnowledgeBase:
    """LUBM(1) loaded by each engine; the duckdb one takes the fast file path (hybridkg.semantic.bulkload)."""
    lubm = shared_path("lubm")
    kb = KnowledgeBase(
        make_store(StoreConfig(backend="embedded", path=tmp_path_factory.mktemp("lubm") / "store")),
        reasoner=make_reasoner(ReasoningConfig(engine=request.param)),
        validator=make_validator(ValidationConfig(engine="pyshacl")),
    )
    kb.load(lubm / "univ-bench.ttl", graph="urn:lubm:ontology")
    kb.load(lubm / "lubm1-University0.nt", graph="urn:lubm:data", bulk=True)
    return kb


def _expected() -> dict[str, dict[str, int]]:
    return json.loads((shared_path("lubm") / "expected_counts_lubm1.json").read_text())


def _query(name: str) -> str:
    return (shared_path("lubm", "queries") / f"q{name[1:]}.rq").read_text()


@pytest.mark.parametrize("name", QUERIES)
def test_counts_with_inference(lubm_kb: KnowledgeBase, name: str) -> None:
    expected = _expected()["counts_with_full_inference"][name]
    assert len(lubm_kb.query(_query(name))) == expected


@pytest.mark.parametrize("name", QUERIES)
def test_counts_without_inference(lubm_kb: KnowledgeBase, name: str) -> None:
    expected = _expected()["counts_without_inference_on_raw_data"][name]
    assert len(lubm_kb.query(_query(name), inference=False)) == expected


def test_inferred_triples_live_in_their_own_graph(lubm_kb: KnowledgeBase, tmp_path: Path) -> None:
    asserted = lubm_kb.asserted_triples()
    inferred = lubm_kb.inferred_triples()
    assert len(inferred) > 50_000
    assert not asserted & inferred
