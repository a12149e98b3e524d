"""Where git finds the repository, shown from what the probe read (design rule 85).

git started in a directory looks, from there up to `/`, first for a `.git` in each directory,
then takes the directory itself for a git directory (a bare repository); it skips a `.git`
directory that is not a git directory, stops at a file system's boundary, and `core.worktree` or
a true `core.bare` move the work tree or take it away. A git directory is one whose HEAD names a
ref or an object (`ref: refs/...`, 40 hex digits) and whose `objects` and `refs` it may enter, or
one with a `commondir` (git 2.39, `setup.c`: `is_git_directory`).

So the probe's walk (the first `.git` on the way, a directory) finds the repository git uses,
with its parent as the work tree, when every directory from the working directory up to it is on
one file system and no config entry git read is `core.worktree` or a true `core.bare` (the
command scope aside: the probe's own keys, and the submodule configs it lists): then
`git rev-parse` is not asked (`located`); elsewhere it is. Two things are reasons, never
questions for git: a directory below that `.git` (or anywhere on the way, when there is none)
that git could take for a bare repository, whose refs, objects and packed-refs no walk of a
`.git` has looked at (a `packed-refs` linked to `.env` prints its first line: `bare_on_the_way`,
judged from above: HEAD there at all, with a `commondir` or with `objects` and `refs` git may
enter); and a walked `.git` that is not a git directory, past which git would look further up
(`unusable`: its HEAD is read, and is a place of the probe, so a HEAD rewritten in place is a
change).
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from collections.abc import Callable, Iterable, Sequence

from ...workspace import System
from ._keys import GIT_FALSE, Entry

__all__ = ["bare_on_the_way", "located", "unusable"]

# An lstat of an absolute path as the probe makes it (inside the workspace: from its root).
Lstat = Callable[[str], os.stat_result]

_HEAD_LIMIT = 255  # what git reads of HEAD to validate it
_HEAD = re.compile(rb"ref:[ \t]*refs/|[0-9a-f]{40}")
# What git reads as false: `git init` writes core.bare = false.


def _exists(lstat: Lstat, path: str) -> bool:
    """Whether `path` is there; a failure other than its absence counts as there (fail closed)."""
    try:
        lstat(path)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return True


def _bare(lstat: Lstat, system: System, directory: str) -> bool:
    """Whether git may take `directory` for a git directory: never when it holds no HEAD."""
    if not _exists(lstat, posixpath.join(directory, "HEAD")):
        return False
    if _exists(lstat, posixpath.join(directory, "commondir")):
        return True
    return all(system.executable(posixpath.join(directory, d)) for d in ("objects", "refs"))


def bare_on_the_way(dirs: Sequence[str], gitdir: str, lstat: Lstat, system: System) -> str:
    """Why git may use a bare repository on the way from the working directory `dirs[0]` up to
    the directory holding `gitdir` (all of `dirs` when it is ""), in words ("" for none)."""
    top = posixpath.dirname(gitdir) if gitdir else None
    for directory in dirs:
        if directory == top:
            return ""
        if _bare(lstat, system, directory):
            return (
                f"{directory} is a git directory git would use as a bare repository: its refs,"
                " objects and packed-refs are not walked as a .git directory's are"
            )
    return ""


def unusable(gitdir: str, remember: Callable[[str, os.stat_result], None], system: System) -> str:
    """Why git would not take the walked `gitdir` (no link, no commondir) for a git directory and
    look further up, in words ("" when it would): its HEAD is remembered with the identity it was
    read with. Read where the workspace is (`system`): a HEAD that is not a regular file is no HEAD."""
    path = posixpath.join(gitdir, "HEAD")
    text = b""
    try:
        st: os.stat_result | None = system.lstat(path)
    except FileNotFoundError:
        st = None
    if st is not None:
        if stat.S_ISREG(st.st_mode):
            try:
                st, text = system.read(path, _HEAD_LIMIT, follow=False)
            except OSError:  # gone or replaced since the lstat: no HEAD git would take
                text = b""
        remember(path, st)
    if _HEAD.match(text) and all(system.executable(posixpath.join(gitdir, d)) for d in ("objects", "refs")):
        return ""
    return (
        f"{gitdir} is not a git directory git would use (a HEAD naming a ref or an object, objects"
        " and refs): git would look for another repository above it"
    )


def located(dirs: Sequence[str], gitdir: str, entries: Iterable[Entry], lstat: Lstat) -> bool:
    """Whether git started in `dirs[0]` is shown to use `gitdir` with its parent as the work tree
    (for "", to find no repository), `dirs` being the directories the walk looked at from there up,
    with no bare repository on the way (`bare_on_the_way`) and `gitdir` a git directory
    (`unusable`). False: git must be asked."""
    # The command scope is the probe's own: the neutral keys, and the submodules' configs it reads
    # through `include.path` (their core.worktree is theirs, not the top's).
    entries = tuple(e for e in entries if e.scope != "command")
    for e in entries:
        key = e.key.lower()
        if key == "core.worktree" or key == "core.bare" and (e.value or "true").lower() not in GIT_FALSE:
            return False
    if not gitdir:
        # No repository on the way: git reads no repository's config (else ask git why).
        return not any(e.scope in ("local", "worktree") for e in entries)
    top = posixpath.dirname(gitdir)
    devices = set()
    for directory in dirs:
        devices.add(lstat(directory).st_dev)
        if directory == top:
            return len(devices) == 1
    return False
