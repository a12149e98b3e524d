"""No process a call started outlives it: one that left the call's process group (`setsid nohup ...
&`) is ended when the call ends, when the call is stopped, and when bastion itself dies (kill -9),
so nothing writes later, outside the write lock and the turn's checkpoint."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from bastion.agent.tools import AGENT_TOOLS, ToolContext
from bastion.analyzer import Stamper
from bastion.workspace import LocalWorkspace
from tests.contexts import tool_context

from ..waits import PATIENCE, until
from .scripted_server import ScriptedServer
from .test_scenarios import _env, _workspace

# A process that leaves the call's group and session, writes its pid, and would write `late` later.
ESCAPE = "setsid nohup sh -c 'echo $$ > esc.pid; sleep 600; echo late > late.txt' > /dev/null 2>&1 &"
# Waits (on the escapee being there, not on a clock) before the call ends.
WAIT_FOR_IT = "while [ ! -s esc.pid ]; do sleep 0.01; done"


def _alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie no longer runs: it only waits to be reaped)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _pid(where: Path, name: str) -> int:
    until(
        lambda: (where / name).exists() and (where / name).read_text().endswith("\n"), f"{name} to be written"
    )
    return int((where / name).read_text())


@contextlib.contextmanager
def _killing_leftovers(where: Path) -> Iterator[None]:
    """Whatever the test finds, no process it started is left behind."""
    try:
        yield
    finally:
        for name in ("esc.pid", "bash.pid"):
            with contextlib.suppress(OSError, ValueError):
                os.kill(int((where / name).read_text()), signal.SIGKILL)


def test_a_process_that_left_the_calls_group_ends_when_the_call_ends(ctx: ToolContext, root: Path) -> None:
    with _killing_leftovers(root):
        out = AGENT_TOOLS["bash"].run({"command": f"{ESCAPE} {WAIT_FOR_IT}; echo started"}, ctx)
        assert not out.is_error and out.text.startswith("started"), out.text
        escaped = _pid(root, "esc.pid")
        assert not _alive(escaped), "the process that left the call's group outlived the call"


def test_a_process_that_left_the_calls_group_ends_when_the_call_is_stopped(
    ws: LocalWorkspace, root: Path
) -> None:
    cancel = threading.Event()
    stopping = tool_context(ws, Stamper(), max_read_bytes=4096, cancel=cancel)
    with _killing_leftovers(root):
        done: list[str] = []
        runner = threading.Thread(
            target=lambda: done.append(
                AGENT_TOOLS["bash"].run({"command": f"{ESCAPE} {WAIT_FOR_IT}; sleep 600"}, stopping).text
            )
        )
        runner.start()
        escaped = _pid(root, "esc.pid")
        cancel.set()
        runner.join(PATIENCE)
        assert done and "interrupted" in done[0], done
        assert not _alive(escaped), "the process that left the call's group outlived the stopped call"


@pytest.mark.parametrize("kill", ["kill -9", "SIGTERM"])
def test_every_process_of_a_running_call_ends_when_bastion_dies(tmp_path: Path, kill: str) -> None:
    work = _workspace(tmp_path, {})
    command = f"{ESCAPE} {WAIT_FOR_IT}; sh -c 'echo $$ > bash.pid; exec sleep 600'"
    rounds = [{"calls": [{"name": "bash", "arguments": {"command": command}}]}, {"text": "never"}]
    with ScriptedServer(rounds) as server, _killing_leftovers(work):
        run = subprocess.Popen(
            [sys.executable, "-m", "bastion", "-p", "go", "--allow", "bash",
             "--provider", "openai", "--base-url", server.url + "/v1"],
            cwd=work, env={**os.environ, **_env(tmp_path)},
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            escaped, command_pid = _pid(work, "esc.pid"), _pid(work, "bash.pid")
        finally:
            run.send_signal(signal.SIGKILL if kill == "kill -9" else signal.SIGTERM)
            run.communicate(timeout=PATIENCE)
        until(lambda: not _alive(command_pid), "the call's command to end once bastion died")
        until(lambda: not _alive(escaped), "the process that left the call's group to end once bastion died")
    assert not (work / "late.txt").exists()
