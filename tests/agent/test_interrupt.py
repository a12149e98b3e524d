"""Ctrl-C stops a running command: its process group is killed, not left running, and the call is
still paired with an "interrupted" result."""

from __future__ import annotations

import _thread
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from bastion.agent.runtime import INTERRUPTED, Agent, Answer, Assistant, Cancelled, ToolResult
from bastion.agent.tools import AGENT_TOOLS, Toolbox
from bastion.analyzer import Stamper
from bastion.workspace import ExecRequest, LocalWorkspace
from tests.contexts import gate as gate_for
from tests.contexts import tool_context

from ..waits import until
from .agent_fixtures import SLOW, FakeGate, ScriptedModel, call, gone, wait_for_pid


def _never(call: object, args: object, verdict: object) -> Answer:
    raise AssertionError("nothing should ask")


def _workspace(tmp_path: Path) -> LocalWorkspace:
    return LocalWorkspace(str(tmp_path), {"PATH": os.environ.get("PATH", os.defpath)})


def _after_start(tmp_path: Path, stop: Callable[[], None]) -> list[int]:
    """Calls `stop` on a thread once the command has started; the list gets the command's pid."""
    seen: list[int] = []

    def watch() -> None:
        seen.append(wait_for_pid(tmp_path))
        stop()

    threading.Thread(target=watch, daemon=True).start()
    return seen


def _run_slow(tmp_path: Path, stop: Callable[[Agent], Callable[[], None]]) -> tuple[Agent, int]:
    """The agent once its run of SLOW was stopped, and the command's pid; the run cannot have waited
    for the command (it would have run for 600 s and left `never`)."""
    ws = _workspace(tmp_path)
    model = ScriptedModel([Assistant("", (call("bash", {"command": SLOW}, "slow"),)), Assistant("late")])
    agent = Agent(model, FakeGate(), Toolbox(gate_for(ws, Stamper(), 4096)), _never, "system")
    seen = _after_start(tmp_path, stop(agent))
    with pytest.raises(Cancelled):
        agent.run("wait")
    return agent, seen[0]


@pytest.mark.parametrize(
    "stop",
    [
        pytest.param(lambda agent: agent.cancel.set, id="cancel-event"),
        pytest.param(lambda agent: _thread.interrupt_main, id="ctrl-c"),
    ],
)
def test_an_aborted_run_kills_the_commands_process_group_and_answers_the_call_interrupted(
    tmp_path: Path, stop: Callable[[Agent], Callable[[], None]]
) -> None:
    agent, pid = _run_slow(tmp_path, stop)
    until(lambda: gone(pid), "the command's process group to end after the abort")
    results = [m for m in agent.messages if isinstance(m, ToolResult)]
    assert [(r.call_id, r.content, r.is_error) for r in results] == [("slow", INTERRUPTED, True)]
    assert not (tmp_path / "never").exists()


def test_the_cancel_event_ends_a_commands_group_and_says_so(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    cancel = threading.Event()
    seen = _after_start(tmp_path, cancel.set)
    result = ws.exec(ExecRequest(["bash", "-c", SLOW], cancel=cancel))
    assert not (tmp_path / "never").exists()
    assert result.cancelled and not result.timed_out and result.exit_code is None
    until(lambda: gone(seen[0]), "the killed command's group to end (a SIGKILL lands a moment after kill())")


def test_a_command_that_ends_before_the_cancel_is_not_called_cancelled(tmp_path: Path) -> None:
    result = _workspace(tmp_path).exec(ExecRequest(["bash", "-c", "echo hi"], cancel=threading.Event()))
    assert (result.exit_code, result.output, result.cancelled) == (0, b"hi\n", False)


def test_the_bash_tool_passes_its_contexts_cancel_event_to_the_command(tmp_path: Path) -> None:
    cancel = threading.Event()
    ctx = tool_context(_workspace(tmp_path), Stamper(), cancel=cancel)
    seen = _after_start(tmp_path, cancel.set)
    out = AGENT_TOOLS["bash"].run({"command": SLOW}, ctx)
    assert out.text.endswith("[interrupted: killed as the run was stopped]")
    until(lambda: gone(seen[0]), "the killed command's group to end (a SIGKILL lands a moment after kill())")
