"""The session store: $BASTION_HOME/sessions (~/.bastion by default), one record per session, and
the lock that keeps a record to one process at a time.

A store that cannot be made or written (HOME read-only, BASTION_HOME a file, `sessions` a file) is a
StoreError naming the path and the fix, never a traceback: the agent then runs unrecorded and says
so once, and `bastion doctor` reports it. A record in use is locked (flock, on its own open file
description: the kernel lets it go when the process ends, however it ends); the process holding
it is named from the record itself (the `pid` of its last `session` or `resumed` event).
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import stat
from collections.abc import Mapping

from ..._files import open_append, read_regular
from ..runtime import ConfigError

__all__ = [
    "SESSION_ID",
    "StoreError",
    "bastion_home",
    "is_session_id",
    "lock_record",
    "open_locked",
    "session_path",
    "sessions_dir",
    "store_problem",
]

SESSION_ID = re.compile(r"[0-9]{8}-[0-9]{6}-[0-9a-f]{6}")


_SET_HOME = "set BASTION_HOME to a directory you can write"


class StoreError(ConfigError):
    """The session store cannot be made or written: the message names the path and the fix."""


def bastion_home(environ: Mapping[str, str]) -> str:
    """$BASTION_HOME, else .bastion in $HOME (both read from `environ`)."""
    home = environ.get("HOME") or os.path.expanduser("~")
    return environ.get("BASTION_HOME") or os.path.join(home, ".bastion")


def is_session_id(text: str) -> bool:
    return SESSION_ID.fullmatch(text) is not None


def _fix(path: str, err: OSError) -> str:
    """What to do about a store path that failed with `err`."""
    if err.errno in (errno.ENOTDIR, errno.EEXIST):
        return f"{path} is not a directory: move it away, or set BASTION_HOME to a directory"
    return f"{path}: {err.strerror or err}; {_SET_HOME}"


def _culprit(home: str, path: str, err: OSError) -> str:
    """Which part of the store failed, and what to do: the first of the home and the store that is
    not a directory, else the path the error names."""
    for part in (home, path):
        try:
            if not stat.S_ISDIR(os.stat(part).st_mode):
                return _fix(part, OSError(errno.ENOTDIR, "not a directory"))
        except OSError:
            break
    return _fix(err.filename or path, err)


def sessions_dir(home: str) -> str:
    """The store of records, made 0700 if need be; a StoreError saying what to do when it cannot be."""
    path = os.path.join(home, "sessions")
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        for made in (home, path):
            if stat.S_IMODE(os.stat(made).st_mode) != 0o700:
                os.chmod(made, 0o700)
    except OSError as err:
        raise StoreError(f"sessions cannot be recorded: {_culprit(home, path, err)}") from None
    return path


def store_problem(home: str) -> str | None:
    """Why the store under `home` cannot hold records (None: it can), found as a session finds it:
    the store made if missing, and a file made in it and removed. What `bastion doctor` says."""
    try:
        path = sessions_dir(home)
    except StoreError as err:
        return str(err)
    probe = os.path.join(path, f".doctor-{os.getpid()}")
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600))
        os.unlink(probe)
    except OSError as err:
        return f"sessions cannot be recorded: {_fix(path, err)}"
    return None


def session_path(home: str, session_id: str, what: str, *, write: bool) -> str:
    """The record of a session ID, or a ConfigError saying what is wrong (`what` names the asker).
    Only an asker that will `write` the record makes the store or tightens its directories: a
    command that only reads (verify, export) writes nothing, so it works on a read-only store."""
    if not is_session_id(session_id):
        raise ConfigError(f"{what}: {session_id!r} is not a session ID (see --list)")
    store = sessions_dir(home) if write else os.path.join(home, "sessions")
    path = os.path.join(store, session_id + ".jsonl")
    if not os.path.isfile(path):
        raise ConfigError(f"{what}: no session {session_id} in {os.path.dirname(path)}")
    return path


def _holder(path: str) -> str:
    """The process a record says holds it: the pid of its last `session` or `resumed` event, with
    its command line when it still runs."""
    from ._records import parse_lines

    pid = None
    try:
        for event in parse_lines(read_regular(path)).events:
            if event.get("type") in ("session", "resumed") and isinstance(event.get("pid"), int):
                pid = event["pid"]
    except OSError:
        pass
    if pid is None:
        return "another process"
    try:
        command = read_regular(f"/proc/{pid}/cmdline", 400).replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError:
        return f"process {pid}"
    return f"process {pid} ({command.strip()[:120]})"


def lock_record(fd: int, path: str, session_id: str, what: str) -> None:
    """Hold the record open as `fd` for this process, or a ConfigError naming the one that does."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise ConfigError(
            f"{what}: session {session_id} is in use by {_holder(path)}; end it there first "
            "(two processes on one session would interleave its record)"
        ) from None


def open_locked(path: str, session_id: str, what: str) -> int:
    """The record at `path` open for appending (made 0600 if missing) and locked, or a ConfigError:
    in use (naming the holder), or a StoreError (it cannot be written)."""
    try:
        fd = open_append(path)
    except OSError as err:
        raise StoreError(f"sessions cannot be recorded: {_fix(path, err)}") from None
    try:
        lock_record(fd, path, session_id, what)
    except BaseException:
        os.close(fd)
        raise
    return fd
