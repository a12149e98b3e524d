"""With an executor, a session's MCP stdio servers start there, not on this machine: a scripted
server that exists only in the executor's directory tree (named relative to its root) answers from
its root, as a child of `bastion execute`, with the executor's environment and not the model's key
(its parent's /proc entry holds none either). A connection that drops mid-call, whether the call is
an MCP server's or a command's, fails that call with words saying so and ends the run
(`workspace_lost`, exit 20); no later call is decided or run, and nothing runs on this machine."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.agent.agent_fixtures import run_main
from tests.agent.scripted_server import ScriptedServer
from tests.waits import PATIENCE, until
from tests.workspace.conftest import session_argv

KEY = "sk-test-canary-mcp-0123456789abcdef"
SERVER = Path(__file__).resolve().parents[1] / "agent" / "mcp_server.py"


def _places(tmp: Path, policy: str = 'allow = ["mcp(docs:*)"]') -> tuple[Path, Path, dict[str, str]]:
    here, there = tmp / "here", tmp / "elsewhere" / "tree" / "root"
    here.mkdir()
    (there / "tools").mkdir(parents=True)
    shutil.copy(SERVER, there / "tools" / "server.py")
    config = tmp / "xdg" / "bastion" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        "[mcp.servers.docs]\n"
        f"command = {json.dumps(sys.executable)}\n"
        'args = ["tools/server.py", "stdio"]\n'
        'pass_env = ["OPENAI_API_KEY", "SEEN_THERE"]\n'
        f"[policy]\n{policy}\n"
    )
    env = {
        "BASTION_HOME": str(tmp / "h" / ".bastion"),
        "HOME": str(tmp / "h"),
        "XDG_CONFIG_HOME": str(tmp / "xdg"),
        "OPENAI_API_KEY": KEY,
        "SEEN_THERE": "yes",
        "BASTION_RETRY_CAP": "0.01",
    }
    return here, there, env


def _results(requests: list[dict[str, Any]]) -> list[str]:
    return [str(m["content"]) for m in requests[-1]["body"]["messages"] if m.get("role") == "tool"]


def test_an_mcp_server_starts_on_the_executor_and_answers_from_its_root(tmp_path: Path) -> None:
    here, there, env = _places(tmp_path)
    rounds = [
        {"calls": [{"name": "mcp__docs__where", "arguments": {}}]},
        {"calls": [{"name": "mcp__docs__env", "arguments": {}}]},
        {"calls": [{"name": "mcp__docs__parent", "arguments": {}}]},
        {"text": "done"},
    ]
    executor = [sys.executable, "-m", "bastion", "execute", str(there)]
    with ScriptedServer(rounds) as server:
        code, out, err = run_main(session_argv(server.url, executor), cwd=str(here), env=env)
        requests = server.requests
    assert code == 0, err
    where, names, parent = _results(requests)
    assert where == str(there)  # tools/server.py exists only there
    assert "SEEN_THERE" in names.split() and "OPENAI_API_KEY" not in names.split()
    environ, cmdline = (bytes.fromhex(line.split(": ")[1]) for line in parent.splitlines())
    # Its parent is the launcher `bastion execute` started it with, whose environment is the server's.
    assert b"_launch.py" in cmdline and b"SEEN_THERE=yes" in environ
    assert KEY.encode() not in environ + cmdline
    assert KEY not in out + err


def _kill_when(held: Path, pidfile: Path, done: threading.Event) -> None:
    """Once the call is running (it wrote `held`), kill the executor (the pid its transport wrote)."""
    until(lambda: held.exists() or done.is_set(), f"the call to start ({held})")
    if not done.is_set():
        os.kill(int(pidfile.read_text()), signal.SIGKILL)


@pytest.mark.parametrize("call", ["mcp", "bash"])
def test_a_connection_that_drops_mid_call_fails_it_and_ends_the_run(tmp_path: Path, call: str) -> None:
    here, there, env = _places(tmp_path)
    first = (
        {"name": "mcp__docs__hold", "arguments": {}}
        if call == "mcp"
        else {"name": "bash", "arguments": {"command": "touch held; sleep 600"}}
    )
    rounds = [
        {"calls": [first]},
        {"calls": [{"name": "write", "arguments": {"path": "after.txt", "content": "x"}}]},
        {"text": "done"},
    ]
    pidfile = tmp_path / "executor.pid"
    # The transport: a shell that says its pid, then becomes `bastion execute`.
    executor = ["sh", "-c", 'echo $$ > "$1"; exec "$2" -m bastion execute "$3"', "sh"]
    executor += [str(pidfile), sys.executable, str(there)]
    done = threading.Event()
    killer = threading.Thread(target=_kill_when, args=(there / "held", pidfile, done), daemon=True)
    killer.start()
    with ScriptedServer(rounds) as server:
        try:
            code, out, err = run_main(
                session_argv(server.url, executor), cwd=str(here), env=env, stdin="y\ny\n"
            )
        finally:
            done.set()
            killer.join(PATIENCE)
        requests = server.requests
    assert code == 20, err
    outcome = json.loads(out)["outcome"]
    assert outcome["failure"]["kind"] == "workspace_lost"
    assert "is lost: its connection closed" in outcome["message"]
    assert "start bastion again with --resume and the same --executor" in err
    assert len(requests) == 1  # the run ended at the call: the model was not asked again
    assert not (here / "after.txt").exists() and not (there / "after.txt").exists()
    assert not (here / "held").exists()  # nothing ran here
    (record,) = (tmp_path / "h" / ".bastion" / "sessions").glob("*.jsonl")
    events = [json.loads(line) for line in record.read_text().splitlines()]
    (result,) = [
        e["message"] for e in events if e["type"] == "message" and e["message"]["role"] == "tool_result"
    ]
    assert result["is_error"] and "the workspace is lost (the executor" in result["content"]
    assert "the run ends" in result["content"]
