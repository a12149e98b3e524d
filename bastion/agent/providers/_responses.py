"""The OpenAI Responses API (Open Responses), streamed: any server that speaks it."""

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


class ResponsesModel:
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
            "instructions": system,
            "input": _input(messages),
            "stream": True,
            "store": False,
        }
        if tools:
            body["tools"] = [
                {"type": "function", "name": t.name, "description": t.description, "parameters": t.parameters}
                for t in tools
            ]
        if self.options.think:
            body["reasoning"] = {"effort": self.options.effort}
        return self._poster.post(body, lambda events, surfaced: self._parse(events, surfaced, on_text))

    def _parse(
        self, events: Iterator[tuple[str, str]], surfaced: Surfaced, on_text: Callable[[str], None]
    ) -> Reply:
        provider = self.options.provider
        text: list[str] = []
        calls: list[ToolCall] = []
        for event, data in events:
            item = parse_json(provider, data)
            kind = item.get("type") or event
            if kind == "response.output_text.delta":
                delta = str(item.get("delta", ""))
                text.append(delta)
                on_text(delta)
            elif (
                kind == "response.output_item.done"
                and (item.get("item") or {}).get("type") == "function_call"
            ):
                fc = item["item"]
                surfaced.tool_call = True
                calls.append(
                    ToolCall(
                        str(fc.get("call_id") or fc.get("id") or f"call_{len(calls)}"),
                        str(fc.get("name", "")),
                        str(fc.get("arguments") or "{}"),
                    )
                )
            elif kind in ("response.completed", "response.incomplete"):
                resp = item.get("response") or {}
                u = resp.get("usage") or {}
                usage = Usage(int(u.get("input_tokens") or 0), int(u.get("output_tokens") or 0))
                return Reply(Assistant("".join(text), tuple(calls)), usage, str(resp.get("status", "")))
            elif kind in ("response.failed", "error"):
                err = (item.get("response") or {}).get("error") or item.get("error") or item
                message = err.get("message", "") if isinstance(err, dict) else str(err)
                code = str(err.get("code", "")) if isinstance(err, dict) else ""
                if "context" in code or "context" in message.lower():
                    raise ModelError(f"{provider}: {message}", Failure.CONTEXT_EXCEEDED)
                raise ModelError(
                    f"{provider}: the response failed: {message or code}",
                    Failure.UNAVAILABLE,
                    retryable=not surfaced.tool_call,
                )
        raise ModelError(
            f"{provider}: the stream ended before the response completed", Failure.PROTOCOL_ERROR
        )
