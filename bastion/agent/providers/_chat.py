"""OpenAI Chat Completions, streamed through the openai SDK: OpenAI, OpenRouter and Ollama's /v1."""

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

__all__ = ["ChatModel", "chat_usage"]


def _messages(system: str, messages: Sequence[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for m in messages:
        if isinstance(m, User):
            out.append({"role": "user", "content": m.text})
        elif isinstance(m, Assistant):
            item: dict[str, Any] = {"role": "assistant", "content": m.text or None}
            if m.calls:
                item["tool_calls"] = [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                    for c in m.calls
                ]
            out.append(item)
        elif isinstance(m, ToolResult):
            out.append({"role": "tool", "tool_call_id": m.call_id, "content": m.content})
    return out


def chat_usage(raw: Any) -> tuple[Usage, float | None]:
    """A usage object as every provider reports it, and the cost the provider reported (OpenRouter's
    `cost`), if any."""
    details = getattr(raw, "prompt_tokens_details", None)
    cached = int(getattr(details, "cached_tokens", 0) or 0)
    written = int(getattr(details, "cache_write_tokens", 0) or 0)
    prompt = int(getattr(raw, "prompt_tokens", 0) or 0)
    reported = getattr(raw, "cost", None)
    usage = Usage(
        max(0, prompt - cached - written),
        int(getattr(raw, "completion_tokens", 0) or 0),
        cached,
        written,
    )
    return usage, float(reported) if isinstance(reported, int | float) else None


class ChatModel:
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
            "messages": _messages(system, messages),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools:
            params["tools"] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
                }
                for t in tools
            ]
        if self.options.think:
            params["reasoning_effort"] = self.options.effort
        elif self.options.provider == "ollama":
            params["reasoning_effort"] = "none"
        c = self.connection
        return with_retries(
            c.provider, c.key, c.retry, lambda shown: self._once(params, shown, on_text), c.on_retry
        )

    def _once(self, params: dict[str, Any], surfaced: Surfaced, on_text: Callable[[str], None]) -> Reply:
        provider = self.options.provider
        text: list[str] = []
        refusal: list[str] = []
        calls: dict[int, dict[str, str]] = {}
        usage, reported = Usage(), None
        finish = ""
        with self.connection.openai().chat.completions.create(
            **params, **self.connection.openai_extras()
        ) as chunks:
            for chunk in chunks:
                if getattr(chunk, "usage", None) is not None:
                    usage, reported = chat_usage(chunk.usage)
                for choice in getattr(chunk, "choices", None) or ():
                    delta: Any = getattr(choice, "delta", None)
                    if getattr(delta, "content", None):
                        text.append(delta.content)
                        on_text(delta.content)
                    if getattr(delta, "refusal", None):
                        refusal.append(delta.refusal)
                    for tc in getattr(delta, "tool_calls", None) or ():
                        surfaced.tool_call = True
                        index = getattr(tc, "index", None)
                        index = len(calls) if index is None else int(index)
                        slot = calls.setdefault(index, {"id": "", "name": "", "arguments": ""})
                        slot["id"] = getattr(tc, "id", None) or slot["id"]
                        fn = getattr(tc, "function", None)
                        slot["name"] += getattr(fn, "name", None) or ""
                        slot["arguments"] += getattr(fn, "arguments", None) or ""
                    finish = getattr(choice, "finish_reason", None) or finish
        if refusal or finish == "content_filter":
            why = "".join(refusal) or "finish_reason content_filter"
            raise ModelError(f"{provider}: the provider refused: {why}", Failure.POLICY_REJECTION)
        if not finish:
            raise ended_early(provider, "reply", chunks)
        if finish == "length":
            raise ModelError(
                f"{provider}: the reply reached the model's output token limit", Failure.OUTPUT_LIMIT_EXCEEDED
            )
        out = tuple(
            ToolCall(c["id"] or f"call_{i}", c["name"], c["arguments"] or "{}")
            for i, c in sorted(calls.items())
        )
        usage.cost_usd = cost(usage, self.options.model, self.connection.pricing, reported)
        return Reply(Assistant("".join(text), out), usage, finish)
