"""Shared helpers for the agent's tests: a scripted model, a gate and tools that need no policy, and a
way to run the real CLI entry in-process."""

from __future__ import annotations

import io
import json
import os
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bastion.agent.runtime import (
    Assistant,
    Message,
    ModelOptions,
    ModelRequest,
    Reply,
    ToolCall,
    ToolSpec,
    Usage,
)
from bastion.agent.sessions import chained_line
from bastion.policy import Decision, Origin, Source, Verdict, parse_rule
from tests.waits import PATIENCE, until

# A command that writes its pid (its process group's id: every command starts a session) to bash.pid,
# then waits on a child; `never` exists only if it was not stopped.
SLOW = "echo $$ > bash.pid; sleep 600; touch never"


class ScriptedModel:
    """Replies in order; a reply may be an exception to raise, or a callable run first. `requests`
    are the requests it was sent, `seen` the conversation of each."""

    def __init__(self, replies: Sequence[Assistant | BaseException | Callable[[], Assistant]]) -> None:
        self.replies = list(replies)
        self.requests: list[ModelRequest] = []
        self.seen: list[list[Message]] = []
        self.options = ModelOptions("scripted", "scripted")

    def stream(self, request: ModelRequest) -> Reply:
        self.requests.append(request)
        self.seen.append(list(request.messages))
        reply = self.replies.pop(0)
        if isinstance(reply, BaseException):
            raise reply
        if callable(reply):
            reply = reply()
        request.on_text(reply.text)
        return Reply(reply, Usage(3, 2))


def call(name: str, args: Any, call_id: str | None = None) -> ToolCall:
    raw = args if isinstance(args, str) else json.dumps(args)
    return ToolCall(call_id or f"id-{name}-{abs(hash(raw)) % 1000}", name, raw)


@dataclass
class FakeDecided:
    verdict: Verdict
    args: Mapping[str, object]


@dataclass
class FakeGate:
    """Decides by tool name; `raises` makes deciding fail."""

    decisions: dict[str, Decision] = field(default_factory=dict)
    raises: bool = False

    def decide(self, tool: str, args: object) -> FakeDecided:
        if self.raises:
            raise RuntimeError("engine broke")
        decision = self.decisions.get(tool, Decision.ALLOW)
        assert isinstance(args, Mapping)
        return FakeDecided(
            Verdict(decision, f"{tool} is {decision}", rule=parse_rule(tool), source=Source(Origin.BUILTIN)),
            args,
        )


class FakeTools:
    """Tools that record their runs; `block` makes a tool wait until released."""

    def __init__(
        self, names: Sequence[str] = ("read", "write", "bash", "ls"), block: threading.Event | None = None
    ) -> None:
        self.names = list(names)
        self.ran: list[tuple[str, dict[str, object]]] = []
        self.started = threading.Event()
        self.block = block

    def specs(self) -> Sequence[ToolSpec]:
        return [ToolSpec(n, f"the {n} tool", {"type": "object"}) for n in self.names]

    def has(self, name: str) -> bool:
        return name in self.names

    def run(self, name: str, args: Mapping[str, object], cancel: threading.Event) -> tuple[str, bool]:
        self.ran.append((name, dict(args)))
        self.started.set()
        if self.block is not None:
            self.block.wait(PATIENCE)
        return f"{name} ran", False


def write_record(path: Path, events: Sequence[Mapping[str, Any]]) -> Path:
    """A session record holding `events`, each line chained as a session writes it."""
    chain, lines = "", []
    for event in events:
        line, chain = chained_line(chain, event)
        lines.append(line)
    path.write_text("".join(lines))
    return path


def run_main(
    argv: Sequence[str], *, cwd: str, env: Mapping[str, str], stdin: str = ""
) -> tuple[int, str, str]:
    """bastion.agent.main in this process, in `cwd`, with `env` over the environment and `stdin`."""
    from bastion.agent import main

    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    saved = sys.stdin, sys.stdout, sys.stderr
    out, err = io.StringIO(), io.StringIO()
    os.environ.update(env)
    os.chdir(cwd)
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(stdin), out, err
    try:
        code = main(list(argv))
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return code, out.getvalue(), err.getvalue()


def wait_for_pid(where: Path) -> int:
    """The pid SLOW wrote in `where`, once it has written it."""
    path = where / "bash.pid"
    until(lambda: path.exists() and path.read_text().endswith("\n"), "the command to start (bash.pid)")
    return int(path.read_text())


def gone(pgid: int) -> bool:
    """bash is gone (reaped) and nothing of its group still runs. A killed child of bash is left a
    zombie when this machine's init does not reap: dead, so it does not count."""
    try:
        os.kill(pgid, 0)
        return False
    except ProcessLookupError:
        pass
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return False
    return True
