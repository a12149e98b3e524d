"""The server: this user's resident decider, one forked child per call.

The parent only accepts and forks. It holds what is the same for every call (the modules, the
grammars' tables) and nothing of any call: each child takes one client's working directory,
environment, umask and argv, decides in them with the command function it was given, answers and
exits, so no call sees another's environment, descriptors or memos, and a key in one client's
environment dies with that child. A child answers only a peer that runs as this user, in this
mount and user namespace, under the same root, with the same ids, groups, capabilities and
security label and neither no_new_privs nor seccomp (either may mean a sandbox this process does
not share: `_wire.same_context`, which each client holds its server to as well), and only
while every file of the code it has loaded is as it was at its start; else it says so and the
client decides in-process (a changed file also ends the server). The server logs nothing, runs no
program itself, and ends after `idle` seconds without a call or when its socket is replaced.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import gc
import io
import os
import select
import signal
import socket
import sys
from collections.abc import Callable
from typing import NamedTuple, TextIO

from ._wire import MAX_MESSAGE, context, fingerprint, join_fields, owned_private, same_context, split_fields

__all__ = ["Decide", "code_manifest", "serve"]

# A command function: argv (the command's words, its name first), stdin, stdout, stderr -> exit status.
Decide = Callable[[list[str], TextIO, TextIO, TextIO], int]

STALE = 3  # a child's exit status: a file of the loaded code changed, and the server ends
_MAX_CHILDREN = 32
_READ_SECONDS = 10.0  # a client sends its whole call at once
_CALM = 1.0  # the longest the next spare waits for the call before it to be answered

Manifest = tuple[tuple[str, tuple[int, ...] | None], ...]


def _identity(path: str) -> tuple[int, ...] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def code_manifest(package: str) -> Manifest:
    """What the code is now: every file and directory of the package (its data, and a module not
    loaded yet; compiled bytecode left out, Python checks it against its source), and every other
    directory a loaded module's file is in (an installer replaces a file, so its directory changes)."""
    paths = {
        os.path.dirname(f)
        for m in list(sys.modules.values())
        if isinstance(f := getattr(m, "__file__", None), str) and not f.startswith(package + os.sep)
    }
    for top, dirs, files in os.walk(package):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        paths.add(top)
        paths.update(os.path.join(top, f) for f in files)
    return tuple((p, _identity(p)) for p in sorted(paths))


class _Stream(io.BytesIO):
    def __init__(self, data: bytes, tty: bool) -> None:
        super().__init__(data)
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def _receive(conn: socket.socket) -> tuple[list[bytes], int] | None:
    """The client's call and the descriptor of its working directory, or None."""
    data, fds, flags, _ = conn.recvmsg(65536, socket.CMSG_SPACE(4 * 4))
    received = [
        int.from_bytes(d[i : i + 4], sys.byteorder)
        for level, kind, d in fds
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS
        for i in range(0, len(d) - len(d) % 4, 4)
    ]
    chunks = [data]
    size = len(data)
    while data and size <= MAX_MESSAGE:
        data = conn.recv(1 << 20)
        chunks.append(data)
        size += len(data)
    fields = split_fields(b"".join(chunks), 6)
    if fields is None or len(received) != 1 or flags & socket.MSG_CTRUNC or size > MAX_MESSAGE:
        for fd in received:
            os.close(fd)
        return None
    return fields, received[0]


def _decide(fields: list[bytes], cwd: int, decide: Decide) -> bytes:
    """Decide in the client's directory, environment and umask, with its streams' encodings."""
    words, env, stdin, stdio, umask = fields[1:]
    os.fchdir(cwd)
    os.close(cwd)
    os.environ.clear()
    for item in env.split(b"\0") if env else ():
        name, _, value = item.partition(b"=")
        os.environb[name] = value
    os.umask(int(umask))
    parts = stdio.decode("utf-8", "surrogateescape").split("\0")
    argv = [os.fsdecode(w) for w in words.split(b"\0")]
    streams = []
    for i, data in enumerate((stdin, b"", b"")):
        raw = _Stream(data, parts[3 * i + 2] == "1")
        streams.append(io.TextIOWrapper(raw, encoding=parts[3 * i], errors=parts[3 * i + 1], newline="\n"))
    sys.stdin, sys.stdout, sys.stderr = streams
    sys.argv = ["bastion", *argv]
    code = decide(argv, *streams)
    out: list[bytes] = []
    for stream in streams[1:]:
        stream.flush()
        raw = stream.buffer
        assert isinstance(raw, _Stream)
        out.append(raw.getvalue())
    return join_fields(b"ok", str(code).encode(), *out)


def _child(conn: socket.socket, served: _Served) -> int:
    conn.settimeout(_READ_SECONDS)
    cred = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    pid, uid = int.from_bytes(cred[0:4], sys.byteorder), int.from_bytes(cred[4:8], sys.byteorder)
    if uid != os.getuid():
        return 0
    conn.sendall(join_fields(served.print_))
    got = _receive(conn)
    if got is None:
        return 0
    fields, cwd = got
    no = join_fields(b"no", b"", b"", b"")
    if fields[0] != served.print_ or not same_context(pid, served.own):
        os.close(cwd)
        conn.sendall(no)
        return 0
    if any(_identity(path) != ident for path, ident in served.manifest):
        os.close(cwd)
        conn.sendall(no)
        return STALE
    try:
        answer = _decide(fields, cwd, served.decide)
    except BaseException:  # whatever the process would do with it (a traceback, an exit), it does itself
        answer = no
    conn.sendall(answer)
    return 0


