"""An awk program whose divisions bastion read as one regular expression ran what lay between them:
`awk '{ print x / 1; system("touch PWNED"); y = 1 / 2 }' a.txt` was allowed, and awk ran system().
Each hazard between two divisions (system, a redirect, getline from a file and from a command, a
pipe, ENVIRON, ARGV), in a main action, in BEGIN, across a pattern, after a pipe, decided by the
real Gate, by `bastion check` and by `bastion hook claude-code`: never allowed; the same program
without the hazard runs unasked, so each case fails when the grammar reads a `/` after an operand
as the start of a regular expression again."""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path

import pytest

from bastion.audit import hook_main
from bastion.cli import main
from bastion.policy import Decision, Gate, load_settings
from bastion.workspace import LocalWorkspace

HAZARDS = {
    "system": 'system("touch PWNED")',
    "print-redirect": 'print "x" > "out"',
    "getline-file": 'getline l < ".env"; print l',
    "command-getline": '"cat .env" | getline l; print l',
    "print-pipe": 'print | "sh"',
    "environ": 'print ENVIRON["HOME"]',
    "argv": 'ARGV[2] = ".env"',
}
PLACES = {
    "action": "awk '{{ print x / 1; {} ; y = 1 / 2 }}' a.txt",
    "begin": "awk 'BEGIN {{ print x / 1; {} ; y = 1 / 2 }}' a.txt",
    "pattern": "awk 'NR / 1 {{ {} }} NR / 2 {{ print }}' a.txt",
    "after-pipe": "cat a.txt | awk '{{ print x / 1; {} ; y = 1 / 2 }}'",
}
# The siblings that run unasked need awk on PATH (bastion asks for a program it cannot find).
NEEDS_AWK = pytest.mark.skipif(shutil.which("awk") is None, reason="awk (Debian's mawk) is not on PATH")
THE_LINE = "awk '{ print x / 1; system(\"touch PWNED\"); y = 1 / 2 }' a.txt"


@pytest.fixture
def ws(tmp_path: Path) -> LocalWorkspace:
    (tmp_path / "a.txt").write_text("4 2\n")
    (tmp_path / ".env").write_text("KEY=1\n")
    return LocalWorkspace(str(tmp_path))


def _decide(ws: LocalWorkspace, line: str) -> Decision:
    return Gate(load_settings(ws, os.devnull), ws).decide("bash", {"command": line}).decision


@NEEDS_AWK
@pytest.mark.parametrize("place", sorted(PLACES))
def test_the_hazard_free_program_of_each_place_runs_unasked(ws: LocalWorkspace, place: str) -> None:
    """The sibling that makes each case below able to fail: divisions alone are awk's and run."""
    line = PLACES[place].format("n++")
    assert _decide(ws, line) is Decision.ALLOW, line


@pytest.mark.parametrize("place", sorted(PLACES))
@pytest.mark.parametrize("hazard", sorted(HAZARDS))
def test_a_hazard_between_two_divisions_is_never_allowed_by_the_gate(
    ws: LocalWorkspace, hazard: str, place: str
) -> None:
    line = PLACES[place].format(HAZARDS[hazard])
    assert _decide(ws, line) is not Decision.ALLOW, line


def test_the_line_of_the_report_asks(ws: LocalWorkspace) -> None:
    assert _decide(ws, THE_LINE) is Decision.ASK


@NEEDS_AWK
@pytest.mark.parametrize("place", sorted(PLACES))
@pytest.mark.parametrize("hazard", sorted(HAZARDS))
def test_bastion_check_asks_for_a_hazard_between_two_divisions(
    ws: LocalWorkspace, hazard: str, place: str, capsys: pytest.CaptureFixture[str]
) -> None:
    line = PLACES[place].format(HAZARDS[hazard])
    code = main(["check", "--config", os.devnull, "--cwd", ws.root, "--json", "--", line])
    answer = json.loads(capsys.readouterr().out)
    assert (code, answer["decision"]) == (3, "ask"), answer
    sibling = PLACES[place].format("n++")
    assert main(["check", "--config", os.devnull, "--cwd", ws.root, "--json", "--", sibling]) == 0


def _hook(ws: LocalWorkspace, line: str) -> str:
    payload = {
        "session_id": "s",
        "cwd": ws.root,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": line},
    }
    out, err = io.StringIO(), io.StringIO()
    code = hook_main(
        ["claude-code", "--config", os.devnull], stdin=io.StringIO(json.dumps(payload)), out=out, err=err
    )
    assert code == 0 and err.getvalue() == ""
    return (
        str(json.loads(out.getvalue())["hookSpecificOutput"]["permissionDecision"])
        if out.getvalue()
        else "pass"
    )


@NEEDS_AWK
@pytest.mark.parametrize("place", sorted(PLACES))
@pytest.mark.parametrize("hazard", sorted(HAZARDS))
def test_the_claude_code_hook_asks_for_a_hazard_between_two_divisions(
    ws: LocalWorkspace, hazard: str, place: str
) -> None:
    assert _hook(ws, PLACES[place].format(HAZARDS[hazard])) == "ask"
    assert _hook(ws, PLACES[place].format("n++")) == "allow"


NEAR_MISSES = [
    "awk '{ gsub(/a/, \"b\"); print }' a.txt",
    "awk '{ sub(/^ */, \"\"); print }' a.txt",
    "awk '{ print $1 / 2 }' a.txt",
    "awk '{ s += $2 } END { print s / NR }' a.txt",
    "cat a.txt | awk '$1 / $2 > 1 { print NR \": \" $0 }'",
]


@NEEDS_AWK
@pytest.mark.parametrize("line", NEAR_MISSES)
def test_a_bare_call_of_a_safe_built_in_and_a_plain_division_run_unasked(
    ws: LocalWorkspace, line: str
) -> None:
    assert _decide(ws, line) is Decision.ALLOW
