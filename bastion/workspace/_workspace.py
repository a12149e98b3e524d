"""Where the tools act: a root directory, reached only through names relative to it.

`Workspace` is the seam (a container or remote workspace implements the same protocol);
`LocalWorkspace` is this machine's directory. Every file operation walks the name one component at
a time from an open descriptor of the root with O_NOFOLLOW, so no name, link or `..` leaves the root
whatever changes underneath; links that stay inside are followed by resolving them first
(this package's `resolve`), never by the kernel.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import weakref
from collections.abc import Callable, Iterator, Mapping
from typing import Protocol, runtime_checkable

from .._errors import BastionError
from .._files import NotRegularFile, open_regular
from ._request import MAX_OUTPUT, ExecRequest, ExecResult, Recheck
from ._system import LOCAL_SYSTEM, System, read_fd, real_path

__all__ = [
    "MAX_OUTPUT",
    "ExecRequest",
    "ExecResult",
    "FactsChanged",
    "LocalWorkspace",
    "Recheck",
    "Rechecker",
    "Workspace",
    "WorkspaceError",
]


class WorkspaceError(OSError, BastionError):
    """A name the workspace refuses: outside the root, a link on the way, a FIFO or device.
    `may_have_run`: the error came after a command was handed to be run (an executor lost while
    it ran), so the command may have run, in part or in full; else nothing ran."""

    may_have_run = False


class FactsChanged(WorkspaceError):
    """The facts a command was decided on, read again where it runs, are not the same: nothing ran."""


# Reads a recipe's facts again in a workspace and gives their digest (analyzer/_facts.py's
# recheck_digest); raises when they cannot be read.
Rechecker = Callable[[object, "Workspace"], str]


@runtime_checkable
class Workspace(Protocol):
    """Files and processes under one root. Names are relative to the root, `/`-separated, with
    no `..` and no link on the way (resolve them first); "." is the root itself. A name that breaks
    this raises WorkspaceError; a missing one FileNotFoundError."""

    @property
    def root(self) -> str:
        """The root as given (absolute)."""
        ...

    @property
    def real_root(self) -> str:
        """The root with its links resolved."""
        ...

    @property
    def system(self) -> System:
        """The files outside the root the analyzer looks at, on the machine where the root is."""
        ...

    def lstat(self, name: str) -> os.stat_result: ...

    def readlink(self, name: str) -> str: ...

    def readdir(self, name: str) -> list[str]:
        """The entries of a directory, sorted."""
        ...

    def read(self, name: str, limit: int) -> bytes:
        """At most `limit` bytes of a regular file; a FIFO or device is refused, never blocked on."""
        ...

    def write(self, name: str, data: bytes) -> None:
        """Create or replace a regular file atomically (parents made); a FIFO, device or link is
        refused."""
        ...

    def remove(self, name: str) -> None: ...

    def env(self) -> dict[str, str]:
        """A copy of the environment processes start with (credentials already removed)."""
        ...

    def exec(self, request: ExecRequest) -> ExecResult:
        """Run the request's argv (never through a shell) in its cwd under the root, in its own
        process group, its combined output passed to on_output as it arrives; the group is ended at
        the timeout, when `cancel` is set (within a tenth of a second), and when the command has
        exited. Under `sandbox`, the kernel confines it (writes only where the confinement grants, the root
        being the workspace's); a confinement that cannot be applied raises OSError and nothing
        runs. Under `sandbox` or told to `contain` it, every process it started is ended when it
        ends, also one that left its process group, and when this process dies (a call's
        processes never outlive it). With `facts`, a workspace that runs the command in another
        process than the one that decided it reads them again there, right before the start, and
        raises FactsChanged (nothing runs) when they differ or cannot be read."""
        ...


def _components(name: str) -> list[str]:
    if name.startswith("/") or "\x00" in name:
        raise WorkspaceError(errno.EPERM, f"{name!r} is not a name inside the workspace")
    parts = name.split("/")
    if "" in parts or "." in parts:
        parts = [p for p in parts if p not in ("", ".")]
    if ".." in parts:
        raise WorkspaceError(errno.EPERM, f"{name!r} climbs out with ..")
    return parts


class LocalWorkspace:
    """This machine's directory `root`, confined by descriptor walks (the os.Root idea): the root is
    opened once, when first used, and every name is reached from that descriptor, so the file tools,
    the analyzer and the commands run all work in the directory the workspace first opened. The
    descriptor is closed by `close` or when the workspace is dropped; a closed workspace is never
    opened again (it might be another directory by then): using it raises WorkspaceError."""

    def __init__(
        self, root: str, env: Mapping[str, str] | None = None, *, recheck: Rechecker | None = None
    ) -> None:
        self._root = os.path.abspath(root)
        self._real_root = real_path(self._root)
        self._env = dict(env if env is not None else {})
        # The facts of a stamped call are read again before it runs when this workspace serves an
        # executor (the stamp was verified in the session's process); in that process the
        # verification just made through this same root is that check.
        self._recheck = recheck
        self._system = LOCAL_SYSTEM  # one for every workspace: what is remembered of it is shared
        self._fd: int | None = None
        self._closer: weakref.finalize[[int], LocalWorkspace] | None = None
        self._closed = False

    def _root_fd(self) -> int:
        fd = self._fd
        if fd is None:
            if self._closed:
                raise WorkspaceError(errno.EBADF, f"the workspace {self._root!r} was closed")
            fd = os.open(self._real_root, os.O_PATH | os.O_DIRECTORY)
            self._closer = weakref.finalize(self, os.close, fd)
            self._fd = fd
        return fd

    def close(self) -> None:
        """Close the root's descriptor now (if it was opened); the workspace cannot be used again."""
        self._closed = True
        self._fd = None
        if self._closer is not None:
            self._closer()

    def __repr__(self) -> str:
        return f"LocalWorkspace({self._root!r})"

    @property
    def root(self) -> str:
        return self._root

    @property
    def real_root(self) -> str:
        return self._real_root

    @property
    def system(self) -> System:
        return self._system

    def _walk(self, name: str, parts: list[str]) -> int:
        """An O_PATH descriptor of the directory `parts` (no link followed on the way), which the
        caller closes."""
        root = self._root_fd()
        if not parts:
            return os.dup(root)
        fd = root
        try:
            for part in parts:
                try:
                    nxt = os.open(part, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                except OSError as err:
                    if err.errno in (errno.ENOTDIR, errno.ELOOP):
                        why = f"{name!r}: {part!r} is not a directory here"
                        raise WorkspaceError(err.errno, why) from err
                    raise
                if fd != root:
                    os.close(fd)
                fd = nxt
        except BaseException:
            if fd != root:
                os.close(fd)
            raise
        return fd

    @contextlib.contextmanager
    def _parent(self, name: str) -> Iterator[tuple[int, str]]:
        """An O_PATH descriptor of the name's directory and the last component ("." for the root)."""
        parts = _components(name)
        fd = self._walk(name, parts[:-1])
        try:
            yield fd, parts[-1] if parts else "."
        finally:
            os.close(fd)

    def lstat(self, name: str) -> os.stat_result:
        parts = _components(name)
        if len(parts) <= 1:  # in the root: no descriptor to open
            return os.lstat(parts[0] if parts else ".", dir_fd=self._root_fd())
        fd = self._walk(name, parts[:-1])
        try:
            return os.lstat(parts[-1], dir_fd=fd)
        finally:
            os.close(fd)

    def readlink(self, name: str) -> str:
        with self._parent(name) as (fd, last):
            return os.readlink(last, dir_fd=fd)

    def readdir(self, name: str) -> list[str]:
        with self._parent(name) as (fd, last):
            dfd = os.open(last, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
            try:
                return sorted(os.listdir(dfd))
            finally:
                os.close(dfd)

    def read(self, name: str, limit: int) -> bytes:
        with self._parent(name) as (fd, last):
            # bastion's one open of a file it did not make: a FIFO or device is refused, never
            # blocked on (the name looked at before the open and the file after it).
            try:
                ffd = open_regular(last, follow=False, dir_fd=fd)
            except NotRegularFile as err:
                why = f"{name!r} is {err.strerror}"
                raise WorkspaceError(errno.EINVAL, why) from None
            try:
                return read_fd(ffd, limit)
            finally:
                os.close(ffd)

    def write(self, name: str, data: bytes) -> None:
        parts = _components(name)
        if not parts:
            raise WorkspaceError(errno.EISDIR, "the workspace root is not a file")
        for i in range(1, len(parts)):
            with self._parent("/".join(parts[:i])) as (fd, last), contextlib.suppress(FileExistsError):
                os.mkdir(last, 0o777, dir_fd=fd)
        with self._parent(name) as (fd, last):
            mode = 0o644
            with contextlib.suppress(FileNotFoundError):
                st = os.lstat(last, dir_fd=fd)
                if not stat.S_ISREG(st.st_mode):
                    raise WorkspaceError(errno.EINVAL, f"{name!r} is not a regular file")
                mode = stat.S_IMODE(st.st_mode)
            tmp = f".bastion-{os.urandom(8).hex()}.tmp"
            ffd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=fd)
            try:
                try:
                    os.fchmod(ffd, mode)
                    view = memoryview(data)
                    while view:
                        view = view[os.write(ffd, view) :]
                finally:
                    os.close(ffd)
                # rename replaces the entry itself: a link swapped in meanwhile is replaced, not followed.
                os.rename(tmp, last, src_dir_fd=fd, dst_dir_fd=fd)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=fd)
                raise

    def remove(self, name: str) -> None:
        with self._parent(name) as (fd, last):
            os.unlink(last, dir_fd=fd)

    def env(self) -> dict[str, str]:
        return dict(self._env)

    def exec(self, request: ExecRequest) -> ExecResult:
        from ._exec import run  # processes are the agent's business: a dry-run never loads this

        if request.facts is not None and self._recheck is not None:
            self._check(request.facts)
        parts = _components(request.cwd)
        dfd = self._walk(request.cwd, parts)
        fallback = os.path.join(self._real_root, *parts)
        root_fd = self._root_fd() if request.sandbox is not None else None
        env = dict(self._env if request.env is None else request.env)
        return run(request._replace(argv=list(request.argv), env=env), dfd, fallback, root_fd)

    def _check(self, facts: Recheck) -> None:
        assert self._recheck is not None
        try:
            same = self._recheck(facts.recipe, self) == facts.digest
        except Exception as err:  # facts that cannot be read refuse, whatever the reason
            raise FactsChanged(
                errno.ESTALE, f"what the call was decided on cannot be read here: {err}"
            ) from None
        if not same:
            raise FactsChanged(errno.ESTALE, "what the call was decided on changed where it runs")