def _ready(path: str) -> tuple[socket.socket, int] | None:
    """The listening socket at `path` and the lock that makes it this server's, or None when the
    directory is not private or another server holds the lock."""
    home = os.path.dirname(path)
    with contextlib.suppress(OSError):
        os.makedirs(home, 0o700)  # $HOME/.bastion too, when that is where it is
    if not owned_private(home):
        return None
    lock = os.open(path + ".lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(lock)
        return None
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)  # a socket left by a server that ended
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        listener.bind(path)
    finally:
        os.umask(old)
    listener.listen(64)
    return listener, lock


def _reap(children: set[int]) -> bool:
    """Collect the children that ended; True when one found the code changed."""
    stale = False
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            children.clear()
            break
        if pid == 0:
            break
        children.discard(pid)
        stale |= os.waitstatus_to_exitcode(status) == STALE
    return stale


class _Served(NamedTuple):
    """What every child answers with: the fingerprint, the code as it was, the server's own status
    lines, the command function and what a spare child does before it waits."""

    print_: bytes
    manifest: Manifest
    own: dict[str, str] | None
    decide: Decide
    warm: Callable[[], object]


_PR_SET_PDEATHSIG = 1


def _spare(listener: socket.socket, lock: int, took: int, served: _Served, parent: int) -> int:
    """A child that waits for the next call (so a call does not wait for a fork): it warms what is
    pure, accepts, tells the parent (a byte on `took`) and answers. It dies with the server
    (PR_SET_PDEATHSIG: a server killed, even with SIGKILL, leaves no spare waiting in accept for
    ever on a socket nobody will reach again), and at once if the server is already gone."""
    status = 1
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            return status
        os.close(lock)
        served.warm()
        listener.settimeout(None)
        conn, _ = listener.accept()
        listener.close()
        os.write(took, b".")
        status = _child(conn, served)
    finally:
        os._exit(status)


def _after(listener: socket.socket, serving: int) -> None:
    """Until the child that took the last call has answered and ended, or another call waits at
    the socket (at most _CALM seconds): the next spare's fork and warming (which may start git) do
    not take a core from the call being answered."""
    if not serving:
        return
    try:
        ended = os.pidfd_open(serving)
    except (OSError, AttributeError):  # gone already, or no pidfd here: fork at once, as before
        return
    try:
        select.select([ended, listener.fileno()], [], [], _CALM)
    finally:
        os.close(ended)


def serve(
    path: str, idle: float, expected: bytes, package: str, version: str, decide: Decide,
    warm: Callable[[], object] = lambda: None,
) -> int:  # fmt: skip
    """Serve calls at `path` until idle for `idle` seconds. `expected` is the fingerprint the
    client that started this server computed; when this process's differs, a marker beside the
    socket tells clients not to start another for it. One spare child waits in accept at a time."""
    print_ = fingerprint(version, package, sys.path)
    if print_ != expected:
        if owned_private(os.path.dirname(path)):
            with contextlib.suppress(OSError):
                os.close(
                    os.open(path + ".none", os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK, 0o600)
                )
        return 1
    ready = _ready(path)
    if ready is None:
        return 0
    listener, lock = ready
    ident = os.lstat(path).st_ino
    served = _Served(print_, code_manifest(package), context("self"), decide, warm)
    gc.freeze()  # the children then leave the parent's objects' pages unwritten by the collector
    children: set[int] = set()
    server = os.getpid()
    spare = serving = 0
    took, tell = os.pipe()
    try:
        while True:
            while len(children) >= _MAX_CHILDREN:  # each busy with a call: wait for one to end
                pid, status = os.waitpid(-1, 0)
                children.discard(pid)
                if os.waitstatus_to_exitcode(status) == STALE:
                    return 0
            if not spare:
                _after(listener, serving)
                spare = os.fork()
                if spare == 0:
                    os.close(took)
                    _spare(listener, lock, tell, served, server)
                children.add(spare)
            woke, _, _ = select.select([took], [], [], idle)
            if not woke:
                break  # idle
            if os.read(took, 1):
                serving, spare = spare, 0
            if _reap(children) or _replaced(path, ident):
                break
            serving = serving if serving in children else 0  # reaped: its pid may be another's now
    finally:
        if spare:
            with contextlib.suppress(OSError):
                os.kill(spare, signal.SIGTERM)
                os.waitpid(spare, 0)
        with contextlib.suppress(OSError):
            if os.lstat(path).st_ino == ident:
                os.unlink(path)
        listener.close()
        os.close(lock)
        os.close(took)
        os.close(tell)
    return 0


def _replaced(path: str, ident: int) -> bool:
    try:
        return os.lstat(path).st_ino != ident
    except OSError:
        return True
