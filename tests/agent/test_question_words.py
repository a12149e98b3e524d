"""A question a person reads in two seconds: what the call does in plain words first, the policy's
detail after, none of the policy's own vocabulary, wrapped at word boundaries to the terminal."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bastion.agent.front import Asker, Colour, detail, headline
from bastion.agent.runtime import ToolCall
from bastion.analyzer import Stamper
from bastion.policy import Gate, load_settings
from bastion.workspace import LocalWorkspace


def _question(tmp_path: Path, tool: str, args: dict[str, object], width: int = 200) -> list[str]:
    ws = LocalWorkspace(str(tmp_path))
    shown: list[str] = []
    asker = Asker(lambda prompt: None, shown.append, str(tmp_path), Colour(False))
    asker.width = lambda: width
    gate = asker.watch(Gate(load_settings(ws, None), ws, Stamper()))
    asker(ToolCall("c1", tool, json.dumps(args)), args, gate.decide(tool, args).verdict)
    return "".join(shown).splitlines()


@pytest.mark.parametrize(
    ("tool", "args", "first"),
    [
        ("bash", {"command": "rm -f README.md"}, "? bash: `rm -f README.md` deletes a file"),
        ("bash", {"command": "rm -rf build"}, "? bash: `rm -rf build` deletes directories and"),
        ("bash", {"command": "git status; rm x"}, "? bash: `rm x` (part 2 of the line) deletes a file"),
        ("bash", {"command": "echo $(id)"}, "? bash: `echo $(id)` runs another command inside the line"),
        ("bash", {"command": "echo hi > out.txt"}, "? bash: `echo hi > out.txt` writes its output to a file"),
        ("bash", {"command": "git push origin main"}, "? bash: `git push origin main` sends commits"),
        ("bash", {"command": "pip install requests"}, "? bash: `pip install requests` installs packages"),
        ("bash", {"command": "cat .env"}, "? bash: `cat .env` reads .env (a secret-looking name)"),
        ("bash", {"command": "grep -R TODO ."}, "? bash: `grep -R TODO .`: grep -R reads every file below"),
        ("bash", {"command": "frobnicate now"}, "? bash: `frobnicate now` runs frobnicate, which"),
        ("read", {"path": ".env"}, "? read: reads .env, a secret-looking name"),
        ("write", {"path": "a.txt", "content": "x"}, "? write: writes a.txt"),
        ("edit", {"path": "a.txt", "old_string": "x", "new_string": "y"}, "? edit: changes a.txt"),
    ],
)  # fmt: skip
def test_the_question_says_what_the_call_does_first(
    tmp_path: Path, tool: str, args: dict[str, object], first: str
) -> None:
    lines = _question(tmp_path, tool, args)
    assert lines[0].startswith(first), lines
    assert lines[1].startswith("  ") and ("rule" in lines[1])  # the policy's detail, after


@pytest.mark.parametrize(
    "line",
    ["echo $(id)", "ls ~/.ssh", "cat /etc/passwd", "grep -R TODO .", "echo 'a", "x=1 ls", "ls | rm -f a"],
)
def test_no_word_of_the_policys_vocabulary_reaches_a_question(tmp_path: Path, line: str) -> None:
    question = "\n".join(_question(tmp_path, "bash", {"command": line}))
    assert not re.search(r"subset|vouch|sentinel|subject|fallback", question), question


def test_a_long_reason_is_wrapped_at_word_boundaries_to_the_width(tmp_path: Path) -> None:
    line = "curl https://example.com/" + "a" * 30 + " -o out.bin && rm -f one.txt two.txt three.txt"
    lines = _question(tmp_path, "bash", {"command": line}, width=30)
    said = lines[: next(i for i, s in enumerate(lines) if s.startswith("  $ "))]
    # Each line fits, unless it is one word longer than a line (which is never broken).
    assert len(said) >= 4 and all(len(s) <= 30 or " " not in s.strip() for s in said), said
    ws = LocalWorkspace(str(tmp_path))
    decided = Gate(load_settings(ws, None), ws, Stamper()).decide("bash", {"command": line})
    whole = f"? bash: {headline('bash', {'command': line}, decided.verdict, decided.analysis)}"
    # Joined again at the breaks, the lines are the text: every break was between two words.
    assert " ".join(s.strip() for s in said) == f"{whole} {detail(decided.verdict)}"
