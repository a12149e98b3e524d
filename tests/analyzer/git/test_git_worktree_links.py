"""A tracked directory swapped for a symbolic link: `git ls-files --eol` (and a `--format`, whose
`%(eolinfo:worktree)` opens the file) reads every tracked file it lists by its path, following
the link out of the workspace, so the line asks; git status and git diff take such an entry for
deleted (they check for a link on the way), and the plain listing opens nothing, so they run."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from bastion.analyzer import Stamper, analyze
from bastion.workspace import LocalWorkspace
from tests.analyzer.gitrepo import GIT_ENV, make_repo, workspace

CANARY = "CANARY-outside-through-a-tracked-link"
FILES = {"docs/guide.txt": "inside\n", "a/b/c.txt": "deep\n", "main.go": "package main\n"}
OPENING = [
    "git ls-files --eol",
    "git ls-files --eol -- main.go",
    "git ls-files --format='%(eolinfo:worktree) %(path)'",
    "git -C a ls-files --eol",
    "git ls-files --eol | sort -u",
]
HARMLESS = ["git ls-files", "git status", "git status -s", "git diff --stat", "git ls-files -s"]


def _swap(repo: Path, directory: str) -> None:
    """Replace the tracked `directory` by a link to a directory outside holding its files, the
    one the test reads holding the canary."""
    outside = repo.parent / "outside" / directory
    shutil.copytree(repo / directory, outside)
    for path in outside.rglob("*.txt"):
        path.write_text(f"{CANARY}\n")
    shutil.rmtree(repo / directory)
    os.symlink(os.path.relpath(outside, (repo / directory).parent), repo / directory)


@pytest.mark.parametrize("swapped", ["docs", "a/b", "a"])
@pytest.mark.parametrize("line", OPENING)
def test_a_form_that_opens_tracked_files_asks_when_a_tracked_directory_is_a_link(
    tmp_path: Path, swapped: str, line: str
) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    _swap(repo, swapped)
    analysis = analyze(line, workspace(repo))
    assert not analysis.auto
    if not (swapped == "a" and "-C a" in line):  # else git -C's own check: it leads out
        assert any("symbolic link" in r.check.why for r in analysis.stages), analysis


@pytest.mark.parametrize("line", HARMLESS)
def test_forms_that_open_nothing_through_it_still_run_beside_a_linked_directory(
    tmp_path: Path, line: str
) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    _swap(repo, "docs")
    assert analyze(line, workspace(repo)).auto, line


@pytest.mark.parametrize("line", OPENING)
def test_the_forms_still_run_where_tracked_directories_are_directories_or_gone(
    tmp_path: Path, line: str
) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    shutil.rmtree(repo / "docs")  # deleted: git opens nothing there
    (repo / "a" / "b" / "c.txt").unlink()
    (repo / "a" / "b").rmdir()
    (repo / "a" / "b").write_text("a file where a directory was\n")
    assert analyze(line, workspace(repo)).auto, line


def test_a_directory_swapped_for_a_link_after_the_decision_refuses_the_stamp(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    ws, stamper = workspace(repo), Stamper()
    decided = analyze("git ls-files --eol", ws)  # the facts are read again as decided, before the run
    stamp = stamper.plan_stamp(decided, ws)
    assert stamp and stamper.verify_plan(stamp, decided, ws)
    _swap(repo, "a/b")
    assert not stamper.verify_plan(stamp, decided, ws)


def test_a_deleted_directory_made_a_link_after_the_decision_refuses_the_stamp(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", FILES)
    kept = tmp_path / "kept"
    shutil.move(repo / "docs", kept)
    ws, stamper = workspace(repo), Stamper()
    decided = analyze("git ls-files --eol", ws)
    stamp = stamper.plan_stamp(decided, ws)
    assert stamp and stamper.verify_plan(stamp, decided, ws)
    os.symlink(kept, repo / "docs")
    assert not stamper.verify_plan(stamp, decided, ws)


def test_git_ls_files_eol_does_follow_the_link_ungated(tmp_path: Path) -> None:
    """The hazard is git's own: under strace, the line as typed opens the file outside."""
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed (Debian package strace)")
    repo = make_repo(tmp_path / "repo", FILES)
    _swap(repo, "docs")
    log = tmp_path / "opens.log"
    subprocess.run(
        [strace, "-f", "-qq", "-e", "trace=openat", "-o", str(log), "git", "ls-files", "--eol"],
        cwd=repo, env=GIT_ENV, capture_output=True, check=True,
    )  # fmt: skip
    opened = log.read_text()
    assert '"docs/guide.txt"' in opened and "= -1" not in opened.split('"docs/guide.txt"')[1].split("\n")[0]


def test_a_link_inside_the_workspace_asks_too(tmp_path: Path) -> None:
    """A tracked directory linked to another directory of the workspace (a secret one, which no
    exclude of the plan names by that path) asks as one leading out does."""
    repo = make_repo(tmp_path / "repo", FILES)
    (repo / ".ssh").mkdir()
    (repo / ".ssh" / "guide.txt").write_text("key\n")
    shutil.rmtree(repo / "docs")
    os.symlink(".ssh", repo / "docs")
    assert not analyze("git ls-files --eol", LocalWorkspace(str(repo), GIT_ENV)).auto
