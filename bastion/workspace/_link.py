"""The session's end of the pipe to `bastion execute`: the transport started, requests written, one
reader thread routing each frame to the call it answers (`_wire` has the frames).

Fail closed: an answer that does not come within the bound, a pipe that closes, or a frame of
another shape loses the executor. Every call waiting then fails with ExecutorLost, and so does
every later one; the transport's process group is killed. Its standard error is kept (the last
bytes) to say why.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import itertools
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ._wire import ExecutorLost, ProtocolError, error_in, read_frame, write_frame

__all__ = ["LOST", "Link", "checked"]

# How long the executor may take to end its commands and exit once its pipe is closed.
_CLOSE_WAIT = 5.0
_TAIL = 4096
# What a call's box receives when the executor is lost.
LOST = object()
T = TypeVar("T")


class Link:
    """The pipe: requests out, a reader thread routing each answer to its call's box."""

    def __init__(self, argv: list[str], env: Mapping[str, str], reply_timeout: float) -> None:
        self.name = argv[0]
        self.reply_timeout = reply_timeout
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=dict(env),
                start_new_session=True,
            )
        except OSError as err:
            raise ExecutorLost(
                err.errno or errno.ENOENT,
                f"the executor {argv[0]!r} could not be started: {err.strerror or err}",
            ) from None
        self.lock = threading.Lock()
        self.calls: dict[int, queue.Queue[object]] = {0: queue.Queue()}  # 0: the hello
        self.ids = itertools.count(1)
        self.lost = ""
        self.tail = b""
        threading.Thread(target=self._errors, daemon=True).start()
        threading.Thread(target=self._read, daemon=True).start()

    def _errors(self) -> None:
        """Its standard error, of which the last bytes are kept to say why it was lost."""
        assert self.proc.stderr is not None
        fd = self.proc.stderr.fileno()
        for chunk in iter(functools.partial(os.read, fd, _TAIL), b""):
            self.tail = (self.tail + chunk)[-_TAIL:]

    def _read(self) -> None:
        assert self.proc.stdout is not None
        try:
            while True:
                message = read_frame(self.proc.stdout, "the executor")
                if message is None:
                    self.fail("its connection closed")
                    return
                ident = 0 if "hello" in message else message.get("id")
                box = self.calls.get(ident) if type(ident) is int else None
                if box is None:
                    self.fail(f"it sent an answer to no request ({ident!r})")
                    return
                box.put(message)
        except (OSError, ValueError) as err:
            self.fail(str(err.strerror) if isinstance(err, OSError) and err.strerror else str(err))

    def fail(self, why: str) -> None:
        """The executor is lost: every call waiting and every later call fail with `why`."""
        with self.lock:
            if self.lost:
                return
            self.lost = why
            for box in self.calls.values():
                box.put(LOST)
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)

    def error(self) -> ExecutorLost:
        said = self.tail.decode("utf-8", "replace").strip().splitlines()
        tail = f" (it said: {said[-1][:300]})" if said else ""
        return ExecutorLost(errno.EPIPE, f"the executor {self.name!r} is lost: {self.lost}{tail}")

    def send(self, message: dict[str, Any]) -> tuple[int, queue.Queue[object]]:
        box: queue.Queue[object] = queue.Queue()
        with self.lock:
            if self.lost:
                raise self.error()
            ident = next(self.ids)
            self.calls[ident] = box
            try:
                assert self.proc.stdin is not None
                write_frame(self.proc.stdin, {"id": ident, **message})
            except OSError as err:
                del self.calls[ident]
                if isinstance(err, ProtocolError):
                    raise
                self.lost = f"its pipe cannot be written ({err.strerror or err})"
                raise self.error() from None
        return ident, box

    @property
    def bound(self) -> str:
        return f"{self.reply_timeout:g} s"

    def notify(self, message: dict[str, Any]) -> None:
        """A frame that takes no answer (a cancel, a process's input); raises ExecutorLost when
        the executor is lost."""
        with self.lock:
            if self.lost:
                raise self.error()
            try:
                assert self.proc.stdin is not None
                write_frame(self.proc.stdin, message)
            except OSError as err:
                if isinstance(err, ProtocolError):
                    raise
                self.lost = f"its pipe cannot be written ({err.strerror or err})"
                raise self.error() from None

    def cancel(self, target: int) -> None:
        with contextlib.suppress(OSError):
            self.notify({"op": "cancel", "target": target})

    def wait(
        self, box: queue.Queue[object], until: float, what: str, poll: float | None = None
    ) -> dict[str, Any] | None:
        """The next frame for the call, or ExecutorLost once `until` (monotonic) has passed; with
        `poll`, None when nothing came by then (and `until` has not passed). `what` says what was
        waited for and how long, in the words of the loss ("the lstat of 'a.txt' within 30 s")."""
        left = min(until, poll if poll is not None else until) - time.monotonic()
        try:
            message = box.get(timeout=max(left, 0.0))
        except queue.Empty:
            if poll is not None and time.monotonic() < until:
                return None
            self.fail(f"it did not answer {what}")
            raise self.error() from None
        return self.frame(message)

    def frame(self, message: object) -> dict[str, Any]:
        """A frame taken from a call's box; ExecutorLost for the loss."""
        if message is LOST:
            raise self.error()
        assert isinstance(message, dict)
        return message

    def done(self, ident: int) -> None:
        with self.lock:
            self.calls.pop(ident, None)

    def result(self, message: dict[str, Any], what: str) -> Any:
        """The answer's value, or the error it carries raised; a frame of another shape loses it."""
        if "error" in message:
            try:
                raise error_in(message["error"], what)
            except ProtocolError as err:
                self.fail(str(err.strerror))
                raise self.error() from None
        if "ok" not in message:
            self.fail(f"its answer to {what} holds neither ok nor error")
            raise self.error()
        return message["ok"]

    def call(self, op: str, what: str, **fields: object) -> Any:
        """One request and its answer within the bound; `what` names it for the loss's words."""
        ident, box = self.send({"op": op, **fields})
        try:
            message = self.wait(box, time.monotonic() + self.reply_timeout, f"{what} within {self.bound}")
            assert message is not None
            return self.result(message, op)
        finally:
            self.done(ident)

    def close(self) -> None:
        with self.lock:
            self.lost = self.lost or "it was closed"
            for box in self.calls.values():
                box.put(LOST)
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        try:
            self.proc.wait(_CLOSE_WAIT)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def checked(link: Link, decode: Callable[[], T]) -> T:
    """`decode()` of an answer; a ProtocolError in it loses the executor."""
    try:
        return decode()
    except ProtocolError as err:
        link.fail(str(err.strerror))
        raise link.error() from None
