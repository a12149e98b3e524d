"""A scripted model on 127.0.0.1 that speaks the three wire formats the agent CLIs use.

- Anthropic Messages (`POST /v1/messages`, streaming SSE or not; `/v1/messages/count_tokens`) for Claude Code,
- OpenAI Responses (`POST /v1/responses`, streaming SSE) for Codex,
- Gemini (`POST /v1beta/models/M:streamGenerateContent?alt=sse`, `:generateContent`, `:countTokens`) for
  Gemini CLI.

A scenario scripts one turn of the agent: the model asks for one tool call, and once the conversation it is
sent carries that call's result, it answers with a final text. Whatever the request, the server decides from
the conversation itself (does it hold the call's result yet?), so the CLIs' retries and side requests (a
title, a summary, a token count) cannot put it out of step. A request that offers no tools is a side
request: it gets a short text (or, when it asks for JSON, a value of the schema it gives).

Every request is kept, raw, so a test can say what the CLI sent back: the tool's result as the model saw it
(`tool_results`), and whether a given text ever left the CLI (`ever_sent`, which answers yes when a request
could not be read: a body in an encoding it does not know cannot clear a secret).
"""

from __future__ import annotations

import gzip
import json
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from ._local import LocalServer

__all__ = ["FINAL_TEXT", "SIDE_TEXT", "ModelServer", "Recorded", "ToolCall"]

FINAL_TEXT = "scripted: done"
SIDE_TEXT = "scripted side answer"


