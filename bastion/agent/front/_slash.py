"""The REPL's slash commands, one table: each command's usage, its help line and what runs it.

A command is added by adding a row to COMMANDS (its help line and Tab completion follow from the
row); what it may use is the REPL's state: the agent, the session, the asker (its session rules),
the tally of usage and the model's connection.
"""

from __future__ import annotations

import difflib
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..._safe import safe_line
from ..providers import Connection, listed_models, refused_model
from ..runtime import EFFORTS, Agent, AgentError, Events, Message, Usage
from ._front import Asker
from ._long import LONG_COMMANDS
from ._plainly import said, wrapped

if TYPE_CHECKING:
    from ..mcp import McpToolbox
    from ..sessions import Session
    from ..skills import SkillCatalog
    from ._screen import Printer

__all__ = [
    "COMMANDS",
    "Command",
    "REPL_KEYS",
    "ReplState",
    "Tally",
    "help_text",
    "run_command",
    "say",
    "unknown",
]


class Tally(Events):
    """The usage of every reply of this session (its sub-agents' too), added up."""

    def __init__(self) -> None:
        self.usage = Usage()
        self.replies = 0

    def message(self, message: Message, usage: Usage | None = None) -> None:
        if usage is not None:
            self.usage.add(usage)
            self.replies += 1

    def spent(self, usage: Usage, replies: int) -> None:
        self.usage.add(usage)
        self.replies += replies


@dataclass(slots=True)
class ReplState:
    """What a slash command may use."""

    agent: Agent
    session: Session
    asker: Asker
    tally: Tally
    connection: Connection
    servers: McpToolbox | None = None
    skills: SkillCatalog | None = None
    printer: Printer | None = None


@dataclass(frozen=True, slots=True)
class Command:
    """`usage` is how the help writes the command ("/model NAME"); `run` gets the words after the
    command's name and the REPL's state, and returns True to leave the REPL; `during_run` says it
    may run while a run goes (in a front whose input is live while it does: it only looks, or leaves)."""

    usage: str
    help: str
    run: Callable[[str, ReplState], bool | None]
    during_run: bool = False


def say(text: str) -> None:
    """Say something (an error, a hint): made safe, wrapped between words to the terminal."""
    print(said(text, shutil.get_terminal_size().columns))


def _quit(rest: str, state: ReplState) -> bool:
    return True


def _expand(rest: str, state: ReplState) -> None:
    """A collapsed result shown whole: number N (as its "… more lines (/expand N)" says), or the last."""
    if rest and not rest.isdigit():
        say("bastion: /expand N: N is the number a collapsed result shows (/expand 3)")
        return
    shown = state.printer.expanded(int(rest) if rest else None) if state.printer is not None else None
    if shown is None:
        kept = sorted(state.printer.results) if state.printer is not None else []
        which = f"results {kept[0]} to {kept[-1]} are kept" if kept else "no result was collapsed yet"
        say(f"bastion: /expand: no collapsed result {rest or 'yet'} ({which})")
        return
    print("\n".join(safe_line(line) for line in shown))


def _help(rest: str, state: ReplState) -> None:
    print(help_text(columns=shutil.get_terminal_size().columns))


def _model(rest: str, state: ReplState) -> None:
    options = state.agent.model.options
    if not rest:
        print(f"model: {options.model}")
        _list_models(options.model, state.connection)
        return
    checked = _checked_model(rest, state.connection)
    if checked is None:
        print(f"model: {options.model} (unchanged)")
        return
    state.agent.model.options = replace(options, model=checked)
    state.session.record("model", model=checked)
    print(f"model: {checked}")


def _list_models(current: str, connection: Connection) -> None:
    """The models the provider lists (its list call, asked now), the one in use marked; where it
    has no list or it cannot be had, why."""
    if connection.provider == "vertex":
        print("vertex publishes no list of models: any claude-... or gemini-... name it serves (/model NAME)")
        return
    try:
        listed = listed_models(connection)
    except AgentError as err:
        say(
            f"bastion: /model: {connection.provider}'s model list could not be fetched from "
            f"{connection.base_url} ({err})"
        )
        return
    if not listed:
        where = connection.base_url
        print(f"{connection.provider} lists no models at {where}; /model NAME takes a name unchecked")
        return
    print(f"{connection.provider} lists {len(listed)} (/model NAME to switch):")
    for name in sorted(listed):
        print(safe_line(f"{'*' if name == current else ' '} {name}"))


