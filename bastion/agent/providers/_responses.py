"""The OpenAI Responses API (Open Responses), streamed through the openai SDK: any server that speaks it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .._types import (
    Assistant,
    Failure,
    Message,
    ModelError,
    Reply,
    ToolCall,
    ToolResult,
    ToolSpec,
    Usage,
    User,
)
from ._clients import Connection
from ._failures import Surfaced, ended_early, with_retries
from ._options import ModelOptions
from ._pricing import cost

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


def _usage(raw: Any) -> Usage:
    details = getattr(raw, "input_tokens_details", None)
    cached = int(getattr(details, "cached_tokens", 0) or 0)
    written = int(getattr(details, "cache_write_tokens", 0) or 0)
    return Usage(
        max(0, int(getattr(raw, "input_tokens", 0) or 0) - cached - written),
        int(getattr(raw, "output_tokens", 0) or 0),
        cached,
        written,
    )


class ResponsesModel:
    def __init__(self, options: ModelOptions, connection: Connection) -> None:
        self.options = options
        self.connection = connection

    def stream(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        on_text: Callable[[str], None],
    ) -> Reply:
        params: dict[str, Any] = {
            "model": self.options.model,
            "instructions": system,
            "input": _input(messages),
            "stream": True,
            "store": False,
        }
        if tools:
            params["tools"] = [
                {"type": "function", "name": t.name, "description": t.description, "parameters": t.parameters}
                for t in tools
            ]
        if self.options.think:
            params["reasoning"] = {"effort": self.options.effort}
        c = self.connection
        return with_retries(
            c.provider, c.key, c.retry, lambda shown: self._once(params, shown, on_text), c.on_retry
        )

    def _once(self, params: dict[str, Any], surfaced: Surfaced, on_text: Callable[[str], None]) -> Reply:
        provider = self.options.provider
        text: list[str] = []
        refusal: list[str] = []
        calls: list[ToolCall] = []
        with self.connection.openai().responses.create(**params, **self.connection.openai_extras()) as events:
            for event in events:
                kind = getattr(event, "type", "")
                if kind == "response.output_text.delta":
                    delta = str(getattr(event, "delta", "") or "")
                    text.append(delta)
                    on_text(delta)
                elif kind == "response.refusal.delta":
                    refusal.append(str(getattr(event, "delta", "") or ""))
                elif (
                    kind == "response.output_item.done"
                    and getattr(getattr(event, "item", None), "type", "") == "function_call"
                ):
                    fc = event.item
                    surfaced.tool_call = True
                    calls.append(
                        ToolCall(
                            str(getattr(fc, "call_id", None) or f"call_{len(calls)}"),
                            str(getattr(fc, "name", "") or ""),
                            str(getattr(fc, "arguments", None) or "{}"),
                        )
                    )
                elif kind in ("response.completed", "response.incomplete"):
                    resp = event.response
                    reason = str(getattr(getattr(resp, "incomplete_details", None), "reason", "") or "")
                    if refusal or reason == "content_filter":
                        why = "".join(refusal) or "incomplete: content_filter"
                        raise ModelError(f"{provider}: the provider refused: {why}", Failure.POLICY_REJECTION)
                    if reason == "max_output_tokens":
                        raise ModelError(
                            f"{provider}: the reply reached the model's output token limit",
                            Failure.OUTPUT_LIMIT_EXCEEDED,
                        )
                    usage = _usage(getattr(resp, "usage", None))
                    reported = getattr(getattr(resp, "usage", None), "cost", None)
                    usage.cost_usd = cost(
                        usage,
                        self.options.model,
                        self.connection.pricing,
                        float(reported) if isinstance(reported, int | float) else None,
                    )
                    status = str(getattr(resp, "status", "") or "")
                    return Reply(Assistant("".join(text), tuple(calls)), usage, status)
                elif kind in ("response.failed", "error"):
                    err = getattr(getattr(event, "response", None), "error", None) or event
                    message = str(getattr(err, "message", "") or "")
                    code = str(getattr(err, "code", "") or "")
                    if "context" in code or "context" in message.lower():
                        raise ModelError(f"{provider}: {message}", Failure.CONTEXT_EXCEEDED)
                    raise ModelError(
                        f"{provider}: the response failed: {message or code}",
                        Failure.UNAVAILABLE,
                        retryable=True,
                    )
        raise ended_early(provider, "response", events)
