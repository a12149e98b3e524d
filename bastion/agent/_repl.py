"""The REPL: a prompt-toolkit line editor over one session. Answers stream; a question is answered
with y or n on the next line; Ctrl-C aborts a run in flight, and at the prompt leaves."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from typing import Any

from ._front import Printer, parse_answer, question
from ._long import LONG_COMMANDS as _LONG_COMMANDS
from ._types import AgentError, Cancelled, ToolCall
from .loop import Answer
from .providers import EFFORTS

__all__ = ["repl"]

HELP = """/model NAME     use another model from the next request
/think on|off   reasoning on or off; /think EFFORT sets its effort ({efforts})
/tools          the tools the model has
/session        this session's ID and file
/diff           what the last turn changed, as a unified diff
/undo-turn      put back the files the last turn changed (refused if any changed since)
/compact [FOCUS] summarise the conversation so far to save space (FOCUS: what to keep above all)
/context        tokens used, the window, when it compacts, and what takes the space
/help           this list
/quit           leave
A line that starts with // sends the rest with one slash."""


def repl(args: argparse.Namespace, environ: Mapping[str, str], cwd: str, build: Callable[..., Any]) -> int:
    from prompt_toolkit import PromptSession

    prompt_session: PromptSession[str] = PromptSession()

    def read(text: str) -> str | None:
        try:
            return prompt_session.prompt(text)
        except EOFError:
            return None

    def answer(call: ToolCall, call_args: Mapping[str, object], verdict: Any) -> Answer:
        return parse_answer(read(question(call, call_args, verdict)))

    printer = Printer(sys.stdout, sys.stdout)
    built = build(args, environ, cwd, printer, answer)
    agent, session = built.agent, built.session
    options = agent.model.options
    print(f"bastion · {options.provider} {options.model} · session {session.id} · /help for commands")
    try:
        while True:
            try:
                line = read("> ")
            except KeyboardInterrupt:
                line = None
            if line is None:
                break
            line = line.strip()
            if not line:
                continue
            if line.startswith("/") and not line.startswith("//"):
                if _command(line, agent, session) == "quit":
                    break
                continue
            try:
                agent.run(line.removeprefix("/") if line.startswith("//") else line)
                print()
            except Cancelled:
                print("\n[aborted]")
            except KeyboardInterrupt:
                print("\n[aborted]")
            except AgentError as err:
                print(f"\nbastion: {err}")
    finally:
        session.close()
    print(f"To resume this session: bastion --resume {session.id}")
    return 0


def _command(line: str, agent: Any, session: Any) -> str:
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
    elif name == "/session":
        print(f"session {session.id}: {session.path}")
    elif name in _LONG_COMMANDS:
        _LONG_COMMANDS[name](rest, agent, session)
    else:
        print(f"bastion: unknown command {name} (/help lists them; // sends a line that starts with /)")
    return ""
