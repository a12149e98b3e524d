"""What the fronts share: the permission question, reading its answer, and printing a run as it goes."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import TextIO

from .._safe import SafeStream, safe_line
from ..policy import Decision, Gate, Verdict, load_json
from ._ask import CallKey, Recorder, SessionRules, cannot_work, describe, may_always, parse_reply
from ._colour import Colour
from ._render import MarkdownStream
from ._types import Failure, Message, ModelError, OutputClosed, ToolCall, ToolResult, Usage
from .harness import SlotFailure, failure_words
from .loop import Answer, Answerer, Events, TaskOrigin

__all__ = ["Asker", "Fanout", "Printer", "why"]


def why(verdict: Verdict) -> str:
    """The verdict's reason with what decided it: the rule and where it came from."""
    parts = [verdict.reason]
    if verdict.rule:
        parts.append(f"rule {verdict.rule}" + (f" ({verdict.source})" if verdict.source else ""))
    return "; ".join(p for p in parts if p)


class Asker:
    """Asks a person about a call: says why it asks and what the call would do, then reads y, n or
    (where offered) a. A call whose "yes" could not work is refused unasked; a call allowed with `a`
    is allowed again, unasked, for the rest of the session (`on_rule` records it)."""

    def __init__(
        self,
        read: Callable[[str], str | None],
        write: Callable[[str], None],
        cwd: str,
        colour: Colour,
        *,
        offer_always: bool = False,
        refuse_all: bool = False,
        on_rule: Callable[[CallKey], None] | None = None,
    ) -> None:
        self.read = read
        self.write = write
        self.cwd = cwd
        self.colour = colour
        self.offer_always = offer_always
        self.refuse_all = refuse_all
        self.on_rule = on_rule
        self.rules = SessionRules()
        self.recorder: Recorder | None = None

    def watch(self, gate: Gate) -> Recorder:
        """The gate, wrapped so a question can show what the analyzer found (a caret)."""
        self.recorder = Recorder(gate)
        return self.recorder

    def labelled(self, label: str) -> Answerer:
        """The questions of a sub-agent: asked as the others, its label before the tool's name."""

        def ask(call: ToolCall, args: Mapping[str, object], verdict: Verdict) -> Answer:
            return self(call, args, verdict, label=label)

        return ask

    def __call__(
        self, call: ToolCall, args: Mapping[str, object], verdict: Verdict, *, label: str = ""
    ) -> Answer:
        refusal = cannot_work(call, verdict)
        if refusal is not None:
            return Answer(False, refusal, by="rule")
        key = CallKey.of(call, args)
        if self.rules.allows(key):
            return Answer(True, "", by="session rule")
        always = self.offer_always and may_always(verdict)
        decided = self.recorder.decided(args) if self.recorder is not None else None
        who = f"{label} {call.name}" if label else call.name
        shown = [self.colour.bold(safe_line(f"? {who}: {why(verdict)}"))]
        shown += describe(call, args, decided, self.cwd, self.colour)
        self.write("\n".join(shown) + "\n")
        choices = "[y/n/a] (a: allow this exact call for the rest of the session)" if always else "[y/N]"
        prompt = f"allow {who}? {choices} "
        if self.refuse_all:
            self.write(prompt + "n (--yes-to none)\n")
            return Answer(False, "", by="flag")
        answer, again = parse_reply(self.read(prompt), always=always)
        if again:
            self.rules.add(key)
            if self.on_rule is not None:
                self.on_rule(key)
        return answer


RETRY_WORDS = {
    Failure.RATE_LIMITED: "rate limited",
    Failure.UNAVAILABLE: "the service is unavailable",
    Failure.NETWORK: "network error",
}
# A tool's result is shown collapsed to this many lines (its first ones, then its last: the status).
RESULT_LINES = 4


def summary(call: ToolCall) -> str:
    """A call in one line for a person: a command's line, a file tool's path, else its arguments."""
    try:
        args = load_json(call.arguments or "{}")
    except ValueError:
        args = None
    if isinstance(args, dict):
        for name in ("command", "path", "pattern"):
            if isinstance(args.get(name), str):
                return f"{call.name} {str(args[name])[:200]}"
    return f"{call.name} {call.arguments[:200]}"


