"""The terminal and pipes under faults (issue 25): the spinner stops whichever way a request ends
(a pseudo-terminal), a reader that closes standard output ends a -p run quietly with the shell's
status for it, and every call is drawn, failed or not, an MCP server's that crashed included."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pexpect
import pytest

from bastion.agent.front import Printer
from bastion.agent.runtime import ToolCall, ToolResult
from bastion.policy import Decision, Verdict, parse_rule
from tests.waits import until

from .scripted_server import ScriptedServer
from .test_mcp_client import SERVER
from .test_repl import _spawn
from .test_scenarios import FORMATS, _env, _session_events, _workspace, base_url, format_env

SPINNING = "waiting for the model"


@pytest.mark.parametrize("ending", ["refused", "aborted"])
def test_the_spinner_stops_when_a_request_fails_or_is_aborted(tmp_path: Path, ending: str) -> None:
    seen = threading.Event()  # the test saw the spinner draw: the server may answer now
    rounds: list[dict[str, object]] = [
        {"status": 401, "error": "bad key"} if ending == "refused" else {"silent": True}
    ]

    def answer_once_seen(n: int) -> None:
        seen.wait(30)

    with ScriptedServer(rounds, on_request=answer_once_seen) as server:
        child = _spawn(tmp_path, server.url)
        child.expect("/help for commands")
        child.sendline("hello")
        child.expect(SPINNING)
        child.expect(SPINNING)  # a second frame: the spinner's thread runs here
        seen.set()
        if ending == "aborted":
            child.sendcontrol("c")
            child.expect(r"\[aborted\]")
        else:
            child.expect("the key was refused")
        child.expect(">")  # the prompt is back
        # A spinner left running redraws every 0.1 s: over a whole second, not one frame may come.
        assert child.expect([SPINNING, pexpect.TIMEOUT], timeout=1.0) == 1, "the spinner still ticks"
        child.sendline("/quit")
        child.expect(pexpect.EOF)
        child.close()


def test_no_path_that_ends_a_run_leaves_the_spinner_running() -> None:
    # private: the REPL's end-of-run settling of the screen is the thing tested
    from bastion.agent.front._repl import _settled

    terminal = io.StringIO()
    printer = Printer(terminal, terminal)
    printer.spinner.on = True  # as on a terminal
    for failure in (RuntimeError("failed"), KeyboardInterrupt()):
        with pytest.raises(type(failure)), _settled(printer):
            printer.request(1)
            assert printer.spinner.waiting == SPINNING
            raise failure
        assert printer.spinner.waiting == ""


def _bastion(fmt: str, server: ScriptedServer, *argv: str) -> list[str]:
    base = base_url(server, fmt)
    return [sys.executable, "-m", "bastion", "-p", "go", *FORMATS[fmt], "--base-url", base, *argv]


def _quiet(err: str) -> None:
    said = ("openai:", "anthropic:", "openresponses:", "gemini:", "vertex:")
    for word in ("BrokenPipe", "Traceback", "Exception ignored", *said):
        assert word not in err, err


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("output", ["text", "json"])
def test_a_closed_standard_output_ends_the_run_quietly_with_the_shells_status(
    tmp_path: Path, fmt: str, output: str
) -> None:
    _workspace(tmp_path, {})
    read, write = os.pipe()
    os.close(read)  # nobody will ever read the answer
    with ScriptedServer([{"text": "an answer nobody reads\n"}]) as server:
        try:
            done = subprocess.run(
                _bastion(fmt, server, "--output-format", output),
                cwd=tmp_path / "work",
                env={**os.environ, **_env(tmp_path), **format_env(tmp_path, fmt, server)},
                stdout=write,
                stderr=subprocess.PIPE,
                text=True,
                timeout=120,
            )
        finally:
            os.close(write)
    assert done.returncode == 141
    _quiet(done.stderr)
    # Streamed text meets the closed pipe mid-run (the run is stopped); the JSON only once it is over.
    ended = ("error", "cancelled") if output == "text" else ("completed", None)
    assert [(e["status"], e["kind"]) for e in _session_events(tmp_path) if e["type"] == "outcome"] == [ended]


def test_bastion_piped_into_head_stops_when_head_has_read_enough(tmp_path: Path) -> None:
    _workspace(tmp_path, {})
    gone = tmp_path / "head-gone"
    # A reply's text is written once the reply is whole (-p's text output): the first reply's goes
    # to head, and the second request is answered only once head has left and the pipe is closed.
    rounds = [
        {"text": "line 0\nline 1\nline 2\n", "calls": [{"name": "ls", "arguments": {"path": "."}}]},
        {"text": "".join(f"line {i}\n" for i in range(3, 20_000)), "pieces": 64},
    ]

    def after_head(index: int) -> None:
        if index == 1:
            until(gone.exists, "head to leave")

    with ScriptedServer(rounds, on_request=after_head) as server:
        line = " ".join(f"'{word}'" for word in _bastion("chat", server))
        reader = f'(head -2; exec 0<&-; touch "{gone}")'
        done = subprocess.run(
            ["bash", "-c", f'{line} | {reader}; echo "status=${{PIPESTATUS[0]}}"'],
            cwd=tmp_path / "work",
            env={**os.environ, **_env(tmp_path)},
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.stdout == "line 0\nline 1\nstatus=141\n"
    _quiet(done.stderr)


def test_every_call_shown_allowed_gets_its_result_drawn_and_an_undecided_one_is_said() -> None:
    out = io.StringIO()
    printer = Printer(out, out)
    call = ToolCall("c1", "mcp__docs__crash", "{}")
    printer.verdict(call, Verdict(Decision.ALLOW, "allowed", rule=parse_rule("mcp(docs:*)")), None)
    # No `started` reached this front (the call's thread failed first, say): its result is drawn all the same.
    printer.message(ToolResult("c1", call.name, "error: the server stopped during the call", is_error=True))
    printer.message(ToolResult("c2", "ls", "not run: the run reached its limit", is_error=True))
    assert out.getvalue().splitlines() == [
        "→ mcp__docs__crash {}",
        "  ✗ mcp__docs__crash failed: error: the server stopped during the call",
        "✗ ls: not run: the run reached its limit",
    ]


def test_a_call_to_an_mcp_server_that_crashed_is_drawn_and_so_is_the_next_one(tmp_path: Path) -> None:
    config = tmp_path / "xdg" / "bastion" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        f'[mcp.servers.docs]\ncommand = "{sys.executable}"\nargs = ["{SERVER}", "stdio"]\n'
        '[policy]\nallow = ["mcp(docs:*)"]\n'
    )
    rounds: list[dict[str, Any]] = [
        {"calls": [{"name": "mcp__docs__crash", "arguments": {}}]},
        {"text": "It crashed."},
        {"calls": [{"name": "mcp__docs__echo", "arguments": {"text": "anyone?"}}]},
        {"text": "Still gone."},
    ]
    with ScriptedServer(rounds) as server:
        child = _spawn(tmp_path, server.url)
        child.expect("/help for commands", timeout=60)
        child.sendline("crash it")
        child.expect(r"→ mcp__docs__crash")
        child.expect(r"✗ mcp__docs__crash failed: error: the call of crash on the MCP server docs failed")
        child.expect("It crashed.")
        child.sendline("again")
        child.expect(r"→ mcp__docs__echo")
        child.expect(r"✗ mcp__docs__echo failed: error: the MCP server docs is not running")
        child.expect("Still gone.")
        child.sendline("/quit")
        child.expect(pexpect.EOF)
        child.close()
    assert child.exitstatus == 0
