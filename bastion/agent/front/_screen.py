"""A run on the screen: the model's text as it streams, each call as it is decided, each result
under its own call's line (collapsed, and kept to be opened whole with /expand), a spinner that
says what is waited for and shows the last line a running command printed."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import TextIO

from ..._safe import SafeStream, safe_line
from ...policy import Decision, Verdict, load_json
from ..runtime import Answer, Events, Failure, Message, ModelError, OutputClosed, ToolCall, ToolResult, Usage
from ..runtime.harness import SlotFailure, failure_words
from ._colour import Colour
from ._plainly import why, wrapped
from ._render import MarkdownStream, columns_of, fitted

__all__ = [
    "EXPAND_KEPT",
    "RESULT_LINES",
    "Printer",
    "Spinner",
    "collapsed",
    "summary",
]

RETRY_WORDS = {
    Failure.RATE_LIMITED: "rate limited",
    Failure.UNAVAILABLE: "the service is unavailable",
    Failure.NETWORK: "network error",
}
# A tool's result is shown collapsed to this many lines (its first ones, then its last: the status).
RESULT_LINES = 4
# How many collapsed results are kept to be opened whole (/expand N); the oldest go first.
EXPAND_KEPT = 50
# The arguments that say in one line what a call does, the first one present.
_SHOWN_ARGUMENTS = ("command", "pattern", "path", "prompt")


def summary(call: ToolCall) -> str:
    """A call in one line for a person: a command's line, a file tool's path, a search's pattern
    (and where it looks), a task's prompt, else its arguments."""
    try:
        args = load_json(call.arguments or "{}")
    except ValueError:
        args = None
    if isinstance(args, dict):
        for name in _SHOWN_ARGUMENTS:
            if isinstance(args.get(name), str):
                where = args.get("path") if name == "pattern" and isinstance(args.get("path"), str) else None
                shown = f"{call.name} {str(args[name])[:200]}" + (f"  (in {where})" if where else "")
                return shown.replace("\n", " ⏎ ") if name == "prompt" else shown
    return f"{call.name} {call.arguments[:200]}"


def collapsed(content: str) -> list[str]:
    """A result's first lines and its last (where a command's exit status is), the rest counted."""
    lines = content.rstrip("\n").splitlines() or [""]
    if len(lines) <= RESULT_LINES:
        return lines
    hidden = len(lines) - RESULT_LINES
    return [*lines[: RESULT_LINES - 1], f"… {hidden} more line{'s' if hidden != 1 else ''}", lines[-1]]


