"""Opening a file bastion did not make: one way, never blocking, regular files only.

A path a person, a config or a repository names (--config, the user's config, an audit input, a
record to import, a program on PATH, the file a write is about to replace, a session record, the
input history) may be a FIFO, whose open blocks until a writer comes, or a device, whose open may
act. Every such open goes through `open_regular` (reading) or `open_append` / `open_replacing`
(writing): the name is looked at first, so a device is never opened; it is opened with O_NONBLOCK
(a FIFO does not block the open, and one with no reader fails it at once) and O_NOCTTY; what was
opened is looked at again (the name may have been swapped in between). Anything but a regular file
is NotRegularFile, an OSError whose strerror says what it is, never a hang.
tests/test_file_opens.py finds every other open in bastion/ and checks it is one that cannot block.
A relative name is opened against the working directory: `removed_cwd` says when that was removed.
"""

from __future__ import annotations

import errno
import functools
import os
import stat

from ._errors import BastionError

__all__ = [
    "NotRegularFile",
    "is_null_device",
    "kind_of",
    "open_append",
    "open_regular",
    "open_replacing",
    "read_regular",
    "removed_cwd",
]

_READ = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_WRITE = os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


class NotRegularFile(OSError, BastionError):
    """A path bastion would read or write that is not a regular file (a FIFO, a device, a socket,
    a directory): refused without blocking."""


def kind_of(mode: int) -> str:
    """What a file of this mode is, for a person."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    return "not a regular file"


def is_null_device(path: str) -> bool:
    """Whether `path` is /dev/null (by the device it names, not opened): `--config /dev/null` is an
    empty config, as git's GIT_CONFIG_GLOBAL=/dev/null is."""
    try:
        st = os.stat(path)
        return stat.S_ISCHR(st.st_mode) and st.st_rdev == _null_rdev()
    except OSError:
        return False


@functools.cache
def _null_rdev() -> int:
    """The null device's number (what a device is, whatever its name: learnt once)."""
    return os.stat(os.devnull).st_rdev


def _refuse(path: str, mode: int) -> NotRegularFile:
    return NotRegularFile(errno.EINVAL, f"not a regular file ({kind_of(mode)})", path)


def _checked(fd: int, path: str) -> int:
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _refuse(path, st.st_mode)
        # A regular file reads and writes the same either way; the flag goes so a caller never sees EAGAIN.
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _look(path: str, follow: bool, dir_fd: int | None) -> None:
    """Refuse a name that is there and is not a regular file before it is opened (FileNotFoundError
    is left to the open, so a caller creating the file still may)."""
    try:
        st = os.stat(path, dir_fd=dir_fd, follow_symlinks=follow)
    except FileNotFoundError:
        return
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(path, st.st_mode)


def open_regular(path: str, *, follow: bool = True, dir_fd: int | None = None) -> int:
    """A descriptor of the regular file `path` (taken from `dir_fd` when given) for reading, which
    the caller closes; `follow=False` refuses a symbolic link as it refuses a FIFO."""
    _look(path, follow, dir_fd)
    flags = _READ | (0 if follow else os.O_NOFOLLOW)
    return _checked(os.open(path, flags, dir_fd=dir_fd), path)


def read_regular(path: str, limit: int | None = None, *, follow: bool = True) -> bytes:
    """The bytes of the regular file `path`, at most `limit` of them (None: all)."""
    fd = open_regular(path, follow=follow)
    try:
        chunks: list[bytes] = []
        left = limit
        while left is None or left > 0:
            chunk = os.read(fd, 1 << 20 if left is None else min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            if left is not None:
                left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def open_append(path: str, mode: int = 0o600) -> int:
    """A descriptor appending to the regular file `path`, made (`mode`) if missing, never through a
    symbolic link: a session record, the input history."""
    _look(path, False, None)
    flags = _WRITE | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
    return _checked(os.open(path, flags, mode), path)


def open_replacing(path: str, mode: int = 0o600) -> int:
    """A descriptor writing the regular file `path` from empty, made (`mode`) if missing, never
    through a symbolic link: the temporary file a whole new file is written to before it replaces
    the old one, or a record cut back."""
    _look(path, False, None)
    flags = _WRITE | os.O_CREAT | os.O_NOFOLLOW
    fd = _checked(os.open(path, flags, mode), path)
    try:
        os.ftruncate(fd, 0)
    except BaseException:
        os.close(fd)
        raise
    return fd


def removed_cwd() -> str | None:
    """The name of this process's working directory when it was removed after it was entered
    (getcwd fails: no relative name can be opened, no project config found), "" when that name
    cannot be read; None while it exists."""
    try:
        os.getcwd()
    except FileNotFoundError:
        try:
            return os.readlink("/proc/self/cwd").removesuffix(" (deleted)")
        except OSError:
            return ""
    return None
