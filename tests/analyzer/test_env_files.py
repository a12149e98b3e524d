"""`*.env` and `*.env.*` files hold environment secrets by convention (docker's --env-file, compose's
env_file:): they are secret-looking names, beyond the reference (bastion/analyzer/_secrets.py), so
every read, walk and git form the shipped patterns guard guards them too; names that only look
alike (`env.py`, `environment.py`, `envs/`, `app.environment.ts`) are not swept in."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from bastion.policy import Decision, Gate, load_settings
from bastion.workspace import LocalWorkspace

CANARY = "ENV-FILE-CANARY"
SECRETS = ("prod.env", "app.env", "sub/STAGE.ENV", "sub/stage.env.local", "deploy/x.env.example")
LOOKALIKES = (
    "env.py", "environment.py", "envs/base.txt", "app.environment.ts", "vite-env.d.ts", "my.envs/x.txt",
    "alembic/env.py", "a.env_b.txt", "env",
)  # fmt: skip


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    for name in SECRETS:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"TOKEN={CANARY}-{name}\n")
    for name in LOOKALIKES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("plain\n")
    return root


def _gate(root: Path) -> Gate:
    ws = LocalWorkspace(str(root))
    return Gate(load_settings(ws, os.devnull), ws)


@pytest.mark.parametrize("name", SECRETS)
def test_reading_an_env_file_asks_in_bash_and_in_the_read_tool(root: Path, name: str) -> None:
    gate = _gate(root)
    assert gate.decide("bash", {"command": f"cat {name}"}).decision is Decision.ASK
    decided = gate.decide("read", {"path": name})
    assert decided.decision is Decision.ASK and "secret-looking" in decided.verdict.reason


@pytest.mark.parametrize("name", LOOKALIKES)
def test_a_name_that_only_looks_like_an_env_file_still_runs(root: Path, name: str) -> None:
    gate = _gate(root)
    assert gate.decide("bash", {"command": f"cat {name}"}).decision is Decision.ALLOW
    assert gate.decide("read", {"path": name}).decision is Decision.ALLOW
    assert gate.decide("bash", {"command": "ls && ls envs my.envs"}).decision is Decision.ALLOW


@pytest.mark.parametrize(
    "line",
    ["find . -name '*.env' -print0 | xargs -0 cat", "find . -type f | xargs cat", "grep -r TOKEN .",
     "grep -rl TOKEN . | xargs cat", "cat *", "head -n 5 sub/*"],
)  # fmt: skip
def test_a_walk_or_glob_never_prints_an_env_file(root: Path, line: str) -> None:
    """Each asks, or runs a plan that leaves the `*.env` files out (find's guard, grep's excludes)."""
    decided = _gate(root).decide("bash", {"command": line})
    a = decided.analysis
    if decided.decision is not Decision.ALLOW:
        return
    assert a is not None and a.auto and a.rendered is not None, decided.verdict.reason
    done = subprocess.run(["bash", "-c", a.rendered], cwd=root, capture_output=True, text=True, check=False)
    assert CANARY not in done.stdout + done.stderr, line


def test_the_grep_tool_leaves_env_files_out_and_says_so(root: Path) -> None:
    from bastion.agent.tools import AGENT_TOOLS, ToolContext

    gate = _gate(root)
    decided = gate.decide("grep", {"pattern": "TOKEN"})
    assert decided.decision is Decision.ALLOW
    out = AGENT_TOOLS["grep"].run(decided.args, ToolContext(gate)).text
    assert CANARY not in out and "not searched" in out


def test_git_leaves_a_tracked_env_file_out_of_what_it_prints(root: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/"}
    commit = ["-c", "user.name=a", "-c", "user.email=b", "commit", "-qm", "x"]
    for args in (["init", "-q"], ["add", "-A"], commit):
        subprocess.run(["git", *args], cwd=root, env=env, check=True)
    (root / "prod.env").write_text(f"TOKEN={CANARY}-changed\n")
    gate = _gate(root)
    for line in ("git diff", "git log -p", "git status --short", "git show HEAD"):
        decided = gate.decide("bash", {"command": line})
        a = decided.analysis
        assert decided.decision is Decision.ALLOW and a is not None and a.rendered, decided.verdict.reason
        done = subprocess.run(["bash", "-c", a.rendered], cwd=root, env=env, capture_output=True, text=True)
        assert done.returncode == 0 and CANARY not in done.stdout and "prod.env" not in done.stdout, line
