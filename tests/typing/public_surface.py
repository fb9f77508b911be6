"""What a caller of the installed package sees: checked by mypy and pyright in CI (never run by pytest).

Each layer's public names come from the layer's ``__init__``; a type checker that cannot see the package
(an import hook instead of a path) fails here on the first import.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, assert_type

from hybridkg.client import Client, CypherResult
from hybridkg.errors import HybridKGError, InvalidInput
from hybridkg.semantic import (
    KnowledgeBase,
    QueryResult,
    ReasonerEngine,
    ReasoningConfig,
    StoreBackend,
    StoreConfig,
    ValidationConfig,
    ValidationReport,
    ValidatorEngine,
    make_reasoner,
    make_store,
    make_validator,
)
from hybridkg.server import Settings, load_settings, open_knowledge_base
from hybridkg.structural import Mode, RetrievalResult, StructuralConfig, StructuralKB


def semantic_layer() -> None:
    kb = KnowledgeBase(
        make_store(StoreConfig(backend=StoreBackend.MEMORY)),
        reasoner=make_reasoner(ReasoningConfig(engine=ReasonerEngine.REASONABLE)),
        validator=make_validator(ValidationConfig(engine=ValidatorEngine.AUTO)),
    )
    assert_type(kb.query("ASK {}"), QueryResult)
    assert_type(make_validator(ValidationConfig()).validate([], []), ValidationReport)


def service_wiring() -> None:
    settings = load_settings(None, environ={})
    assert_type(settings, Settings)
    assert_type(open_knowledge_base(settings), KnowledgeBase)


def structural_layer(path: Path) -> None:
    skb = StructuralKB.open(StructuralConfig(), path)
    assert_type(skb.retrieve("who?", mode=Mode.LOCAL), RetrievalResult)


def client_bridge(target: str) -> None:
    with Client(target, "key", timeout=5.0) as c:
        result = c.cypher("MATCH (c:Company) WHERE c.city IN $cities RETURN c", domain="crm",
                          params={"cities": ["Porto"], "n": 1, "opts": {"x": 2.5, "none": None}}, timeout=1.0)
        assert_type(result, CypherResult)
        assert_type(result.columns, tuple[str, ...])
        for row in result:
            assert_type(row, list[Any])
        assert_type(result.to_json(), dict[str, Any])
        assert_type(c.translate("SELECT ?c WHERE { ?c a ?t }", to="cypher", domain="crm"), dict[str, Any])
        assert_type(c.translate("MATCH (c) WHERE c.n > $n RETURN c", to="sparql", params={"n": 1}, timeout=1.0),
                    dict[str, Any])


def _report(error: HybridKGError) -> str:
    return str(error)


def errors() -> None:
    try:
        semantic_layer()
    except InvalidInput as e:
        _report(e)  # every public error is a HybridKGError