@dataclass(frozen=True)
class ToolCall:
    """The one call the scripted model makes: the CLI's own tool name and its arguments.

    `freeform` is the raw input of a free-form (custom) tool, such as Codex's `apply_patch`, instead of
    JSON arguments."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    freeform: str | None = None
    call_id: str = "call_scripted_1"


@dataclass(frozen=True)
class Recorded:
    """One request as it arrived."""

    method: str
    path: str
    raw: bytes  # decoded from its content-encoding (gzip, deflate); None when that failed
    body: Any  # the JSON, or None
    readable: bool


def _tools_offered(body: Any) -> bool:
    if not isinstance(body, dict):
        return False
    return bool(body.get("tools"))


def _sse(events: Iterator[tuple[str, dict[str, Any]]]) -> bytes:
    frames = []
    for event, data in events:
        frames.append((f"event: {event}\n" if event else "") + f"data: {json.dumps(data)}\n\n")
    return "".join(frames).encode()


# --- Anthropic Messages ------------------------------------------------------------------------------------


def _anthropic_results(body: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """(tool_use_id, text, is_error) of every tool_result block in the conversation."""
    found = []
    for message in body.get("messages", []):
        content = message.get("content") if isinstance(message, dict) else None
        if not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                inner = block.get("content", "")
                if isinstance(inner, list):
                    inner = "\n".join(part.get("text", "") for part in inner if isinstance(part, dict))
                found.append((str(block.get("tool_use_id")), str(inner), bool(block.get("is_error"))))
    return found


def _anthropic_message(text: str, call: ToolCall | None, model: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    if call is not None:
        content.append({"type": "tool_use", "id": call.call_id, "name": call.name, "input": call.arguments})
    return {
        "id": "msg_scripted",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if call is not None else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def _anthropic_stream(message: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    start = {**message, "content": [], "stop_reason": None, "usage": {"input_tokens": 10, "output_tokens": 0}}
    yield "message_start", {"type": "message_start", "message": start}
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "text", "text": ""},
                },
            )
            delta: dict[str, Any] = {"type": "text_delta", "text": block["text"]}
        else:
            yield (
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {**block, "input": {}},
                },
            )
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": 5},
        },
    )
    yield "message_stop", {"type": "message_stop"}


# --- OpenAI Responses --------------------------------------------------------------------------------------


def _responses_results(body: dict[str, Any]) -> list[tuple[str, str, bool]]:
    found = []
    for item in body.get("input", []) if isinstance(body.get("input"), list) else []:
        if isinstance(item, dict) and item.get("type") in ("function_call_output", "custom_tool_call_output"):
            output = item.get("output", "")
            if isinstance(output, list):
                output = "\n".join(part.get("text", "") for part in output if isinstance(part, dict))
            elif isinstance(output, dict):
                output = json.dumps(output)
            found.append((str(item.get("call_id")), str(output), False))
    return found


def _responses_stream(text: str, call: ToolCall | None) -> Iterator[tuple[str, dict[str, Any]]]:
    response: dict[str, Any] = {
        "id": "resp_scripted",
        "object": "response",
        "status": "in_progress",
        "output": [],
    }
    yield "response.created", {"type": "response.created", "response": response}
    items: list[dict[str, Any]] = []
    if text:
        items.append(
            {
                "type": "message",
                "id": "msg_scripted",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )
    if call is not None:
        if call.freeform is not None:
            items.append(
                {
                    "type": "custom_tool_call",
                    "id": "ctc_scripted",
                    "call_id": call.call_id,
                    "name": call.name,
                    "input": call.freeform,
                    "status": "completed",
                }
            )
        else:
            items.append(
                {
                    "type": "function_call",
                    "id": "fc_scripted",
                    "call_id": call.call_id,
                    "name": call.name,
                    "arguments": json.dumps(call.arguments),
                    "status": "completed",
                }
            )
    for index, item in enumerate(items):
        yield (
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": index, "item": item},
        )
        if item["type"] == "message":
            yield (
                "response.output_text.delta",
                {
                    "type": "response.output_text.delta",
                    "item_id": item["id"],
                    "output_index": index,
                    "content_index": 0,
                    "delta": text,
                },
            )
        yield (
            "response.output_item.done",
            {"type": "response.output_item.done", "output_index": index, "item": item},
        )
    usage = {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15,
    }
    done = {**response, "status": "completed", "output": items, "usage": usage}
    yield "response.completed", {"type": "response.completed", "response": done}


# --- Gemini ------------------------------------------------------------------------------------------------


def _gemini_results(body: dict[str, Any]) -> list[tuple[str, str, bool]]:
    found = []
    for content in body.get("contents", []) if isinstance(body.get("contents"), list) else []:
        for part in content.get("parts", []) if isinstance(content, dict) else []:
            answer = part.get("functionResponse") if isinstance(part, dict) else None
            if isinstance(answer, dict):
                response = answer.get("response", {})
                if not isinstance(response, dict):
                    response = {"output": response}
                said = response.get("error", response.get("output"))
                text = said if isinstance(said, str) else json.dumps(response)
                found.append((str(answer.get("id") or answer.get("name")), text, "error" in response))
    return found


def _schema_value(schema: Any) -> Any:
    """A smallest value of a (Gemini-style, upper-case types) JSON schema: a side request that asks for
    JSON, such as Gemini CLI's model router, gets an answer it can parse."""
    if not isinstance(schema, dict):
        return None
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        properties = schema.get("properties") or {}
        names = schema.get("required") or list(properties)
        return {name: _schema_value(properties.get(name)) for name in names}
    return {"string": "scripted", "integer": 1, "number": 1, "boolean": False, "array": []}.get(kind)


def _gemini_reply(text: str, call: ToolCall | None) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"text": text}] if text else []
    if call is not None:
        parts.append({"functionCall": {"id": call.call_id, "name": call.name, "args": call.arguments}})
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "scripted",
    }


# --- the server --------------------------------------------------------------------------------------------


