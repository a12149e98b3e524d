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

import errno
import functools
import os
import queue
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from ._gitdir import GitDirScan
from ._link import Link, checked
from ._request import ExecRequest, ExecResult
from ._system import System
from ._wire import (
    PROTOCOL,
    ExecutorLost,
    ProtocolError,
    field,
    from_b64,
    scan_in,
    stat_in,
    to_b64,
)

if TYPE_CHECKING:
    pass

__all__ = ["REPLY_TIMEOUT", "CommandCutOff", "ExecutorInfo", "ExecutorWorkspace", "RemoteProcess"]

# How long an answer may take (a command: its timeout and this) before the executor is lost.
REPLY_TIMEOUT = 30.0
# How often a running command's cancel event is looked at (as LocalWorkspace does).
_POLL = 0.1
T = TypeVar("T")


class CommandCutOff(ExecutorLost):
    """The executor was lost after a command was sent to it (killed, stopped past the bound, its
    connection cut): the command may have run, in part or in full."""

    may_have_run = True


class ExecutorInfo(NamedTuple):
    """What the executor said of itself at connect: its bastion's version, the workspace's kind
    (local, container, remote) and ref (a host, a container, a pod), and its kernel's Landlock ABI."""

    version: str
    kind: str
    ref: str
    landlock: int


class _RemoteSystem:
    """The executor machine's files (System), asked over the link."""

    def __init__(self, link: Link) -> None:
        self._link = link

    def _ask(self, op: str, path: str, decode: Callable[[Any, str], T], **fields: object) -> T:
        value = self._link.call(op, f"the {op} of {path!r}", path=path, **fields)
        return checked(self._link, lambda: decode(value, f"the executor's answer to {op}"))

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


def _hello(link: Link) -> dict[str, Any]:
    try:
        message = link.wait(
            link.calls[0], time.monotonic() + link.reply_timeout, f"its hello within {link.bound}"
        )
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

    return checked(link, decode)


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
        self._link = Link(list(argv), env, reply_timeout)
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
        value = self._link.call(op, f"the {op} of {name!r}", name=name, **fields)
        return checked(self._link, lambda: decode(value, f"the executor's answer to {op}"))

    def lstat(self, name: str) -> os.stat_result:
        return self._ask("lstat", name, stat_in)

    def readlink(self, name: str) -> str:
        return self._ask("readlink", name, _string)

    def readdir(self, name: str) -> list[str]:
        return self._ask("readdir", name, _names)

    def read(self, name: str, limit: int) -> bytes:
        return self._ask("read", name, from_b64, limit=limit)

    def write(self, name: str, data: bytes) -> None:
        self._link.call("write", f"the write of {name!r}", name=name, data=to_b64(data))

    def remove(self, name: str) -> None:
        self._link.call("remove", f"the remove of {name!r}", name=name)

    def env(self) -> dict[str, str]:
        return dict(self._env)

    @property
    def lost(self) -> str:
        """Why the executor is lost ("" while it is not, or after a clean close): from then on
        every call fails, and the run that meets it ends."""
        link = self._link
        return "" if link.lost in ("", "it was closed") else str(link.error().strerror)

    def spawn(
        self, argv: Sequence[str], *, cwd: str | None, env: Mapping[str, str], pass_env: Sequence[str] = ()
    ) -> RemoteProcess:
        """Start a long-lived program there (an MCP stdio server) with pipes, its input and output
        relayed over the link: `cwd` as a config gives it (relative to the root, `~` expanded
        there; None: the root), `env` on top of the executor's environment for commands and the
        variables `pass_env` names from its own. Raises OSError when it cannot start."""
        ident, box = self._link.send(
            {"op": "spawn", "argv": list(argv), "cwd": cwd, "env": dict(env), "pass_env": list(pass_env)}
        )
        process = RemoteProcess(self._link, ident, box)
        try:
            first = process.next(time.monotonic() + self._link.reply_timeout, f"the start of {_shown(argv)}")
        except BaseException:
            self._link.done(ident)
            raise
        if first != ("started", b""):
            self._link.done(ident)
            raise OSError(errno.EPROTO, f"the executor answered the start of {_shown(argv)} with {first[0]}")
        return process

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
        shown, bound = _shown(request.argv), request.timeout
        waited = f"the command {shown} within its timeout of {bound:g} s and {link.bound} more"
        asked = cancel is None
        try:
            while True:
                if not asked and cancel is not None and cancel.is_set():
                    link.cancel(ident)  # the executor ends it, and answers as LocalWorkspace would
                    asked = True
                message = link.wait(box, until, waited, None if asked else time.monotonic() + _POLL)
                if message is None:
                    continue
                if "output" in message:
                    chunk = checked(
                        link, functools.partial(from_b64, message["output"], "a command's output")
                    )
                    if on_output is not None:
                        on_output(chunk)
                    continue
                value = link.result(message, "exec")
                return checked(link, functools.partial(_result, value))
        except ExecutorLost as err:
            raise CommandCutOff(err.errno, err.strerror) from None
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


def _shown(argv: Sequence[str]) -> str:
    text = " ".join(argv)
    return repr(text if len(text) <= 80 else text[:77] + "...")


class RemoteProcess:
    """A program the executor started for `spawn`: write its input, read what it says (its
    output and its standard error as they come, then its end), end it. Every method raises
    ExecutorLost once the executor is lost."""

    def __init__(self, link: Link, ident: int, box: queue.Queue[object]) -> None:
        self._link = link
        self._ident = ident
        self._box = box
        self.exit: tuple[int | None, int | None] | None = None

    def write(self, data: bytes) -> None:
        self._link.notify({"op": "input", "target": self._ident, "data": to_b64(data)})

    def close_input(self) -> None:
        self._link.notify({"op": "input", "target": self._ident, "data": None})

    def kill(self) -> None:
        """End its process group (it then says its end)."""
        self._link.cancel(self._ident)

    def next(self, until: float | None = None, what: str = "") -> tuple[str, bytes]:
        """The next thing it said: ("started", b""), ("output", bytes), ("stderr", bytes), or
        ("exit", b"") once it ended (`exit` then holds its code and signal), after which there is
        no more. Waits without a bound unless `until` (then `what` names what was waited for)."""
        if self.exit is not None:
            return "exit", b""
        link = self._link
        if until is None:
            message = link.frame(self._box.get())
        else:
            got = link.wait(self._box, until, f"{what} within {link.bound}")
            assert got is not None
            message = got
        for kind in ("output", "stderr"):
            if kind in message:
                return kind, checked(link, functools.partial(from_b64, message[kind], f"a program's {kind}"))
        if message.get("started") is True:
            return "started", b""
        value = link.result(message, "spawn")
        link.done(self._ident)
        self.exit = checked(link, functools.partial(_ended, value))
        return "exit", b""


def _ended(value: Any) -> tuple[int | None, int | None]:
    what = "the executor's answer to spawn"
    if not isinstance(value, dict):
        raise ProtocolError(errno.EPROTO, f"{what}: not an object")
    return field(value, "exit_code", (int, type(None)), what), field(value, "signal", (int, type(None)), what)
