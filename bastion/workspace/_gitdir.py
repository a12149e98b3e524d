"""What git may read inside a repository's git directory: regular files and directories only.

git follows links inside `.git`: a `packed-refs`, `shallow`, `info/exclude`, `info/grafts`,
`objects/info/alternates` or loose ref that is a link to `.env` or to a file outside is read, and its
lines are printed in git's errors, by `git status` and `git rev-parse` alike; a FIFO blocks git and a
device feeds it. So every entry of the git directory must be a regular file or a directory, and a
file git may print a line of has no other name (a hard link shares another file's contents); a
`commondir`, or alternates naming other object directories, makes git use another repository's
files.

Two places are not walked entry by entry: `hooks` (git's read-only commands never read it, and the
neutral run sets `core.hooksPath=/dev/null`), and the loose-object directories `objects/xx`, of which
a repository has up to 256 with thousands of entries: git reads an entry there only by the object
name it looks for, and inflates and checks it as an object, so it cannot print a file's lines. Each
such directory must itself be a directory, not a link.

The walk opens the git directory one component at a time from `/` and each subdirectory from its
parent's descriptor, always with O_NOFOLLOW and O_DIRECTORY: it follows no link and opens nothing but
directories (and the alternates file, a regular file opened without blocking). Entry types come
from the directory listing; only files outside `objects`, `refs` and `logs` (whose files git parses
as object names and reflog entries, printing no line of them) are stat'ed, to count their names.
"""

from __future__ import annotations

import os
import re
import stat
from typing import NamedTuple

__all__ = ["MAX_ENTRIES", "GitDirScan", "open_dir", "scan_gitdir"]

MAX_ENTRIES = 20_000
_ALTERNATES_LIMIT = 64 * 1024
_FAN_OUT = re.compile(r"[0-9a-f]{2}")
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class GitDirScan(NamedTuple):
    """What the walk found: the first problem ("" for none), every directory it listed and every
    file whose contents it read (alternates), each absolute with its identity taken from the open
    descriptor before reading (the fingerprint), and the submodule configs (regular files named
    `config` under `modules`)."""

    problem: str
    read: tuple[tuple[str, os.stat_result], ...]
    configs: tuple[str, ...]


class _Found(Exception):
    """A problem: the walk stops at the first one."""


def open_dir(path: str) -> int:
    """A descriptor of the absolute directory `path`, no link followed on the way."""
    fd = os.open("/", _DIR_FLAGS)
    try:
        for part in (p for p in path.split("/") if p):
            nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO, which blocks git"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device, which git would read"


def _alternates(fd: int, path: str, read: list[tuple[str, os.stat_result]]) -> None:
    """Alternates that name any object directory make git read another repository's objects."""
    afd = os.open("alternates", os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=fd)
    try:
        st = os.fstat(afd)
        read.append((path, st))
        if not stat.S_ISREG(st.st_mode):
            raise _Found(f"{path} is not a regular file")
        text = os.read(afd, _ALTERNATES_LIMIT).decode("utf-8", "surrogateescape")
    finally:
        os.close(afd)
    named = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
    if named:
        raise _Found(
            f"{path} names {named[0]!r}: git would read objects from another directory, outside the checks"
        )


class _Walk:
    def __init__(self, gitdir: str) -> None:
        self.gitdir = gitdir.rstrip("/") or "/"
        self.read: list[tuple[str, os.stat_result]] = []
        self.configs: list[str] = []
        self.seen = 0

    def run(self) -> str:
        fd = open_dir(self.gitdir)
        try:
            self._directory(fd, "", top=True)
        except _Found as found:
            return str(found)
        finally:
            os.close(fd)
        return ""

    def _directory(
        self, fd: int, rel: str, *, top: bool = False, objects: str = "", parsed: bool = False
    ) -> None:
        """List one directory; `objects` is "objects" for a git directory's object store, "below"
        anywhere under it; `parsed` for refs and logs, whose files git reads as object names and
        reflog entries, never printing a line of them. A git directory is the top one or a
        submodule's (one holding HEAD)."""
        path = f"{self.gitdir}/{rel}" if rel else self.gitdir
        self.read.append((path, os.fstat(fd)))
        with os.scandir(fd) as listing:
            entries = list(listing)  # in the directory's own order, the same while it is unchanged
        self.seen += len(entries)
        if self.seen > MAX_ENTRIES:
            raise _Found(f"{self.gitdir} holds more than {MAX_ENTRIES} entries to check")
        a_git_dir = top or (rel.startswith("modules/") and any(e.name == "HEAD" for e in entries))
        for entry in entries:
            name = f"{rel}/{entry.name}" if rel else entry.name
            shown = f"{self.gitdir}/{name}"
            if a_git_dir and entry.name == "hooks":
                continue
            if entry.is_symlink():
                raise _Found(
                    f"{shown} is a symbolic link: git follows it and prints the lines of what it names"
                    " in its errors"
                )
            if entry.is_dir(follow_symlinks=False):
                if objects == "objects" and _FAN_OUT.fullmatch(entry.name):
                    continue  # loose objects: read only by name and checked as objects
                below = "below" if objects else ("objects" if a_git_dir and entry.name == "objects" else "")
                refs = parsed or (a_git_dir and entry.name in ("refs", "logs"))
                sub = os.open(entry.name, _DIR_FLAGS, dir_fd=fd)
                try:
                    self._directory(sub, name, objects=below, parsed=refs)
                finally:
                    os.close(sub)
                continue
            if (objects or parsed) and entry.is_file(follow_symlinks=False):
                if rel == "objects/info" and entry.name == "alternates":
                    _alternates(fd, shown, self.read)
                continue  # a regular file: its other names (local clones link packs) show nothing
            st = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(st.st_mode):
                raise _Found(f"{shown} is {_kind(st.st_mode)}: git reads only regular files there")
            if st.st_nlink > 1:
                raise _Found(
                    f"{shown} has {st.st_nlink} names (hard links): its contents are another file's,"
                    " which git prints in its errors"
                )
            if not rel and entry.name == "commondir":
                raise _Found(f"{shown} makes git use another directory's refs, objects and config")
            if entry.name == "config" and (rel == "modules" or rel.startswith("modules/")):
                self.configs.append(shown)


def scan_gitdir(gitdir: str) -> GitDirScan:
    """Walk the absolute git directory `gitdir`; an OSError (unreadable, changed under the walk)
    is raised for the caller to turn into a reason."""
    walk = _Walk(gitdir)
    problem = walk.run()
    return GitDirScan(problem, tuple(walk.read), tuple(walk.configs))
