"""Running a command for the workspace: its own process group, a timeout, capped output, cancel;
contained (through the sandbox's launcher, which every confined command goes through too), every
process it starts is ended when it ends, when it is stopped and when bastion dies.

Only LocalWorkspace.exec imports this module, so the dry-run path never loads subprocess and its
friends.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable

from ._request import ExecRequest, ExecResult

__all__ = ["run"]

# How long the output of a command that has exited may still arrive (from what it left running)
# before its process group is ended.
_EXIT_GRACE = 0.5
# How often a running command's cancel event is looked at.
_POLL = 0.1
# How long a launcher asked to end its call (SIGTERM) may take to kill and reap what the call
# started before its process group is killed outright (what had left the group is then not found).
_END_WAIT = 5.0
_TIMEOUT, _CANCEL = "timeout", "cancel"
_PROC_FD = "/proc/self/fd"


def run(request: ExecRequest, dfd: int, fallback: str, root_fd: int | None = None) -> ExecResult:
    """Run the request (its argv a list, its env a dict) in the directory open as `dfd` (closed
    here; `fallback` names it where /proc is missing), as LocalWorkspace.exec describes; under its
    sandbox (the workspace root open as `root_fd`) or when told to contain it, through the launcher
    (which applies the sandbox before exec, and ends what the command started)."""
    if request.sandbox is None and not request.contain:
        return _run(request, dfd, fallback, (), False)
    from ..sandbox import launch

    with contextlib.ExitStack() as stack:
        try:
            ready = stack.enter_context(
                launch(request.sandbox, list(request.argv), dict(request.env or {}), root_fd)
            )
        except BaseException:
            os.close(dfd)  # _run closes it once it is called
            raise
        # The ruleset is closed and the private temporary directory removed once the command ended.
        keep = () if ready.ruleset is None else (ready.ruleset,)
        return _run(request._replace(argv=ready.argv, env=ready.env), dfd, fallback, keep, True)


def _run(request: ExecRequest, dfd: int, fallback: str, keep: tuple[int, ...], launched: bool) -> ExecResult:
    stdin = request.stdin
    try:
        # The child enters the directory through the descriptor, so a link swapped into the path
        # since it was walked is not followed.
        where = f"{_PROC_FD}/{dfd}" if os.path.isdir(_PROC_FD) else fallback
        proc = subprocess.Popen(
            request.argv,
            cwd=where,
            pass_fds=(dfd, *keep),
            env=request.env,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    finally:
        os.close(dfd)
    if stdin is not None:
        threading.Thread(target=_feed, args=(proc, stdin), daemon=True).start()
    deadline = time.monotonic() + request.timeout
    cancel = request.cancel
    try:
        kept, omitted, ended = _collect(
            proc, deadline, request.max_output, request.on_output, cancel, launched
        )
        if ended is None:
            # The output ended: let the command finish its exit before its group is ended.
            ended = _wait(proc, deadline, cancel)
    finally:
        _end(proc, launched)
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
    code = proc.returncode
    timed_out, cancelled = ended == _TIMEOUT, ended == _CANCEL
    if code < 0:
        return ExecResult(None, kept, omitted, timed_out, -code, cancelled)
    return ExecResult(code, kept, omitted, timed_out, cancelled=cancelled)


def _wait(proc: subprocess.Popen[bytes], deadline: float, cancel: threading.Event | None) -> str | None:
    """Wait for the process to exit: None when it did, or what ended the wait first."""
    while True:
        if proc.poll() is not None:
            return None
        if cancel is not None and cancel.is_set():
            return _CANCEL
        left = deadline - time.monotonic()
        if left <= 0:
            return _TIMEOUT
        try:
            proc.wait(min(left, _POLL))
            return None
        except subprocess.TimeoutExpired:
            continue


def _collect(
    proc: subprocess.Popen[bytes],
    deadline: float,
    max_output: int,
    on_output: Callable[[bytes], None] | None,
    cancel: threading.Event | None,
    launched: bool,
) -> tuple[bytes, int, str | None]:
    """The output kept, the bytes dropped, and what ended the command early (_TIMEOUT, _CANCEL)
    or None."""
    assert proc.stdout is not None
    out = proc.stdout.fileno()
    kept = bytearray()
    omitted = 0
    ended: str | None = None
    end = deadline
    exited = False
    # A selector (epoll, kqueue), never select(): select() cannot wait on a descriptor numbered
    # past 1023, and a process holding many open files gets such numbers.
    with selectors.DefaultSelector() as selector:
        selector.register(out, selectors.EVENT_READ)
        while True:
            now = time.monotonic()
            if not exited and proc.poll() is not None:
                exited = True
                end = min(end, now + _EXIT_GRACE)
            if ended is None and cancel is not None and cancel.is_set():
                end = now  # ended at once below, its last output still read for a moment
            if now >= end:
                if ended is not None or exited:
                    break
                ended = _CANCEL if cancel is not None and cancel.is_set() else _TIMEOUT
                _end(proc, launched)
                end = now + _EXIT_GRACE
                continue
            if not selector.select(min(end - now, _POLL)):
                continue
            chunk = os.read(out, 65536)
            if not chunk:
                break
            if on_output is not None:
                on_output(chunk)
            room = max(0, max_output - len(kept))
            kept += chunk[:room]
            omitted += max(0, len(chunk) - room)
    return bytes(kept), omitted, ended


def _feed(proc: subprocess.Popen[bytes], data: bytes) -> None:
    if proc.stdin is None:
        return
    with contextlib.suppress(OSError):
        proc.stdin.write(data)
    with contextlib.suppress(OSError):
        proc.stdin.close()


def _end(proc: subprocess.Popen[bytes], launched: bool) -> None:
    """End the command and what it started: a launcher is asked first (it kills and reaps every
    process below it, also those that left the group), then the process group is killed."""
    if launched and proc.poll() is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(_END_WAIT)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
