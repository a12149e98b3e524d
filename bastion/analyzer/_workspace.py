"""Where the tools act: a root directory, reached only through names relative to it.

`Workspace` is the seam (a container or remote workspace implements the same protocol);
`LocalWorkspace` is this machine's directory. Every file operation walks the name one component at
a time from an open descriptor of the root with O_NOFOLLOW, so no name, link or `..` leaves the root
whatever changes underneath; links that stay inside are followed by resolving them first
(bastion.analyzer's `resolve`), never by the kernel.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

__all__ = ["ExecResult", "LocalWorkspace", "Workspace", "WorkspaceError"]


class WorkspaceError(OSError):
    """A name the workspace refuses: outside the root, a link on the way, a FIFO or device."""


@dataclass(frozen=True, slots=True)
class ExecResult:
    """What a process did: its exit code (None when killed), output kept, bytes dropped."""

    exit_code: int | None
    output: bytes
    omitted: int = 0
    timed_out: bool = False


@runtime_checkable
class Workspace(Protocol):
    """Files and processes under one root. Names are relative to the root, `/`-separated, with
    no `..` and no link on the way (resolve them first); "." is the root itself."""

    @property
    def root(self) -> str:
        """The root as given (absolute)."""
        ...

    @property
    def real_root(self) -> str:
        """The root with its links resolved."""
        ...

    def lstat(self, name: str) -> os.stat_result: ...

    def readlink(self, name: str) -> str: ...

    def readdir(self, name: str) -> list[str]: ...

    def read(self, name: str, limit: int) -> bytes:
        """At most `limit` bytes of a regular file; a FIFO or device is refused, never opened."""
        ...

    def write(self, name: str, data: bytes) -> None:
        """Create or replace a regular file (parents made); a FIFO, device or link is refused."""
        ...

    def remove(self, name: str) -> None: ...

    def env(self) -> dict[str, str]:
        """A copy of the environment processes start with (credentials already removed)."""
        ...

    def exec(
        self,
        argv: Sequence[str],
        *,
        cwd: str = ".",
        env: Mapping[str, str] | None = None,
        timeout: float = 120.0,
        max_output: int = 51_200,
        on_output: Callable[[bytes], None] | None = None,
        stdin: bytes | None = None,
    ) -> ExecResult:
        """Run argv (never through a shell) in cwd under the root, in its own process group."""
        ...


def _components(name: str) -> list[str]:
    if name.startswith("/") or "\x00" in name:
        raise WorkspaceError(f"{name!r} is not a name inside the workspace")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise WorkspaceError(f"{name!r} climbs out with ..")
    return parts


class LocalWorkspace:
    """This machine's directory `root`, confined by descriptor walks (the os.Root idea)."""

    def __init__(self, root: str, env: Mapping[str, str] | None = None) -> None:
        self._root = os.path.abspath(root)
        self._real_root = os.path.realpath(self._root)
        self._env = dict(env if env is not None else {})

    @property
    def root(self) -> str:
        return self._root

    @property
    def real_root(self) -> str:
        return self._real_root

    @contextlib.contextmanager
    def _parent(self, name: str) -> Iterator[tuple[int, str]]:
        """An O_PATH descriptor of the name's directory (walked without following links), and the
        last component ("." for the root)."""
        parts = _components(name)
        fd = os.open(self._real_root, os.O_PATH | os.O_DIRECTORY)
        try:
            for part in parts[:-1]:
                try:
                    nxt = os.open(part, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                except OSError as err:
                    if err.errno in (20, 40):  # ENOTDIR, ELOOP: a file or a link on the way
                        raise WorkspaceError(f"{name!r}: {part!r} is not a directory here") from err
                    raise
                os.close(fd)
                fd = nxt
            yield fd, parts[-1] if parts else "."
        finally:
            os.close(fd)

    def lstat(self, name: str) -> os.stat_result:
        with self._parent(name) as (fd, last):
            return os.lstat(last, dir_fd=fd)

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
            ffd = os.open(last, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=fd)
            try:
                if not stat.S_ISREG(os.fstat(ffd).st_mode):
                    raise WorkspaceError(f"{name!r} is not a regular file")
                chunks: list[bytes] = []
                left = limit
                while left > 0:
                    chunk = os.read(ffd, min(left, 1 << 20))
                    if not chunk:
                        break
                    chunks.append(chunk)
                    left -= len(chunk)
                return b"".join(chunks)
            finally:
                os.close(ffd)

    def write(self, name: str, data: bytes) -> None:
        parts = _components(name)
        if not parts:
            raise WorkspaceError("the workspace root is not a file")
        for i in range(1, len(parts)):
            with self._parent("/".join(parts[: i + 1])) as (fd, last), contextlib.suppress(FileExistsError):
                os.mkdir(last, 0o777, dir_fd=fd)
        with self._parent(name) as (fd, last):
            with contextlib.suppress(FileNotFoundError):
                st = os.lstat(last, dir_fd=fd)
                if not stat.S_ISREG(st.st_mode):
                    raise WorkspaceError(f"{name!r} is not a regular file")
            tmp = f".{last}.bastion-{os.getpid()}-{threading.get_ident()}"
            ffd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=fd)
            try:
                with contextlib.suppress(FileNotFoundError):
                    os.fchmod(ffd, stat.S_IMODE(os.lstat(last, dir_fd=fd).st_mode))
                view = memoryview(data)
                while view:
                    view = view[os.write(ffd, view):]
            finally:
                os.close(ffd)
            os.rename(tmp, last, src_dir_fd=fd, dst_dir_fd=fd)

    def remove(self, name: str) -> None:
        with self._parent(name) as (fd, last):
            os.unlink(last, dir_fd=fd)

    def env(self) -> dict[str, str]:
        return dict(self._env)

    def exec(
        self,
        argv: Sequence[str],
        *,
        cwd: str = ".",
        env: Mapping[str, str] | None = None,
        timeout: float = 120.0,
        max_output: int = 51_200,
        on_output: Callable[[bytes], None] | None = None,
        stdin: bytes | None = None,
    ) -> ExecResult:
        parts = _components(cwd)
        directory = os.path.join(self._real_root, *parts)
        proc = subprocess.Popen(
            list(argv),
            cwd=directory,
            env=dict(self._env if env is None else env),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        if stdin is not None and proc.stdin is not None:
            with contextlib.suppress(BrokenPipeError):
                proc.stdin.write(stdin)
            proc.stdin.close()
        kept = bytearray()
        omitted = 0
        timed_out = False
        deadline = time.monotonic() + timeout
        timer = threading.Timer(timeout, _kill_group, (proc,))
        timer.start()
        try:
            assert proc.stdout is not None
            while chunk := os.read(proc.stdout.fileno(), 65536):
                if on_output is not None:
                    on_output(chunk)
                room = max_output - len(kept)
                kept += chunk[:room]
                omitted += max(0, len(chunk) - room)
            proc.wait()
        finally:
            timer.cancel()
            if proc.poll() is None:
                _kill_group(proc)
                proc.wait()
        timed_out = time.monotonic() >= deadline and proc.returncode is not None and proc.returncode < 0
        code = None if proc.returncode is None or proc.returncode < 0 else proc.returncode
        return ExecResult(code, bytes(kept), omitted, timed_out)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