class ModelServer(LocalServer):
    """Serve one scripted turn; run it with `with ModelServer(call) as server:` and read `server.url`."""

    def __init__(self, call: ToolCall) -> None:
        self.call = call
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                server._record(self, b"", "identity")
                if self.path.rstrip("/").endswith("/models"):
                    self._json(200, {"object": "list", "data": [], "models": []})
                else:
                    self._json(404, {"error": {"message": "not scripted", "code": 404}})

            def do_HEAD(self) -> None:  # noqa: N802 - http.server's name
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                raw = self.rfile.read(int(self.headers.get("content-length", "0")))
                body = server._record(self, raw, self.headers.get("content-encoding", "identity"))
                status, content_type, payload = server._answer(self.path, body)
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _json(self, status: int, value: Any) -> None:
                payload = json.dumps(value).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        super().__init__(Handler)

    def _record(self, handler: BaseHTTPRequestHandler, raw: bytes, encoding: str) -> Any:
        readable, body = True, None
        try:
            if encoding.lower() == "gzip":
                raw = gzip.decompress(raw)
            elif encoding.lower() == "deflate":
                raw = zlib.decompress(raw)
            elif encoding.lower() != "identity":
                readable = False
            body = json.loads(raw) if raw and readable else None
        except (OSError, zlib.error, json.JSONDecodeError, UnicodeDecodeError):
            readable = False
        with self._lock:
            self.requests.append(Recorded(handler.command, handler.path, raw, body, readable))
        return body

    def _answer(self, path: str, body: Any) -> tuple[int, str, bytes]:
        route = path.split("?", 1)[0]
        if not isinstance(body, dict):
            return 400, "application/json", b'{"error": {"message": "not JSON"}}'
        if route.endswith("/count_tokens"):
            return 200, "application/json", b'{"input_tokens": 10}'
        if route.endswith(":countTokens"):
            return 200, "application/json", b'{"totalTokens": 10}'
        if route.endswith("/messages"):
            return self._anthropic(body)
        if route.endswith("/responses"):
            return self._responses(body)
        if ":generateContent" in route or ":streamGenerateContent" in route:
            return self._gemini(body, streaming=":streamGenerateContent" in route)
        return 404, "application/json", b'{"error": {"message": "not scripted"}}'

    def _next(
        self, body: dict[str, Any], results: list[tuple[str, str, bool]]
    ) -> tuple[str, ToolCall | None]:
        """The scripted turn: the call until its result is in the conversation, then the final text."""
        if not _tools_offered(body):
            return SIDE_TEXT, None
        if results:
            return FINAL_TEXT, None
        return "", self.call

    def _anthropic(self, body: dict[str, Any]) -> tuple[int, str, bytes]:
        text, call = self._next(body, _anthropic_results(body))
        message = _anthropic_message(text, call, str(body.get("model", "scripted")))
        if body.get("stream"):
            return 200, "text/event-stream", _sse(_anthropic_stream(message))
        return 200, "application/json", json.dumps(message).encode()

    def _responses(self, body: dict[str, Any]) -> tuple[int, str, bytes]:
        text, call = self._next(body, _responses_results(body))
        return 200, "text/event-stream", _sse(_responses_stream(text, call))

    def _gemini(self, body: dict[str, Any], *, streaming: bool) -> tuple[int, str, bytes]:
        config = body.get("generationConfig") or body.get("config") or {}
        if (
            not _tools_offered(body)
            and isinstance(config, dict)
            and "json" in str(config.get("responseMimeType"))
        ):
            schema = config.get("responseJsonSchema") or config.get("responseSchema")
            reply = _gemini_reply(json.dumps(_schema_value(schema) if schema else {}), None)
        else:
            text, call = self._next(body, _gemini_results(body))
            reply = _gemini_reply(text, call)
        if streaming:
            return 200, "text/event-stream", _sse(iter([("", reply)]))
        return 200, "application/json", json.dumps(reply).encode()

    # --- what the CLI sent ---------------------------------------------------------------------------------

    def tool_results(self) -> list[tuple[str, bool]]:
        """Each distinct tool result the CLI sent back, as (text, is_error), in the order first seen."""
        seen: list[tuple[str, bool]] = []
        for request in self.requests:
            body = request.body
            if not isinstance(body, dict):
                continue
            for _, text, is_error in (
                _anthropic_results(body) + _responses_results(body) + _gemini_results(body)
            ):
                if (text, is_error) not in seen:
                    seen.append((text, is_error))
        return seen

    def ever_sent(self, needle: str) -> bool:
        """Whether `needle` appears in any request the CLI made (raw, or as JSON escapes it); yes when a
        request could not be read."""
        escaped = json.dumps(needle)[1:-1].encode()
        return any(not r.readable or needle.encode() in r.raw or escaped in r.raw for r in self.requests)
