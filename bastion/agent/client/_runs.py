"""What the client runs off the screen's thread, each on a thread of its own, what became of it
posted back: making the session, each prompt's run (stopped as Ctrl-C stops the REPL's: the calls
running stopped and answered, a prompt never answered withdrawn), and a slash command of the REPL's
table (what it prints is its output). The screen's thread only reads the flags kept here."""

from __future__ import annotations

import argparse
import contextlib
import io
import threading
from collections.abc import Callable, Mapping
from typing import NamedTuple

from ..._safe import safe_line, safe_text
from ..front import Asker, Build, Built, Command, Printer, ReplState, RunControl, run_command
from ..runtime import AgentError, Cancelled, Failure
from ._facts import Facts, facts_of, window_of

__all__ = ["Ended", "Made", "NotMade", "Output", "Runs", "Window"]


class Made(NamedTuple):
    built: Built
    facts: Facts


class NotMade(NamedTuple):
    """The session could not be made: what to say when the client leaves."""

    said: list[str]


class Window(NamedTuple):
    """The model's context window, once known (None: the session does not compact)."""

    tokens: int | None


class Ended(NamedTuple):
    """A run ended: "done", "stopped" or "failed" (`said`: what to say of it)."""

    outcome: str
    said: list[str]


class Output(NamedTuple):
    """What a slash command printed; `leave`: the command leaves the client."""

    text: str
    leave: bool = False


class Runs:
    """The session's runs and commands; `post` hands what became of each to the screen."""

    def __init__(self, post: Callable[[object], None], control: RunControl) -> None:
        self.post = post
        self.control = control
        self.built: Built | None = None
        self.running = False
        self.stopping = False
        self.commanding = ""  # the slash command running ("": none)
        self.thread: threading.Thread | None = None  # the last run's
        self._window_known = False

    def make(
        self,
        build: Build,
        args: argparse.Namespace,
        environ: Mapping[str, str],
        cwd: str,
        printer: Printer,
        asker: Asker,
    ) -> None:
        def making() -> None:
            try:
                built = build(args, environ, cwd, printer, asker)
                self.post(Made(built, facts_of(built, asker)))
            except AgentError as err:
                hint = getattr(err, "hint", None)
                self.post(NotMade([safe_line(f"bastion: {line}") for line in (str(err), hint) if line]))
            except Exception as err:  # whatever else stops a session being made is said, never a crash
                self.post(NotMade([safe_line(f"bastion: the session could not be started: {err}")]))

        threading.Thread(target=making, name="bastion-client-build", daemon=True).start()

    def run(self, text: str) -> None:
        self.running, self.stopping = True, False
        self.thread = threading.Thread(target=self._run, args=(text,), name="bastion-client-run", daemon=True)
        self.thread.start()

    def _run(self, text: str) -> None:
        assert self.built is not None
        agent = self.built.agent
        said: list[str] = []
        outcome = "done"
        try:
            self.control.begin(agent.cancel)
            try:
                if not self._window_known:  # asking may take a request: here, not on the screen's thread
                    self._window_known = True
                    self.post(Window(window_of(self.built)))
                agent.run(text)
            except (Cancelled, KeyboardInterrupt):
                outcome = "stopped"
                said.append("[stopped]" + _withdrawn(agent.withdraw_unanswered()))
            except AgentError as err:
                outcome = "failed"
                said.append(safe_line(f"bastion: {err}{_withdrawn(agent.withdraw_unanswered())}"))
                hint = self.built.advice(err)
                if hint is not None:
                    said.append(safe_line(f"bastion: {hint}"))
                if err.kind is Failure.CONTEXT_EXCEEDED:
                    said.append(
                        "bastion: /compact summarises the conversation to make room; /clear starts anew"
                    )
            finally:
                self.control.end()
        except KeyboardInterrupt:  # a stop that landed as the run ended
            outcome = "stopped"
        self.post(Ended(outcome, said))

    def ended(self) -> None:
        """The screen took in the run's end."""
        self.running = self.stopping = False

    def stop(self) -> bool:
        """Stop the run in flight (its calls stopped and answered as interrupted); whether one was."""
        if not self.running or self.stopping:
            return False
        self.stopping = True
        self.control.cancel()
        return True

    def command(self, line: str, state: ReplState, commands: Mapping[str, Command]) -> None:
        self.commanding = line.partition(" ")[0]

        def commanding() -> None:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                try:
                    leave = run_command(line, state, commands)
                except Exception as err:  # a command that failed is said; the client goes on
                    print(f"bastion: {self.commanding} failed: {err}")
                    leave = False
            self.post(Output(safe_text(out.getvalue()).rstrip("\n"), leave))

        threading.Thread(target=commanding, name="bastion-client-command", daemon=True).start()


def _withdrawn(taken: bool) -> str:
    return " (the prompt was not answered and is not kept)" if taken else ""
