"""The LLM extractor: entities and relations from any OpenAI-compatible chat-completions API (stdlib only).

One chunk costs ``1 + gleaning`` calls of ``POST {base_url}/chat/completions`` (``temperature`` 0, Bearer
key when one is set): the LightRAG-style extraction prompt (:mod:`.prompts`), then GraphRAG's gleaning
follow-up ("MANY entities were missed…") in the same conversation. Replies are read by :mod:`.parsing`
and merged: entities by :func:`normalise_name` (a specific type beats ``concept``, descriptions are
combined), relations by endpoints and type (keywords united, the strongest weight kept); a relation's
endpoint the model did not list as an entity is added as a ``concept``.

Failures say what to check: unreachable server, timeout, rejected API key (401/403), unknown model or
path (404), other HTTP errors (the server's own message is shown), replies that are not chat completions,
replies larger than ``max_response_bytes`` (read in blocks, so a runaway server cannot exhaust memory).
A reply without a readable extraction is asked for once more, then reported with its first 200 characters.
"""

from __future__ import annotations

import http.client
import json
import logging
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

from hybridkg.errors import BackendUnavailable, HybridKGError
from hybridkg.httpio import read_capped
from hybridkg.structural.base import ExtractedEntity, ExtractedRelation, Extraction
from hybridkg.structural.extract.parsing import parse_extraction
from hybridkg.structural.extract.prompts import extraction_messages, gleaning_messages
from hybridkg.structural.resolution import GENERIC_TYPE, merge_descriptions, merge_types, normalise_name
from hybridkg.structural.settings import DEFAULT_MAX_RESPONSE_BYTES

log = logging.getLogger(__name__)

SHOWN_REPLY_CHARS = 200
MAX_DESCRIPTION_CHARS = 1000
#: Bytes of an HTTP error's body read for its message.
ERROR_BODY_BYTES = 4096


