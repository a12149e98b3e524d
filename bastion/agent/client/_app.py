"""The terminal client: a full-screen front over the same session, events and record as the REPL.

The session is made on a thread of its own once the client has drawn its first frame (after the
picker, when one was asked for), and each prompt runs on a thread of its own (`_runs`), so the input
stays live: Enter while a run goes steers it (`front.Typed`, taken by the loop before its next model
request), `/follow` queues a follow-up, Esc stops the run (`front.RunControl`, as Ctrl-C stops the
REPL's), and every question is answered in the permission panel. What the run reports reaches the
screen as values posted from its thread (`_bridge`), drawn by the conversation (`_conversation`).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence

from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.widgets import Static

from ..._safe import safe_line
from ...policy import Offer
from ..front import (
    Build,
    Built,
    CallKey,
    Fanout,
    Learning,
    ReplState,
    RunControl,
    Tally,
    Typed,
    unknown,
)
from ..sessions import SessionInfo
from ._bridge import Asked, Feed, Held, ScreenAsker
from ._commands import client_commands
from ._conversation import Conversation
from ._facts import Facts, Shown, doing_after, status_line
from ._panel import PermissionPanel
from ._rows import detail
from ._runs import Ended, Made, NotMade, Output, Runs, Window
from ._screens import DetailScreen, HelpScreen, PickerScreen
from ._view import CallRow, PromptArea

__all__ = ["Client"]


class Happened(Message):
    """Something a thread of the client's (making the session, a run, a command) posted."""

    def __init__(self, what: object) -> None:
        super().__init__()
        self.what = what