def _checked_model(name: str, connection: Connection) -> str | None:
    """`name` when the provider lists it (or its list cannot be had: said so, and taken as
    given); None, with the reason and the close names, when the list lacks it or the provider cannot
    serve it (vertex: a name of neither family)."""
    refused = refused_model(connection.provider, name)
    if refused is not None:
        say(f"bastion: /model: {refused}")
        return None
    if connection.provider == "vertex":  # it publishes no list: the name's family decides
        return name
    try:
        listed = listed_models(connection)
    except AgentError as err:
        say(
            f"bastion: /model: {connection.provider}'s model list could not be fetched from "
            f"{connection.base_url} ({err}); using {name!r} unchecked"
        )
        return name
    if not listed:
        say(f"bastion: /model: {connection.provider} lists no models; using {name!r} unchecked")
        return name
    if name in listed:
        return name
    if connection.provider == "ollama" and f"{name}:latest" in listed:
        return f"{name}:latest"
    close = difflib.get_close_matches(name, listed, n=3, cutoff=0.5)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    say(f"bastion: /model: {connection.provider} lists no model {name!r} ({len(listed)} listed){hint}")
    return None


def _think(rest: str, state: ReplState) -> None:
    options = state.agent.model.options
    if rest in ("on", "off"):
        options = replace(options, think=rest == "on")
    elif rest in EFFORTS:
        options = replace(options, think=True, effort=rest)
    elif rest:
        say(f"bastion: /think: {rest!r} is not on, off or one of {', '.join(EFFORTS)}")
        return
    state.agent.model.options = options
    state.session.record("think", think=options.think, effort=options.effort)
    print(f"think: {'on' if options.think else 'off'}, effort {options.effort}")


def _tools(rest: str, state: ReplState) -> None:
    for spec in state.agent.tools.specs():
        print(f"{spec.name}: {spec.description.splitlines()[0] if spec.description else ''}")


def _permissions(rest: str, state: ReplState) -> None:
    rules = state.asker.rules
    word, _, number = rest.partition(" ")
    if word == "drop":
        index = int(number) - 1 if number.strip().isdigit() else -1
        dropped = rules.drop(index)
        if dropped is None:
            say(f"bastion: /permissions drop: no rule {number.strip() or '(none given)'}")
            return
        state.session.record("session_rule_dropped", tool=dropped.tool, arguments=dropped.arguments)
        print(safe_line(f"dropped: {dropped.tool} {dropped.arguments}"))
        return
    if rest:
        say("bastion: /permissions takes nothing, or drop N")
        return
    if not rules.keys:
        say("no calls allowed for this session (answer a to a question to add one)")
    for n, key in enumerate(rules.keys, 1):
        print(safe_line(f"{n}. {key.tool} {key.arguments}"))
    recorder = state.asker.recorder
    settings = recorder.gate.settings if recorder is not None else None
    if settings is not None and settings.scope is not None and settings.scope.allow:
        where = settings.user_file
        say(f"allowed in this project by your config ({where}; `r` adds to it, edit it to drop one):")
        for rule in settings.scope.allow:
            print(safe_line(f"  {rule if isinstance(rule, str) else rule.text}"))


def _cost(rest: str, state: ReplState) -> None:
    u = state.tally.usage
    cost = "unknown" if u.cost_usd is None else f"${u.cost_usd:.4f}"
    print(
        f"{state.tally.replies} replies: {u.input_tokens} input, {u.output_tokens} output, "
        f"{u.cache_read_tokens} cache read, {u.cache_creation_tokens} cache write tokens; cost {cost}"
    )


def _session(rest: str, state: ReplState) -> None:
    if not state.session.recorded:
        print("this session is not recorded (see the start of the session for why)")
        return
    print(f"session {state.session.id}: {state.session.path}")


def _mcp(rest: str, state: ReplState) -> None:
    from ..mcp import NO_SERVERS, report_lines

    reports = state.servers.reports() if state.servers is not None else []
    print("\n".join(safe_line(line) for line in report_lines(reports)) if reports else NO_SERVERS)


def _skills(rest: str, state: ReplState) -> None:
    if state.skills is None:
        print("skills are off (--no-skills, or skills = false in your config)")
        return
    print("\n".join(state.skills.listing()))


