"""Generator words for issue 30's classes 1-3 (fuzz/hostile30.py has the fixtures): the names that
reach the committed secret's blob in those fixtures, in every spelling of a revision, the git forms
that take them, the readers of the git directory's config files, and the index-refreshing forms,
so that the properties of docs/soundness.md draw them beside the grammar's own lines."""

from __future__ import annotations

__all__ = ["ARGS30", "GIT_FORMS30", "READS30", "TOOL_READS30", "with_pool30"]

# Names of the blob in the class-31 fixtures, alone and as parts of ranges and peels.
_NAMES = (
    "leak", "leaktag", "annotated", "packed", "ORIG_HEAD", "FETCH_HEAD", "stash", "'stash@{0}'",
    "'HEAD@{1}'", "'leak@{0}'", "'@{-1}'", "leak~0", "'leak^{tree}'", "'leak^{commit}'", "'leak^{tag}'",
    "'stash@{0}^{tree}'", "refs/notes/leak", "notes/leak", "refs/heads/leak", "HEAD..leak", "leak...HEAD",
    "^leak", "leak^@", "HEAD~0",
)  # fmt: skip
ARGS30: tuple[str, ...] = (
    *_NAMES, "--all", "--branches", "--tags", "--no-walk", "--format=%N", "-m", "--eol", "-m", "--modified",
    "remote.origin.url", "remote.wt.url", "--get-all", ".git/config", ".git/config.worktree", ".git/",
    ".git/.", ".git/remotes/old", ".git/worktrees/wt/config.worktree", ".git/modules/m/config",
)  # fmt: skip
GIT_FORMS30: tuple[str, ...] = (
    *(f"git {form} {name}" for form in ("show", "log -p", "cat-file -p", "grep -e KEY", "ls-tree -r")
      for name in _NAMES),
    "git diff leak HEAD", "git diff HEAD leak --stat", "git show --all", "git show --tags",
    "git log --all -p",
    "git log -1", "git log -1 --format=%N", "git show -s --format=%N", "git log --all --oneline", "git show",
    "git log -p", "git cat-file -p HEAD", "git remote -v", "git remote", "git config --get remote.origin.url",
    "git config --get-all remote.wt.url", "git -C sub remote -v", "git -C sub config --get remote.origin.url",
    "git status", "git status -s", "git -C sub status", "git status --porcelain -uall", "git status .",
    "git ls-files -m", "git ls-files --eol", "git ls-files -dm", "git diff --stat", "git ls-files",
)  # fmt: skip
# Readers of the git directory's files that may hold a credential.
READS30: tuple[str, ...] = (
    "cat .git/config", "sed -n 1,9p .git/config", "nl .git/config", "strings .git/config",
    "grep url .git/config", "grep -r CANARY .git/", "grep -rn url .git", "grep -r url .git/.",
    "head .git/config.worktree", "cat .git/worktrees/wt/config.worktree", "cat .git/modules/m/config",
    "tail .git/remotes/old", "wc -c .git/config", "grep -r url ./.git/",
)  # fmt: skip
# File tool calls on the same files (tool, arguments).
TOOL_READS30: tuple[tuple[str, dict[str, object]], ...] = (
    ("read", {"path": ".git/config"}),
    ("read", {"path": "./.git/config.worktree"}),
    ("read", {"path": ".git/modules/m/config"}),
    ("read", {"path": ".git/remotes/old"}),
    ("grep", {"pattern": "CANARY", "path": ".git"}),
    ("grep", {"pattern": "url", "path": ".git/"}),
    ("grep", {"pattern": "url", "path": ".git/worktrees"}),
    ("glob", {"pattern": ".git/**"}),
    ("ls", {"path": ".git"}),
)

Pools = tuple[tuple[str, ...], tuple[str, ...]]


def with_pool30(forms: tuple[str, ...], args: tuple[str, ...]) -> Pools:
    """The generators' (git forms, argument pool) with these words added."""
    return (*forms, *GIT_FORMS30), tuple(dict.fromkeys((*args, *ARGS30)))
