"""The OpenAI Responses API (Open Responses), streamed through the openai SDK: any server that speaks it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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
from ._failures import Surfaced, ended_early, stream_error, with_retries
from ._pricing import cost
from ._sse import Kept, count, events, get, loads, text

__all__ = ["ResponsesModel"]


def _input(messages: Sequence[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in messages:
        if isinstance(m, User):
            out.append({"role": "user", "content": m.text})
        elif isinstance(m, Assistant):
            if m.text:
                out.append({"role": "assistant", "content": m.text})
            out.extend(
                {"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.arguments}
                for c in m.calls
            )
        elif isinstance(m, ToolResult):
            out.append({"type": "function_call_output", "call_id": m.call_id, "output": m.content})
    return out


def _usage(raw: object) -> Usage:
    cached = count(raw, "input_tokens_details", "cached_tokens")
    written = count(raw, "input_tokens_details", "cache_write_tokens")
    return Usage(
        max(0, count(raw, "input_tokens") - cached - written), count(raw, "output_tokens"), cached, written
    )


class ResponsesModel:
    def __init__(self, options: ModelOptions, connection: Connection) -> None:
        self.options = options
        self.connection = connection

    def stream(self, request: ModelRequest) -> Reply:
        options = request.options
        params: dict[str, Any] = {
            "model": options.model,
            "instructions": request.system,
            "input": _input(request.messages),
            "stream": True,
            "store": False,
        }
        if request.tools:
            params["tools"] = [
                {"type": "function", "name": t.name, "description": t.description, "parameters": t.parameters}
                for t in request.tools
            ]
        if options.think:
            params["reasoning"] = {"effort": options.effort}
        return with_retries(self.connection, lambda shown: self._once(params, shown, request))

    def _once(self, params: dict[str, Any], surfaced: Surfaced, request: ModelRequest) -> Reply:
        provider = request.options.provider
        parts: list[str] = []
        refusal: list[str] = []
        calls: list[ToolCall] = []
        kept = Kept(provider)
        create = self.connection.openai().responses.with_streaming_response.create
        # The body goes as extra_body, sent as it is (the SDK's conversion of each item: _chat.py).
        extras = self.connection.openai_extras()
        with create(model=params["model"], stream=True, extra_body=params, **extras) as response:
            surfaced.answered = True
            for _, data in events(provider, response.iter_bytes()):
                event = loads(provider, data)
                kind = text(event, "type")
                if kind == "response.output_text.delta":
                    delta = kept(text(event, "delta"))
                    parts.append(delta)
                    request.on_text(delta)
                elif kind == "response.refusal.delta":
                    refusal.append(kept(text(event, "delta")))
                elif kind == "response.output_item.done" and text(event, "item", "type") == "function_call":
                    item = event["item"]
                    surfaced.tool_call = True
                    calls.append(
                        ToolCall(
                            text(item, "call_id") or f"call_{len(calls)}",
                            kept(text(item, "name")),
                            kept(text(item, "arguments")) or "{}",
                        )
                    )
                elif kind in ("response.completed", "response.incomplete"):
                    return self._reply(get(event, "response"), parts, refusal, calls, request.options)
                elif kind in ("response.failed", "error"):
                    raise stream_error(provider, get(event, "response", "error") or event)
        raise ended_early(provider, "response", response)

    def _reply(
        self, resp: object, parts: list[str], refusal: list[str], calls: list[ToolCall], options: ModelOptions
    ) -> Reply:
        provider = options.provider
        reason = text(resp, "incomplete_details", "reason")
        if refusal or reason == "content_filter":
            why = "".join(refusal) or "incomplete: content_filter"
            raise ModelError(f"{provider}: the provider refused: {why}", Failure.POLICY_REJECTION)
        if reason == "max_output_tokens":
            raise ModelError(
                f"{provider}: the reply reached the model's output token limit", Failure.OUTPUT_LIMIT_EXCEEDED
            )
        usage = _usage(get(resp, "usage"))
        reported = get(resp, "usage", "cost")
        number = isinstance(reported, int | float) and not isinstance(reported, bool)
        usage.cost_usd = cost(
            usage, options.model, self.connection.pricing, float(reported) if number else None
        )
        return Reply(Assistant("".join(parts), tuple(calls)), usage, text(resp, "status"))
