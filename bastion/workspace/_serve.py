"""`bastion execute`'s loop: a LocalWorkspace served over a pipe to the one session that started it.

It runs no model, no policy and no session, and reads no config: each request is one operation of
the Workspace or its System (`_wire` has the frames), or a program started for the session (an MCP
stdio server: `spawn`, its input relayed by `input` frames, `_spawn`). The pipe is the credential: there is no
listener, no port and no token, so whoever could start it could already run commands there. Every
request runs in a thread of its own (a command's output streams while the session goes on looking),
at most MAX_RUNNING at once. When the session's end of the pipe closes, or a frame cannot be read,
every command still running is stopped (its process group ended, as a cancel does) before it exits.
"""

from __future__ import annotations

import contextlib
import errno
import os
import threading
from collections.abc import Callable, Mapping
from typing import IO, TYPE_CHECKING, Any

from ..sandbox import Confinement
from ._request import ExecRequest, Recheck
from ._wire import (
    PROTOCOL,
    ProtocolError,
    error_out,
    field,
    from_b64,
    read_frame,
    scan_out,
    stat_out,
    to_b64,
    write_frame,
)
from ._workspace import LocalWorkspace

if TYPE_CHECKING:
    from ._spawn import Program

__all__ = ["MAX_RUNNING", "serve"]

MAX_RUNNING = 64


class _Server:
    def __init__(self, ws: LocalWorkspace, out: IO[bytes], environ: Mapping[str, str]) -> None:
        self.ws = ws
        self.out = out
        self.environ = environ
        self.programs: dict[int, Program] = {}
        self.lock = threading.Lock()
        self.cancels: dict[int, threading.Event] = {}
        self.threads: set[threading.Thread] = set()

    def send(self, message: dict[str, Any]) -> None:
        with self.lock:
            write_frame(self.out, message)

    def request(self, message: dict[str, Any]) -> None:
        ident = message.get("id")
        if message.get("op") == "cancel":
            target = message.get("target")
            event = self.cancels.get(target) if isinstance(target, int) else None
            if event is not None:
                event.set()
            return
        if message.get("op") == "input":
            target = message.get("target")
            program = self.programs.get(target) if isinstance(target, int) else None
            if program is not None:  # one that has ended takes no more
                data = message.get("data")
                try:
                    program.feed(None if data is None else from_b64(data, "an input frame"))
                except ProtocolError as err:  # the session's end then loses this executor
                    self.send({"id": None, "error": error_out(err)})
            return
        if type(ident) is not int:
            self.send(
                {"id": None, "error": error_out(ProtocolError(errno.EPROTO, "a request needs an integer id"))}
            )
            return
        self.threads = {t for t in self.threads if t.is_alive()}
        if len(self.threads) >= MAX_RUNNING:
            busy = ProtocolError(errno.EBUSY, f"more than {MAX_RUNNING} requests at once")
            self.send({"id": ident, "error": error_out(busy)})
            return
        if message.get("op") in ("exec", "spawn"):
            self.cancels[ident] = threading.Event()
        thread = threading.Thread(target=self.answer, args=(ident, message), daemon=True)
        self.threads.add(thread)
        thread.start()

    def answer(self, ident: int, message: dict[str, Any]) -> None:
        try:
            reply: dict[str, Any] = {"id": ident, "ok": self.run(ident, message)}
        except OSError as err:
            reply = {"id": ident, "error": error_out(err)}
        except Exception as err:  # an operation that fails another way still answers
            reply = {
                "id": ident,
                "error": {"errno": 0, "kind": "os", "message": f"{type(err).__name__}: {err}"},
            }
        finally:
            self.cancels.pop(ident, None)
        with contextlib.suppress(OSError):  # the session went away: nobody is left to tell
            self.send(reply)

    def run(self, ident: int, message: dict[str, Any]) -> object:
        op = field(message, "op", str, "a request")
        what = f"the {op} request"
        if op in _NAMED:
            return _NAMED[op](self.ws, field(message, "name", str, what), message, what)
        if op in _SYSTEM:
            return _SYSTEM[op](self.ws, field(message, "path", str, what), message, what)
        if op == "exec":
            return self.exec(ident, message, what)
        if op == "spawn":
            return self.spawn(ident, message, what)
        raise ProtocolError(errno.ENOSYS, f"no operation {op!r} (this executor speaks protocol {PROTOCOL})")

    def exec(self, ident: int, message: dict[str, Any], what: str) -> object:
        argv = field(message, "argv", list, what)
        if not argv or not all(isinstance(a, str) for a in argv):
            raise ProtocolError(errno.EPROTO, f"{what}: argv must be a non-empty list of strings")
        env = field(message, "env", (dict, type(None)), what)
        if env is not None and not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
            raise ProtocolError(errno.EPROTO, f"{what}: env must map strings to strings")
        stdin = message.get("stdin")
        sandbox = field(message, "sandbox", (dict, type(None)), what)
        facts = field(message, "facts", (dict, type(None)), what)
        request = ExecRequest(
            argv,
            cwd=field(message, "cwd", str, what),
            env=env,
            timeout=float(field(message, "timeout", (int, float), what)),
            max_output=field(message, "max_output", int, what),
            on_output=lambda chunk: self.send({"id": ident, "output": to_b64(chunk)}),
            stdin=None if stdin is None else from_b64(stdin, what),
            cancel=self.cancels.get(ident),
            sandbox=None if sandbox is None else _confinement(sandbox, what),
            contain=field(message, "contain", bool, what),
            facts=None if facts is None else Recheck(facts.get("recipe"), field(facts, "digest", str, what)),
        )
        result = self.ws.exec(request)
        return {
            "exit_code": result.exit_code,
            "output": to_b64(result.output),
            "omitted": result.omitted,
            "timed_out": result.timed_out,
            "signal": result.signal,
            "cancelled": result.cancelled,
        }

    def spawn(self, ident: int, message: dict[str, Any], what: str) -> object:
        from ._spawn import Program

        argv = field(message, "argv", list, what)
        if not argv or not all(isinstance(a, str) for a in argv):
            raise ProtocolError(errno.EPROTO, f"{what}: argv must be a non-empty list of strings")
        env = field(message, "env", dict, what)
        passed = field(message, "pass_env", list, what)
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()) or not all(
            isinstance(n, str) for n in passed
        ):
            raise ProtocolError(errno.EPROTO, f"{what}: env must map strings to strings, pass_env name them")
        cwd = field(message, "cwd", (str, type(None)), what)
        where = os.path.join(self.ws.root, os.path.expanduser(cwd)) if cwd else self.ws.root
        kept = {name: self.environ[name] for name in passed if name in self.environ}
        program = Program(
            argv,
            where,
            {**self.ws.env(), **kept, **env},
            lambda kind, b: self.send({"id": ident, kind: to_b64(b)}),
        )
        self.programs[ident] = program
        try:
            self.send({"id": ident, "started": True})
            program.begin()
            return program.run(self.cancels[ident])
        finally:
            del self.programs[ident]

    def stop(self) -> None:
        for event in list(self.cancels.values()):
            event.set()
        for thread in list(self.threads):
            thread.join()


