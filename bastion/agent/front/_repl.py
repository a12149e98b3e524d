"""The REPL: a prompt-toolkit line editor over one session. Answers stream; a question shows what
the call would do and is answered y, n, a or r (remember the rule it offers) on the next line;
Ctrl-C aborts a run in flight (at a question too), clears a half-typed line, and twice on an empty
line leaves; Ctrl-O (or /expand) shows the last collapsed result whole."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..._files import open_append
from ..._safe import redact, safe_line, safe_text
from ...policy import Offer
from ..runtime import Agent, AgentError, Assistant, Cancelled, Failure, Message, User
from ..sessions import bastion_home
from ._ask import CallKey
from ._colour import colour_for
from ._front import Asker, Build, Fanout, Printer
from ._plainly import wrapped
from ._render import MarkdownStream, columns_of, rendered
from ._slash import COMMANDS, ReplState, Tally, run_command, say

if TYPE_CHECKING:
    from ..sessions import Session

__all__ = ["recap", "repl"]

HISTORY = "history"
# How many of a resumed conversation's last exchanges are shown, and how much of each.
RECAP_EXCHANGES = 2
RECAP_CHARS = 300


def recap(
    messages: list[Message],
    exchanges: int = RECAP_EXCHANGES,
    render: Callable[[str], str] = safe_text,
) -> list[str]:
    """A resumed conversation's last exchanges, for a person: each prompt and the model's text
    after it, cut short; `render` shows the model's text (its markdown rendered, on a terminal)."""
    prompts = [i for i, m in enumerate(messages) if isinstance(m, User)]
    lines = []
    for start in prompts[-exchanges:]:
        prompt = messages[start]
        assert isinstance(prompt, User)
        lines.append(safe_text(f"> {_short(prompt.text)}"))
        replies = [
            m.text
            for m in messages[start + 1 : next((i for i in prompts if i > start), len(messages))]
            if isinstance(m, Assistant) and m.text.strip()
        ]
        if replies:
            lines.append(render(_short(replies[-1])).rstrip("\n"))
    return lines


def _short(text: str) -> str:
    text = text.strip()
    return text if len(text) <= RECAP_CHARS else text[: RECAP_CHARS - 1] + "…"


def _history(home: str) -> Any:
    """Input history across sessions, in the bastion home, readable by its owner only; answers to
    questions never go into it."""
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    path = os.path.join(home, HISTORY)
    try:
        os.makedirs(home, mode=0o700, exist_ok=True)
        os.close(open_append(path))
        os.chmod(path, 0o600)
    except OSError as err:
        print(f"bastion: input history off: {path}: {err.strerror or err}")
        return InMemoryHistory()

    class RedactedHistory(FileHistory):
        """Its lines are redacted before they are written."""

        def store_string(self, string: str) -> None:
            super().store_string(redact(string))

    return RedactedHistory(path)


def _line_editor(home: str, expand: Callable[[], None]) -> Any:
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

    @keys.add("c-o")
    def _(event: Any) -> None:
        from prompt_toolkit.application import run_in_terminal

        run_in_terminal(expand)  # above the prompt, which is drawn again below it

    return PromptSession(
        history=_history(home), completer=Slash(), complete_while_typing=False, key_bindings=keys
    )


def repl(args: argparse.Namespace, environ: Mapping[str, str], cwd: str, build: Build) -> int:
    from prompt_toolkit import PromptSession

    colour = colour_for(sys.stdout, environ)
    markdown = MarkdownStream(sys.stdout, live=True) if colour.on else None
    printer = Printer(
        sys.stdout, sys.stdout, colour=colour, markdown=markdown, width=lambda: columns_of(sys.stdout)
    )

    def expand() -> None:
        print("\n".join(safe_line(line) for line in printer.expanded() or ["(no result was collapsed yet)"]))

    editor = _line_editor(bastion_home(environ), expand)
    answers: PromptSession[str] = PromptSession()  # its own (empty) history: answers stay out of it

    def ask(text: str) -> str | None:
        """The answer's line; None at Ctrl-D (a refusal). Ctrl-C ends the turn, as it does while
        the model answers or a command runs: KeyboardInterrupt goes on to the loop."""
        try:
            return answers.prompt(text)
        except EOFError:
            return None

    recorded: list[Session] = []

    def on_rule(key: CallKey) -> None:
        if recorded:
            recorded[0].record("session_rule", tool=key.tool, arguments=key.arguments)

    def on_learnt(offer: Offer) -> None:
        if recorded:
            recorded[0].record("learnt_rule", rules=list(offer.rules), config=offer.path, project=offer.root)

    asker = Asker(
        ask, _write, cwd, colour, offer_always=True, on_rule=on_rule, offer_learn=True, on_learnt=on_learnt
    )
    built = build(args, environ, cwd, printer, asker)
    agent, session = built.agent, built.session
    recorded.append(session)
    tally = Tally()
    agent.events = Fanout(agent.events, tally)
    skills = built.extras.catalog if built.extras is not None else None
    state = ReplState(agent, session, asker, tally, built.connection, built.mcp, skills, printer)
    options = agent.model.options
    named = f"session {session.id}" if session.recorded else "not recorded"
    banner = f"bastion · {options.provider} {options.model} · {named} · /help for commands"
    print("\n".join(wrapped(banner, columns_of(sys.stdout), indent="")))
    if args.resume and agent.messages:
        shown = (lambda text: rendered(text, markdown.console)) if markdown is not None else safe_text
        print("\n".join(["(the conversation so far ends with)", *recap(agent.messages, render=shown), ""]))
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
                    with _settled(printer):
                        if run_command(line, state):
                            break
                except KeyboardInterrupt:
                    print("\n[aborted]")
                continue
            try:
                with _settled(printer):
                    agent.run(line.removeprefix("/") if line.startswith("//") else line)
                print()
            except (Cancelled, KeyboardInterrupt):
                print("\n[aborted]" + _withdrawn(agent))
            except AgentError as err:
                print()
                say(f"bastion: {err}{_withdrawn(agent)}")
                hint = built.advice(err)
                if hint is not None:
                    say(f"bastion: {hint}")
                if err.kind is Failure.CONTEXT_EXCEEDED:
                    print("bastion: /compact summarises the conversation to make room; /clear starts anew")
    finally:
        built.close()
    if session.recorded:
        print(f"To resume this session: bastion --resume {session.id}")
    return 0


@contextlib.contextmanager
def _settled(printer: Printer) -> Iterator[None]:
    """Whichever way a run or a command ends (answered, failed, aborted), nothing is waited for
    after it: the spinner is stopped before anything else is printed."""
    try:
        yield
    finally:
        printer.idle()


def _withdrawn(agent: Agent) -> str:
    """Take back a prompt the model never answered, and say so."""
    return (
        " (the prompt was not answered and is not kept: send it again)" if agent.withdraw_unanswered() else ""
    )


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()
