"""A file of the workspace that other hard links share (perhaps outside it: the kernel's sandbox sees
only the name inside) is never written by a write or edit tool call that a rule allowed: the call
asks, saying so, whatever the rules; a person's yes runs it; and a link that appears between the
decision and the run refuses the call."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bastion.agent.tools import AGENT_TOOLS
from bastion.analyzer import CHANGED_PATHS, Stamper
from bastion.policy import Decision, Gate, PolicyFlags, load_settings
from bastion.workspace import LocalWorkspace
from tests.contexts import tool_context

from .agent_fixtures import run_main
from .scripted_server import ScriptedServer
from .test_scenarios import _env

ALLOW_WRITES = PolicyFlags(allow=("write(**)", "edit(**)"))
CALLS = {
    "write": {"path": "shared.txt", "content": "changed\n"},
    "edit": {"path": "shared.txt", "old_string": "kept", "new_string": "changed"},
}


def _linked(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace whose shared.txt is a hard link of a file outside it."""
    work, outside = tmp_path / "work", tmp_path / "outside"
    work.mkdir(exist_ok=True)
    outside.mkdir()
    (outside / "shared.txt").write_text("kept\n")
    os.link(outside / "shared.txt", work / "shared.txt")
    return work, outside / "shared.txt"


@pytest.mark.parametrize("tool", ["write", "edit"])
def test_a_write_to_a_hard_linked_file_asks_whatever_the_rules_say(tmp_path: Path, tool: str) -> None:
    work, _ = _linked(tmp_path)
    ws = LocalWorkspace(str(work))
    decided = Gate(load_settings(ws, os.devnull, flags=ALLOW_WRITES), ws, Stamper()).decide(tool, CALLS[tool])
    assert decided.decision is Decision.ASK
    assert (
        "shared.txt has 2 hard links" in decided.verdict.reason
        and "outside the workspace" in decided.verdict.reason
    )
    # One name only: the same rule allows a file no other name shares.
    (work / "own.txt").write_text("kept\n")
    own = {**CALLS[tool], "path": "own.txt"}
    assert (
        Gate(load_settings(ws, os.devnull, flags=ALLOW_WRITES), ws).decide(tool, own).decision
        is Decision.ALLOW
    )


def test_a_deny_rule_may_refuse_hard_linked_files_outright(tmp_path: Path) -> None:
    work, _ = _linked(tmp_path)
    ws = LocalWorkspace(str(work))
    flags = PolicyFlags(allow=("write(**)",), deny=("bastion:hard-linked",))
    assert (
        Gate(load_settings(ws, os.devnull, flags=flags), ws).decide("write", CALLS["write"]).decision
        is Decision.DENY
    )


@pytest.mark.parametrize(("answer", "runs"), [("n", False), ("y", True)])
def test_the_agent_asks_before_writing_a_hard_linked_file_a_rule_allows(
    tmp_path: Path, answer: str, runs: bool
) -> None:
    work, outside = _linked(tmp_path)
    rounds = [{"calls": [{"name": "write", "arguments": CALLS["write"]}]}, {"text": "done"}]
    with ScriptedServer(rounds) as server:
        argv = ["-p", "change it", "--allow", "write(**)", "--yes-to", "stdin", "--output-format", "json",
                "--provider", "openai", "--base-url", server.url + "/v1"]  # fmt: skip
        code, out, err = run_main(argv, cwd=str(work), env=_env(tmp_path), stdin=f"{answer}\n")
    assert code == 0, err
    assert "shared.txt has 2 hard links" in err
    denials = json.loads(out)["permission_denials"]
    assert (denials == []) is runs
    assert (work / "shared.txt").read_text() == ("changed\n" if runs else "kept\n")
    assert outside.read_text() == "kept\n"  # the tool replaced the name inside: the other was never written


def test_a_link_made_between_the_decision_and_the_run_refuses_the_write(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "shared.txt").write_text("kept\n")
    ws = LocalWorkspace(str(work))
    stamper = Stamper()
    decided = Gate(load_settings(ws, os.devnull, flags=ALLOW_WRITES), ws, stamper).decide(
        "write", CALLS["write"]
    )
    assert decided.decision is Decision.ALLOW
    os.link(work / "shared.txt", tmp_path / "elsewhere.txt")
    out = AGENT_TOOLS["write"].run(decided.args, tool_context(ws, stamper))
    assert out.is_error and out.text == CHANGED_PATHS
    assert (work / "shared.txt").read_text() == "kept\n"
