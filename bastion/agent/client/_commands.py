"""The client's slash commands: the REPL's table (`front.COMMANDS`, one row each), with the rows
that are the client's own put in or over it. Those change the screen and run on it; the others run
on a thread of their own, what they print shown over the input until the next line."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ..front import COMMANDS, Command, ReplState

__all__ = ["ClientCommands", "Screenside", "client_commands"]


class Screenside(Protocol):
    """What the client's own commands do on its screen."""

    def follow(self, text: str) -> None: ...

    def stop(self) -> None: ...

    def expand(self) -> None: ...

    def show_keys(self) -> None: ...

    def leave(self) -> None: ...

    def say(self, text: str) -> None: ...


class ClientCommands(dict[str, Command]):
    """The table, and what the client's own rows do on the screen's thread (with the words after the
    command's name; they need no session)."""

    own: dict[str, Callable[[str], None]]


def _on(action: Callable[[str], None]) -> Callable[[str, ReplState], None]:
    return lambda rest, state: action(rest)


def client_commands(screen: Screenside) -> ClientCommands:
    def follow(rest: str) -> None:
        if rest:
            screen.follow(rest)
        else:
            screen.say("bastion: /follow TEXT: the text to send once the model would stop")

    rows: list[tuple[str, str, Callable[[str], None]]] = [
        ("/follow TEXT", "queue TEXT, sent as a prompt once the model would stop", follow),
        ("/abort", "stop the run in flight (Esc)", lambda rest: screen.stop()),
        ("/expand", "the selected call whole, or every call (Ctrl-O)", lambda rest: screen.expand()),
        ("/help", "every key and command (Ctrl-/ or F1)", lambda rest: screen.show_keys()),
        ("/quit", "leave (or Ctrl-C when idle)", lambda rest: screen.leave()),
    ]
    table = ClientCommands(COMMANDS)
    table.own = {}
    for usage, does, action in rows:
        name = usage.split(" ")[0]
        table[name] = Command(usage, does, _on(action), during_run=True)
        table.own[name] = action
    return table
