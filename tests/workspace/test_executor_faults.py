"""A lost, stalled or lying executor fails closed: the call fails with a clear ExecutorLost (the
analyzer then asks), every later call fails too, nothing falls back to this machine; a program that
is not an executor, or speaks another protocol's version, is refused at connect in one line."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import sys
import threading
from pathlib import Path

import pytest

from bastion.agent.tools import AGENT_TOOLS
from bastion.analyzer import Stamper, analyze
from bastion.policy import Decision, Gate, load_settings
from bastion.workspace import ExecRequest, ExecutorLost, ExecutorWorkspace
from tests.agent.agent_fixtures import SLOW, wait_for_pid
from tests.contexts import tool_context
from tests.waits import PATIENCE

from .conftest import TRANSPORT_ENV, execute_argv

FAKE = str(Path(__file__).with_name("fake_executor.py"))
ENV = {"PATH": os.environ.get("PATH", os.defpath)}
# How long the stalled fakes are given to answer: they never will, so the bound only says when the
# call fails (it cannot pass early, and under load it only fails later).
STALL_BOUND = 0.5


def fake(mode: str, reply_timeout: float = PATIENCE) -> ExecutorWorkspace:
    return ExecutorWorkspace([sys.executable, FAKE, mode], ENV, reply_timeout=reply_timeout)


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("not-bastion", "not JSON"),
        ("newer", "speaks protocol 99 (bastion 0), this bastion speaks 1: install the same bastion"),
    ],
)
def test_a_program_that_is_not_this_protocol_is_refused_at_connect(mode: str, words: str) -> None:
    with pytest.raises(ExecutorLost, match=re.escape(words)):
        fake(mode)


def test_an_executor_that_never_says_hello_is_bounded() -> None:
    with pytest.raises(ExecutorLost, match="did not answer its hello within 0.5 s"):
        fake("silent", reply_timeout=STALL_BOUND)


def test_a_command_that_cannot_start_says_so() -> None:
    with pytest.raises(ExecutorLost, match="could not be started"):
        ExecutorWorkspace(["/nonexistent/ssh", "host"], ENV)


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("cut", "its connection closed"),
        ("not-json", "not JSON"),
        ("wrong-id", "an answer to no request"),
        ("bad-stat", "a stat must be ten integers"),
        ("bad-error", "the field 'errno' is not an integer"),
        ("huge", "longer than"),
    ],
)
def test_a_lost_or_lying_executor_fails_the_call_and_every_later_one(mode: str, words: str) -> None:
    ws = fake(mode)
    with pytest.raises(ExecutorLost, match=words):
        ws.lstat("a.txt")
    with pytest.raises(ExecutorLost, match=words):  # no fallback, no second chance
        ws.read("a.txt", 10)
    with pytest.raises(ExecutorLost):
        ws.exec(ExecRequest(["true"]))
    ws.close()


def test_a_stalled_executor_is_bounded_and_then_lost() -> None:
    ws = fake("stall", reply_timeout=STALL_BOUND)
    with pytest.raises(ExecutorLost, match=re.escape("did not answer the lstat of 'a.txt' within 0.5 s")):
        ws.lstat("a.txt")
    with pytest.raises(ExecutorLost):
        ws.exec(ExecRequest(["true"], timeout=1))
    ws.close()


def test_a_command_stalled_past_its_timeout_and_the_bound_fails() -> None:
    ws = fake("stall", reply_timeout=STALL_BOUND)
    words = "did not answer the command 'sleep 600' within its timeout of 0.1 s and 0.5 s more"
    with pytest.raises(ExecutorLost, match=re.escape(words)):
        ws.exec(ExecRequest(["sleep", "600"], timeout=0.1))


def test_a_connection_cut_mid_command_fails_it_with_what_had_come() -> None:
    ws = fake("cut-mid-exec")
    seen: list[bytes] = []
    with pytest.raises(ExecutorLost, match="its connection closed"):
        ws.exec(ExecRequest(["make"], on_output=seen.append))
    assert seen == [b"half"]
    with pytest.raises(ExecutorLost):
        ws.lstat(".")


def test_a_lost_executor_makes_the_analyzer_and_the_gate_ask(tmp_path: Path) -> None:
    ws = fake("lstat-then-stall", reply_timeout=STALL_BOUND)
    settings = load_settings(ws, os.devnull)
    analysis = analyze("cat a.txt", ws, ".")
    assert not analysis.auto
    decided = Gate(settings, ws).decide("bash", {"command": "cat a.txt"})
    assert decided.decision is Decision.ASK
    assert Gate(settings, ws).decide("read", {"path": "a.txt"}).decision is not Decision.ALLOW


@pytest.mark.parametrize("fault", [signal.SIGKILL, signal.SIGSTOP], ids=["killed", "stopped"])
def test_a_command_an_executor_lost_mid_run_may_have_run_and_is_never_called_unstarted(
    tmp_path: Path, fault: signal.Signals
) -> None:
    # A stopped executor is lost at the command's timeout (1 s) and this bound; a killed one at once.
    ws = ExecutorWorkspace(execute_argv(tmp_path), TRANSPORT_ENV, reply_timeout=STALL_BOUND)
    executor = ws._link.proc.pid  # private: the executor's process is the very thing made to fail
    ctx = tool_context(ws, Stamper(), cancel=threading.Event())
    seen = []

    def fail_it() -> None:
        seen.append(wait_for_pid(tmp_path))
        os.kill(executor, fault)

    threading.Thread(target=fail_it, daemon=True).start()
    try:
        out = AGENT_TOOLS["bash"].run({"command": SLOW, "timeout_seconds": 1}, ctx)
    finally:
        os.kill(executor, signal.SIGKILL)
        ws.close()
        with contextlib.suppress(ProcessLookupError):  # the command, left running where it ran
            os.killpg(seen[0], signal.SIGKILL)
    assert out.is_error and "may have run, in part or in full" in out.text, out.text
    assert "could not be started" not in out.text and "is lost" in out.text
