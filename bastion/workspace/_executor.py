"""A workspace whose root is elsewhere: `bastion execute` at the other end of a command's pipe.

`ExecutorWorkspace` starts the command the person already uses to reach the place (`docker exec -i
box bastion execute /work`, `ssh host bastion execute ~/proj`, `kubectl exec -i pod -- bastion
execute /work`) and speaks `_wire`'s protocol over its standard input and output, so the tools and
every look the analyzer takes (stat, readlink, reads, git's probe, the programs on PATH) happen where
the commands run. Nothing that decides crosses: the policy, the stamp's key, the session record and
the keys stay in this process; a command's call carries the facts it was decided on, which the
executor reads again before it starts (`Recheck`: no key).

Fail closed: an executor that does not answer within `reply_timeout` (a command: its own timeout
and that bound), whose pipe closes, or which sends a frame of another shape is lost. The call fails
with ExecutorLost and so does every later one; nothing falls back to this machine, and an error in
a look makes the analyzer ask.
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
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from ._gitdir import GitDirScan
from ._system import System
from ._wire import (
    PROTOCOL,
    ExecutorLost,
    ProtocolError,
    error_in,
    field,
    from_b64,
    read_frame,
    scan_in,
    stat_in,
    to_b64,
    write_frame,
)
from ._workspace import ExecRequest, ExecResult

if TYPE_CHECKING:
    pass

__all__ = ["REPLY_TIMEOUT", "ExecutorInfo", "ExecutorWorkspace"]

# How long an answer may take (a command: its timeout and this) before the executor is lost.
REPLY_TIMEOUT = 30.0
# How often a running command's cancel event is looked at (as LocalWorkspace does).
_POLL = 0.1
# How long the executor may take to end its commands and exit once its pipe is closed.
_CLOSE_WAIT = 5.0
_TAIL = 4096
_LOST = object()
T = TypeVar("T")


class ExecutorInfo(NamedTuple):
    """What the executor said of itself at connect: its bastion's version, the workspace's kind
    (local, container, remote) and ref (a host, a container, a pod), and its kernel's Landlock ABI."""

    version: str
    kind: str
    ref: str
    landlock: int


class _Link:
    """The pipe: requests out, a reader thread routing each answer to its call."""

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
                box.put(_LOST)
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

    def cancel(self, target: int) -> None:
        with self.lock, contextlib.suppress(OSError):
            assert self.proc.stdin is not None
            write_frame(self.proc.stdin, {"op": "cancel", "target": target})

    def wait(
        self, box: queue.Queue[object], until: float, what: str, poll: float | None = None
    ) -> dict[str, Any] | None:
        """The next frame for the call, or ExecutorLost once `until` (monotonic) has passed; with
        `poll`, None when nothing came by then (and `until` has not passed)."""
        left = min(until, poll if poll is not None else until) - time.monotonic()
        try:
            message = box.get(timeout=max(left, 0.0))
        except queue.Empty:
            if poll is not None and time.monotonic() < until:
                return None
            self.fail(f"it did not answer {what} within the bound ({self.reply_timeout:g} s past its own)")
            raise self.error() from None
        if message is _LOST:
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

    def call(self, op: str, **fields: object) -> Any:
        ident, box = self.send({"op": op, **fields})
        try:
            message = self.wait(box, time.monotonic() + self.reply_timeout, op)
            assert message is not None
            return self.result(message, op)
        finally:
            self.done(ident)

    def close(self) -> None:
        with self.lock:
            self.lost = self.lost or "it was closed"
            for box in self.calls.values():
                box.put(_LOST)
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        try:
            self.proc.wait(_CLOSE_WAIT)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


def _checked(link: _Link, decode: Callable[[], T]) -> T:
    """`decode()` of an answer; a ProtocolError in it loses the executor."""
    try:
        return decode()
    except ProtocolError as err:
        link.fail(str(err.strerror))
        raise link.error() from None


class _RemoteSystem:
    """The executor machine's files (System), asked over the link."""

    def __init__(self, link: _Link) -> None:
        self._link = link

    def _ask(self, op: str, path: str, decode: Callable[[Any, str], T], **fields: object) -> T:
        value = self._link.call(op, path=path, **fields)
        return _checked(self._link, lambda: decode(value, f"the executor's answer to {op}"))

    def stat(self, path: str) -> os.stat_result:
        return self._ask("sys.stat", path, stat_in)

    def lstat(self, path: str) -> os.stat_result:
        return self._ask("sys.lstat", path, stat_in)

    def realpath(self, path: str) -> str:
        return self._ask("sys.realpath", path, _string)

    def executable(self, path: str) -> bool:
        return self._ask("sys.executable", path, _flag)

    def read(self, path: str, limit: int, *, follow: bool = True) -> tuple[os.stat_result, bytes]:
        def decode(value: Any, what: str) -> tuple[os.stat_result, bytes]:
            if not isinstance(value, dict):
                raise ProtocolError(errno.EPROTO, f"{what}: not an object")
            return stat_in(value.get("stat"), what), from_b64(value.get("data"), what)

        return self._ask("sys.read", path, decode, limit=limit, follow=follow)

    def scan_gitdir(self, gitdir: str) -> GitDirScan:
        return self._ask("sys.scan_gitdir", gitdir, scan_in)


