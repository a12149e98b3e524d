"""The client's other screens: every key (Ctrl-/ or F1, and /help), a call's detail (Tab or Enter on
a row), and the sessions to resume (`--resume` without an ID, `--continue`): each session's title
(its first prompt), the directory it ran in, its age and its turns, the newest first."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import NamedTuple

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ..._safe import safe_line
from ..sessions import SessionInfo

__all__ = ["KEYS", "DetailScreen", "HelpScreen", "Key", "PickerScreen", "age"]


class Key(NamedTuple):
    keys: str
    does: str


# Every key of the client, as the help lists them (the bindings are the app's and the panel's).
KEYS = (
    Key("Enter", "send a prompt; while a run goes, steer it (the text lands before its next model call)"),
    Key("Ctrl-J", "a new line in the prompt"),
    Key("/follow TEXT", "queue a follow-up, run when the model would stop"),
    Key("Esc", "stop the run (its calls are answered as interrupted); on a row or a screen: back"),
    Key(
        "Ctrl-C",
        "copy the selection when one is drawn; else stop the run, clear the prompt, or quit when "
        "idle; a second one while stopping quits at once",
    ),
    Key(
        "y a n s r",
        "at a question: allow; allow with a note; refuse with a reason; this exact call "
        "for the session; save the rule offered",
    ),  # fmt: skip
    Key("PgUp PgDn", "scroll the conversation (the mouse wheel too)"),
    Key("Ctrl-Home Ctrl-End", "the conversation's start, its end"),
    Key("Ctrl-P Ctrl-N", "select the previous or the next call (click selects one too)"),
    Key("Tab, Enter", "on a call: its detail (the policy's decision, who decided, the plan, the stamp)"),
    Key("Ctrl-O", "the selected call whole, or every call when none is selected"),
    Key("Ctrl-R", "show or hide the model's reasoning"),
    Key("drag", "select text anywhere; Ctrl-C copies it"),
    Key("Ctrl-/ or F1", "this list (Esc, q or F1 goes back)"),
)


class _Text(ModalScreen[None]):
    """A screen of text over the client's; Esc, q or F1 goes back."""

    DEFAULT_CSS = """
    _Text { align: center middle; }
    _Text > VerticalScroll { width: 100%; max-width: 110; height: auto; max-height: 90%;
                             border: round $accent; padding: 0 1; background: $surface; }
    """
    BINDINGS = [Binding("escape,q,f1,ctrl+underscore", "dismiss", "back")]

    def __init__(self, shown: Sequence[Text | Table]) -> None:
        super().__init__()
        self.shown = shown

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            for part in self.shown:
                yield Static(part, markup=False)


class HelpScreen(_Text):
    """Every key, then the slash commands (their usage and what each does)."""

    def __init__(self, commands: Sequence[tuple[str, str]]) -> None:
        keys = Table.grid(padding=(0, 2), expand=True)
        keys.add_column(no_wrap=True, style="bold")
        keys.add_column(ratio=1)
        for key in KEYS:
            keys.add_row(key.keys, key.does)
        said = Table.grid(padding=(0, 2), expand=True)
        said.add_column(no_wrap=True, style="bold")
        said.add_column(ratio=1)
        for usage, does in commands:
            said.add_row(usage, does)
        tail = Text("A line that starts with // sends the rest with one slash.", style="dim")
        super().__init__([Text("Keys", style="bold underline"), keys, Text(""),
                          Text("Commands", style="bold underline"), said, tail])  # fmt: skip


class DetailScreen(_Text):
    """A call's detail, one fact a line."""

    def __init__(self, lines: Sequence[str]) -> None:
        super().__init__([Text("\n".join(lines))])


def age(seconds: float) -> str:
    """How long ago, in the largest whole unit."""
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return "just now"


class PickerScreen(Screen[str | None]):
    """The sessions to choose from, the newest first; Enter resumes the one selected, Esc or q
    leaves. One that ran in another directory is resumed only with h (continue it here)."""

    DEFAULT_CSS = """
    PickerScreen OptionList { height: 1fr; border: none; }
    PickerScreen #said { color: $text-muted; padding: 0 1; }
    """
    BINDINGS = [
        Binding("escape,q", "leave", "leave"),
        Binding("h", "here", "continue it here"),
    ]

    def __init__(
        self, sessions: Sequence[SessionInfo], cwd: str, now: Callable[[], float] = time.time
    ) -> None:
        super().__init__()
        self.sessions = sorted(sessions, key=lambda s: (s.written, s.id), reverse=True)
        self.cwd = cwd
        self.now = now
        self.here = False

    def compose(self) -> ComposeResult:
        where = "this directory" if all(s.cwd == self.cwd for s in self.sessions) else "every directory"
        yield Static(Text(f"Resume a session ({where}): Enter resumes, Esc leaves", style="bold"), id="title")
        listed = OptionList(*[Option(self._shown(s), id=s.id) for s in self.sessions])
        listed.highlighted = 0
        yield listed
        yield Static("", id="said", markup=False)

    def _shown(self, info: SessionInfo) -> Text:
        turns = f"{info.turns} turn{'s' if info.turns != 1 else ''}"
        shown = Text(
            safe_line(info.first_prompt.strip().splitlines()[0] if info.first_prompt.strip() else "")
        )
        where = "here" if info.cwd == self.cwd else info.cwd
        shown.append(f"\n  {safe_line(where)} · {age(self.now() - info.written)} · {turns}", style="dim")
        if info.damaged:  # resumed only with --repair: its resume says so
            shown.append(safe_line(f" · damaged: {info.damaged}"), style="red")
        return shown

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        chosen = next(s for s in self.sessions if s.id == event.option.id)
        if chosen.cwd != self.cwd and not self.here:
            said = f"it ran in {chosen.cwd}: cd there to resume it, or press h to continue it here"
            self.query_one("#said", Static).update(Text(safe_line(said)))
            return
        self.dismiss(chosen.id)

    def action_here(self) -> None:
        listed = self.query_one(OptionList)
        if listed.highlighted is None:
            return
        self.here = True
        listed.action_select()

    def action_leave(self) -> None:
        self.dismiss(None)
