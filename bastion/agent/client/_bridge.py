"""Between the run's thread and the screen: what a run reports and what it asks, turned into values
handed to the client (`post`, safe from any thread), and the answers it waits for.

`Feed` is the printer the wiring is handed (so what the session says while it is built and runs, a
sandbox notice, a retry, a compaction, reaches the screen, held to be printed again when the client
exits) and the run's Events: the model's text and reasoning (made safe as they stream), each call
as it is decided, starts, prints and ends, and each message added to the conversation. A sub-agent's
calls come with the task's label in their name and its call's id before theirs (`PARENT/ID`).

`ScreenAsker` is the Asker whose questions are answered on the screen: it posts the question (with
the rule a `Learning` offers for it) and waits for the answer or for the run to be stopped, which
ends the turn as Ctrl-C at the REPL's question does. Nothing reads standard input.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable
from typing import NamedTuple, TextIO, cast

from ..._safe import SafeStream, safe_line
from ...policy import Decided, Offer, Verdict
from ..front import Asker, CallKey, Colour, Learning, Printer, Question, RuleOffer, RunControl
from ..runtime import Answer, Assistant, Message, ModelError, ToolCall, Usage, running_call
from ..runtime.harness import SlotFailure, failure_words

__all__ = [
    "Asked",
    "Feed",
    "Held",
    "Note",
    "Post",
    "Retried",
    "Ruled",
    "ScreenAsker",
    "Streamed",
    "Told",
]


class Streamed(NamedTuple):
    """A piece of the model's text (`thought`: of its reasoning), safe to show."""

    text: str
    thought: bool = False


class Told(NamedTuple):
    """A run's event about a call or the conversation: `kind` is "requested", "message",
    "started", "finished", "output" (a running command's last line), "error" (an unusable call)
    or "cleared" (a new conversation)."""

    kind: str
    call: ToolCall | None = None
    message: Message | None = None
    usage: Usage | None = None
    line: str = ""


class Ruled(NamedTuple):
    """A call decided: the verdict, the person's answer (None: none was asked), and the gate's
    decision where it was seen made (its plan and analysis)."""

    call: ToolCall
    verdict: Verdict
    answer: Answer | None
    decided: Decided | None


class Note(NamedTuple):
    """A line bastion says while it builds or runs the session (held to be printed on exit)."""

    text: str


class Retried(NamedTuple):
    """A request failed and is tried again: the text of the reply that broke off is taken back (a
    note says why and when)."""


class Asked(NamedTuple):
    """A question, the rule offered for it (None: none), and where its answer goes."""

    question: Question
    offer: RuleOffer | None
    reply: Callable[[Answer, bool], None]


Post = Callable[[object], None]


class Held(io.TextIOBase):
    """A text stream whose every line is posted as a Note and kept (printed when the client exits)."""

    def __init__(self, post: Post) -> None:
        self.post = post
        self.lines: list[str] = []
        self._part = ""
        self._lock = threading.Lock()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        with self._lock:
            *whole, self._part = (self._part + text).split("\n")
            self.lines += [safe_line(line) for line in whole if line.strip()]
        for line in whole:
            if line.strip():
                self.post(Note(safe_line(line)))
        return len(text)


class Feed(Printer):
    """The wiring's printer and the run's Events, posted to the client."""

    def __init__(self, post: Post, control: RunControl, held: Held) -> None:
        # Held is a text stream that posts its lines (TextIO is a typing protocol it fills)
        super().__init__(cast(TextIO, held), cast(TextIO, held), stream_text=False, colour=Colour(False))
        self.post = post
        self.control = control
        self.recorder: Callable[[], tuple[object, Decided] | None] = lambda: None
        self._text = SafeStream()
        self._thought = SafeStream()

    def text(self, delta: str) -> None:
        self.control.check()
        shown = self._text.feed(delta)
        if shown:
            self.post(Streamed(shown))

    def thought(self, delta: str) -> None:
        self.control.check()
        shown = self._thought.feed(delta)
        if shown:
            self.post(Streamed(shown, thought=True))

    def request(self, messages: int) -> None:
        self.control.entering_model()
        self.post(Told("requested"))

    def message(self, message: Message, usage: Usage | None = None) -> None:
        if isinstance(message, Assistant):
            self.control.left_model()
            rest, thought = self._text.end(), self._thought.end()
            if thought:
                self.post(Streamed(thought, thought=True))
            if rest:
                self.post(Streamed(rest))
        self.post(Told("message", message=message, usage=usage))

    def verdict(self, call: ToolCall, verdict: Verdict, answer: Answer | None) -> None:
        last = self.recorder()  # this thread's last decision: the one this verdict is of, unless
        # something after the gate (the approval slot, a skill's grant) made another verdict of it
        decided = last[1] if last is not None and last[1].verdict is verdict else None
        self.post(Ruled(call, verdict, answer, decided))

    def error(self, call: ToolCall, reason: str) -> None:
        self.post(Told("error", call=call, line=safe_line(reason)))

    def started(self, call: ToolCall) -> None:
        self.post(Told("started", call=call))

    def finished(self, call: ToolCall) -> None:
        self.post(Told("finished", call=call))

    def output(self, text: str) -> None:
        call = running_call()
        lines = [line for line in text.splitlines() if line.strip()]
        if call is not None and lines:
            self.post(Told("output", call=call, line=safe_line(lines[-1])))

    def slot_failed(self, failure: SlotFailure) -> None:
        self.note(failure_words(failure))

    def note(self, text: str) -> None:
        self.err.write(f"bastion: {text}\n")

    def retried(self, failure: ModelError, wait: float) -> None:
        self._text, self._thought = SafeStream(), SafeStream()
        self.post(Retried())
        super().retried(failure, wait)  # why and when, in the REPL's words: a note

    def cleared(self) -> None:
        self.post(Told("cleared"))

    def idle(self) -> None:
        """Nothing to stop: the screen shows what is waited for from the events themselves."""


class ScreenAsker(Asker):
    """Questions answered on the screen: y, a (with a note), n (with a reason), s (this exact call
    for the session, where offered); r saves the rule offered, and the call is allowed. The rule is
    offered by `learning` when one is given, else by the policy, through the session's gate
    (`watch`); `on_learnt` is told of each rule saved."""

    def __init__(
        self,
        post: Post,
        control: RunControl,
        cwd: str,
        learning: Learning | None = None,
        on_rule: Callable[[CallKey], None] | None = None,
        on_learnt: Callable[[Offer], None] | None = None,
    ) -> None:
        # `put` is the screen's: the line-reading and line-writing ends of the base are never used.
        super().__init__(
            lambda prompt: None,
            lambda text: None,
            cwd,
            Colour(True),
            offer_always=True,
            on_rule=on_rule,
            offer_learn=learning is None,
            on_learnt=on_learnt,
        )
        self.post = post
        self.control = control
        if learning is not None:
            self.learning = learning

    def put(self, question: Question) -> tuple[Answer, bool]:
        offer = self.learning.offer(question.call, question.args, question.verdict)
        given: list[tuple[Answer, bool]] = []
        done = threading.Event()

        def reply(answer: Answer, again: bool) -> None:
            if not done.is_set():
                given.append((answer, again))
                done.set()

        self.post(Asked(question, offer, reply))
        while not done.wait(0.05):
            if self.control.cancelled.is_set():
                raise KeyboardInterrupt  # the turn ends as Ctrl-C at a question ends it
        return given[0]
