"""The LLM extractor against a real local HTTP server speaking the chat-completions protocol."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.chat_server import Canned, ChatServer, closed_port

from hybridkg.errors import BackendUnavailable, HybridKGError, NotFound, ResponseTooLarge
from hybridkg.structural.base import Extractor
from hybridkg.structural.extract.llm import LLMExtractor
from hybridkg.structural.extract.prompts import GLEANING_PROMPT
from hybridkg.structural.factory import make_extractor
from hybridkg.structural.knowledge import StructuralKB
from hybridkg.structural.settings import (
    EmbedderConfig,
    EmbedderKind,
    ExtractorConfig,
    ExtractorKind,
    GraphBackend,
    GraphConfig,
    StructuralConfig,
    VectorBackend,
    VectorConfig,
)

TEXT = "Aspirin relieves headaches. Bayer first sold aspirin in 1899."
TYPES = ["Drug", "Disease", "Organization"]

FIRST = json.dumps(
    {
        "entities": [
            {"name": "Aspirin", "type": "drug", "description": "A pain reliever."},
            {"name": "headache", "type": "Disease", "description": "A pain in the head."},
        ],
        "relations": [
            {"source": "Aspirin", "target": "headache", "type": "relieves", "keywords": ["pain relief"],
             "description": "Aspirin relieves headaches.", "strength": 9},
        ],
    }
)
GLEANED = """Here is what was missed:
```json
{"entities": [{"name": "Bayer", "type": "organization", "description": "Sold aspirin first."},
              {"name": "aspirin", "type": "concept", "description": "First sold in 1899."}],
 "relations": [{"source": "Bayer", "target": "Aspirin", "type": "sold", "keywords": "history, sales",
                "description": "Bayer first sold aspirin in 1899.", "strength": "8"}]}
```"""


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as s:
        yield s


def extractor(server: ChatServer, **kw: object) -> LLMExtractor:
    return LLMExtractor(server.url, "test-model", kw.pop("api_key", "sk-test"), **kw)  # type: ignore[arg-type]


def test_sends_an_openai_style_request_with_the_ontology_types(server: ChatServer) -> None:
    server.push(FIRST, '{"entities": [], "relations": []}')
    found = extractor(server).extract(TEXT, entity_types=TYPES)

    first = server.requests[0]
    assert first.path == "/v1/chat/completions"
    assert first.headers["Authorization"] == "Bearer sk-test"
    assert first.headers["Content-Type"] == "application/json"
    assert first.body["model"] == "test-model"
    assert first.body["temperature"] == 0
    assert [m["role"] for m in first.messages] == ["system", "user"]
    assert "Drug, Disease, Organization" in first.messages[1]["content"]
    assert TEXT in first.messages[1]["content"]
    assert {e.name for e in found.entities} == {"Aspirin", "headache"}
    assert isinstance(extractor(server), Extractor)


def test_entity_types_are_spelled_as_the_ontology_spells_them(server: ChatServer) -> None:
    server.push(FIRST)
    found = extractor(server, gleaning=0).extract(TEXT, entity_types=TYPES)
    assert {e.name: e.type for e in found.entities} == {"Aspirin": "Drug", "headache": "Disease"}


def test_gleaning_continues_the_conversation_and_merges(server: ChatServer) -> None:
    server.push(FIRST, GLEANED)
    found = extractor(server, gleaning=1).extract(TEXT, entity_types=TYPES)

    assert len(server.requests) == 2
    glean = server.requests[1].messages
    assert [m["role"] for m in glean] == ["system", "user", "assistant", "user"]
    assert glean[2]["content"] == FIRST
    assert glean[3]["content"] == GLEANING_PROMPT
    assert "MANY entities" in glean[3]["content"]

    by_name = {e.name: e for e in found.entities}
    assert set(by_name) == {"Aspirin", "headache", "Bayer"}
    assert by_name["Aspirin"].type == "Drug"
    assert by_name["Aspirin"].description == "A pain reliever. First sold in 1899."
    assert by_name["Bayer"].type == "Organization"
    rels = {(r.src, r.type, r.dst): r for r in found.relations}
    assert set(rels) == {("Aspirin", "relieves", "headache"), ("Bayer", "sold", "Aspirin")}
    assert rels[("Bayer", "sold", "Aspirin")].keywords == ("history", "sales")
    assert rels[("Bayer", "sold", "Aspirin")].weight == 8.0


def test_no_gleaning_means_one_call(server: ChatServer) -> None:
    server.push(FIRST)
    extractor(server, gleaning=0).extract(TEXT)
    assert len(server.requests) == 1


def test_a_gleaning_reply_without_records_means_nothing_was_missed(server: ChatServer) -> None:
    server.push(FIRST, "Nothing else was missed.")
    found = extractor(server, gleaning=1).extract(TEXT)
    assert len(server.requests) == 2
    assert {e.name for e in found.entities} == {"Aspirin", "headache"}


def test_without_an_api_key_no_authorization_header_is_sent(server: ChatServer) -> None:
    server.push(FIRST)
    LLMExtractor(server.url, "test-model", None, gleaning=0).extract(TEXT)
    assert "Authorization" not in server.requests[0].headers


def test_an_unreadable_reply_is_asked_again(server: ChatServer) -> None:
    server.push("Sorry, I cannot help with that.", FIRST)
    found = extractor(server, gleaning=0).extract(TEXT)
    assert len(server.requests) == 2
    assert {e.name for e in found.entities} == {"Aspirin", "headache"}


def test_two_unreadable_replies_name_the_model_and_show_the_reply(server: ChatServer) -> None:
    server.push("Sorry, I cannot help with that. " * 20, "Sorry, I cannot help with that. " * 20)
    with pytest.raises(HybridKGError, match="test-model") as info:
        extractor(server, gleaning=0).extract(TEXT)
    message = str(info.value)
    assert "Sorry, I cannot help with that." in message
    assert len(message) < 600
    assert len(server.requests) == 2


def test_rejected_api_key(server: ChatServer) -> None:
    server.push(Canned(status=401, body='{"error": {"message": "Incorrect API key provided"}}'))
    with pytest.raises(BackendUnavailable, match="rejected the API key") as info:
        extractor(server).extract(TEXT)
    assert "structural.extractor.api_key" in str(info.value)
    assert server.url in str(info.value)


def test_server_error_shows_the_servers_message(server: ChatServer) -> None:
    server.push(Canned(status=500, body='{"error": {"message": "CUDA out of memory"}}'))
    with pytest.raises(BackendUnavailable, match="HTTP 500") as info:
        extractor(server).extract(TEXT)
    assert "CUDA out of memory" in str(info.value)


def test_unknown_path_or_model(server: ChatServer) -> None:
    server.push(Canned(status=404, body='{"error": {"message": "model not found"}}'))
    with pytest.raises(BackendUnavailable, match="base_url") as info:
        extractor(server).extract(TEXT)
    assert "test-model" in str(info.value)


def test_a_reply_that_is_not_a_chat_completion(server: ChatServer) -> None:
    server.push(Canned(body="<html>gateway</html>"))
    with pytest.raises(BackendUnavailable, match="did not answer with a chat completion"):
        extractor(server).extract(TEXT)


def test_connection_refused_names_the_url() -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(BackendUnavailable, match="cannot reach the chat API") as info:
        LLMExtractor(url, "test-model", None, timeout_s=5).extract(TEXT)
    assert url in str(info.value)
    assert "base_url" in str(info.value)


def test_timeout(server: ChatServer) -> None:
    server.push(Canned(content=FIRST, delay_s=1.5))
    with pytest.raises(BackendUnavailable, match="did not answer within 0.3 s"):
        extractor(server, timeout_s=0.3).extract(TEXT)


def test_the_factory_builds_it_from_config(server: ChatServer) -> None:
    server.push(FIRST)
    config = ExtractorConfig(kind=ExtractorKind.LLM, base_url=server.url, model="test-model", gleaning=0)
    found = make_extractor(config).extract(TEXT)
    assert {e.name for e in found.entities} == {"Aspirin", "headache"}


def test_an_oversized_reply_is_refused_and_names_the_setting(server: ChatServer) -> None:
    server.push(Canned(content="x" * 300_000))
    with pytest.raises(ResponseTooLarge, match="larger than 100,000 bytes") as info:
        extractor(server, max_response_bytes=100_000).extract(TEXT)
    assert "structural.extractor.max_response_bytes" in str(info.value)
    assert server.url in str(info.value)
    assert LLMExtractor(server.url, "m").max_response_bytes == ExtractorConfig().max_response_bytes


def test_an_oversized_error_body_is_read_only_for_its_start(server: ChatServer) -> None:
    server.push(Canned(status=500, body='{"error": {"message": "CUDA out of memory"}}' + " " * 5_000_000))
    with pytest.raises(BackendUnavailable, match="HTTP 500") as info:
        extractor(server).extract(TEXT)
    assert "CUDA out of memory" in str(info.value)
    assert len(str(info.value)) < 600


def test_an_oversized_reply_leaves_nothing_half_written(server: ChatServer, tmp_path: Path) -> None:
    config = StructuralConfig(
        graph=GraphConfig(backend=GraphBackend.MEMORY),
        embedder=EmbedderConfig(kind=EmbedderKind.HASH),
        vectors=VectorConfig(backend=VectorBackend.EXACT),
    )
    with StructuralKB.open(config, tmp_path / "s") as skb:
        skb.extractor = extractor(server, gleaning=1, max_response_bytes=100_000)
        server.push(FIRST, Canned(content="y" * 300_000))  # the extraction is fine, its gleaning is too large
        with pytest.raises(ResponseTooLarge):
            skb.add_document("a.txt", TEXT, domain="main")
        assert len(server.requests) == 2
        assert all(n == 0 for n in skb.stats().values()), skb.stats()
        with pytest.raises(NotFound):
            skb.delete_document("a.txt")
        server.push(FIRST, '{"entities": [], "relations": []}')
        change = skb.add_document("a.txt", TEXT, domain="main")
        assert change.entities_added == 2
