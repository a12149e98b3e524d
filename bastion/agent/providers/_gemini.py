"""Gemini's generateContent, streamed (streamGenerateContent with alt=sse): the Gemini API with its key
(gemini), and Gemini on Vertex AI with an access token (vertex). Spoken over bastion's own httpx2
client rather than an SDK (docs/rules.md, rule 60): the vendor's SDK gives no raw stream, so
every delta would be a pydantic model, and it reads keys, projects and endpoints of its own from
the environment.

Gemini 3 signs its function calls (thoughtSignature); a signature comes back with the call it came
with, or the next request is refused, so each turn's signatures travel in Assistant.opaque.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

from ..._errors import BastionError
from ..runtime import (
    Assistant,
    Failure,
    Message,
    ModelError,
    ModelOptions,
    ModelRequest,
    Reply,
    ToolCall,
    ToolResult,
    Usage,
    User,
)
from ._clients import Connection
from ._failures import Surfaced, classify, ended_early, stream_error, with_retries
from ._pricing import cost
from ._sse import Kept, count, dicts, events, get, loads, text

__all__ = ["GeminiModel", "StatusError", "gemini_get", "gemini_usage", "google_error"]

# The effort asked for: a thinking level (Gemini 3 and later), else a thinking budget in tokens.
_LEVEL = {"minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "high"}
_BUDGET = {"minimal": 512, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 24576}
# A Pro model of 2.x thinks always: its least budget.
_LEAST_PRO_BUDGET = 128
_GENERATION = re.compile(r"gemini-(\d+)(?:\.(\d+))?-")
# finishReason -> what ended the reply, when it is not the model's own stop.
_REFUSED = frozenset(
    {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE"}
)
_BAD_CALL = frozenset({"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"})
# The ids bastion gives a call the model sent without one (they are not sent back to the API).
_OURS = "bastion-call-"
_ERROR_BODY_MAX = 1 << 20
# The opaque item a turn's signatures are kept in.
_SIGNED = "gemini_signatures"


def gemini_get(connection: Connection, path: str, timeout: float) -> object:
    """The JSON the Gemini API answers a GET of `path` (under /v1beta/) with, with the key."""
    key = connection.key.get() if connection.key is not None else ""
    response = connection.http_client().get(
        f"{connection.base_url}/v1beta/{path}", headers={"x-goog-api-key": key}, timeout=timeout
    )
    response.raise_for_status()
    return response.json()


class StatusError(BastionError):
    """An HTTP error status, as the SDKs' status errors are read by `classify`."""

    def __init__(self, status_code: int, message: str, body: object, response: object) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.message = message
        self.body = body
        self.response = response


def google_error(body: object) -> tuple[str, str, str]:
    """A Google error body's (status, message, reason): `{"error": {"code", "message", "status",
    "details": [{"reason": ...}]}}`, also inside a list as some endpoints send it."""
    if isinstance(body, list) and body:
        body = body[0]
    error = get(body, "error")
    reasons = [text(d, "reason") for d in dicts(error, "details")]
    return text(error, "status"), text(error, "message"), next((r for r in reasons if r), "")


def _retry_delay(body: object) -> float | None:
    """RetryInfo's retryDelay ("13s", "0.5s") in a Google error body: how long the server asks to wait."""
    if isinstance(body, list) and body:
        body = body[0]
    for detail in dicts(get(body, "error"), "details"):
        delay = text(detail, "retryDelay")
        if text(detail, "@type").endswith("RetryInfo") and re.fullmatch(r"\d+(\.\d+)?s", delay):
            return float(delay[:-1])
    return None


def gemini_usage(raw: object) -> Usage:
    """usageMetadata as every provider is reported: the prompt's cached tokens apart (Gemini's cache
    is implicit: nothing is reported written to it), the thinking tokens in the output."""
    cached = count(raw, "cachedContentTokenCount")
    return Usage(
        max(0, count(raw, "promptTokenCount") - cached),
        count(raw, "candidatesTokenCount") + count(raw, "thoughtsTokenCount"),
        cached,
        0,
    )


