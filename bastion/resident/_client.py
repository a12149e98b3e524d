"""The client: one call handed to this user's resident server, or None (decide in-process).

It imports os, sys, time and _socket (socket.py would bring selectors and enum). Its module search
path must be wholly absolute (bastion's command starts Python isolated: no PYTHONPATH entry, no
current directory): the server is started with it. Before it sends anything it checks, without
following links, that the socket's directory is this user's with mode 0700 and the socket is a
socket of this user's; once connected, that the peer runs as this user in this process's context
(SO_PEERCRED's pid held to the test the server holds its clients to: the same namespaces, root,
ids, groups, capabilities and security label, and no sandbox on either side) and greets with this
installation's fingerprint. Only then does it send the call and what it is decided in: argv, the
whole environment, standard input's bytes, the streams' encodings, the umask, and the working
directory as a descriptor (SCM_RIGHTS). An answer is used only when it is whole and well-formed;
anything else is None, and nothing has been printed.
No server there: one is started (detached, its output to /dev/null) for the next call.
"""

from __future__ import annotations

import _socket
import os
import sys
import time

from ._wire import (
    MAX_MESSAGE,
    context,
    fingerprint,
    join_fields,
    owned_private,
    same_context,
    socket_path,
    split_fields,
)  # fmt: skip

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["IDLE_SECONDS", "Answer", "ask_server", "read_stdin", "replay_stdin"]

# The server's hello: it has only to fork. A decision: a git probe may take its own 10 s.
HELLO_SECONDS = 2.0
ANSWER_SECONDS = 30.0
# A server ends after this long without a call (BASTION_SERVER_IDLE sets it, in seconds).
IDLE_SECONDS = 300.0
# The most of a hook's input sent to the server; a longer one is decided in-process.
STDIN_BYTES = 8 << 20

Answer = tuple[int, bytes, bytes]  # exit status, standard output's bytes, standard error's

# The server's start: isolated (-I: no PYTHON* variable, no script directory or cwd on sys.path),
# every inherited descriptor closed, out of the client's directory, the client's module search path
# (absolute entries only), then the server's loop.
_START = """\
import os, sys
os.closerange(3, 1 << 20)
os.chdir("/")
if not all(p.startswith("/") for p in sys.argv[4:]):
    sys.exit(1)
sys.path[:] = sys.argv[4:]
from bastion.cli import serve_main
sys.exit(serve_main(sys.argv[1], sys.argv[2], sys.argv[3]))
"""
# What the interpreter fixes from the environment at its start (the file names' encoding).
_LOCALE = ("LANG", "LC_ALL", "LC_CTYPE")


def _stdio() -> bytes | None:
    parts: list[str] = []
    for fd, stream in enumerate((sys.stdin, sys.stdout, sys.stderr)):
        if stream is None or not isinstance(getattr(stream, "encoding", None), str):
            return None
        parts += [stream.encoding, str(stream.errors), "1" if os.isatty(fd) else "0"]
    return "\0".join(parts).encode("utf-8", "surrogateescape")


def _umask() -> bytes:
    mask = os.umask(0o077)
    os.umask(mask)
    return str(mask).encode()


def _read(sock: _socket.socket, deadline: float, exactly: int = -1) -> bytes:
    """The bytes until EOF (or exactly `exactly` of them, or fewer at EOF); TimeoutError past the deadline."""
    chunks: list[bytes] = []
    got = 0
    while exactly < 0 or got < exactly:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the server did not answer in time")
        sock.settimeout(left)
        chunk = sock.recv(65536 if exactly < 0 else min(65536, exactly - got))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
        if got > MAX_MESSAGE:
            raise OSError("the server's answer is too long")
    return b"".join(chunks)


def _start(path: str, print_: bytes, idle: str) -> int:
    """Start a server for `path`, detached (its own session, /dev/null for its streams), with the
    locale's variables only; a marker beside the socket says none can be made for this fingerprint.
    The server's process id, 0 when none was started."""
    if os.path.lexists(path + ".none"):
        return 0
    argv = [sys.executable, "-I", "-X", f"utf8={sys.flags.utf8_mode}", *["-O"] * sys.flags.optimize]
    env = {name: os.environ[name] for name in _LOCALE if name in os.environ}
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_DUP2, 1, 2),
    ]
    try:
        return os.posix_spawn(
            sys.executable, [*argv, "-c", _START, path, idle, print_.hex(), *sys.path], env,
            file_actions=actions, setsid=True,
        )  # fmt: skip
    except OSError:
        return 0  # no server: every call is decided in-process, as without one