def _string(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ProtocolError(errno.EPROTO, f"{what}: not a string")
    return value


def _flag(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise ProtocolError(errno.EPROTO, f"{what}: not true or false")
    return value


def _names(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ProtocolError(errno.EPROTO, f"{what}: not a list of names")
    return value


def _hello(link: _Link) -> dict[str, Any]:
    try:
        message = link.wait(link.calls[0], time.monotonic() + link.reply_timeout, "its hello")
    finally:
        link.done(0)
    assert message is not None
    what = "the executor's hello"
    if message.get("hello") != "bastion-execute":
        link.fail("it is not a bastion executor (its first frame is no hello)")
        raise link.error()
    protocol = message.get("protocol")
    if protocol != PROTOCOL:
        version = message.get("version")
        link.fail(
            f"it speaks protocol {protocol!r} (bastion {version}), this bastion speaks {PROTOCOL}: "
            "install the same bastion where it runs"
        )
        raise link.error()

    def decode() -> dict[str, Any]:
        for name in ("root", "real_root"):
            if not field(message, name, str, what).startswith("/"):
                raise ProtocolError(errno.EPROTO, f"{what}: the {name} is not absolute")
        env = field(message, "env", dict, what)
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
            raise ProtocolError(errno.EPROTO, f"{what}: env must map strings to strings")
        for name in ("version", "kind", "ref"):
            field(message, name, str, what)
        field(message, "landlock", int, what)
        return message

    return _checked(link, decode)


class ExecutorWorkspace:
    """The workspace `bastion execute` serves at the other end of `argv`'s pipe. `env` is what the
    command is started with (the session's, less its credentials: the caller's to scrub). Raises
    ExecutorLost when it cannot be started or does not say hello, ProtocolError's words naming a
    version that differs."""

    def __init__(
        self, argv: Sequence[str], env: Mapping[str, str], *, reply_timeout: float = REPLY_TIMEOUT
    ) -> None:
        if not argv:
            raise ValueError("the executor's command is empty")
        self._link = _Link(list(argv), env, reply_timeout)
        try:
            hello = _hello(self._link)
        except BaseException:
            self._link.close()
            raise
        self._root: str = hello["root"]
        self._real_root: str = hello["real_root"]
        self._env: dict[str, str] = dict(hello["env"])
        self.info = ExecutorInfo(hello["version"], hello["kind"], hello["ref"], hello["landlock"])
        self._system = _RemoteSystem(self._link)
        self._closer = weakref.finalize(self, self._link.close)

    def __repr__(self) -> str:
        return f"ExecutorWorkspace({self._link.name!r}, {self._root!r})"

    def close(self) -> None:
        """Close the pipe: the executor ends what it still runs and exits; later calls fail."""
        self._closer()

    @property
    def root(self) -> str:
        return self._root

    @property
    def real_root(self) -> str:
        return self._real_root

    @property
    def system(self) -> System:
        return self._system

    def _ask(self, op: str, name: str, decode: Callable[[Any, str], T], **fields: object) -> T:
        value = self._link.call(op, name=name, **fields)
        return _checked(self._link, lambda: decode(value, f"the executor's answer to {op}"))

    def lstat(self, name: str) -> os.stat_result:
        return self._ask("lstat", name, stat_in)

    def readlink(self, name: str) -> str:
        return self._ask("readlink", name, _string)

    def readdir(self, name: str) -> list[str]:
        return self._ask("readdir", name, _names)

    def read(self, name: str, limit: int) -> bytes:
        return self._ask("read", name, from_b64, limit=limit)

    def write(self, name: str, data: bytes) -> None:
        self._link.call("write", name=name, data=to_b64(data))

    def remove(self, name: str) -> None:
        self._link.call("remove", name=name)

    def env(self) -> dict[str, str]:
        return dict(self._env)

    def exec(self, request: ExecRequest) -> ExecResult:
        link = self._link
        sandbox, facts, stdin = request.sandbox, request.facts, request.stdin
        ident, box = link.send(
            {
                "op": "exec",
                "argv": list(request.argv),
                "cwd": request.cwd,
                "env": None if request.env is None else dict(request.env),
                "timeout": request.timeout,
                "max_output": request.max_output,
                "stdin": None if stdin is None else to_b64(stdin),
                "sandbox": None
                if sandbox is None
                else sandbox._asdict() | {"writable": list(sandbox.writable)},
                "contain": request.contain,
                "facts": None if facts is None else facts._asdict(),
            }
        )
        on_output, cancel = request.on_output, request.cancel
        until = time.monotonic() + request.timeout + link.reply_timeout
        asked = cancel is None
        try:
            while True:
                if not asked and cancel is not None and cancel.is_set():
                    link.cancel(ident)  # the executor ends it, and answers as LocalWorkspace would
                    asked = True
                message = link.wait(box, until, "a command", None if asked else time.monotonic() + _POLL)
                if message is None:
                    continue
                if "output" in message:
                    chunk = _checked(
                        link, functools.partial(from_b64, message["output"], "a command's output")
                    )
                    if on_output is not None:
                        on_output(chunk)
                    continue
                value = link.result(message, "exec")
                return _checked(link, functools.partial(_result, value))
        finally:
            link.done(ident)


def _result(value: Any) -> ExecResult:
    what = "the executor's answer to exec"
    if not isinstance(value, dict):
        raise ProtocolError(errno.EPROTO, f"{what}: not an object")
    code = field(value, "exit_code", (int, type(None)), what)
    number = field(value, "signal", (int, type(None)), what)
    return ExecResult(
        code,
        from_b64(value.get("output"), what),
        field(value, "omitted", int, what),
        field(value, "timed_out", bool, what),
        number,
        field(value, "cancelled", bool, what),
    )
