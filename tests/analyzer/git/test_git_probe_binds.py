"""What a git decision rests on beyond the repository: the git program the plan runs (the probe
asks that git, never one of its own PATH) and every config file git may read, present or absent
(a stamp made while `~/.gitconfig` was absent is refused once one is created)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from bastion.analyzer import Stamper, analyze, probe_git
from bastion.workspace import ExecRequest, ExecResult, LocalWorkspace
from tests.analyzer.gitrepo import GIT_ENV, make_repo, set_config

REAL_GIT = shutil.which("git", path=GIT_ENV["PATH"]) or "/usr/bin/git"


class Recording(LocalWorkspace):
    """A local workspace that records the argv of every process it starts."""

    def __init__(self, root: str, env: Mapping[str, str] | None = None) -> None:
        super().__init__(root, env)
        self.argvs: list[Sequence[str]] = []

    def exec(self, request: ExecRequest) -> ExecResult:
        self.argvs.append(tuple(request.argv))
        return super().exec(request)


def _bin(tmp_path: Path, script: bool) -> Path:
    """A directory outside the repository holding a `git`: a script that leaves a marker, or a link
    to the machine's git."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    if script:
        (bindir / "git").write_text(f'#!/bin/sh\ntouch {tmp_path}/ran\nexec {REAL_GIT} "$@"\n')
        (bindir / "git").chmod(0o755)
    else:
        (bindir / "git").symlink_to(REAL_GIT)
    return bindir


def _with_include(repo: Path) -> None:
    """A local include: the probe must ask git (the listing), so a git runs."""
    (repo.parent / "extra.cfg").write_text("[core]\n\tabbrev = 12\n")
    set_config(repo, "include.path", str(repo.parent / "extra.cfg"))


# --- the git the probe runs is the plan's -------------------------------------------------------


def test_a_dry_runs_probe_asks_when_the_callers_git_is_a_script_it_would_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hook's (or check's) plan runs the caller's `git` from the caller's PATH: the probe may not
    answer with the git of a default PATH instead, so a git the plan cannot run asks and runs not."""
    repo = make_repo(tmp_path / "repo")
    _with_include(repo)
    bindir = _bin(tmp_path, script=True)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    ws = Recording(str(repo))  # a dry-run's workspace: no environment of its own
    assert "cannot be probed" in probe_git(ws, ".", strict=False)
    assert not analyze("git status", ws).auto
    assert ws.argvs == [] and not (tmp_path / "ran").exists()


@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "bastion's own run"])
def test_the_probe_runs_the_git_the_plan_runs_by_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dry_run: bool
) -> None:
    repo = make_repo(tmp_path / "repo")
    _with_include(repo)
    bindir = _bin(tmp_path, script=False)
    path = f"{bindir}:{os.environ['PATH']}"
    if dry_run:
        monkeypatch.setenv("PATH", path)
        monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
        monkeypatch.setenv("HOME", "/nonexistent")
        ws = Recording(str(repo))
    else:
        ws = Recording(str(repo), {**GIT_ENV, "PATH": path})
    analysis = analyze("git status", ws)
    assert analysis.auto, analysis
    program = next(r.check.program for r in analysis.stages)
    assert program == f"{bindir}/git"
    assert ws.argvs and {argv[0] for argv in ws.argvs} == {program}


# --- absent config files are part of the fingerprint --------------------------------------------


def _user_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in GIT_ENV.items() if k != "GIT_CONFIG_GLOBAL"}
    (tmp_path / "home").mkdir()
    return {**env, "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}


CREATED = {
    "~/.gitconfig": "home/.gitconfig",
    "$XDG_CONFIG_HOME/git/config": "xdg/git/config",
    ".git/config.worktree": "repo/.git/config.worktree",
}


@pytest.mark.parametrize("file", list(CREATED))
def test_a_config_file_created_after_the_decision_refuses_the_stamp(tmp_path: Path, file: str) -> None:
    """Each file git may read (config.worktree once `extensions.worktreeConfig` is set, which asks
    today: bound all the same) is bound absent: creating it refuses the stamp."""
    repo = make_repo(tmp_path / "repo")
    ws, stamper = LocalWorkspace(str(repo), _user_env(tmp_path)), Stamper()
    stamp = stamper.plan_stamp(analyze("git status", ws), ws)
    assert stamp and stamper.verify_plan(stamp, analyze("git status", ws), ws)
    created = tmp_path / CREATED[file]
    created.parent.mkdir(parents=True, exist_ok=True)
    created.write_text("[core]\n\tabbrev = 12\n")
    assert not stamper.verify_plan(stamp, analyze("git status", ws), ws)


def test_an_absent_config_file_left_absent_keeps_the_stamp(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    ws, stamper = LocalWorkspace(str(repo), _user_env(tmp_path)), Stamper()
    stamp = stamper.plan_stamp(analyze("git status", ws), ws)
    (tmp_path / "home" / "notes.txt").write_text("not a config file\n")
    assert stamper.verify_plan(stamp, analyze("git status", ws), ws)
