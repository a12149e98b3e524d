"""OpenAI Chat Completions, streamed through the openai SDK: OpenAI, OpenRouter and Ollama's /v1."""

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
from ._sse import DONE, Kept, count, dicts, events, get, loads, text

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


def chat_usage(raw: object) -> tuple[Usage, float | None]:
    """A usage object (JSON) as every Chat provider reports it, and the cost the provider reported
    (OpenRouter's `cost`), if any."""
    cached = count(raw, "prompt_tokens_details", "cached_tokens")
    written = count(raw, "prompt_tokens_details", "cache_write_tokens")
    reported = get(raw, "cost")
    fresh = max(0, count(raw, "prompt_tokens") - cached - written)
    usage = Usage(fresh, count(raw, "completion_tokens"), cached, written)
    number = isinstance(reported, int | float) and not isinstance(reported, bool)
    return usage, float(reported) if number else None


class ChatModel:
    def __init__(self, options: ModelOptions, connection: Connection) -> None:
        self.options = options
        self.connection = connection

    def stream(self, request: ModelRequest) -> Reply:
        options = request.options
        params: dict[str, Any] = {
            "model": options.model,
            "messages": _messages(request.system, request.messages),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.tools:
            params["tools"] = [
                {
                    "type": "function",
                    "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
                }
                for t in request.tools
            ]
        if options.think:
            params["reasoning_effort"] = options.effort
        elif options.provider == "ollama":
            params["reasoning_effort"] = "none"
        return with_retries(self.connection, lambda shown: self._once(params, shown, request))

    def _once(self, params: dict[str, Any], surfaced: Surfaced, request: ModelRequest) -> Reply:
        provider = request.options.provider
        parts: list[str] = []
        refusal: list[str] = []
        # Each call's id, name and argument pieces, joined once the reply is complete (linear).
        calls: dict[int, tuple[list[str], list[str], list[str]]] = {}
        usage, reported = Usage(), None
        finish = ""
        kept = Kept(provider)
        create = self.connection.openai().chat.completions.with_streaming_response.create
        # The body goes as extra_body, sent as it is: given by name, the SDK would convert every
        # message against its typed parameters, about 0.4 ms each (benchmarks/conversation.py).
        extras = self.connection.openai_extras()
        with create(model=params["model"], messages=[], stream=True, extra_body=params, **extras) as response:
            surfaced.answered = True
            for _, data in events(provider, response.iter_bytes()):
                if data == DONE:
                    break
                chunk = loads(provider, data)
                if get(chunk, "error"):
                    raise stream_error(provider, chunk["error"])
                if isinstance(get(chunk, "usage"), dict):
                    usage, reported = chat_usage(chunk["usage"])
                for choice in dicts(chunk, "choices"):
                    content, refused = text(choice, "delta", "content"), text(choice, "delta", "refusal")
                    # The reasoning servers stream beside the text (DeepSeek's, vLLM's
                    # `reasoning_content`; OpenRouter's, Ollama's `reasoning`): shown, never sent back.
                    thought = text(choice, "delta", "reasoning_content") or text(choice, "delta", "reasoning")
                    if thought:
                        request.on_thought(thought)
                    if content:
                        parts.append(kept(content))
                        request.on_text(content)
                    if refused:
                        refusal.append(kept(refused))
                    for tc in dicts(choice, "delta", "tool_calls"):
                        surfaced.tool_call = True
                        index = get(tc, "index")
                        index = index if isinstance(index, int) else len(calls)
                        ids, names, pieces = calls.setdefault(index, ([], [], []))
                        for into, found in ((ids, text(tc, "id")), (names, text(tc, "function", "name"))):
                            if found:
                                into.append(kept(found))
                        pieces.append(kept(text(tc, "function", "arguments")))
                    finish = text(choice, "finish_reason") or finish
        if refusal or finish == "content_filter":
            why = "".join(refusal) or "finish_reason content_filter"
            raise ModelError(f"{provider}: the provider refused: {why}", Failure.POLICY_REJECTION)
        if not finish:
            raise ended_early(provider, "reply", response)
        if finish == "length":
            raise ModelError(
                f"{provider}: the reply reached the model's output token limit", Failure.OUTPUT_LIMIT_EXCEEDED
            )
        out = tuple(
            ToolCall(ids[-1] if ids else f"call_{i}", "".join(names), "".join(pieces) or "{}")
            for i, (ids, names, pieces) in sorted(calls.items())
        )
        usage.cost_usd = cost(usage, request.options.model, self.connection.pricing, reported)
        return Reply(Assistant("".join(parts), out), usage, finish)
