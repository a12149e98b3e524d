"""Anthropic Messages, streamed."""

from __future__ import annotations

import json
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

__all__ = ["AnthropicModel"]

_BUDGET = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32000}
_MAX_TOKENS = 32000


def _input_of(arguments: str) -> dict[str, Any]:
    # A call whose arguments did not parse is sent back with none: its result already says why.
    try:
        value = json.loads(arguments)
    except (json.JSONDecodeError, RecursionError):  # nested too deep: refused when it was called
        return {}
    return value if isinstance(value, dict) else {}


def _messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []

    def user_block(block: dict[str, Any]) -> None:
        if out and out[-1]["role"] == "user":
            out[-1]["content"].append(block)
        else:
            out.append({"role": "user", "content": [block]})

    for m in messages:
        if isinstance(m, User):
            user_block({"type": "text", "text": m.text})
        elif isinstance(m, Assistant):
            blocks: list[dict[str, Any]] = list(m.opaque)
            if m.text:
                blocks.append({"type": "text", "text": m.text})
            blocks.extend(
                {"type": "tool_use", "id": c.id, "name": c.name, "input": _input_of(c.arguments)}
                for c in m.calls
            )
            out.append({"role": "assistant", "content": blocks or [{"type": "text", "text": "(no reply)"}]})
        elif isinstance(m, ToolResult):
            user_block(
                {
                    "type": "tool_result",
                    "tool_use_id": m.call_id,
                    "content": m.content,
                    "is_error": m.is_error,
                }
            )
    return out


class AnthropicModel:
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
            "max_tokens": _MAX_TOKENS,
            "system": system,
            "messages": _messages(messages),
            "stream": True,
        }
        if tools:
            body["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in tools
            ]
        if self.options.think:
            body["thinking"] = {"type": "enabled", "budget_tokens": _BUDGET.get(self.options.effort, 2048)}
        return self._poster.post(body, lambda events, surfaced: self._parse(events, surfaced, on_text))

    def _parse(
        self, events: Iterator[tuple[str, str]], surfaced: Surfaced, on_text: Callable[[str], None]
    ) -> Reply:
        provider = self.options.provider
        blocks: dict[int, dict[str, Any]] = {}
        usage = Usage()
        stop = ""
        for _event, data in events:
            item = parse_json(provider, data)
            kind = item.get("type")
            if kind == "message_start":
                u = (item.get("message") or {}).get("usage") or {}
                usage.input_tokens = int(u.get("input_tokens") or 0)
            elif kind == "content_block_start":
                block = dict(item.get("content_block") or {})
                if block.get("type") == "tool_use":
                    surfaced.tool_call = True
                    block["partial"] = ""
                blocks[int(item.get("index", len(blocks)))] = block
            elif kind == "content_block_delta":
                block = blocks.setdefault(int(item.get("index", 0)), {"type": "text", "text": ""})
                delta = item.get("delta") or {}
                if delta.get("type") == "text_delta":
                    block["text"] = block.get("text", "") + delta.get("text", "")
                    on_text(delta.get("text", ""))
                elif delta.get("type") == "input_json_delta":
                    block["partial"] = block.get("partial", "") + delta.get("partial_json", "")
                elif delta.get("type") == "thinking_delta":
                    block["thinking"] = block.get("thinking", "") + delta.get("thinking", "")
                elif delta.get("type") == "signature_delta":
                    block["signature"] = block.get("signature", "") + delta.get("signature", "")
            elif kind == "message_delta":
                stop = str((item.get("delta") or {}).get("stop_reason") or stop)
                usage.output_tokens = int(
                    (item.get("usage") or {}).get("output_tokens") or usage.output_tokens
                )
            elif kind == "message_stop":
                return self._reply(blocks, usage, stop)
            elif kind == "error":
                err = item.get("error") or {}
                etype = str(err.get("type", ""))
                message = f"{provider}: {etype}: {err.get('message', '')}"
                if etype == "overloaded_error":
                    raise ModelError(message, Failure.UNAVAILABLE, retryable=True)
                if etype == "rate_limit_error":
                    raise ModelError(message, Failure.RATE_LIMITED, retryable=True)
                raise ModelError(message, Failure.OTHER)
        raise ModelError(f"{provider}: the stream ended before the message did", Failure.PROTOCOL_ERROR)

    @staticmethod
    def _reply(blocks: dict[int, dict[str, Any]], usage: Usage, stop: str) -> Reply:
        text: list[str] = []
        calls: list[ToolCall] = []
        opaque: list[dict[str, Any]] = []
        for _i, block in sorted(blocks.items()):
            if block.get("type") == "text":
                text.append(str(block.get("text", "")))
            elif block.get("type") == "tool_use":
                raw = block.get("partial") or json.dumps(block.get("input") or {})
                calls.append(ToolCall(str(block.get("id", f"toolu_{_i}")), str(block.get("name", "")), raw))
            elif block.get("type") in ("thinking", "redacted_thinking"):
                opaque.append(block)
        return Reply(Assistant("".join(text), tuple(calls), tuple(opaque)), usage, stop)
