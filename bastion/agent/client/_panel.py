"""The permission panel: the question about a call, answered on the screen.

It shows who asks (a sub-agent's label, the tool), what the call would do in plain words, the
policy's part (the rule that asked and where it is from, or that none allows it) and what it is
asking about (the command with a caret where bastion stopped reading, an edit's diff, a write's
content, a long command's other lines); then the rule offered for calls like it, as the line of
TOML it adds to your config for this project (the asker's `front.Learning`: the policy's, which
never offers one for a secret-looking path, a name outside the workspace, what an ask or deny rule
names, nor a rule that would not allow the call). Its keys:

    y   allow            a   allow, with a note the model is told     n   refuse, with a reason
    s   allow this exact call for the rest of the session (where offered)
    r   save the rule offered to your config, and allow (where one is offered)

A note or a reason is typed on the line that opens, then Enter; Esc goes back to the keys. Several
questions (sub-agents asking at once) wait in turn, the panel saying how many.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Input, Static

from ..._safe import safe_line
from ...policy import ConfigError
from ..front import Asker
from ..runtime import Answer
from ._bridge import Asked

__all__ = ["NO_RULE", "PermissionPanel"]

NO_RULE = "no rule is offered for calls like this one"
_NOTE = "a note for the model, then Enter (Esc: back)"
_REASON = "why (the model is told), then Enter (Esc: back)"


class PermissionPanel(VerticalScroll, can_focus=True):
    """The open question and its keys; the questions after it wait in turn."""

    DEFAULT_CSS = """
    PermissionPanel { display: none; height: auto; max-height: 60%; border-top: heavy $warning;
                      padding: 0 1; }
    PermissionPanel.open { display: block; }
    PermissionPanel #why { display: none; }
    PermissionPanel #why.open { display: block; }
    PermissionPanel #keys { color: $text-muted; }
    """
    BINDINGS = [
        Binding("y", "answer('y')", "allow", show=False),
        Binding("a", "answer('a')", "allow with a note", show=False),
        Binding("n", "answer('n')", "refuse with a reason", show=False),
        Binding("s", "answer('s')", "allow this exact call for the session", show=False),
        Binding("r", "answer('r')", "save the rule offered", show=False),
    ]

    class Said(Message):
        """Something to show in the conversation (a rule saved, or why it was not)."""

        def __init__(self, text: str, error: bool) -> None:
            super().__init__()
            self.text = text
            self.error = error

    def __init__(self, asker: Asker) -> None:
        super().__init__(id="panel")
        self.asker = asker  # its `learning` saves the rule offered (the policy's, once the gate is made)
        self.waiting: list[Asked] = []
        self._typing = ""  # "a" or "n" while a note or a reason is typed

    def compose(self) -> ComposeResult:
        yield Static("", id="question", markup=False)
        yield Static("", id="offer", markup=False)
        yield Static("", id="keys", markup=False)
        yield Input(id="why")

    @property
    def asked(self) -> Asked | None:
        return self.waiting[0] if self.waiting else None

    def ask(self, asked: Asked) -> None:
        self.waiting.append(asked)
        if len(self.waiting) == 1:
            self._show()
            self.focus()
        else:
            self._keys()

    def withdraw_all(self) -> None:
        """The run ended: no question is open any more (their answers are no longer waited for)."""
        self.waiting.clear()
        self._typing = ""
        self.remove_class("open")

    def _show(self) -> None:
        asked = self.asked
        if asked is None:
            self.remove_class("open")
            return
        q = asked.question
        shown = Text(safe_line(f"? {q.who}: {q.plain}") + "\n", style="bold")
        shown.append(safe_line(q.policy) + "\n", style="dim")
        for line in q.shown:
            shown.append_text(Text.from_ansi(line))
            shown.append("\n")
        self.query_one("#question", Static).update(shown)
        offer = asked.offer
        said = f"rule offered: {offer.line}  (r saves it to {offer.where})" if offer else NO_RULE
        self.query_one("#offer", Static).update(Text(safe_line(said), style="" if offer else "dim"))
        self._typing = ""
        self.query_one("#why", Input).remove_class("open")
        self._keys()
        self.add_class("open")
        self.scroll_home(animate=False)

    def _keys(self) -> None:
        asked = self.asked
        if asked is None:
            return
        keys = ["y allow", "a allow with a note", "n refuse"]
        if asked.question.always:
            keys.append("s this exact call for the session")
        if asked.offer is not None:
            keys.append("r save the rule")
        keys.append("Esc stop the run")
        more = f"  ({len(self.waiting) - 1} more waiting)" if len(self.waiting) > 1 else ""
        self.query_one("#keys", Static).update(Text(" · ".join(keys) + more))

    def action_answer(self, key: str) -> None:
        asked = self.asked
        if asked is None or self._typing:
            return
        if key == "y":
            self._reply(Answer(True, ""), False)
        elif key == "s" and asked.question.always:
            self._reply(Answer(True, ""), True)
        elif key == "r" and asked.offer is not None:
            try:
                said = self.asker.learning.save(asked.offer)
            except (ConfigError, ValueError, OSError) as err:
                self.post_message(self.Said(safe_line(f"bastion: the rule was not saved: {err}"), True))
                return
            self.post_message(self.Said(safe_line(said), False))
            self._reply(Answer(True, ""), False)
        elif key in ("a", "n"):
            self._typing = key
            why = self.query_one("#why", Input)
            why.value = ""
            why.placeholder = _NOTE if key == "a" else _REASON
            why.add_class("open")
            why.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.asked is None or not self._typing:
            return
        self._reply(Answer(self._typing == "a", event.value.strip()), False)

    def back(self) -> bool:
        """Esc while a note or a reason is typed: back to the keys (True); otherwise False."""
        if not self._typing:
            return False
        self._typing = ""
        self.query_one("#why", Input).remove_class("open")
        self.focus()
        return True

    def _reply(self, answer: Answer, again: bool) -> None:
        asked = self.waiting.pop(0)
        asked.reply(answer, again)
        self._show()
        if self.waiting:
            self.focus()
