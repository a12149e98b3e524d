"""Run from a working directory that was removed after it was entered (a `rm -rf` in another
terminal, a checkout switched under the shell), every command says so in one line and exits 2,
never a Python traceback; a hook, which is told where its call runs, answers "ask"; --version
still answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bastion.cli import main

from .waits import run_bounded

GONE = "no longer exists (removed after it was entered); cd to one that does"

COMMANDS = [
    ["check", "--", "ls"],
    ["check", "--explain", "--", "ls"],
    ["audit", "/dev/null"],
    ["sessions", "list"],
    ["--list"],
    ["--continue", "-p", "hi"],
    ["doctor"],
    ["runtime", "graph"],
    ["-p", "hi"],
    [],
    ["config", "init"],
    ["mcp"],
    ["acp"],
]


@pytest.fixture
def removed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This process standing in a directory removed after it entered it."""
    where = tmp_path / "work"
    where.mkdir()
    monkeypatch.chdir(where)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("BASTION_HOME", str(tmp_path / "home" / ".bastion"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    where.rmdir()
    return where


@pytest.mark.parametrize("argv", COMMANDS, ids=lambda argv: " ".join(argv) or "the REPL")
def test_every_command_from_a_removed_directory_says_so_in_one_line(
    removed: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    said = capsys.readouterr()
    assert said.out == "" and said.err == f"bastion: the working directory {removed} {GONE}\n"


def _from_removed(tmp_path: Path, argv: list[str], stdin: str = "") -> subprocess.CompletedProcess[str]:
    """`python -m bastion ARGV` in a directory its shell removes just before it starts bastion."""
    where = tmp_path / "work"
    where.mkdir(exist_ok=True)
    return run_bounded(
        ["sh", "-c", 'rmdir "$PWD" && exec "$@"', "sh", sys.executable, "-m", "bastion", *argv],
        f"bastion {' '.join(argv)} in a removed directory",
        cwd=where,
        env={**os.environ, "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")},
        input=stdin,
        capture_output=True,
        text=True,
    )


def test_a_check_started_in_a_removed_directory_says_so_without_a_traceback(tmp_path: Path) -> None:
    done = _from_removed(tmp_path, ["check", "--", "ls"])
    assert done.returncode == 2 and done.stdout == "", done.stderr
    assert done.stderr == f"bastion: the working directory {tmp_path / 'work'} {GONE}\n"


def test_a_hook_from_a_removed_directory_answers_ask_and_version_still_answers(tmp_path: Path) -> None:
    gone = str(tmp_path / "work")
    payload = {"session_id": "s", "transcript_path": "/t", "cwd": gone, "hook_event_name": "PreToolUse",
               "tool_name": "Bash", "tool_input": {"command": "ls"}}  # fmt: skip
    done = _from_removed(tmp_path, ["hook", "claude-code"], json.dumps(payload))
    answer = json.loads(done.stdout)["hookSpecificOutput"]
    assert done.returncode == 0 and answer["permissionDecision"] == "ask", done.stderr
    assert f"cwd {gone!r} is not a directory" in answer["permissionDecisionReason"]
    done = _from_removed(tmp_path, ["--version"])
    assert done.returncode == 0 and done.stdout.startswith("bastion ") and done.stderr == ""