def _clear(rest: str, state: ReplState) -> None:
    dropped = len(state.agent.messages)
    state.agent.clear()
    print(f"cleared: a new conversation ({dropped} messages left behind; the session and its rules go on)")


def _long(name: str) -> Callable[[str, ReplState], None]:
    command = LONG_COMMANDS[name]
    return lambda rest, state: command(rest, state.agent, state.session)


COMMANDS: dict[str, Command] = {
    "/model": Command(
        "/model [NAME]",
        "use another model from the next request (checked against the provider's list); "
        "without NAME, the model in use and the provider's list",
        _model,
    ),
    "/think": Command(
        "/think on|off|EFFORT", f"reasoning on or off, or on with an effort ({', '.join(EFFORTS)})", _think
    ),
    "/tools": Command("/tools", "the tools the model has", _tools, during_run=True),
    "/mcp": Command(
        "/mcp", "the MCP servers: how each is reached, its state and its tools", _mcp, during_run=True
    ),
    "/skills": Command(
        "/skills",
        "the skills: where each is from, its allowed-tools, and what was left out",
        _skills,
        during_run=True,
    ),
    "/permissions": Command(
        "/permissions [drop N]",
        "the calls allowed for this session with `a` (drop N drops one), and this project's rules of yours",
        _permissions,
        during_run=True,
    ),
    "/expand": Command(
        "/expand [N]", "a collapsed result whole: number N, or the last (Ctrl-O)", _expand, during_run=True
    ),
    "/cost": Command(
        "/cost", "the tokens (and cost, where known) of this session so far", _cost, during_run=True
    ),
    "/session": Command("/session", "this session's ID and file", _session, during_run=True),
    "/clear": Command(
        "/clear", "start a new conversation (the session, its record and its rules go on)", _clear
    ),
    "/diff": Command("/diff", "what the last turn changed, as a unified diff", _long("/diff")),
    "/undo-turn": Command(
        "/undo-turn",
        "put back the files the last turn changed (refused if any changed since)",
        _long("/undo-turn"),
    ),
    "/compact": Command(
        "/compact [FOCUS]",
        "summarise the conversation so far to save space (FOCUS: what to keep)",
        _long("/compact"),
    ),
    "/context": Command(
        "/context", "tokens used, the window, when it compacts, and what takes the space", _long("/context")
    ),
    "/harness": Command(
        "/harness [profile NAME]",
        "the slots the next turn runs with; profile NAME switches to a profile",
        _long("/harness"),
    ),
    "/help": Command("/help", "this list", _help, during_run=True),
    "/quit": Command("/quit", "leave (or Ctrl-D, or Ctrl-C twice on an empty line)", _quit, during_run=True),
}


# What the REPL's help says after its commands: how a line is typed.
REPL_KEYS = (
    "A line that starts with // sends the rest with one slash. Alt-Enter (or Esc Enter) starts a new "
    "line; Ctrl-C clears a half-typed line; Tab completes a slash command."
)


def help_text(commands: Mapping[str, Command] = COMMANDS, keys: str = REPL_KEYS, columns: int = 80) -> str:
    """The commands of `commands`, one each (its usage, then its help, wrapped between words to
    `columns` beside the usage), and `keys` after them, wrapped the same way."""
    width = max(len(c.usage) for c in commands.values()) + 2
    lines = [
        line
        for c in commands.values()
        for line in wrapped(c.usage.ljust(width) + c.help, columns, indent=" " * width)
    ]
    return "\n".join([*lines, *wrapped(keys, columns, indent="")])


def unknown(name: str, commands: Mapping[str, Command] = COMMANDS) -> str:
    """What is said of a line naming no command of `commands` (with the closest, if one is close)."""
    close = difflib.get_close_matches(name, commands, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]}? " if close else ""
    return f"bastion: unknown command {name} ({hint}/help lists them; // sends a line that starts with /)"


def run_command(line: str, state: ReplState, commands: Mapping[str, Command] = COMMANDS) -> bool:
    """Run a slash command line of `commands`; True when the front is to be left."""
    name, _, rest = line.partition(" ")
    command = commands.get(name)
    if command is None:
        say(unknown(name, commands))
        return False
    return bool(command.run(rest.strip(), state))
