"""The files outside the root that the analyzer looks at, where the workspace is.

A plan is decided on more than the root's files: the program each command word runs (found on the
PATH where the plan runs, design rule 12), a repository above the root, git's own config files and
the walk of a git directory (analyzer/git). `System` is that look, by absolute path and read only,
so that an executor's workspace answers it from the machine its commands run on; `LocalSystem` is
this machine's.
"""

from __future__ import annotations

import os
import stat
from typing import Protocol, runtime_checkable

from .._files import open_regular
from ._gitdir import GitDirScan, scan_gitdir

__all__ = ["LOCAL_SYSTEM", "LocalSystem", "System", "read_fd", "real_path"]


def real_path(path: str) -> str:
    """os.path.realpath(path), a path of no link, `.` or `..` (most roots and PATH entries) settled
    by an lstat of each component in a loop of its own; any other taken by os.path.realpath."""
    if (
        not path.startswith("/")
        or "//" in path
        or "/./" in path
        or "/../" in path
        or path.endswith(("/.", "/.."))
    ):
        return os.path.realpath(path)
    along = ""
    for part in path.strip("/").split("/"):
        along = f"{along}/{part}"
        try:
            mode = os.lstat(along).st_mode
        except OSError:
            return os.path.realpath(path)
        if stat.S_ISLNK(mode):
            return os.path.realpath(path)
    return along or "/"


def read_fd(fd: int, limit: int) -> bytes:
    """At most `limit` bytes of the open file `fd`, read to its end or the limit."""
    chunks: list[bytes] = []
    left = limit
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


@runtime_checkable
class System(Protocol):
    """Absolute paths on the machine where the workspace is. Each call raises OSError as the
    system call would (FileNotFoundError for a missing name)."""

    def stat(self, path: str) -> os.stat_result:
        """The file a path names, its links followed."""
        ...

    def lstat(self, path: str) -> os.stat_result: ...

    def realpath(self, path: str) -> str:
        """The path with every link resolved (os.path.realpath)."""
        ...

    def executable(self, path: str) -> bool:
        """Whether this process may execute the file (os.access X_OK)."""
        ...

    def read(self, path: str, limit: int, *, follow: bool = True) -> tuple[os.stat_result, bytes]:
        """At most `limit` bytes of a regular file and what its open descriptor gives fstat; a FIFO
        or device is refused, never blocked on; `follow=False` refuses a link too."""
        ...

    def scan_gitdir(self, gitdir: str) -> GitDirScan:
        """The walk of a git directory (`_gitdir.scan_gitdir`)."""
        ...


class LocalSystem:
    """This machine's files."""

    def __repr__(self) -> str:
        return "LocalSystem()"

    def stat(self, path: str) -> os.stat_result:
        return os.stat(path)

    def lstat(self, path: str) -> os.stat_result:
        return os.lstat(path)

    def realpath(self, path: str) -> str:
        return real_path(path)

    def executable(self, path: str) -> bool:
        return os.access(path, os.X_OK)

    def read(self, path: str, limit: int, *, follow: bool = True) -> tuple[os.stat_result, bytes]:
        fd = open_regular(path, follow=follow)
        try:
            return os.fstat(fd), read_fd(fd, limit)
        finally:
            os.close(fd)

    def scan_gitdir(self, gitdir: str) -> GitDirScan:
        return scan_gitdir(gitdir)


LOCAL_SYSTEM = LocalSystem()  # what every LocalWorkspace looks at (it holds no state)
