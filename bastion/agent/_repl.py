"""The REPL: a prompt-toolkit line editor over one session. Answers stream; a question shows what
the call would do and is answered y, n or a on the next line; Ctrl-C aborts a run in flight, clears
a half-typed line, and twice on an empty line leaves."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ._ask import CallKey
from ._colour import clean, colour_for
from ._front import Asker, Fanout, Printer
from ._long import LONG_COMMANDS as _LONG_COMMANDS
from ._render import MarkdownStream
from ._session import bastion_home
from ._types import AgentError, Cancelled, Message, Usage
from .loop import Agent, Answerer, Events
from .providers import EFFORTS

if TYPE_CHECKING:
    from ._main import Built
    from ._session import Session
    from .mcp import McpToolbox

# What builds the REPL's agent and session: the CLI's arguments, the environment, the working
# directory, where to print, and who answers a question.
Build = Callable[[argparse.Namespace, Mapping[str, str], str, Printer, Answerer], "Built"]

__all__ = ["repl"]

HELP = """/model NAME     use another model from the next request
/think on|off   reasoning on or off; /think EFFORT sets its effort ({efforts})
/tools          the tools the model has
/mcp            the MCP servers: how each is reached, its state and its tools
/permissions    the calls allowed for this session with `a`; /permissions drop N drops one
/cost           the tokens (and cost, where known) of this session so far
/session        this session's ID and file
/diff           what the last turn changed, as a unified diff
/undo-turn      put back the files the last turn changed (refused if any changed since)
/compact [FOCUS] summarise the conversation so far to save space (FOCUS: what to keep above all)
/context        tokens used, the window, when it compacts, and what takes the space
/help           this list
/quit           leave (or Ctrl-D, or Ctrl-C twice on an empty line)
A line that starts with // sends the rest with one slash. Alt-Enter (or Esc Enter) starts a new line;
Ctrl-C clears a half-typed line; Tab completes a slash command."""

COMMANDS = ("/model", "/think", "/tools", "/mcp", "/permissions", "/cost", "/session", "/help", "/quit")
HISTORY = "history"


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


def _history(home: str) -> Any:
    """Input history across sessions, in the bastion home, readable by its owner only; answers to
    questions never go into it."""
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    path = os.path.join(home, HISTORY)
    try:
        os.makedirs(home, mode=0o700, exist_ok=True)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600))
        os.chmod(path, 0o600)
    except OSError as err:
        print(f"bastion: input history off: {path}: {err.strerror or err}")
        return InMemoryHistory()
    return FileHistory(path)


def _line_editor(home: str) -> Any:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import Completer, Completion
    from prompt_toolkit.key_binding import KeyBindings

    class Slash(Completer):
        def get_completions(self, document: Any, complete_event: Any) -> Any:
            text = document.text_before_cursor
            if text.startswith("/") and " " not in text:
                for name in COMMANDS:
                    if name.startswith(text):
                        yield Completion(name, start_position=-len(text))

    keys = KeyBindings()

    @keys.add("c-c")
    def _(event: Any) -> None:
        if event.current_buffer.text:
            event.current_buffer.reset()
        else:
            event.app.exit(exception=KeyboardInterrupt)

    @keys.add("escape", "enter")
    def _(event: Any) -> None:
        event.current_buffer.insert_text("\n")

    return PromptSession(
        history=_history(home), completer=Slash(), complete_while_typing=False, key_bindings=keys
    )


def repl(args: argparse.Namespace, environ: Mapping[str, str], cwd: str, build: Build) -> int:
    from prompt_toolkit import PromptSession

    editor = _line_editor(bastion_home(environ))
    answers: PromptSession[str] = PromptSession()  # its own (empty) history: answers stay out of it

    def ask(text: str) -> str | None:
        try:
            return answers.prompt(text)
        except (EOFError, KeyboardInterrupt):
            return None

    colour = colour_for(sys.stdout, environ)
    markdown = MarkdownStream(sys.stdout) if colour.on else None
    printer = Printer(sys.stdout, sys.stdout, colour=colour, markdown=markdown)
    recorded: list[Session] = []

    def on_rule(key: CallKey) -> None:
        if recorded:
            recorded[0].record("session_rule", tool=key.tool, arguments=key.arguments)

    asker = Asker(ask, _write, cwd, colour, offer_always=True, on_rule=on_rule)
    built = build(args, environ, cwd, printer, asker)
    agent, session = built.agent, built.session
    recorded.append(session)
    tally = Tally()
    agent.events = Fanout(agent.events, tally)
    options = agent.model.options
    print(f"bastion · {options.provider} {options.model} · session {session.id} · /help for commands")
    interrupted = False
    try:
        while True:
            try:
                line = editor.prompt("> ")
            except KeyboardInterrupt:
                if interrupted:
                    break
                interrupted = True
                print("(Ctrl-C again, Ctrl-D or /quit to leave)")
                continue
            except EOFError:
                break
            interrupted = False
            line = line.strip()
            if not line:
                continue
            if line.startswith("/") and not line.startswith("//"):
                try:
                    if _command(line, agent, session, asker, tally, built.mcp) == "quit":
                        break
                except KeyboardInterrupt:
                    print("\n[aborted]")
                continue
            try:
                agent.run(line.removeprefix("/") if line.startswith("//") else line)
                print()
            except (Cancelled, KeyboardInterrupt):
                print("\n[aborted]")
            except AgentError as err:
                print(f"\nbastion: {err}")
                hint = built.advice(err)
                if hint is not None:
                    print(f"bastion: {hint}")
    finally:
        built.close()
    print(f"To resume this session: bastion --resume {session.id}")
    return 0


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def _cost(tally: Tally) -> str:
    u = tally.usage
    cost = "unknown" if u.cost_usd is None else f"${u.cost_usd:.4f}"
    return (
        f"{tally.replies} replies: {u.input_tokens} input, {u.output_tokens} output, "
        f"{u.cache_read_tokens} cache read, {u.cache_creation_tokens} cache write tokens; cost {cost}"
    )


def _permissions(rest: str, asker: Asker, session: Session) -> None:
    word, _, number = rest.partition(" ")
    if word == "drop":
        index = int(number) - 1 if number.strip().isdigit() else -1
        dropped = asker.rules.drop(index)
        if dropped is None:
            print(f"bastion: /permissions drop: no rule {number.strip() or '(none given)'}")
            return
        session.record("session_rule_dropped", tool=dropped.tool, arguments=dropped.arguments)
        print(f"dropped: {dropped.tool} {dropped.arguments}")
        return
    if rest:
        print("bastion: /permissions takes nothing, or drop N")
        return
    if not asker.rules.keys:
        print("no calls allowed for this session (answer a to a question to add one)")
    for n, key in enumerate(asker.rules.keys, 1):
        print(clean(f"{n}. {key.tool} {key.arguments}"))


def _command(
    line: str, agent: Agent, session: Session, asker: Asker, tally: Tally, servers: McpToolbox | None = None
) -> str:
    name, _, rest = line.partition(" ")
    rest = rest.strip()
    options = agent.model.options
    if name == "/quit":
        return "quit"
    if name == "/help":
        print(HELP.format(efforts=", ".join(EFFORTS)))
    elif name == "/model":
        if rest:
            options.model = rest
            session.record("model", model=rest)
        print(f"model: {options.model}")
    elif name == "/think":
        if rest in ("on", "off"):
            options.think = rest == "on"
        elif rest in EFFORTS:
            options.think, options.effort = True, rest
        elif rest:
            print(f"bastion: /think: {rest!r} is not on, off or one of {', '.join(EFFORTS)}")
            return ""
        session.record("think", think=options.think, effort=options.effort)
        print(f"think: {'on' if options.think else 'off'}, effort {options.effort}")
    elif name == "/tools":
        for spec in agent.tools.specs():
            print(f"{spec.name}: {spec.description.splitlines()[0] if spec.description else ''}")
    elif name == "/mcp":
        from .mcp import NO_SERVERS, report_lines

        reports = servers.reports() if servers is not None else []
        print("\n".join(clean(line) for line in report_lines(reports)) if reports else NO_SERVERS)
    elif name == "/permissions":
        _permissions(rest, asker, session)
    elif name == "/cost":
        print(_cost(tally))
    elif name == "/session":
        print(f"session {session.id}: {session.path}")
    elif name in _LONG_COMMANDS:
        _LONG_COMMANDS[name](rest, agent, session)
    else:
        print(f"bastion: unknown command {name} (/help lists them; // sends a line that starts with /)")
    return ""