def status(what: str, seconds: int, tail: str, columns: int, frame: int = 0) -> str:
    """The spinner's line: what is waited for (cut so the seconds stay, and to half the line when a
    running command's last line follows), the seconds, that last line; one row of a terminal
    `columns` wide, its last column left empty (where some terminals wrap at once), without a line
    break, control or escape (each made visible)."""
    room = max(1, columns - 1)
    clock = f" {seconds}s"
    limit = room - 2 - len(clock)
    shown = fitted(_one_line(what), max(1, min(limit, max(20, room // 2)) if tail else limit))
    last = f" │ {_one_line(tail)}" if tail else ""
    return fitted(f"{Spinner.FRAMES[frame % len(Spinner.FRAMES)]} {shown}{clock}{last}", room)


def _one_line(text: str) -> str:
    return safe_line(text).replace("\t", " ")


class Spinner:
    """A line that says what is being waited for and for how long (and, for a running command, the
    last line it printed), redrawn in place on a terminal (only there: `on` is False for a pipe),
    and wiped before anything else is printed. It is one row whatever it is told: its text holds
    no line break nor control, and is cut to the terminal's width (`width`, read at each redraw),
    so a redraw never wraps and never leaves a row behind."""

    FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
    TAIL = 60  # how much of a running command's last line is shown

    def __init__(self, stream: TextIO, on: bool, width: Callable[[], int] | None = None) -> None:
        self.stream = stream
        self.on = on
        self.width = width or (lambda: columns_of(stream))
        self._lock = threading.Lock()
        self._what = ""
        self._tail = ""
        self._since = 0.0
        self._shown = False
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, what: str) -> None:
        if not self.on:
            return
        with self._lock:
            self._what, self._tail, self._since = what, "", time.monotonic()
        if self._thread is None:
            self._thread = threading.Thread(target=self._spin, daemon=True)
            self._thread.start()
        self._wake.set()

    def tail(self, line: str) -> None:
        """The last line a running command printed (shown after what is waited for)."""
        with self._lock:
            if self._what:
                self._tail = line[-self.TAIL :]

    def stop(self) -> None:
        """Stop and wipe the line (call before printing anything)."""
        if not self.on:
            return
        with self._lock:
            self._what, self._tail = "", ""
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
                    self._draw(f"\r\x1b[2K{status(self._what, seconds, self._tail, self.width(), frame)}")
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
    it gave (collapsed) to `err`; every call shown as allowed gets its result drawn, failed or not,
    under its own line: when other lines came between (several calls in one reply, a sub-agent's
    calls before its report), the call's line is drawn again above its result. On a terminal
    (`width`), what bastion says in words is wrapped between words, never inside one.

    A stream that was closed (the reader of `bastion -p ... | head` left) is not written again: the
    model's text streaming into it ends the run at once (OutputClosed), and anything else waits for
    the next request, which is not made; `closed` says so.

    `hold_text` (-p's text output, which cannot take back what it wrote): a reply's text is written
    once the reply is complete, so a try that broke off and was retried leaves none of its text
    ahead of the whole answer; what a run that ended mid-reply had received is written as it ends."""

    def __init__(
        self,
        out: TextIO,
        err: TextIO,
        *,
        stream_text: bool = True,
        hold_text: bool = False,
        colour: Colour | None = None,
        markdown: MarkdownStream | None = None,
        width: Callable[[], int] | None = None,
    ) -> None:
        self.out = out
        self.err = err
        # The terminal's width, which what bastion says (a denial, an error, a note) is wrapped to
        # at word boundaries; None: not wrapped (a pipe, a log).
        self.width = width
        self.stream_text = stream_text
        self.hold_text = hold_text
        self._held: list[str] = []  # with hold_text: the text of the reply being received
        self.colour = colour or Colour(False)
        self._mid_line = False
        # The calls shown as allowed (or started) whose result is not drawn yet; the calls said to have
        # been denied, refused or unusable (a line each already).
        self._allowed: set[str] = set()
        self._said: set[str] = set()
        # Each call whose line was drawn, and the call whose line (or result) was drawn last.
        self._calls: dict[str, ToolCall] = {}
        self._last: str | None = None
        # The collapsed results, by number, to be opened whole: (the call's line, the whole result).
        self.results: dict[int, tuple[str, str]] = {}
        self._numbered = 0
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
        if self._held and not self.closed:
            with contextlib.suppress(OutputClosed):
                self._release()

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
        """A request failed and is tried again after `wait` seconds: the text of the block that
        broke off is taken off the screen (the answer starts again)."""
        what = RETRY_WORDS.get(failure.kind, str(failure.kind.value).replace("_", " "))
        if failure.kind is Failure.NETWORK and failure.answered:
            what = "the answer broke off or stalled"
        if self.markdown is not None:
            self.markdown.drop()
        self._held.clear()
        seconds = f"{wait:.0f}" if wait >= 1 else f"{wait:.1f}"
        count = f" ({failure.attempts}/{self.retries})" if self.retries and failure.attempts else ""
        self._line(f"{what}, retrying in {seconds} s{count}", self.colour.dim, wrap=True)
        self.spinner.start("waiting for the model")

    def text(self, delta: str) -> None:
        if self.stream_text and delta and self.hold_text:
            self._held.append(delta)
        elif self.stream_text and delta and self.markdown is not None:
            self.spinner.stop()
            self.markdown.feed(delta)
        elif self.stream_text and delta:
            self.spinner.stop()
            self._show(self._stream.feed(delta))

    def output(self, text: str) -> None:
        """What a running command printed (a line at a time, safe already): its last line is shown
        on the spinner's line, so a long command can be watched."""
        lines = [line for line in text.splitlines() if line.strip()]
        if lines:
            self.spinner.tail(safe_line(lines[-1]))

    def _show(self, text: str) -> None:
        if text:
            if not self._write(self.out, text):
                raise OutputClosed("the output was closed")
            self._mid_line = not text.endswith("\n")

    def note(self, text: str) -> None:
        """Something bastion says while it waits (a key command that is slow)."""
        self._line(f"bastion: {text}", self.colour.dim, wrap=True)

    def _line(
        self,
        text: str,
        paint: Callable[[str], str] | None = None,
        call: str | None = None,
        *,
        wrap: bool = False,
    ) -> None:
        """One line to `err` (`wrap`: words, wrapped to the terminal's width between words); `call`
        is the id of the call it belongs to (its line or its result)."""
        self.spinner.stop()
        if self.markdown is not None:
            self.markdown.flush()
        self._show(self._stream.end())
        if self._mid_line:
            self._write(self.out, "\n")
            self._mid_line = False
        shown = safe_line(text)
        lines = wrapped(shown, self.width()) if wrap and self.width is not None else [shown]
        self._write(self.err, "\n".join(paint(line) if paint else line for line in lines) + "\n")
        self._last = call

    def verdict(self, call: ToolCall, verdict: Verdict, answer: Answer | None) -> None:
        red = self.colour.red
        self._said.add(call.id)
        self._calls[call.id] = call
        if verdict.decision is Decision.DENY:
            self._line(f"✗ {call.name} denied: {why(verdict)}", red, call.id, wrap=True)
        elif answer is not None and not answer.allow:
            refused = f"✗ {call.name} refused" + (f": {answer.note}" if answer.note else "")
            self._line(refused, red, call.id, wrap=True)
        else:
            by = " (allowed for this session)" if answer is not None and answer.by == "session rule" else ""
            self._allowed.add(call.id)
            self._line(f"→ {summary(call)}{by}", self.colour.cyan, call.id)

    def error(self, call: ToolCall, reason: str) -> None:
        self._said.add(call.id)
        self._line(f"✗ {call.name}: {reason}", self.colour.red, call.id, wrap=True)

    def slot_failed(self, failure: SlotFailure) -> None:
        self._line(f"bastion: {failure_words(failure)}", self.colour.red, wrap=True)

    def started(self, call: ToolCall) -> None:
        self._allowed.add(call.id)  # it runs: its result is drawn as one, whatever was shown before
        self.spinner.start(f"running {summary(call)}")

    def finished(self, call: ToolCall) -> None:
        self.spinner.stop()

    def _release(self) -> None:
        """The held text of a reply, written whole."""
        held = "".join(self._held)
        self._held.clear()
        self._show(self._stream.feed(held) + self._stream.end())

    def message(self, message: Message, usage: Usage | None = None) -> None:
        self.spinner.stop()
        if self.markdown is not None:
            self.markdown.flush()
        if self._held:
            self._release()
        self._show(self._stream.end())
        if not isinstance(message, ToolResult):
            return
        allowed, said = message.call_id in self._allowed, message.call_id in self._said
        self._allowed.discard(message.call_id)
        self._said.discard(message.call_id)
        call = self._calls.pop(message.call_id, None)
        if message.is_error and message.content.startswith("interrupted"):
            self._line(f"✗ {message.name}: interrupted", self.colour.red)
            return
        if said and not allowed:
            return  # denied, refused or not usable: said when it was decided
        if not allowed:  # never decided (the run's turn limit, Ctrl-C at its question): said now
            self._line(f"✗ {message.name}: {collapsed(message.content)[0]}", self.colour.red)
            return
        if call is not None and self._last != message.call_id:  # other lines came between
            self._line(f"→ {summary(call)}", self.colour.cyan, call.id)
        self._result(message, call)

    def _result(self, message: ToolResult, call: ToolCall | None) -> None:
        lines = collapsed(message.content)
        if len(lines) < len(message.content.rstrip("\n").splitlines()):
            self._numbered += 1
            self.results[self._numbered] = (summary(call) if call else message.name, message.content)
            self.results.pop(self._numbered - EXPAND_KEPT, None)
            lines[RESULT_LINES - 1] += f" (/expand {self._numbered})"
        if message.is_error:
            self._line(f"  ✗ {message.name} failed: {lines[0]}", self.colour.red, message.call_id)
            lines = lines[1:]
        for line in lines:
            self._line(f"  │ {line}", self.colour.dim, message.call_id)

    def expanded(self, number: int | None = None) -> list[str] | None:
        """A collapsed result whole (the last one when no number is given), or None."""
        if number is None:
            number = max(self.results, default=0)
        kept = self.results.get(number)
        if kept is None:
            return None
        head, content = kept
        return [f"→ {head}", *(f"  │ {line}" for line in content.rstrip("\n").splitlines())]
