"""The agent with --executor, as a person runs it: a scripted model's calls act in the executor's
root, not in the directory bastion started in; an auto-allowed plan runs there unasked, a write asks
as it would locally (and runs there once approved); the executor's line is printed, and the model's
key reaches neither the executor nor its commands."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.agent.agent_fixtures import run_main
from tests.agent.scripted_server import ScriptedServer
from tests.workspace.conftest import session_argv

KEY = "sk-test-canary-0123456789abcdef"


def test_a_session_with_an_executor_acts_in_its_root(tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "elsewhere" / "root"
    here.mkdir()
    there.mkdir(parents=True)
    (there / "a.txt").write_text("alpha from there\n")
    (here / "a.txt").write_text("alpha from here\n")
    rounds = [
        {"calls": [{"name": "bash", "arguments": {"command": "cat a.txt"}}]},
        {"calls": [{"name": "bash", "arguments": {"command": "env > seen.txt"}}]},
        {"calls": [{"name": "write", "arguments": {"path": "new.txt", "content": "made there\n"}}]},
        {"text": "done"},
    ]
    executor = [sys.executable, "-m", "bastion", "execute", str(there), "--kind", "container"]
    env = {
        "BASTION_HOME": str(tmp_path / "h" / ".bastion"),
        "HOME": str(tmp_path / "h"),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "OPENAI_API_KEY": KEY,
        "BASTION_RETRY_CAP": "0.01",
    }
    with ScriptedServer(rounds) as server:
        code, out, err = run_main(session_argv(server.url, executor), cwd=str(here), env=env, stdin="y\ny\n")
        requests = server.requests
    assert code == 0, err
    assert "executor: bastion" in err and "container" in err and str(there) in err
    results = [m for m in requests[-1]["body"]["messages"] if m.get("role") == "tool"]
    assert "alpha from there" in json.dumps(results[0]) and "alpha from here" not in json.dumps(results)
    assert (there / "new.txt").read_text() == "made there\n" and not (here / "new.txt").exists()
    assert (there / "seen.txt").exists() and KEY not in (there / "seen.txt").read_text()
    assert not (here / "seen.txt").exists()