class Client(App[int]):
    """The terminal client over one session (made by `build`, as every front's is)."""

    TITLE = "bastion"
    CSS = """
    Screen { layout: vertical; }
    #waiting { color: $text-muted; text-style: italic; padding: 0 1; display: none; height: auto; }
    #waiting.some { display: block; }
    #said { padding: 0 1; display: none; height: auto; max-height: 50%; }
    #said.some { display: block; }
    #status { height: auto; padding: 0 1; background: $panel; }
    """
    BINDINGS = [
        Binding("escape", "escape", "stop the run", show=False),
        Binding("ctrl+c", "interrupt", "stop, clear or quit", show=False),
        Binding("ctrl+r", "reasoning", "reasoning", show=False, priority=True),
        Binding("ctrl+o", "expand", "expand", show=False, priority=True),
        Binding("ctrl+p", "select(-1)", "previous call", show=False, priority=True),
        Binding("ctrl+n", "select(1)", "next call", show=False, priority=True),
        Binding("f1,ctrl+underscore,ctrl+slash", "keys", "keys", show=False, priority=True),
        Binding("pageup", "scroll('scroll_page_up')", show=False, priority=True),
        Binding("pagedown", "scroll('scroll_page_down')", show=False, priority=True),
        Binding("ctrl+home", "scroll('scroll_home')", show=False, priority=True),
        Binding("ctrl+end", "scroll('scroll_end')", show=False, priority=True),
    ]

    def __init__(
        self,
        args: argparse.Namespace,
        environ: Mapping[str, str],
        cwd: str,
        build: Build,
        learning: Learning | None = None,
        pick: Sequence[SessionInfo] | None = None,
    ) -> None:
        """`pick`: the sessions to choose one from first (None: the session `args` names, or a new one)."""
        super().__init__()
        self.args, self.environ, self.cwd, self.build, self.pick = args, environ, cwd, build, pick
        control = RunControl()
        self.runs = Runs(self._post, control)
        self.typed = Typed()
        self.held = Held(self._post)
        self.feed = Feed(self._post, control, self.held)
        self.asker = ScreenAsker(self._post, control, cwd, learning, self._on_rule, self._on_learnt)
        self.tally = Tally()
        self.state: ReplState | None = None
        self.facts = Facts()
        self.commands = client_commands(self)
        self.doing = "starting the session"

    @property
    def built(self) -> Built | None:
        return self.runs.built

    @property
    def running(self) -> bool:
        return self.runs.running

    def _post(self, what: object) -> None:
        self.post_message(Happened(what))

    def compose(self) -> ComposeResult:
        yield Conversation()
        yield Static("", id="waiting", markup=False)
        yield PermissionPanel(self.asker)
        yield Static("", id="said", markup=False)
        yield PromptArea(list(self.commands))
        yield Static("", id="status", markup=False)

    @property
    def conversation(self) -> Conversation:
        return self.query_one(Conversation)

    @property
    def panel(self) -> PermissionPanel:
        return self.query_one(PermissionPanel)

    @property
    def prompt(self) -> PromptArea:
        return self.query_one(PromptArea)

    def on_mount(self) -> None:
        self.begin_capture_print(self)  # what anything prints while the client has the screen is held
        self.prompt.focus()
        self.refresh_status()
        if self.pick is None:
            self._make()
        else:
            self.push_screen(PickerScreen(self.pick, self.cwd), self._picked)

    def on_unmount(self) -> None:
        # However the client ends (leave, a test's pilot, the terminal gone), a run still waiting on
        # the screen (a question, a model's reply) is stopped: no thread of it outlives the screen.
        self.runs.control.cancel()

    def _picked(self, chosen: str | None) -> None:
        if chosen is None:
            self.exit(0)
            return
        ran_in = next(s.cwd for s in self.pick or () if s.id == chosen)
        self.args.resume, self.args.here = chosen, self.args.here or ran_in != self.cwd
        self._make()

    def _make(self) -> None:
        self.runs.make(self.build, self.args, self.environ, self.cwd, self.feed, self.asker)

    def on_print(self, event: events.Print) -> None:
        self.held.write(event.text)

    def _on_rule(self, key: CallKey) -> None:
        if self.built is not None:
            self.built.session.record("session_rule", tool=key.tool, arguments=key.arguments)

    def _on_learnt(self, offer: Offer) -> None:
        if self.built is not None:
            session = self.built.session
            session.record("learnt_rule", rules=list(offer.rules), config=offer.path, project=offer.root)

    async def on_happened(self, message: Happened) -> None:
        what = message.what
        if isinstance(what, Made):
            await self._made(what)
        elif isinstance(what, NotMade):
            self.held.lines += what.said
            self.exit(1)
        elif isinstance(what, Window):
            self.facts = self.facts._replace(window=what.tokens)
        elif isinstance(what, Ended):
            await self.conversation.ended()
            self._ended(what)
        elif isinstance(what, Output):
            self._output(what)
        elif isinstance(what, Asked):
            self.conversation.asked(what.question.call)
            self.panel.ask(what)
            self.doing = "waiting for your answer"
        else:
            await self.conversation.happened(what)
            self._waiting()
            if self.running:
                self.doing = doing_after(what) or self.doing
        self.refresh_status()

    async def _made(self, made: Made) -> None:
        built = self.runs.built = made.built
        self.facts = made.facts
        agent = built.agent
        agent.events = Fanout(agent.events, self.tally)
        agent.steering = self.typed.take_steering
        if self.asker.recorder is not None:
            self.feed.recorder = self.asker.recorder.last_here
        skills = built.extras.catalog if built.extras is not None else None
        self.state = ReplState(
            agent, built.session, self.asker, self.tally, built.connection, built.mcp, skills, self.feed
        )
        await self.conversation.show_past(agent.messages)
        self.doing = ""
        self._next()

    # What is sent: a prompt, steering, a follow-up, a command.

    def on_prompt_area_sent(self, message: PromptArea.Sent) -> None:
        text = message.text.strip()
        if not text:
            return
        self.prompt.text = ""
        self.say("")
        if text.startswith("/") and not text.startswith("//"):
            self.command(text)
            return
        text = text.removeprefix("/") if text.startswith("//") else text
        if self.running:
            self.typed.steer(text)
            self.conversation.steering(text)
            self._waiting()
        elif self.built is None or self.runs.commanding:
            self.follow(text)  # sent once the session is made, or the command is done
        else:
            self._send(text, "prompt")

    def follow(self, text: str) -> None:
        self.typed.follow(text)
        self._waiting()
        self._next()

    def _next(self) -> None:
        """Send what waits (steering a run never took, then a follow-up), if nothing runs."""
        if self.running or self.runs.commanding or self.built is None:
            return
        text = self.typed.next_prompt()
        if text is not None:
            self._send(text, "follow")

    def _send(self, text: str, how: str) -> None:
        self.doing = "waiting for the model"
        self.conversation.sent(text, how)
        self.runs.run(text)
        self._waiting()

    def _ended(self, ended: Ended) -> None:
        self.runs.ended()
        self.doing = ""
        self.panel.withdraw_all()
        for line in ended.said:
            self.conversation.say(line, error=ended.outcome == "failed")
        if ended.outcome != "done":  # nothing typed runs unseen after a stop or a failure: it comes back
            left = self.typed.take_all()
            if left:
                self.prompt.text = "\n".join([*left, self.prompt.text]).strip()
        if self.panel.asked is None:
            self.prompt.focus()
        self._next()
        self._waiting()

    def command(self, line: str) -> None:
        name, _, rest = line.partition(" ")
        found = self.commands.get(name)
        if found is None:
            self.say(unknown(name, self.commands), again=line)
        elif self.running and not found.during_run:
            self.say(f"bastion: {name} waits for the run to end (Esc stops it)", again=line)
        elif self.state is None or self.runs.commanding:
            self.say(
                f"bastion: {name} waits for {self.runs.commanding or 'the session to start'}", again=line
            )
        elif name in self.commands.own:
            found.run(rest.strip(), self.state)
        else:
            self.runs.command(line, self.state, self.commands)

    def _output(self, output: Output) -> None:
        self.runs.commanding = ""
        if output.leave:
            self.leave()
            return
        self.say(output.text)
        self._next()

    def say(self, text: str, again: str = "") -> None:
        """A command's output over the input, until the next line; `again`: the line given back."""
        said = self.query_one("#said", Static)
        said.update(text)
        said.set_class(bool(text), "some")
        if again:
            self.prompt.text = again

    def _waiting(self) -> None:
        steering, following = self.typed.waiting()
        lines = [f"↳ steering (lands before the next model call): {t}" for t in steering]
        lines += [f"⏵ queued follow-up: {t}" for t in following]
        shown = self.query_one("#waiting", Static)
        shown.update("\n".join(safe_line(line) for line in lines))
        shown.set_class(bool(lines), "some")

    def refresh_status(self) -> None:
        agent = self.built.agent if self.built is not None else None
        shown = Shown(
            agent.model.options.model if agent is not None else "",
            getattr(agent.compaction, "reported", None) if agent is not None else None,
            self.tally.usage.cost_usd,
            self.conversation.denied,
            self.conversation.notes,
            self.doing,
        )
        status = self.query_one("#status", Static)
        status.update(status_line(self.facts, shown, max(20, (status.size.width or self.size.width) - 2)))

    def on_resize(self) -> None:
        self.call_after_refresh(self.refresh_status)

    # The keys, and the client's own commands.

    def stop(self) -> None:
        """Stop the run in flight: its calls are stopped and answered as interrupted."""
        if self.runs.stop():
            self.doing = "stopping"
            self.refresh_status()

    def leave(self) -> None:
        """Leave now: a run still going is stopped (the process waits for its calls to end)."""
        self.runs.control.cancel()
        self.exit(0)

    def action_escape(self) -> None:
        if self.panel.back():
            return
        if isinstance(self.focused, CallRow):
            self.prompt.focus()
            return
        self.stop()

    def action_interrupt(self) -> None:
        if self.running and self.runs.stopping:
            self.leave()  # a second one quits at once
        elif self.running:
            self.stop()
        elif self.prompt.text:
            self.prompt.text = ""
        else:
            self.leave()

    def action_reasoning(self) -> None:
        self.conversation.toggle_reasoning()

    def expand(self) -> None:
        focused = self.focused
        if isinstance(focused, CallRow):
            focused.toggle()
        else:
            self.conversation.expand_all()

    def action_expand(self) -> None:
        self.expand()

    def action_select(self, step: int) -> None:
        rows = list(self.conversation.query(CallRow))
        if not rows:
            return
        focused = self.focused
        at = rows.index(focused) + step if isinstance(focused, CallRow) else len(rows) - 1
        chosen = rows[max(0, min(at, len(rows) - 1))]
        chosen.focus()
        self.conversation.scroll_to_widget(chosen, animate=False)

    def on_prompt_area_tabbed(self, message: PromptArea.Tabbed) -> None:
        self.action_select(0)

    def action_detail(self) -> None:
        focused = self.focused
        if isinstance(focused, CallRow):
            self.push_screen(DetailScreen(detail(focused.row)))

    def show_keys(self) -> None:
        if isinstance(self.screen, HelpScreen):
            self.screen.dismiss()
            return
        self.push_screen(HelpScreen([(c.usage, c.help) for c in self.commands.values()]))

    def action_keys(self) -> None:
        self.show_keys()

    def action_scroll(self, how: str) -> None:
        getattr(self.conversation, how)(animate=False)

    def on_permission_panel_said(self, message: PermissionPanel.Said) -> None:
        self.conversation.say(message.text, message.error)
