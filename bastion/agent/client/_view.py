"""The conversation's widgets, each small and drawn from its own facts: a prompt (or text that
steered a run, or a follow-up), the model's reply as markdown (streamed), its reasoning (collapsed
until Ctrl-R), a call's row (its line and short body, `_rows`), and a line bastion said."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Markdown, Static, TextArea
from textual.widgets.markdown import MarkdownStream

from ..._safe import safe_text
from ._rows import Row, body, head

__all__ = ["CallRow", "NoteLine", "PromptArea", "PromptLine", "Reply", "Thinking"]

# How a row's state is marked at the start of its line.
_MARKS = {
    "decided": "·",
    "asked": "?",
    "running": "⋯",
    "done": "✓",
    "failed": "✗",
    "denied": "✗",
    "refused": "✗",
    "interrupted": "✗",
    "unusable": "✗",
}
_FAILED = frozenset({"failed", "denied", "refused", "interrupted", "unusable"})
# How a prompt is introduced, by how it reached the model.
_SAID = {"prompt": "› ", "steer": "↳ steered: ", "follow": "⏵ follow-up: "}


class PromptLine(Static):
    """What the person sent: a prompt, text that steered a run, or a follow-up (`how`)."""

    DEFAULT_CSS = """
    PromptLine { margin: 1 0 0 0; text-style: bold; }
    PromptLine.steer, PromptLine.follow { text-style: italic; margin: 0; }
    """

    def __init__(self, text: str, how: str = "prompt") -> None:
        super().__init__(Text(_SAID[how] + safe_text(text).strip()), classes=how, markup=False)


class NoteLine(Static):
    """A line bastion said (a warning, a retry, a compaction, a run that stopped or failed)."""

    DEFAULT_CSS = """
    NoteLine { color: $text-muted; }
    NoteLine.error { color: $text-error; }
    """

    def __init__(self, text: str, error: bool = False) -> None:
        super().__init__(Text(text), classes="error" if error else "", markup=False)


class Reply(Markdown):
    """The model's text, rendered as markdown; `stream` takes the pieces as they arrive."""

    DEFAULT_CSS = """
    Reply { margin: 0; padding: 0; background: transparent; }
    """

    def __init__(self, text: str = "") -> None:
        super().__init__(safe_text(text), open_links=False)  # a link the model wrote is not opened
        self.received: list[str] = [text]
        self._stream: MarkdownStream | None = None

    async def stream(self, piece: str) -> None:
        """A piece more (the stream joins pieces that come faster than they can be drawn)."""
        self.received.append(piece)
        if self._stream is None:
            self._stream = Markdown.get_stream(self)
        await self._stream.write(piece)

    async def end(self) -> None:
        """The reply is whole: whatever the stream still holds is drawn."""
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None

    @property
    def text(self) -> str:
        return "".join(self.received)


class Thinking(Static):
    """The model's reasoning: one line saying it is there, the whole of it when shown (Ctrl-R)."""

    DEFAULT_CSS = """
    Thinking { color: $text-muted; text-style: italic; }
    """

    def __init__(self, text: str = "", shown: bool = False) -> None:
        super().__init__("", markup=False)
        self.parts = [text]
        self.shown = shown

    def on_mount(self) -> None:
        self.redraw()

    def add(self, piece: str) -> None:
        self.parts.append(piece)
        self.redraw()

    def toggle(self, shown: bool) -> None:
        self.shown = shown
        self.redraw()

    def redraw(self) -> None:
        text = "".join(self.parts).strip()
        lines = text.splitlines()
        if self.shown:
            self.update(Text("∴ " + text))
        else:
            count = f"{len(lines)} line{'s' if len(lines) != 1 else ''}"
            self.update(Text(f"∴ thinking ({count}; Ctrl-R shows it)"))


class CallRow(Static, can_focus=True):
    """One call: its line, its short body under it, the whole of it when expanded (Ctrl-O). A row
    can be selected (focused): Tab or Enter opens its detail."""

    DEFAULT_CSS = """
    CallRow { padding: 0 0 0 1; }
    CallRow.sub { padding: 0 0 0 3; }
    CallRow:focus { background: $boost; text-style: bold; }
    """
    BINDINGS = [Binding("enter,tab", "app.detail", "its detail", show=False)]

    def __init__(self, row: Row) -> None:
        super().__init__("", markup=False, classes="sub" if row.label else "")
        self.row = row
        self.expanded = False
        self._was_selected = False

    def on_mount(self) -> None:
        self.redraw()

    def on_mouse_down(self) -> None:
        self._was_selected = self.has_focus

    def on_click(self) -> None:
        """A click on the selected row expands or collapses it (the first one selects it)."""
        if self._was_selected:
            self.toggle()

    def toggle(self, expanded: bool | None = None) -> None:
        self.expanded = not self.expanded if expanded is None else expanded
        self.redraw()

    def redraw(self) -> None:
        row = self.row
        mark = _MARKS[row.state]
        style = "red" if row.state in _FAILED else "cyan" if row.state == "running" else ""
        label = f"{row.label} " if row.label else ""
        shown = Text(f"{mark} {label}{head(row)}", style=style)
        for line in body(row, self.expanded):
            shown.append("\n  " + line, style="red" if line.startswith("✗") else "dim")
        self.update(shown)


class PromptArea(TextArea):
    """The prompt, live whether a run goes or not: Enter sends it, Ctrl-J starts a new line, Tab
    completes a slash command (or, on anything else, selects the last call)."""

    DEFAULT_CSS = """
    PromptArea { height: auto; max-height: 10; border: none; border-top: solid $primary; padding: 0 1;
                 background: transparent; }
    PromptArea:focus { border: none; border-top: solid $accent; }
    PromptArea .text-area--cursor-line { background: transparent; }
    """

    class Sent(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Tabbed(Message):
        """Tab with nothing to complete."""

    def __init__(self, names: Sequence[str]) -> None:
        super().__init__(
            id="prompt", soft_wrap=True, show_line_numbers=False, placeholder="a prompt (F1: every key)"
        )
        self.names = names

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.post_message(self.Sent(self.text))
            return
        if event.key == "ctrl+j":
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if event.key == "tab":
            event.stop()
            event.prevent_default()
            text = self.text
            found = [n for n in self.names if n.startswith(text)] if text.startswith("/") else []
            if found and " " not in text:
                self.text = found[0] + " "
                self.move_cursor(self.document.end)
            else:
                self.post_message(self.Tabbed())
            return
        await super()._on_key(event)
