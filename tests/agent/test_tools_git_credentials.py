"""The file tools run on a repository whose git directory holds credentials (issue 30, class 2):
remote URLs with `user:token@` in `.git/config`, `config.worktree`, a linked worktree's and a
submodule's config, and a remote of git's first format. Each call is decided by the gate as bastion
decides it and, when allowed, run by the tool itself: no output holds the token."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bastion.agent.tools import AGENT_TOOLS
from bastion.analyzer import Stamper
from bastion.policy import Decision, Gate, load_settings
from bastion.workspace import LocalWorkspace
from tests.analyzer.gitrepo import git, make_repo, workspace
from tests.contexts import tool_context

TOKEN = "ghp_hunter2token"
URL = f"https://user:{TOKEN}@example.invalid/r.git"
CONFIGS = (
    ".git/config",
    ".git/config.worktree",
    ".git/worktrees/wt/config.worktree",
    ".git/modules/m/config",
    "vendor/inner/.git/config",
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "repo", {"a.txt": "a\n", "vendor/inner/i.go": "package i\n"})
    make_repo(root / "vendor" / "inner", {"i.go": "package i\n"})
    for name in CONFIGS:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        git(root, "config", "--file", str(root / name), "remote.origin.url", URL)
    (root / ".git" / "remotes").mkdir()
    (root / ".git" / "remotes" / "old").write_text(f"URL: {URL}\n")
    return root


def _call(ws: LocalWorkspace, tool: str, args: dict[str, object]) -> tuple[Decision, str]:
    """The gate's decision, and the tool's output when it allows the call ("" otherwise)."""
    stamper = Stamper()
    decided = Gate(load_settings(ws, os.devnull), ws, stamper).decide(tool, args)
    if decided.decision is not Decision.ALLOW:
        return decided.decision, ""
    return decided.decision, AGENT_TOOLS[tool].run(decided.args, tool_context(ws, stamper, 1 << 16)).text


@pytest.mark.parametrize("path", [*CONFIGS, "./.git/config", ".git/remotes/old", ".git/./config"])
def test_read_of_a_config_file_of_a_git_directory_asks(repo: Path, path: str) -> None:
    assert TOKEN in (repo / os.path.normpath(path)).read_text(), "the fixture holds no token: proves nothing"
    decision, shown = _call(workspace(repo), "read", {"path": path})
    assert decision is Decision.ASK and shown == ""


@pytest.mark.parametrize(
    "args",
    [
        {"pattern": "url", "path": ".git"},
        {"pattern": "url", "path": ".git/"},
        {"pattern": "example", "path": ".git/worktrees"},
        {"pattern": "url", "path": ".git/modules"},
        {"pattern": "url", "path": "vendor/inner/.git"},
        {"pattern": "url", "path": "."},
        {"pattern": "url", "path": ".git", "include": "config*"},
    ],
)
def test_grep_below_a_git_directory_shows_no_credential(repo: Path, args: dict[str, object]) -> None:
    decision, shown = _call(workspace(repo), "grep", args)
    assert decision is Decision.ALLOW and TOKEN not in shown
    if args["path"] != ".":  # the tool says which it left out (the walk of . skips .git altogether)
        assert "not searched" in shown and "config" in shown, shown


@pytest.mark.parametrize(
    ("tool", "args"),
    [("glob", {"pattern": ".git/**"}), ("glob", {"pattern": "**/config*"}), ("ls", {"path": ".git"}),
     ("ls", {"path": ".git/worktrees/wt"}), ("ls", {"path": "vendor/inner/.git"})],
)  # fmt: skip
def test_the_listers_show_names_in_a_git_directory_never_contents(
    repo: Path, tool: str, args: dict[str, object]
) -> None:
    decision, shown = _call(workspace(repo), tool, args)
    assert decision is Decision.ALLOW and TOKEN not in shown
    assert "config" in shown, shown  # the names are listed: the call ran


def test_grep_reads_the_rest_of_the_git_directory(repo: Path) -> None:
    """A file of .git that holds no URL is read as any other: the asks name files, not the tree."""
    (repo / ".git" / "description").write_text("needle here\n")
    decision, shown = _call(workspace(repo), "grep", {"pattern": "needle", "path": ".git"})
    assert decision is Decision.ALLOW and "description" in shown and TOKEN not in shown
