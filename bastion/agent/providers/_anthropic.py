"""Anthropic Messages, streamed through the anthropic SDK (its Vertex client for vertex), with
prompt-cache breakpoints."""

from __future__ import annotations

import json
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
from ._limits import model_limits
from ._pricing import cost
from ._sse import Kept, count, events, get, loads, text

__all__ = ["AnthropicModel", "with_cache_breakpoints"]

# Thinking budgets: each kept below max_tokens, as the API requires.
_BUDGET = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 30000}
# The output asked for when the models API does not say the model's own limit: a reply that reaches
# max_tokens fails as output_limit_exceeded.
_MAX_TOKENS = 32000
_MIN_BUDGET = 1024
_EPHEMERAL = {"type": "ephemeral"}
# Anthropic allows four cache breakpoints: the system prompt, the tools, and the last two user turns.
_TURN_BREAKPOINTS = 2
_THINKING = ("thinking", "redacted_thinking")


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
            # Its own signed thinking only: a turn another family made (vertex) keeps other items.
            blocks: list[dict[str, Any]] = [b for b in m.opaque if b.get("type") in _THINKING]
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


def with_cache_breakpoints(
    system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """The request's system, tools and messages with cache_control on the system prompt, the last
    tool, and the last block of each of the last two user turns, so each request reads the prefix the
    one before wrote."""
    system_blocks = [{"type": "text", "text": system, "cache_control": _EPHEMERAL}]
    if tools:
        tools = [*tools[:-1], {**tools[-1], "cache_control": _EPHEMERAL}]
    marked = 0
    out = list(messages)
    for i in range(len(out) - 1, -1, -1):
        if marked == _TURN_BREAKPOINTS:
            break
        if out[i]["role"] == "user" and out[i]["content"]:
            content = list(out[i]["content"])
            content[-1] = {**content[-1], "cache_control": _EPHEMERAL}
            out[i] = {**out[i], "content": content}
            marked += 1
    return system_blocks, tools, out


def _usage(start: object, delta: object) -> Usage:
    """message_start's usage, with the counts message_delta reports at the end (they are cumulative)."""

    def tokens(name: str) -> int:
        return count(delta, name) if get(delta, name) is not None else count(start, name)

    return Usage(
        tokens("input_tokens"),
        tokens("output_tokens"),
        tokens("cache_read_input_tokens"),
        tokens("cache_creation_input_tokens"),
    )


# A delta's type -> the field of its block it adds to, and where the delta's text is.
_DELTAS = {
    "text_delta": ("text", "text"),
    "input_json_delta": ("partial", "partial_json"),
    "thinking_delta": ("thinking", "thinking"),
    "signature_delta": ("signature", "signature"),
}


class AnthropicModel:
    def __init__(self, options: ModelOptions, connection: Connection) -> None:
        self.options = options
        self.connection = connection
        self._max_tokens: dict[str, int] = {}

    def max_tokens(self, model: str) -> int:
        """The model's own output limit (its largest budget), asked once per model; else 32000."""
        if model not in self._max_tokens:
            limits = model_limits(self.connection, model, self.connection.limits_cache)
            self._max_tokens[model] = limits.max_output_tokens or _MAX_TOKENS
        return self._max_tokens[model]

    def stream(self, request: ModelRequest) -> Reply:
        options = request.options
        tool_params = [
            {"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in request.tools
        ]
        system_blocks, tool_params, message_params = with_cache_breakpoints(
            request.system, tool_params, _messages(request.messages)
        )
        max_tokens = self.max_tokens(options.model)
        params: dict[str, Any] = {
            "model": options.model,
            "max_tokens": max_tokens,
            "system": system_blocks,
            "messages": message_params,
            "stream": True,
        }
        if tool_params:
            params["tools"] = tool_params
        if options.think:
            budget = min(_BUDGET.get(options.effort, 2048), max_tokens - _MIN_BUDGET)
            params["thinking"] = {"type": "enabled", "budget_tokens": max(_MIN_BUDGET, budget)}
        return with_retries(self.connection, lambda shown: self._once(params, shown, request))

    def _once(self, params: dict[str, Any], surfaced: Surfaced, request: ModelRequest) -> Reply:
        provider = request.options.provider
        blocks: dict[int, dict[str, Any]] = {}
        # Each block's streamed fields in pieces, joined once the message is complete (linear).
        pieces: dict[int, dict[str, list[str]]] = {}
        start_usage: object = None
        delta_usage: object = None
        stop = ""
        kept = Kept(provider)
        with self.connection.claude().messages.with_streaming_response.create(**params) as response:
            surfaced.answered = True
            for name, data in events(provider, response.iter_bytes()):
                if name == "ping":
                    continue
                event = loads(provider, data)
                kind = text(event, "type") or name
                if kind == "error":
                    raise stream_error(provider, event)
                if kind == "message_start":
                    start_usage = get(event, "message", "usage")
                elif kind == "content_block_start":
                    raw = get(event, "content_block")
                    block = {k: v for k, v in raw.items() if v is not None} if isinstance(raw, dict) else {}
                    if block.get("type") == "tool_use":
                        surfaced.tool_call = True
                    index = get(event, "index")
                    index = index if isinstance(index, int) else len(blocks)
                    blocks[index] = block
                    pieces[index] = {}
                elif kind == "content_block_delta":
                    index = get(event, "index")
                    index = index if isinstance(index, int) else 0
                    blocks.setdefault(index, {"type": "text"})
                    field, source = _DELTAS.get(text(event, "delta", "type"), ("", ""))
                    if field:
                        piece = kept(text(event, "delta", source))
                        pieces.setdefault(index, {}).setdefault(field, []).append(piece)
                        if field == "text":
                            request.on_text(piece)
                        elif field == "thinking" and piece:
                            request.on_thought(piece)
                elif kind == "message_delta":
                    stop = text(event, "delta", "stop_reason") or stop
                    delta_usage = get(event, "usage") or delta_usage
                elif kind == "message_stop":
                    for index, fields in pieces.items():
                        for field, parts in fields.items():
                            blocks[index][field] = str(blocks[index].get(field) or "") + "".join(parts)
                    return self._reply(blocks, _usage(start_usage, delta_usage), stop, request.options)
        raise ended_early(provider, "message", response)

    def _reply(
        self, blocks: dict[int, dict[str, Any]], usage: Usage, stop: str, options: ModelOptions
    ) -> Reply:
        provider = options.provider
        if stop == "refusal":
            raise ModelError(
                f"{provider}: the provider refused (stop_reason: refusal)", Failure.POLICY_REJECTION
            )
        if stop == "max_tokens":
            raise ModelError(
                f"{provider}: the reply reached the output token limit (the largest bastion asks for)",
                Failure.OUTPUT_LIMIT_EXCEEDED,
            )
        said: list[str] = []
        calls: list[ToolCall] = []
        opaque: list[dict[str, Any]] = []
        for i, block in sorted(blocks.items()):
            if block.get("type") == "text":
                said.append(str(block.get("text", "")))
            elif block.get("type") == "tool_use":
                raw = block.get("partial") or json.dumps(block.get("input") or {})
                calls.append(ToolCall(str(block.get("id", f"toolu_{i}")), str(block.get("name", "")), raw))
            elif block.get("type") in _THINKING:
                opaque.append(block)
        usage.cost_usd = cost(usage, options.model, self.connection.pricing, None)
        return Reply(Assistant("".join(said), tuple(calls), tuple(opaque)), usage, stop)