class LLMExtractor:
    """An :class:`~hybridkg.structural.base.Extractor` over an OpenAI-compatible chat-completions endpoint."""

    def __init__(
        self, base_url: str, model: str, api_key: str | None = None, timeout_s: float = 60.0, gleaning: int = 1,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout_s = timeout_s
        self.gleaning = max(0, gleaning)
        self.max_response_bytes = max_response_bytes

    def __repr__(self) -> str:
        return f"LLMExtractor({self.endpoint!r}, model={self.model!r}, gleaning={self.gleaning})"

    @property
    def endpoint(self) -> str:
        return f"{self.base_url}/chat/completions"

    def extract(self, text: str, *, entity_types: Sequence[str] = ()) -> Extraction:
        messages = extraction_messages(text, entity_types)
        reply, found = self._ask(messages, gleaning=False)
        parts = [found]
        for _ in range(self.gleaning):
            messages = gleaning_messages(messages, reply)
            reply, found = self._ask(messages, gleaning=True)
            if not found.entities and not found.relations:
                break
            parts.append(found)
        return merge_extractions(parts, entity_types)

    def _ask(self, messages: list[dict[str, str]], *, gleaning: bool) -> tuple[str, Extraction]:
        """One call, and one more when the reply holds no readable extraction."""
        reply = ""
        for _ in range(2):
            reply = self.chat(messages)
            found = parse_extraction(reply)
            if found is not None:
                return reply, found
            if gleaning and not any(mark in reply for mark in ("{", "[", "<|")):
                log.debug("gleaning reply without records taken as 'nothing missed': %.80r", reply)
                return reply, Extraction()
            log.warning("model %s sent a reply without a readable extraction; asking again", self.model)
        raise HybridKGError(
            f"model {self.model!r} at {self.endpoint} did not return a readable entity/relation extraction "
            f"(asked twice); the reply began: {reply[:SHOWN_REPLY_CHARS]!r}. Use a model that follows "
            "JSON instructions, or structural.extractor.kind=offline"
        )

    def chat(self, messages: Sequence[dict[str, str]]) -> str:
        """The assistant message content of one chat completion."""
        payload = {"model": self.model, "messages": list(messages), "temperature": 0}
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            self.endpoint, data=json.dumps(payload).encode("utf-8"), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                body = read_capped(
                    response, self.max_response_bytes, f"the chat API at {self.endpoint}",
                    "structural.extractor.max_response_bytes",
                )
        except urllib.error.HTTPError as e:
            raise self._http_error(e) from e
        except TimeoutError as e:
            raise self._timeout() from e
        except urllib.error.URLError as e:
            if isinstance(e.reason, TimeoutError):
                raise self._timeout() from e
            raise BackendUnavailable(
                f"cannot reach the chat API at {self.endpoint} ({e.reason}); check that the server is running "
                "and structural.extractor.base_url"
            ) from e
        except (OSError, http.client.HTTPException) as e:
            raise BackendUnavailable(
                f"the connection to the chat API at {self.endpoint} failed ({e}); check that the server is "
                "running and structural.extractor.base_url"
            ) from e
        return self._content(body)

    def _timeout(self) -> BackendUnavailable:
        return BackendUnavailable(
            f"the chat API at {self.endpoint} did not answer within {self.timeout_s:g} s; check the server's "
            "load, or raise structural.extractor.timeout_s"
        )

    def _http_error(self, e: urllib.error.HTTPError) -> BackendUnavailable:
        try:
            detail = e.read(ERROR_BODY_BYTES).decode("utf-8", "replace").strip()
        except (OSError, http.client.HTTPException):
            detail = ""
        shown = f": {detail[:SHOWN_REPLY_CHARS]}" if detail else ""
        if e.code in (401, 403):
            return BackendUnavailable(
                f"the chat API at {self.endpoint} rejected the API key (HTTP {e.code}{shown}); check "
                "structural.extractor.api_key"
            )
        if e.code == 404:
            return BackendUnavailable(
                f"the chat API at {self.endpoint} answered HTTP 404{shown}; check structural.extractor.base_url "
                f"(usually ending in /v1) and that model {self.model!r} exists"
            )
        if e.code == 429:
            return BackendUnavailable(
                f"the chat API at {self.endpoint} is rate-limiting (HTTP 429{shown}); retry later or lower the "
                "ingestion rate"
            )
        return BackendUnavailable(
            f"the chat API at {self.endpoint} answered HTTP {e.code}{shown}; check the server's log and "
            f"structural.extractor.model ({self.model!r})"
        )

    def _content(self, body: bytes) -> str:
        try:
            data: Any = json.loads(body.decode("utf-8"))
            message = data["choices"][0]["message"]
            content = message.get("content")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as e:
            raise BackendUnavailable(
                f"the server at {self.endpoint} did not answer with a chat completion "
                f"({body[:SHOWN_REPLY_CHARS]!r}); check that structural.extractor.base_url points to an "
                "OpenAI-compatible API"
            ) from e
        if isinstance(content, list):
            return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        return content if isinstance(content, str) else ""


def _canonical_type(entity_type: str, entity_types: Sequence[str]) -> str:
    wanted = entity_type.strip()
    for candidate in entity_types:
        if candidate.strip().casefold() == wanted.casefold():
            return candidate.strip()
    return wanted or GENERIC_TYPE


def merge_extractions(parts: Sequence[Extraction], entity_types: Sequence[str] = ()) -> Extraction:
    """One extraction from several (first pass + gleanings): entities by normalised name, relations by
    (source, target, type); relation endpoints missing from the entities are added as ``concept``."""
    entities: dict[str, ExtractedEntity] = {}
    for part in parts:
        for e in part.entities:
            key = normalise_name(e.name)
            if not key:
                continue
            kind = _canonical_type(e.type, entity_types)
            prior = entities.get(key)
            if prior is None:
                entities[key] = ExtractedEntity(e.name.strip(), kind, e.description.strip(), e.iri)
            else:
                description = merge_descriptions(prior.description, e.description, MAX_DESCRIPTION_CHARS)
                entities[key] = ExtractedEntity(
                    prior.name, merge_types(prior.type, kind), description, prior.iri or e.iri
                )
    relations: dict[tuple[str, str, str], ExtractedRelation] = {}
    for part in parts:
        for r in part.relations:
            src, dst = normalise_name(r.src), normalise_name(r.dst)
            if not src or not dst or src == dst:
                continue
            for key, name in ((src, r.src), (dst, r.dst)):
                entities.setdefault(key, ExtractedEntity(name.strip(), GENERIC_TYPE))
            rel_key = (src, dst, r.type)
            prior_r = relations.get(rel_key)
            if prior_r is None:
                relations[rel_key] = ExtractedRelation(
                    entities[src].name, entities[dst].name, r.type, r.keywords, r.description.strip(), r.weight
                )
            else:
                relations[rel_key] = ExtractedRelation(
                    prior_r.src,
                    prior_r.dst,
                    r.type,
                    tuple(dict.fromkeys((*prior_r.keywords, *r.keywords))),
                    merge_descriptions(prior_r.description, r.description, MAX_DESCRIPTION_CHARS),
                    max(prior_r.weight, r.weight),
                )
    return Extraction(list(entities.values()), list(relations.values()))
