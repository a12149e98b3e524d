"""The conversation on the screen: drawn first from the session's messages (a resumed one's), then
from what the run reports as it goes, in one place: the model's text and reasoning as they stream,
each call's row from its decision to its result (a sub-agent's under its task's), what was typed to
steer the run where the loop took it, and what bastion said on the way."""

from __future__ import annotations

from collections.abc import Sequence

from textual.containers import VerticalScroll
from textual.widget import Widget

from ...policy import Decision
from ..runtime import Assistant, Message, ToolCall, ToolResult, User
from ._bridge import Note, Retried, Ruled, Streamed, Told
from ._rows import Row
from ._view import CallRow, NoteLine, PromptLine, Reply, Thinking

__all__ = ["SHOWN_MESSAGES", "Conversation"]

# How many of a resumed conversation's last messages are drawn (the rest are said to be there).
SHOWN_MESSAGES = 400


def _split(call: ToolCall) -> tuple[str, ToolCall]:
    """A sub-agent's call, as its display names it (`[task 1] bash`, id `PARENT/ID`): its label,
    and the call with its own name."""
    if call.name.startswith("[") and "] " in call.name:
        label, _, name = call.name.partition("] ")
        return label + "]", ToolCall(call.id, name, call.arguments)
    return "", call


class Conversation(VerticalScroll):
    """The conversation's widgets, kept at the bottom while it grows (until the person scrolls up)."""

    DEFAULT_CSS = """
    Conversation { height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }
    """

    def __init__(self) -> None:
        super().__init__(id="log")
        self.rows: dict[str, CallRow] = {}
        self.reasoning_shown = False
        self.denied = 0
        self.notes = 0
        self._reply: Reply | None = None
        self._thinking: Thinking | None = None
        self._steered: list[str] = []  # the steering text the loop may take, in order

    def on_mount(self) -> None:
        self.anchor()

    async def show_past(self, messages: Sequence[Message]) -> None:
        """A resumed conversation, drawn from its messages."""
        left = len(messages) - SHOWN_MESSAGES
        shown: list[Widget] = []
        if left > 0:
            shown.append(NoteLine(f"({left} earlier messages are not drawn)"))
        for message in messages[max(0, left) :]:
            if isinstance(message, User):
                shown.append(PromptLine(message.text))
            elif isinstance(message, Assistant):
                if message.text.strip():
                    shown.append(Reply(message.text))
                for call in message.calls:
                    self.rows[call.id] = CallRow(Row(call, state="done"))
                    shown.append(self.rows[call.id])
            elif isinstance(message, ToolResult) and message.call_id in self.rows:
                self.rows[message.call_id].row.ended(message)
        if shown:
            await self.mount_all(shown)

    def sent(self, text: str, how: str = "prompt") -> None:
        """A prompt (or a follow-up) as it goes to the model."""
        self.mount(PromptLine(text, how))

    def steering(self, text: str) -> None:
        """Text that will steer the run: drawn where the loop takes it (a user message in the run)."""
        self._steered.append(text)

    async def ended(self) -> None:
        """The run ended, whichever way: a reply it cut short is drawn whole as far as it came, and
        steering it never took is forgotten here (it is sent next, or given back to edit)."""
        if self._reply is not None:
            await self._reply.end()
        self._reply, self._thinking = None, None
        self._steered = []

    async def happened(self, what: object) -> None:
        if isinstance(what, Streamed):
            await self._streamed(what)
        elif isinstance(what, Told):
            await self._told(what)
        elif isinstance(what, Ruled):
            self._ruled(what)
        elif isinstance(what, Note):
            self.say(what.text)
            self.notes += 1
        elif isinstance(what, Retried):
            for widget in (self._reply, self._thinking):
                if widget is not None:
                    await widget.remove()
            self._reply, self._thinking = None, None

    def say(self, text: str, error: bool = False) -> None:
        self.mount(NoteLine(text, error))

    async def _streamed(self, what: Streamed) -> None:
        if what.thought:
            if self._thinking is None:
                self._thinking = Thinking(shown=self.reasoning_shown)
                await self.mount(self._thinking)
            self._thinking.add(what.text)
            return
        if self._reply is None:
            self._reply = Reply()
            await self.mount(self._reply)
        await self._reply.stream(what.text)

    async def _told(self, what: Told) -> None:
        if what.kind == "message" and what.message is not None:
            await self._message(what.message)
        elif what.kind == "started" and what.call is not None:
            self._update(what.call, state="running")
        elif what.kind == "output" and what.call is not None:
            self._update(what.call, tail=what.line)
        elif what.kind == "error" and what.call is not None:
            self._update(what.call, state="unusable", error=what.line)
        elif what.kind == "cleared":
            await self.remove_children()
            self.rows.clear()
            self._reply, self._thinking = None, None
            self.say("cleared: a new conversation (the session, its record and its rules go on)")

    async def _message(self, message: Message) -> None:
        if isinstance(message, User):
            if self._steered and message.text == self._steered[0]:
                self.mount(PromptLine(self._steered.pop(0), "steer"))
            return
        if isinstance(message, Assistant):
            if self._reply is not None:
                await self._reply.end()
            elif message.text.strip():  # a provider that gave its text whole
                await self.mount(Reply(message.text))
            self._reply, self._thinking = None, None
            for call in message.calls:
                self._row(call)
        elif isinstance(message, ToolResult):
            shown = self.rows.get(message.call_id)
            if shown is not None:
                shown.row.ended(message)
                shown.redraw()

    def _row(self, call: ToolCall) -> CallRow:
        """The call's row, made (and drawn) the first time it is named: a sub-agent's after the last
        row of its task."""
        found = self.rows.get(call.id)
        if found is not None:
            return found
        label, own = _split(call)
        shown = CallRow(Row(own, label=label))
        parent = call.id.split("/", 1)[0] if "/" in call.id else None
        after = [
            r
            for key, r in self.rows.items()
            if parent is not None and (key == parent or key.startswith(f"{parent}/"))
        ]
        self.rows[call.id] = shown
        if after:
            self.mount(shown, after=after[-1])
        else:
            self.mount(shown)
        return shown

    def _update(self, call: ToolCall, **changes: str) -> None:
        shown = self._row(call)
        for name, value in changes.items():
            setattr(shown.row, name, value)
        shown.redraw()

    def _ruled(self, what: Ruled) -> None:
        shown = self._row(what.call)
        row = shown.row
        row.verdict, row.answer, row.decided = what.verdict, what.answer, what.decided
        if what.verdict.decision is Decision.DENY:
            row.state = "denied"
        elif what.answer is not None and not what.answer.allow:
            row.state = "refused"
        elif row.state == "asked":
            row.state = "decided"
        if row.state in ("denied", "refused"):
            self.denied += 1
        shown.redraw()

    def asked(self, call: ToolCall) -> None:
        """A call of the run waits on a question: its row says so, and shows what it would do (a
        sub-agent's call is shown by the question alone until it is decided)."""
        shown = self.rows.get(call.id)
        if shown is not None:
            shown.row.state = "asked"
            shown.redraw()

    def toggle_reasoning(self) -> None:
        self.reasoning_shown = not self.reasoning_shown
        for thinking in self.query(Thinking):
            thinking.toggle(self.reasoning_shown)

    def expand_all(self) -> None:
        expanded = not any(r.expanded for r in self.rows.values())
        for shown in self.rows.values():
            shown.toggle(expanded)
