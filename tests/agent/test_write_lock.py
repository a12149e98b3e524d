"""The workspace's write lock: a parent and its sub-agents never write at once. A write, an edit and
a bash line that is not the analyzer's plan wait while another writer holds the lock, and stop
waiting (running nothing) when cancelled; the read-only plan of an auto-allowed line never waits."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bastion.agent.tools import Toolbox, WriteLock, write_lock
from bastion.analyzer import Stamper
from bastion.policy import Gate, Policy, Settings
from bastion.workspace import LocalWorkspace
from tests.contexts import gate as gate_for
from tests.contexts import tool_context

from ..waits import until


class Setup:
    def __init__(self, tmp_path: Path) -> None:
        (tmp_path / "notes.txt").write_text("the answer is 42\n")
        self.root = tmp_path
        self.ws = LocalWorkspace(str(tmp_path), {"PATH": os.environ.get("PATH", os.defpath)})
        self.stamper = Stamper()
        self.tools = Toolbox(gate_for(self.ws, self.stamper, 1 << 20))
        self.lock = write_lock(tool_context(self.ws, None))

    def start(self, name: str, args: Mapping[str, object], cancel: threading.Event) -> list[tuple[str, bool]]:
        """Run a call on a thread; the list gets its result when it ends."""
        done: list[tuple[str, bool]] = []
        threading.Thread(target=lambda: done.append(self.tools.run(name, args, cancel)), daemon=True).start()
        return done


WRITERS = [
    pytest.param("write", {"path": "out.txt", "content": "hi\n"}, id="write"),
    pytest.param("edit", {"path": "notes.txt", "old_string": "42", "new_string": "43"}, id="edit"),
    pytest.param("bash", {"command": "echo hi > out.txt; sed -i s/42/43/ notes.txt"}, id="approved-bash"),
]


def _changed(root: Path) -> bool:
    return (root / "out.txt").exists() or "43" in (root / "notes.txt").read_text()


@pytest.mark.parametrize(("name", "args"), WRITERS)
def test_a_writer_waits_while_another_holds_the_lock_then_writes(
    tmp_path: Path, name: str, args: Mapping[str, object]
) -> None:
    s = Setup(tmp_path)
    with s.lock.holding():
        done = s.start(name, args, threading.Event())
        until(lambda: s.lock.waiting == 1, "the writer never came to wait for the lock")
        assert not _changed(tmp_path) and done == []
    until(lambda: done, "the writer never ran once the lock was free")
    assert done[0][1] is False, done
    assert _changed(tmp_path)


@pytest.mark.parametrize(("name", "args"), WRITERS)
def test_a_writer_cancelled_while_waiting_runs_nothing(
    tmp_path: Path, name: str, args: Mapping[str, object]
) -> None:
    s = Setup(tmp_path)
    cancel = threading.Event()
    with s.lock.holding():
        done = s.start(name, args, cancel)
        until(lambda: s.lock.waiting == 1, "the writer never came to wait for the lock")
        cancel.set()
        until(lambda: done, "the writer kept waiting after it was cancelled")
    text, failed = done[0]
    assert failed and "interrupted while waiting for another writer" in text
    assert not _changed(tmp_path)


def test_the_plan_of_an_auto_allowed_line_runs_while_a_writer_holds_the_lock(tmp_path: Path) -> None:
    s = Setup(tmp_path)
    decided = Gate(Settings(Policy()), s.ws, s.stamper).decide("bash", {"command": "cat notes.txt"})
    assert decided.verdict.decision.name == "ALLOW"
    with s.lock.holding():
        done = s.start("bash", decided.args, threading.Event())
        until(lambda: done, "a read-only plan waited for the write lock")
    assert done[0] == ("the answer is 42\n[exit 0]", False)


def test_one_workspace_has_one_lock_whoever_writes(tmp_path: Path) -> None:
    ws = LocalWorkspace(str(tmp_path))
    assert write_lock(tool_context(ws, None)) is write_lock(tool_context(LocalWorkspace(str(tmp_path)), None))


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=2, max_size=5))
def test_no_two_holders_are_ever_inside_at_once(rounds: list[int]) -> None:
    lock = WriteLock()
    inside: list[int] = []
    overlaps: list[int] = []
    guard = threading.Lock()

    def writer(n: int) -> None:
        for _ in range(n):
            with lock.holding():
                with guard:
                    inside.append(1)
                    if len(inside) > 1:
                        overlaps.append(len(inside))
                time.sleep(0.001)
                with guard:
                    inside.pop()

    threads = [threading.Thread(target=writer, args=(n,)) for n in rounds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert overlaps == [] and not lock.held and lock.waiting == 0


def test_the_toolbox_hands_out_its_workspaces_one_write_lock_for_mcp_calls(tmp_path: Path) -> None:
    setup = Setup(tmp_path)
    assert setup.tools.write_lock is setup.lock
