"""A run as the editor sees it: the model's text as message chunks, each call as a tool call (its
kind, title, locations, and the diff of a write or edit), its status as it is decided, runs and
ends, and what it gave. The front only reports: what was decided is the gate's and the loop's."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from typing import Any

from acp import (
    start_tool_call,
    text_block,
    tool_content,
    tool_diff_content,
    update_agent_message_text,
    update_agent_thought_text,
    update_tool_call,
    update_user_message_text,
)
from acp.schema import ToolCallLocation, ToolCallStatus, ToolKind

from ..._safe import SafeStream
from ...policy import STAMP_ARG, TOOLS, Decision, Kind, Verdict, load_json
from ..front import TextNow, current_text, summary, why
from ..runtime import Answer, Assistant, Events, Message, ToolCall, ToolResult, Usage, User

__all__ = ["Reporter", "Update", "kind_of", "replay", "thoughts"]

Update = Any  # one of the SDK's session updates
# The most of a call's output shown in the editor (the model gets it all).
SHOWN_OUTPUT = 64 << 10


def kind_of(name: str) -> ToolKind:
    """The tool call's kind, from the tool table: what it does to files, or runs."""
    info = TOOLS.get(name)
    if info is None:
        return "other"  # an MCP server's tool
    if info.writes:
        return "edit"
    if info.argument == "command":
        return "execute"
    if info.reads:
        return "read" if name == "read" else "search"
    return "think" if name == "task" else "other"


def _args(call: ToolCall) -> dict[str, Any] | None:
    try:
        value = load_json(call.arguments or "{}")
    except ValueError:
        return None
    return {k: v for k, v in value.items() if k != STAMP_ARG} if isinstance(value, dict) else None


def _locations(call: ToolCall, args: Mapping[str, Any] | None, cwd: str) -> list[ToolCallLocation] | None:
    path = args.get("path") if args is not None and TOOLS.get(call.name) else None
    if not isinstance(path, str):
        return None
    line = args.get("offset") if call.name == "read" and args is not None else None
    return [
        ToolCallLocation(path=os.path.normpath(os.path.join(cwd, path)), line=line if _line(line) else None)
    ]


