"""The sandbox does not break what the analyzer allows: real auto-allowed lines (git included),
decided by the real gate and stamped, print under the read-only sandbox what they print without it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from bastion.agent.tools import AGENT_TOOLS
from bastion.analyzer import Stamper
from bastion.policy import Decision, Gate, load_settings
from bastion.sandbox import SandboxConfig
from bastion.workspace import LocalWorkspace
from tests.contexts import tool_context

from .conftest import needs_landlock

GIT_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}
LINES = [
    "ls -la",
    "cat notes.txt | sort | uniq -c",
    "head -n 1 notes.txt && wc -l notes.txt src/app.py",
    "grep -n def src/app.py",
    "cd src && ls",
    "git status",
    "git log --oneline",
    "git diff",
    "git show --stat HEAD",
    "git branch -a",
]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "src").mkdir(parents=True)
    (work / "notes.txt").write_text("b\na\nb\n")
    (work / "src" / "app.py").write_text("def main():\n    pass\n")
    env = {**os.environ, **GIT_ENV, "HOME": str(tmp_path)}
    for argv in (["git", "init", "-q"], ["git", "add", "."], ["git", "commit", "-qm", "first"]):
        subprocess.run(argv, cwd=work, env=env, check=True)
    (work / "notes.txt").write_text("b\na\nb\nc\n")  # a change for git status and git diff
    return work


@needs_landlock
@pytest.mark.parametrize("line", LINES)
def test_an_allowed_line_prints_the_same_under_the_sandbox(repo: Path, line: str) -> None:
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(repo.parent), "LANG": "C", **GIT_ENV}
    ws = LocalWorkspace(str(repo), env)
    stamper = Stamper()
    decided = Gate(load_settings(ws, os.devnull), ws, stamper).decide("bash", {"command": line})
    assert decided.decision is Decision.ALLOW and decided.analysis is not None and decided.analysis.auto
    outputs = []
    for sandbox in (SandboxConfig("off"), SandboxConfig("require")):
        out = AGENT_TOOLS["bash"].run(decided.args, tool_context(ws, stamper, sandbox=sandbox))
        outputs.append(out.text)
    assert outputs[0].endswith("[exit 0]")
    assert outputs[1] == outputs[0]