def collapsed(content: str) -> list[str]:
    """A result's first lines and its last (where a command's exit status is), the rest counted."""
    lines = content.rstrip("\n").splitlines() or [""]
    if len(lines) <= RESULT_LINES:
        return lines
    hidden = len(lines) - RESULT_LINES
    return [*lines[: RESULT_LINES - 1], f"… {hidden} more line{'s' if hidden != 1 else ''}", lines[-1]]


class Spinner:
    """A line that says what is being waited for and for how long, redrawn in place on a terminal
    (only there: `on` is False for a pipe), and wiped before anything else is printed."""

    FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

    def __init__(self, stream: TextIO, on: bool) -> None:
        self.stream = stream
        self.on = on
        self._lock = threading.Lock()
        self._what = ""
        self._since = 0.0
        self._shown = False
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, what: str) -> None:
        if not self.on:
            return
        with self._lock:
            self._what, self._since = what, time.monotonic()
        if self._thread is None:
            self._thread = threading.Thread(target=self._spin, daemon=True)
            self._thread.start()
        self._wake.set()

    def stop(self) -> None:
        """Stop and wipe the line (call before printing anything)."""
        if not self.on:
            return
        with self._lock:
            self._what = ""
            self._wipe()

    @property
    def waiting(self) -> str:
        """What the line says is waited for ("": the spinner is stopped)."""
        return self._what

    def _wipe(self) -> None:
        if self._shown:
            self._shown = False
            self._draw("\r\x1b[2K")

    def _draw(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (BrokenPipeError, ValueError):  # the terminal went away (or was closed): nothing to draw on
            self._what = ""

    def _spin(self) -> None:
        frame = 0
        while True:
            with self._lock:
                if self._what:
                    seconds = int(time.monotonic() - self._since)
                    self._draw(f"\r\x1b[2K{self.FRAMES[frame % len(self.FRAMES)]} {self._what} {seconds}s")
                    self._shown = True
                    frame += 1
                    busy = True
                else:
                    busy = False
            if busy:
                time.sleep(0.1)
            else:
                self._wake.wait()
                self._wake.clear()


class Printer(Events):
    """Prints a run: the model's text to `out` as it streams, each call, what was decided and what
    it gave (collapsed) to `err`; every call shown as allowed gets its result drawn, failed or not.

    A stream that was closed (the reader of `bastion -p ... | head` left) is not written again: the
    model's text streaming into it ends the run at once (OutputClosed), and anything else waits for
    the next request, which is not made; `closed` says so."""

    def __init__(
        self,
        out: TextIO,
        err: TextIO,
        *,
        stream_text: bool = True,
        colour: Colour | None = None,
        markdown: MarkdownStream | None = None,
    ) -> None:
        self.out = out
        self.err = err
        self.stream_text = stream_text
        self.colour = colour or Colour(False)
        self._mid_line = False
        # The calls shown as allowed (or started) whose result is not drawn yet; the calls said to have
        # been denied, refused or unusable (a line each already).
        self._allowed: set[str] = set()
        self._said: set[str] = set()
        self.closed = False
        self.markdown = markdown
        self.spinner = Spinner(err, self.colour.on)
        self._stream = SafeStream()  # the model's text as it streams (without markdown)
        self.retries = 0  # how many times a request is tried again at most (said with each retry)

    def request(self, messages: int) -> None:
        if self.closed:
            raise OutputClosed("the output was closed")
        self.spinner.start("waiting for the model")

    def idle(self) -> None:
        """A run (or a command) ended, whichever way: nothing is waited for any more."""
        self.spinner.stop()
        if self.markdown is not None and not self.closed:
            self.markdown.flush()

    def _write(self, stream: TextIO, text: str) -> bool:
        """Write and flush; False (and `closed`) once the stream's reader has gone."""
        if self.closed:
            return False
        try:
            stream.write(text)
            stream.flush()
        except BrokenPipeError:
            self.closed = True
            return False
        return True

    def retried(self, failure: ModelError, wait: float) -> None:
        """A request failed and is tried again after `wait` seconds."""
        what = RETRY_WORDS.get(failure.kind, str(failure.kind.value).replace("_", " "))
        if failure.kind is Failure.NETWORK and failure.answered:
            what = "the answer broke off or stalled"
        seconds = f"{wait:.0f}" if wait >= 1 else f"{wait:.1f}"
        count = f" ({failure.attempts}/{self.retries})" if self.retries and failure.attempts else ""
        self._line(f"{what}, retrying in {seconds} s{count}", self.colour.dim)
        self.spinner.start("waiting for the model")

    def text(self, delta: str) -> None:
        if self.stream_text and delta and self.markdown is not None:
            self.spinner.stop()
            self.markdown.feed(delta)
        elif self.stream_text and delta:
            self.spinner.stop()
            self._show(self._stream.feed(delta))

    def _show(self, text: str) -> None:
        if text:
            if not self._write(self.out, text):
                raise OutputClosed("the output was closed")
            self._mid_line = not text.endswith("\n")

    def note(self, text: str) -> None:
        """Something bastion says while it waits (a key command that is slow)."""
        self._line(f"bastion: {text}", self.colour.dim)

    def _line(self, text: str, paint: Callable[[str], str] | None = None) -> None:
        self.spinner.stop()
        if self.markdown is not None:
            self.markdown.flush()
        self._show(self._stream.end())
        if self._mid_line:
            self._write(self.out, "\n")
            self._mid_line = False
        shown = safe_line(text)
        self._write(self.err, (paint(shown) if paint else shown) + "\n")

    def verdict(self, call: ToolCall, verdict: Verdict, answer: Answer | None) -> None:
        red = self.colour.red
        self._said.add(call.id)
        if verdict.decision is Decision.DENY:
            self._line(f"✗ {call.name} denied: {why(verdict)}", red)
        elif answer is not None and not answer.allow:
            self._line(f"✗ {call.name} refused" + (f": {answer.note}" if answer.note else ""), red)
        else:
            by = " (allowed for this session)" if answer is not None and answer.by == "session rule" else ""
            self._allowed.add(call.id)
            self._line(f"→ {summary(call)}{by}", self.colour.cyan)

    def error(self, call: ToolCall, reason: str) -> None:
        self._said.add(call.id)
        self._line(f"✗ {call.name}: {reason}", self.colour.red)

    def slot_failed(self, failure: SlotFailure) -> None:
        self._line(f"bastion: {failure_words(failure)}", self.colour.red)

    def started(self, call: ToolCall) -> None:
        self._allowed.add(call.id)  # it runs: its result is drawn as one, whatever was shown before
        self.spinner.start(f"running {summary(call)[:60]}")

    def finished(self, call: ToolCall) -> None:
        self.spinner.stop()

    def message(self, message: Message, usage: Usage | None = None) -> None:
        self.spinner.stop()
        if self.markdown is not None:
            self.markdown.flush()
        self._show(self._stream.end())
        if not isinstance(message, ToolResult):
            return
        allowed, said = message.call_id in self._allowed, message.call_id in self._said
        self._allowed.discard(message.call_id)
        self._said.discard(message.call_id)
        if message.is_error and message.content.startswith("interrupted"):
            self._line(f"✗ {message.name}: interrupted", self.colour.red)
            return
        if said and not allowed:
            return  # denied, refused or not usable: said when it was decided
        if not allowed:  # never decided (the run's turn limit): said now
            self._line(f"✗ {message.name}: {collapsed(message.content)[0]}", self.colour.red)
            return
        lines = collapsed(message.content)
        if message.is_error:
            self._line(f"  ✗ {message.name} failed: {lines[0]}", self.colour.red)
            lines = lines[1:]
        for line in lines:
            self._line(f"  │ {line}", self.colour.dim)


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

    def slot_failed(self, failure: SlotFailure) -> None:
        self._each("slot_failed")(failure)

    def spent(self, usage: Usage, replies: int) -> None:
        self._each("spent")(usage, replies)

    def withdrawn(self, message: Message) -> None:
        self._each("withdrawn")(message)

    def cleared(self) -> None:
        self._each("cleared")()

    def subtask(self, origin: TaskOrigin) -> Events:
        return Fanout(*(t.subtask(origin) for t in self.targets))
