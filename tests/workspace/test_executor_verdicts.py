"""The policy decides the same through an executor as on this machine: the same lines, in a
workspace in another directory tree with hostile fixtures (links out, a hostile .git, credentials
in git's config, a PATH entry inside the workspace that shadows cat), and a spread sample of the
shared conformance corpus, get the same decision, reason and plan from both implementations. A
plan stamped through the executor runs there only while its facts hold."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bastion.policy import Gate, load_settings
from bastion.workspace import LocalWorkspace, Workspace

from .conftest import TRANSPORT_ENV, connect, local

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "conformance"
SAMPLE = 40  # conformance cases, spread over the corpus (each starts an executor)

LINES = [
    "cat a.txt",
    "cat out/passwd",
    "cat .env",
    "ls",
    "ls -la d",
    "git status",
    "git log --oneline | head -3",
    "git diff",
    "cat link",
    "head -n 2 a.txt && wc -l a.txt",
    "grep -r alpha .",
    "find . -name '*.txt'",
    "cd d && cat ../a.txt",
    "echo hi > notes",
    "echo hi > link",
    "rm a.txt",
    "git remote -v",
    "cat a.txt | sort",
]


def _decisions(ws: Workspace, lines: list[str]) -> list[tuple[str, str, str | None]]:
    gate = Gate(load_settings(ws, os.devnull), ws)
    out = []
    for line in lines:
        d = gate.decide("bash", {"command": line})
        plan = d.analysis.rendered if d.analysis is not None else None
        out.append((d.decision.name, d.verdict.reason, plan))
    return out


def _git(root: Path, *args: str) -> None:
    env = {"PATH": os.defpath, "HOME": str(root), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=env)


@pytest.mark.parametrize("hostile", ["plain", "credentials", "textconv", "shadowing-path"])
def test_the_same_lines_get_the_same_verdicts_through_an_executor(tmp_path: Path, hostile: str) -> None:
    root = tmp_path / "elsewhere" / "tree" / "root"
    (root / "d").mkdir(parents=True)
    (root / "a.txt").write_text("alpha\n")
    (root / "d" / "b.txt").write_text("beta\n")
    (root / ".env").write_text("SECRET=1\n")
    (root / "link").symlink_to(".env")
    (root / "out").symlink_to("/etc")
    _git(root, "init", "-q")
    if hostile == "credentials":
        _git(root, "remote", "add", "origin", "https://user:hunter2@example.invalid/x.git")
    if hostile == "textconv":
        _git(root, "config", "diff.x.textconv", "sh -c 'cat ~/.ssh/id_rsa'")
        (root / ".gitattributes").write_text("*.txt diff=x\n")
    env = dict(TRANSPORT_ENV)
    if hostile == "shadowing-path":
        (root / "bin").mkdir()
        (root / "bin" / "cat").write_text("#!/bin/sh\necho owned\n")
        (root / "bin" / "cat").chmod(0o755)
        env["PATH"] = f"{root}/bin:{env['PATH']}"
    remote = connect(root, env)
    try:
        here = LocalWorkspace(str(root), env=remote.env())
        assert _decisions(remote, LINES) == _decisions(here, LINES)
    finally:
        remote.close()


def _sample() -> list[dict[str, object]]:
    path = CORPUS / "real_cases.jsonl"
    if not path.exists():
        return []
    cases = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    cases = [c for c in cases if "cmd" in c and not c.get("policy") and not c.get("project_policy")]
    step = max(1, len(cases) // SAMPLE)
    return cases[::step][:SAMPLE]


@pytest.mark.skipif(
    not (CORPUS / "fixture.py").exists(), reason="no shared conformance corpus beside the checkout"
)
def test_a_sample_of_the_conformance_corpus_decides_the_same_through_an_executor(tmp_path: Path) -> None:
    sys.path.insert(0, str(CORPUS))
    try:
        from fixture import build  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(CORPUS))
    compared = 0
    for case in _sample():
        fixture = build(case["fixture"], base_dir=str(tmp_path))
        root = str(fixture.cwd)
        line = str(case["cmd"]).replace("@ROOT@", root)
        remote = connect(root)
        try:
            assert _decisions(remote, [line]) == _decisions(local(root), [line]), case["id"]
        finally:
            remote.close()
        compared += 1
    assert compared >= SAMPLE // 2
