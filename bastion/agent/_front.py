"""What the fronts share: the permission question, reading its answer, and printing a run as it goes."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import TextIO

from ..policy import STAMP_ARG, Decision, Verdict
from ._types import Message, ToolCall, ToolResult, Usage
from .loop import Answer, Events

__all__ = ["Printer", "clean", "parse_answer", "question"]

_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)?|\x1b.|[\x00-\x08\x0b-\x1f\x7f]"
)


def clean(text: str) -> str:
    """Text with terminal control sequences removed, safe to print."""
    return _CONTROL.sub("", text)


def why(verdict: Verdict) -> str:
    """The verdict's reason with what decided it: the rule and where it came from."""
    parts = [verdict.reason]
    if verdict.rule:
        parts.append(f"rule {verdict.rule}" + (f" ({verdict.source})" if verdict.source else ""))
    return "; ".join(p for p in parts if p)


def question(call: ToolCall, args: Mapping[str, object], verdict: Verdict) -> str:
    shown = json.dumps({k: v for k, v in args.items() if k != STAMP_ARG}, ensure_ascii=False)
    return clean(f"? allow {call.name} {shown} ({why(verdict)}) [y/N] ")


def parse_answer(line: str | None) -> Answer:
    """y / n with an optional note or reason after the first word; any other line refuses, the
    whole line its reason; no line (end of input) refuses."""
    if line is None:
        return Answer(False, "no answer (end of input)")
    text = line.strip()
    word, _, rest = text.partition(" ")
    if word.lower() in ("y", "yes"):
        return Answer(True, rest.strip())
    if word.lower() in ("n", "no", ""):
        return Answer(False, rest.strip())
    return Answer(False, text)


class Printer(Events):
    """Prints a run: the model's text to `out` as it streams, each call and what was decided to `err`."""

    def __init__(self, out: TextIO, err: TextIO, *, stream_text: bool = True) -> None:
        self.out = out
        self.err = err
        self.stream_text = stream_text
        self._mid_line = False

    def text(self, delta: str) -> None:
        if self.stream_text and delta:
            self.out.write(clean(delta))
            self.out.flush()
            self._mid_line = not delta.endswith("\n")

    def _line(self, text: str) -> None:
        if self._mid_line:
            self.out.write("\n")
            self.out.flush()
            self._mid_line = False
        self.err.write(clean(text) + "\n")
        self.err.flush()

    def verdict(self, call: ToolCall, verdict: Verdict, answer: Answer | None) -> None:
        if verdict.decision is Decision.DENY:
            self._line(f"✗ {call.name} denied: {why(verdict)}")
        elif answer is not None and not answer.allow:
            self._line(f"✗ {call.name} refused" + (f": {answer.note}" if answer.note else ""))
        else:
            self._line(f"→ {call.name} {call.arguments[:200]}")

    def error(self, call: ToolCall, reason: str) -> None:
        self._line(f"✗ {call.name}: {reason}")

    def message(self, message: Message, usage: Usage | None = None) -> None:
        if isinstance(message, ToolResult) and message.is_error and message.content.startswith("interrupted"):
            self._line(f"✗ {message.name}: interrupted")


class Fanout(Events):
    """Several Events as one."""

    def __init__(self, *targets: Events) -> None:
        self.targets = targets

    def _each(self, name: str) -> Callable[..., None]:
        def call(*args: object) -> None:
            for t in self.targets:
                getattr(t, name)(*args)

        return call

    def text(self, delta: str) -> None:
        self._each("text")(delta)

    def request(self, messages: int) -> None:
        self._each("request")(messages)

    def message(self, message: Message, usage: Usage | None = None) -> None:
        self._each("message")(message, usage)

    def verdict(self, call: ToolCall, verdict: Verdict, answer: Answer | None) -> None:
        self._each("verdict")(call, verdict, answer)

    def error(self, call: ToolCall, reason: str) -> None:
        self._each("error")(call, reason)

    def started(self, call: ToolCall) -> None:
        self._each("started")(call)

    def finished(self, call: ToolCall) -> None:
        self._each("finished")(call)