def _line(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _diff(call: ToolCall, args: Mapping[str, Any], cwd: str, text_now: TextNow) -> Any | None:
    """The change a write or edit would make, as the editor shows a diff (the file as it is now)."""
    path = args.get("path")
    if call.name not in ("write", "edit") or not isinstance(path, str):
        return None
    full = os.path.normpath(os.path.join(cwd, path))
    now = text_now(path, cwd)
    old = now if isinstance(now, str) else None
    if call.name == "write" and isinstance(args.get("content"), str):
        return tool_diff_content(full, str(args["content"]), old)
    before, after = args.get("old_string"), args.get("new_string")
    if not isinstance(before, str) or not isinstance(after, str):
        return None
    if old is not None and old.count(before) == 1:
        return tool_diff_content(full, old.replace(before, after, 1), old)
    return tool_diff_content(full, after, before)  # the edit will fail: the change as the model gave it


class Reporter(Events):
    """The updates of one session's runs, handed to `send` (the outbox) as they happen."""

    def __init__(self, send: Callable[[Update], None], cwd: str, control: Any) -> None:
        self.send = send
        self.cwd = cwd
        self.control = control
        # Where a diff reads the file's text now (the disk; the editor's buffers where it offers them).
        self.text_now: TextNow = current_text
        self._stream = SafeStream()
        self._thinking = SafeStream()
        self._thought = False  # the reply's reasoning was streamed (not to be sent again at its end)
        self._lock = threading.Lock()
        self._announced: set[str] = set()

    # The model's reasoning, its text and the run's progress, each as it arrives.

    def thought(self, delta: str) -> None:
        self.control.check()
        self._thought = True
        shown = self._thinking.feed(delta)
        if shown:
            self.send(update_agent_thought_text(shown))

    def text(self, delta: str) -> None:
        self.control.check()
        self._end_thought()
        shown = self._stream.feed(delta)
        if shown:
            self.send(update_agent_message_text(shown))

    def _end_thought(self) -> None:
        rest = self._thinking.end()
        if rest:
            self.send(update_agent_thought_text(rest))

    def request(self, messages: int) -> None:
        self.control.entering_model()

    def message(self, message: Message, usage: Usage | None = None) -> None:
        if isinstance(message, Assistant):
            self.control.left_model()
            self._end_thought()
            if not self._thought:  # a provider that gives its reasoning whole, with the reply
                for thought in thoughts(message):
                    self.send(update_agent_thought_text(thought))
            self._thought = False
            rest = self._stream.end()
            if rest:
                self.send(update_agent_message_text(rest))
        elif isinstance(message, ToolResult):
            self._ended(message)

    # Calls.

    def announce(
        self, call: ToolCall, verdict: Verdict | None, status: ToolCallStatus, words: str, *, label: str = ""
    ) -> None:
        """The call's first update (a tool call), or, once it was announced, its next."""
        with self._lock:
            first = call.id not in self._announced
            self._announced.add(call.id)
        if first:
            args = _args(call)
            self.send(
                start_tool_call(
                    call.id,
                    f"{label} {summary(call)}" if label else summary(call),
                    kind=kind_of(call.name),
                    status=status,
                    content=self.content(call, verdict, words),
                    locations=_locations(call, args, self.cwd),
                    raw_input=args,
                )
            )
        else:
            self.send(update_tool_call(call.id, status=status, content=[tool_content(text_block(words))]))

    def content(self, call: ToolCall, verdict: Verdict | None, words: str) -> list[Any]:
        """What a tool call shows: the diff of a write or edit the policy did not deny (never of a
        path outside the workspace), then the words."""
        content: list[Any] = []
        args = _args(call)
        subject = verdict.subject if verdict is not None else None
        outside = subject is not None and subject.kind is Kind.OUTSIDE
        denied = verdict is None or verdict.decision is Decision.DENY
        diff = None if args is None or denied or outside else _diff(call, args, self.cwd, self.text_now)
        if diff is not None:
            content.append(diff)
        if words:
            content.append(tool_content(text_block(words)))
        return content

    def verdict(self, call: ToolCall, verdict: Verdict, answer: Answer | None) -> None:
        if verdict.decision is Decision.DENY:
            self.announce(call, verdict, "failed", f"denied: {why(verdict)}")
        elif answer is not None and not answer.allow:
            self.announce(call, verdict, "failed", "refused" + (f": {answer.note}" if answer.note else ""))
        elif answer is None:
            self.announce(call, verdict, "pending", f"runs unasked: {why(verdict)}")
        else:
            by = "for this session" if answer.by == "session rule" else "by you"
            self.announce(call, verdict, "pending", f"allowed {by}")

    def error(self, call: ToolCall, reason: str) -> None:
        self.announce(call, None, "failed", reason)

    def started(self, call: ToolCall) -> None:
        self.send(update_tool_call(call.id, status="in_progress"))

    def _ended(self, result: ToolResult) -> None:
        with self._lock:
            known = result.call_id in self._announced
            self._announced.discard(result.call_id)
        if not known:  # never decided (the run's turn limit): said now
            return
        shown = (
            result.content if len(result.content) <= SHOWN_OUTPUT else result.content[:SHOWN_OUTPUT] + "\n…"
        )
        status: ToolCallStatus = "failed" if result.is_error else "completed"
        self.send(update_tool_call(result.call_id, status=status, content=[tool_content(text_block(shown))]))


def thoughts(message: Assistant) -> list[str]:
    """The reasoning a reply carries as text (Anthropic's thinking blocks, kept to be sent back)."""
    return [
        str(item["thinking"])
        for item in message.opaque
        if item.get("type") == "thinking" and isinstance(item.get("thinking"), str) and item["thinking"]
    ]


def replay(messages: list[Message], cwd: str) -> list[Update]:
    """A recorded conversation as the updates that show it (session/load)."""
    results = {m.call_id: m for m in messages if isinstance(m, ToolResult)}
    updates: list[Update] = []
    for m in messages:
        if isinstance(m, User):
            updates.append(update_user_message_text(m.text))
        elif isinstance(m, Assistant):
            if m.text:
                updates.append(update_agent_message_text(m.text))
            for call in m.calls:
                result = results.get(call.id)
                failed = result is None or result.is_error
                words = result.content[:SHOWN_OUTPUT] if result is not None else "no result was recorded"
                args = _args(call)
                updates.append(
                    start_tool_call(
                        call.id,
                        summary(call),
                        kind=kind_of(call.name),
                        status="failed" if failed else "completed",
                        content=[tool_content(text_block(words))],
                        locations=_locations(call, args, cwd),
                        raw_input=args,
                    )
                )
    return updates
