"""OpenAI Chat Completions, streamed: OpenAI, OpenRouter and Ollama's /v1."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
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
from ._http import Poster, Surfaced, parse_json
from ._options import ModelOptions

__all__ = ["ChatModel"]


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


class ChatModel:
    def __init__(self, options: ModelOptions, poster: Poster) -> None:
        self.options = options
        self._poster = poster

    def stream(
        self,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        on_text: Callable[[str], None],
    ) -> Reply:
        body: dict[str, Any] = {
            "model": self.options.model,
            "messages": _messages(system, messages),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
                }
                for t in tools
            ]
        if self.options.think:
            body["reasoning_effort"] = self.options.effort
        elif self.options.provider == "ollama":
            body["reasoning_effort"] = "none"
        return self._poster.post(body, lambda events, surfaced: self._parse(events, surfaced, on_text))

    def _parse(
        self, events: Iterator[tuple[str, str]], surfaced: Surfaced, on_text: Callable[[str], None]
    ) -> Reply:
        provider = self.options.provider
        text: list[str] = []
        calls: dict[int, dict[str, str]] = {}
        usage = Usage()
        finish = ""
        done = False
        for _event, data in events:
            if data.strip() == "[DONE]":
                done = True
                break
            chunk = parse_json(provider, data)
            if "error" in chunk:
                err = chunk["error"]
                message = err.get("message", err) if isinstance(err, dict) else err
                raise ModelError(
                    f"{provider}: error in stream: {message}", Failure.UNAVAILABLE, retryable=True
                )
            if isinstance(chunk.get("usage"), dict):
                usage = Usage(
                    int(chunk["usage"].get("prompt_tokens") or 0),
                    int(chunk["usage"].get("completion_tokens") or 0),
                )
            for choice in chunk.get("choices") or ():
                delta = choice.get("delta") or {}
                if delta.get("content"):
                    text.append(delta["content"])
                    on_text(delta["content"])
                for tc in delta.get("tool_calls") or ():
                    surfaced.tool_call = True
                    slot = calls.setdefault(
                        int(tc.get("index", len(calls))), {"id": "", "name": "", "arguments": ""}
                    )
                    slot["id"] = tc.get("id") or slot["id"]
                    fn = tc.get("function") or {}
                    slot["name"] += fn.get("name") or ""
                    slot["arguments"] += fn.get("arguments") or ""
                finish = choice.get("finish_reason") or finish
        if not done and not finish:
            raise ModelError(f"{provider}: the stream ended before the reply did", Failure.PROTOCOL_ERROR)
        out = tuple(
            ToolCall(c["id"] or f"call_{i}", c["name"], c["arguments"] or "{}")
            for i, c in sorted(calls.items())
        )
        if finish == "length" and not out and not text:
            raise ModelError(f"{provider}: the reply hit the output token limit", Failure.OTHER)
        return Reply(Assistant("".join(text), out), usage, finish)