def _args(arguments: str) -> dict[str, Any]:
    try:
        value = json.loads(arguments)
    except (json.JSONDecodeError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def _signatures(message: Assistant) -> dict[str, str]:
    """The signatures a turn came with: by call id, and "" for its text's."""
    for item in message.opaque:
        if item.get("type") == _SIGNED and isinstance(item.get("by"), dict):
            return {str(k): str(v) for k, v in item["by"].items()}
    return {}


def _contents(messages: Sequence[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def add(role: str, parts: list[dict[str, Any]]) -> None:
        if out and out[-1]["role"] == role:
            out[-1]["parts"].extend(parts)
        else:
            out.append({"role": role, "parts": parts})

    for m in messages:
        if isinstance(m, User):
            add("user", [{"text": m.text}])
        elif isinstance(m, Assistant):
            signed = _signatures(m)
            parts: list[dict[str, Any]] = []
            if m.text:
                parts.append({"text": m.text, **({"thoughtSignature": signed[""]} if "" in signed else {})})
            for c in m.calls:
                call: dict[str, Any] = {"name": c.name, "args": _args(c.arguments)}
                if not c.id.startswith(_OURS):
                    call["id"] = c.id
                part: dict[str, Any] = {"functionCall": call}
                if c.id in signed:
                    part["thoughtSignature"] = signed[c.id]
                parts.append(part)
            add("model", parts or [{"text": "(no reply)"}])
        elif isinstance(m, ToolResult):
            response = {"error" if m.is_error else "output": m.content}
            answer: dict[str, Any] = {"name": m.name, "response": response}
            if not m.call_id.startswith(_OURS):
                answer["id"] = m.call_id
            add("user", [{"functionResponse": answer}])
    return out


def thinking(options: ModelOptions) -> dict[str, Any] | None:
    """generationConfig.thinkingConfig for the model's generation (a level from 3, a budget for 2.5),
    or None for one before 2.5 or a name whose generation is not known (its default is left alone)."""
    found = _GENERATION.match(options.model)
    generation = (int(found.group(1)), int(found.group(2) or 0)) if found else (0, 0)
    if generation >= (3, 0):  # it always thinks: --no-think asks for its least
        return {"thinkingLevel": _LEVEL[options.effort] if options.think else "low"}
    if generation < (2, 5):  # before 2.5 (or not known): no thinking to configure
        return None
    if options.think:
        return {"thinkingBudget": _BUDGET[options.effort]}
    return {"thinkingBudget": _LEAST_PRO_BUDGET if "-pro" in options.model else 0}


class GeminiModel:
    def __init__(self, options: ModelOptions, connection: Connection) -> None:
        self.options = options
        self.connection = connection

    def url(self, model: str) -> str:
        """The model's streamGenerateContent on the Gemini API, or on Vertex in the connection's place."""
        c = self.connection
        model = quote(model.removeprefix("models/"), safe="")
        if c.place is None:
            return f"{c.base_url}/v1beta/models/{model}:streamGenerateContent?alt=sse"
        return (
            f"{c.base_url}/v1/{c.place.path}/publishers/google/models/{model}:streamGenerateContent?alt=sse"
        )

    def stream(self, request: ModelRequest) -> Reply:
        body: dict[str, Any] = {
            "systemInstruction": {"parts": [{"text": request.system}]},
            "contents": _contents(request.messages),
        }
        if request.tools:
            declared = [
                {"name": t.name, "description": t.description, "parametersJsonSchema": t.parameters}
                for t in request.tools
            ]
            body["tools"] = [{"functionDeclarations": declared}]
        config = thinking(request.options)
        if config is not None:
            body["generationConfig"] = {"thinkingConfig": config}
        return with_retries(self.connection, lambda shown: self._once(body, shown, request))

    @contextmanager
    def _post(self, body: dict[str, Any], surfaced: Surfaced, options: ModelOptions) -> Iterator[Any]:
        """The streamed answer to `body`; an error status raised as the failure it is."""
        c = self.connection
        key = c.key.get() if c.key is not None else ""
        headers = {"content-type": "application/json", "accept": "text/event-stream", **c.google_headers()}
        headers.update({"x-goog-api-key": key} if c.place is None else {"authorization": f"Bearer {key}"})
        client = c.http_client()
        response = client.send(
            client.build_request("POST", self.url(options.model), json=body, headers=headers), stream=True
        )
        try:
            if response.status_code >= 400:
                raise self._status_error(response, options.provider)
            surfaced.answered = True
            yield response
        finally:
            response.close()

    def _status_error(self, response: Any, provider: str) -> ModelError:
        chunks: list[bytes] = []
        for chunk in response.iter_bytes():
            chunks.append(chunk)
            if sum(map(len, chunks)) > _ERROR_BODY_MAX:
                break
        raw = b"".join(chunks)[:_ERROR_BODY_MAX]
        try:
            body: object = json.loads(raw)
        except (ValueError, RecursionError):
            body = None
        status, message, reason = google_error(body)
        said = message or status or raw.decode("utf-8", "replace")
        failure = classify(provider, StatusError(response.status_code, said, body, response))
        if reason in ("API_KEY_INVALID", "API_KEY_SERVICE_BLOCKED"):  # a refused key, though 400
            failure.kind, failure.retryable = Failure.AUTHENTICATION, False
        if failure.retry_after is None:
            failure.retry_after = _retry_delay(body)
        return failure

    def _once(self, body: dict[str, Any], surfaced: Surfaced, request: ModelRequest) -> Reply:
        provider = request.options.provider
        parts: list[str] = []
        calls: list[ToolCall] = []
        signed: dict[str, str] = {}
        usage: object = None
        finish = ""
        kept = Kept(provider)
        with self._post(body, surfaced, request.options) as response:
            for _, data in events(provider, response.iter_bytes()):
                chunk = loads(provider, data)
                if not isinstance(chunk, dict):
                    raise ModelError(
                        f"{provider}: a stream event is not a JSON object", Failure.PROTOCOL_ERROR
                    )
                if isinstance(chunk.get("error"), dict):
                    status, message, _ = google_error(chunk)
                    raise stream_error(provider, {"type": status, "message": message})
                usage = chunk.get("usageMetadata") or usage
                blocked = text(chunk, "promptFeedback", "blockReason")
                if blocked:
                    raise ModelError(
                        f"{provider}: the provider refused the prompt (blockReason: {blocked})",
                        Failure.POLICY_REJECTION,
                    )
                for candidate in dicts(chunk, "candidates")[:1]:
                    for part in dicts(candidate, "content", "parts"):
                        self._part(part, parts, calls, signed, surfaced, request.on_text, kept)
                    finish = text(candidate, "finishReason") or finish
            if not finish:
                raise ended_early(provider, "reply", response)
        return self._reply(finish, parts, calls, signed, gemini_usage(usage), request.options)

    @staticmethod
    def _part(
        part: dict[str, Any],
        parts: list[str],
        calls: list[ToolCall],
        signed: dict[str, str],
        surfaced: Surfaced,
        on_text: Callable[[str], None],
        kept: Kept,
    ) -> None:
        signature = text(part, "thoughtSignature")
        call = get(part, "functionCall")
        if isinstance(call, dict):
            surfaced.tool_call = True
            args = call.get("args")
            call_id = text(call, "id") or f"{_OURS}{uuid.uuid4().hex[:16]}"
            arguments = kept(json.dumps(args if args is not None else {}))
            calls.append(ToolCall(call_id, kept(text(call, "name")), arguments))
            if signature:
                signed[call_id] = signature
            return
        if part.get("thought"):  # a thought summary: not the answer
            return
        piece = kept(text(part, "text"))
        if piece:
            parts.append(piece)
            on_text(piece)
        if signature and not calls:
            signed[""] = signature

    def _reply(
        self,
        finish: str,
        parts: list[str],
        calls: list[ToolCall],
        signed: dict[str, str],
        usage: Usage,
        options: ModelOptions,
    ) -> Reply:
        provider = options.provider
        if finish in _REFUSED:
            raise ModelError(
                f"{provider}: the provider refused (finishReason: {finish})", Failure.POLICY_REJECTION
            )
        if finish == "MAX_TOKENS":
            raise ModelError(
                f"{provider}: the reply reached the model's output token limit", Failure.OUTPUT_LIMIT_EXCEEDED
            )
        if finish in _BAD_CALL and not calls:
            raise ModelError(
                f"{provider}: the model's function call could not be used (finishReason: {finish})",
                Failure.MALFORMED_TOOL_ARGUMENTS,
                retryable=True,
            )
        usage.cost_usd = cost(usage, options.model, self.connection.pricing, None)
        opaque = ({"type": _SIGNED, "by": signed},) if signed else ()
        return Reply(Assistant("".join(parts), tuple(calls), opaque), usage, finish)