def _exchange(sock: _socket.socket, path: str, print_: bytes, request: Sequence[bytes]) -> Answer | None:
    deadline = time.monotonic() + HELLO_SECONDS
    sock.settimeout(HELLO_SECONDS)
    sock.connect(path)
    cred = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
    if int.from_bytes(cred[4:8], sys.byteorder) != os.getuid():
        return None
    if not same_context(int.from_bytes(cred[0:4], sys.byteorder), context("self")):
        return None
    hello = join_fields(print_)
    if _read(sock, deadline, len(hello)) != hello:
        return None
    data = join_fields(print_, *request)
    deadline = time.monotonic() + ANSWER_SECONDS
    sock.settimeout(ANSWER_SECONDS)
    cwd = os.open(".", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        rights = [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, cwd.to_bytes(4, sys.byteorder))]
        sent = sock.sendmsg([data], rights)
    finally:
        os.close(cwd)
    sock.sendall(data[sent:])
    sock.shutdown(_socket.SHUT_WR)
    fields = split_fields(_read(sock, deadline), 4)
    if fields is None or fields[0] != b"ok" or not fields[1].isdigit() or len(fields[1]) > 3:
        return None
    return int(fields[1]), fields[2], fields[3]


def ask_server(argv: Sequence[str], stdin: bytes, version: str, package: str) -> Answer | None:
    """The server's answer to the command `argv` with `stdin` as its input, in this process's cwd
    and environment; None when there is no usable server (one is started when there is none)."""
    if not all(p.startswith("/") for p in sys.path):
        return None  # a relative entry (the current directory's ""): never handed to a server
    print_ = fingerprint(version, package, sys.path)
    path = socket_path(print_)
    if path is None:
        return None
    idle = os.environ.get("BASTION_SERVER_IDLE") or str(IDLE_SECONDS)
    if not owned_private(os.path.dirname(path)):
        if not os.path.lexists(os.path.dirname(path)):
            _start(path, print_, idle)  # it makes the directory
        return None
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        _start(path, print_, idle)
        return None
    except OSError:
        return None
    if (st.st_mode & 0o170000) != 0o140000 or st.st_uid != os.getuid():
        return None
    stdio = _stdio()
    if stdio is None:
        return None
    env = b"\0".join(k + b"=" + v for k, v in os.environb.items())
    words = b"\0".join(os.fsencode(a) for a in argv)
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM | _socket.SOCK_CLOEXEC)
    try:
        return _exchange(sock, path, print_, (words, env, stdin, stdio, _umask()))
    except ConnectionRefusedError:
        _start(path, print_, idle)  # a socket left by a server that ended: a new one replaces it
        return None
    except (OSError, ValueError):
        return None
    finally:
        sock.close()


def replay_stdin(head: bytes) -> None:
    """Standard input as it was before the client read `head` off it: sys.stdin reads those bytes,
    then the rest of descriptor 0, decoded as Python's own stdin decodes (newlines kept)."""
    import io

    class Replay(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
            nonlocal head
            data = head[: len(buffer)] if head else os.read(0, len(buffer))
            head = head[len(data) :]
            buffer[: len(data)] = data
            return len(data)

    old = sys.stdin
    sys.stdin = io.TextIOWrapper(
        io.BufferedReader(Replay()), encoding=old.encoding, errors=old.errors, newline="\n"
    )


def read_stdin(limit: int = STDIN_BYTES) -> tuple[bytes, bool]:
    """Descriptor 0's bytes up to `limit`, and whether its end was reached (an error: not)."""
    chunks: list[bytes] = []
    got = 0
    try:
        while got < limit:
            chunk = os.read(0, min(1 << 20, limit - got))
            if not chunk:
                return b"".join(chunks), True
            chunks.append(chunk)
            got += len(chunk)
    except OSError:
        pass
    return b"".join(chunks), False
