"""A session records where its tools acted (the executor's kind, ref and root), and `--resume` of
one recorded with an executor asks for it again: without it the resume is refused, naming the
executor, and nothing is recorded; with it the tools act there again; `--executor ''` continues it
on this machine, as asked; another executor (another root) is refused unless --here."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.agent.agent_fixtures import run_main
from tests.agent.scripted_server import ScriptedServer


def _execute(root: Path) -> str:
    return shlex.join([sys.executable, "-m", "bastion", "execute", str(root), "--kind", "container"])


def _env(tmp: Path) -> dict[str, str]:
    return {
        "BASTION_HOME": str(tmp / "h" / ".bastion"),
        "HOME": str(tmp / "h"),
        "XDG_CONFIG_HOME": str(tmp / "xdg"),
        "OPENAI_API_KEY": "sk-test-resume-0123456789",
        "BASTION_RETRY_CAP": "0.01",
    }


def _run(tmp: Path, here: Path, rounds: list[dict[str, Any]], *flags: str) -> tuple[int, str, str, list[Any]]:
    with ScriptedServer(rounds) as server:
        argv = ["-p", "go", "--output-format", "json", "--provider", "openai"]
        argv += ["--base-url", server.url + "/v1", *flags]
        code, out, err = run_main(argv, cwd=str(here), env=_env(tmp))
        return code, out, err, server.requests


def _events(tmp: Path) -> list[dict[str, Any]]:
    (path,) = (tmp / "h" / ".bastion" / "sessions").glob("*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path, str]:
    """Here (where bastion starts, its a.txt this machine's), there (the executor's root) and the
    id of a session that ran through the executor."""
    here, there = tmp_path / "here", tmp_path / "elsewhere" / "root"
    here.mkdir()
    there.mkdir(parents=True)
    (here / "a.txt").write_text("alpha from here\n")
    (there / "a.txt").write_text("alpha from there\n")
    code, _, err, _ = _run(tmp_path, here, [{"text": "hello"}], "--executor", _execute(there))
    assert code == 0, err
    events = _events(tmp_path)
    (recorded,) = [e for e in events if e["type"] == "workspace"]
    assert (recorded["kind"], recorded["root"]) == ("container", str(there))
    return here, there, str(events[0]["id"])


READ: list[dict[str, Any]] = [{"calls": [{"name": "read", "arguments": {"path": "a.txt"}}]}, {"text": "done"}]


def test_a_resume_without_the_executor_is_refused_naming_it(
    tmp_path: Path, places: tuple[Path, Path, str]
) -> None:
    here, there, session = places
    before = _events(tmp_path)
    code, _, err, requests = _run(tmp_path, here, READ, "--resume", session)
    assert code == 1 and not requests
    assert "through an executor (container" in err and f"root {there}" in err and "--executor" in err
    assert _events(tmp_path) == before  # refused before anything was recorded


def test_a_resume_with_the_executor_acts_there_again(tmp_path: Path, places: tuple[Path, Path, str]) -> None:
    here, there, session = places
    code, _, err, requests = _run(tmp_path, here, READ, "--resume", session, "--executor", _execute(there))
    assert code == 0, err
    assert "alpha from there" in json.dumps(requests[-1]["body"])
    assert [e["type"] for e in _events(tmp_path)].count("workspace") == 2


def test_a_resume_with_an_empty_executor_continues_on_this_machine(
    tmp_path: Path, places: tuple[Path, Path, str]
) -> None:
    here, _, session = places
    code, _, err, requests = _run(tmp_path, here, READ, "--resume", session, "--executor", "")
    assert code == 0, err
    assert "alpha from here" in json.dumps(requests[-1]["body"])


def test_a_resume_through_another_executor_needs_here(tmp_path: Path, places: tuple[Path, Path, str]) -> None:
    here, there, session = places
    other = tmp_path / "other"
    other.mkdir()
    (other / "a.txt").write_text("alpha from the other\n")
    code, _, err, requests = _run(tmp_path, here, READ, "--resume", session, "--executor", _execute(other))
    assert code == 1 and not requests
    assert "this executor serves container" in err and str(other) in err and "--here" in err
    code, _, err, requests = _run(
        tmp_path, here, READ, "--resume", session, "--executor", _execute(other), "--here"
    )
    assert code == 0, err
    assert "alpha from the other" in json.dumps(requests[-1]["body"])