def _confinement(value: dict[str, Any], what: str) -> Confinement:
    writable = field(value, "writable", list, what)
    if not all(isinstance(w, str) for w in writable):
        raise ProtocolError(errno.EPROTO, f"{what}: the writable paths must be strings")
    return Confinement(
        field(value, "read_only", bool, what), tuple(writable), field(value, "network", bool, what)
    )


def _read(ws: LocalWorkspace, name: str, message: dict[str, Any], what: str) -> object:
    return to_b64(ws.read(name, field(message, "limit", int, what)))


def _write(ws: LocalWorkspace, name: str, message: dict[str, Any], what: str) -> object:
    ws.write(name, from_b64(message.get("data"), what))
    return None


Op = Callable[[LocalWorkspace, str, dict[str, Any], str], object]
_NAMED: dict[str, Op] = {
    "lstat": lambda ws, name, _m, _w: stat_out(ws.lstat(name)),
    "readlink": lambda ws, name, _m, _w: ws.readlink(name),
    "readdir": lambda ws, name, _m, _w: ws.readdir(name),
    "read": _read,
    "write": _write,
    "remove": lambda ws, name, _m, _w: ws.remove(name),
}


def _sys_read(ws: LocalWorkspace, path: str, message: dict[str, Any], what: str) -> object:
    st, data = ws.system.read(
        path, field(message, "limit", int, what), follow=field(message, "follow", bool, what)
    )
    return {"stat": stat_out(st), "data": to_b64(data)}


_SYSTEM: dict[str, Op] = {
    "sys.stat": lambda ws, path, _m, _w: stat_out(ws.system.stat(path)),
    "sys.lstat": lambda ws, path, _m, _w: stat_out(ws.system.lstat(path)),
    "sys.realpath": lambda ws, path, _m, _w: ws.system.realpath(path),
    "sys.executable": lambda ws, path, _m, _w: ws.system.executable(path),
    "sys.read": _sys_read,
    "sys.scan_gitdir": lambda ws, path, _m, _w: scan_out(ws.system.scan_gitdir(path)),
}


def serve(
    ws: LocalWorkspace,
    stdin: IO[bytes],
    stdout: IO[bytes],
    hello: dict[str, Any],
    environ: Mapping[str, str] | None = None,
) -> str:
    """Serve `ws` until the session's end closes; the hello's fields (`_wire`) besides the protocol
    and the workspace's own are the caller's (version, kind, ref, landlock). `environ` (this
    process's by default) is where a started program's `pass_env` is taken from. Returns "" at a
    clean end, else why the stream could not be read."""
    server = _Server(ws, stdout, os.environ if environ is None else environ)
    server.send(
        {
            "hello": "bastion-execute",
            "protocol": PROTOCOL,
            **hello,
            "root": ws.root,
            "real_root": ws.real_root,
            "env": ws.env(),
        }
    )
    why = ""
    try:
        while True:
            try:
                message = read_frame(stdin, "the session")
            except ProtocolError as err:
                why = str(err.strerror)
                server.send({"id": None, "error": error_out(err)})
                break
            if message is None:
                break
            server.request(message)
    finally:
        server.stop()
    return why
