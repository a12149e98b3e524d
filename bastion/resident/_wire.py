"""What the client and the server share: the messages, where the socket is, and the fingerprint of
the installation that names it. Standard library only, and only os and sys: the client imports it.

A message is MAGIC followed by fields, each a 4-byte big-endian length and its bytes; nothing may
follow the last field. The exchange, on one Unix stream connection:

    server -> client   MAGIC  fingerprint                      (hello: who answers, before any data)
    client -> server   MAGIC  fingerprint  argv  environ  stdin  stdio  umask   + the cwd's descriptor
    server -> client   MAGIC  status  exit  stdout  stderr                     (status b"ok": answered)

argv and environ are NUL-joined (argv's words, `NAME=value` items); stdio is the encoding and
errors of stdin, stdout and stderr and whether each is a terminal, NUL-joined.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = [
    "MAGIC", "context", "fingerprint", "join_fields", "owned_private", "private_dir", "same_context",
    "socket_path", "split_fields",
]  # fmt: skip

MAGIC = b"bastion-decide/1\n"
# The largest message either side reads: a hook's input is at most 64 MiB of text (audit/_cli.py).
MAX_MESSAGE = 300 << 20


def join_fields(*fields: bytes) -> bytes:
    return MAGIC + b"".join(len(f).to_bytes(4, "big") + f for f in fields)


def split_fields(data: bytes, count: int) -> list[bytes] | None:
    """The `count` fields of a whole message, or None when it is not exactly that."""
    if not data.startswith(MAGIC):
        return None
    fields, at = [], len(MAGIC)
    for _ in range(count):
        if at + 4 > len(data):
            return None
        size = int.from_bytes(data[at : at + 4], "big")
        at += 4
        if at + size > len(data):
            return None
        fields.append(data[at : at + size])
        at += size
    return fields if at == len(data) else None


def fingerprint(version: str, package: str, path: Sequence[str]) -> bytes:
    """What must be the same for the server's answer to be the process's own: bastion's version and
    directory, the interpreter and its version, the module search path (`path`: the client's
    sys.path), and what Python fixed at its start from the locale (file names' encoding, UTF-8 mode)
    and from its flags (-O)."""
    parts = (
        version, package, sys.executable, sys.version, sys.getfilesystemencoding(),
        sys.getfilesystemencodeerrors(), str(sys.flags.utf8_mode), str(sys.flags.optimize), *path,
    )  # fmt: skip
    return "\0".join(parts).encode("utf-8", "surrogateescape")


def _name(data: bytes) -> int:
    """FNV-1a (32 bits), without zlib's or binascii's import: the name only spreads installs over
    sockets; the whole fingerprint is compared at every connection."""
    h = 0x811C9DC5
    for byte in data:
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return h


def private_dir() -> str | None:
    """The directory of this user's sockets, or None (no server): `$XDG_RUNTIME_DIR/bastion` when
    that is an absolute directory of this user's with mode 0700 (as the XDG spec requires), else
    `/run/user/UID/bastion` when that is one, else `$HOME/.bastion/run` (not /tmp, which sandboxes
    let their commands write); never one inside the working directory (a sandbox that lets a
    command write the project lets it write there). Whoever uses it checks it first
    (`owned_private`)."""
    run = os.environ.get("XDG_RUNTIME_DIR", "")
    home = os.environ.get("HOME", "")
    if run.startswith("/") and owned_private(run):
        found = os.path.join(run, "bastion")
    elif owned_private(f"/run/user/{os.getuid()}"):
        found = f"/run/user/{os.getuid()}/bastion"
    elif home.startswith("/"):
        found = os.path.join(home, ".bastion", "run")
    else:
        return None
    found = os.path.normpath(found)
    try:
        here = os.getcwd()
    except OSError:
        return None
    return None if found == here or found.startswith(here.rstrip("/") + "/") else found


def owned_private(path: str) -> bool:
    """Whether `path` is, without following a link, a directory of this user's that only this user
    may enter (mode 0700)."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return (st.st_mode & 0o170777) == 0o040700 and st.st_uid == os.getuid()


def socket_path(print_: bytes) -> str | None:
    """Where the server of the fingerprint `print_` listens; None: nowhere (decide in-process)."""
    home = private_dir()
    return None if home is None else os.path.join(home, f"decide-{_name(print_):08x}.sock")


# The lines of /proc/PID/status that must match between a client and its server.
_STATUS = ("Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp")


def context(pid: str) -> dict[str, str] | None:
    """The context lines of /proc/PID/status (ids, groups, capabilities, no_new_privs, seccomp) and
    the process's security label (/proc/PID/attr/current: AppArmor's or SELinux's, or the error
    reading it gives where no such module is), or None when they cannot be read."""
    try:
        with open(f"/proc/{pid}/status", "rb") as f:  # bytes: a text file would import encodings.ascii
            lines = [line.decode("ascii", "replace").split(":", 1) for line in f]
    except OSError:
        return None
    found = {p[0]: " ".join(p[1].split()) for p in lines if len(p) == 2 and p[0] in _STATUS}
    try:
        with open(f"/proc/{pid}/attr/current", "rb") as f:
            found["label"] = f.read().decode("ascii", "backslashreplace")
    except OSError as err:
        found["label"] = f"errno {err.errno}"
    return found


def same_context(pid: int, own: dict[str, str] | None) -> bool:
    """Whether the process `pid` would decide as this one does: the same mount and user namespaces
    and root, its status lines `own` (this process's: ids, groups, capabilities, security label),
    and no sandbox on either (no_new_privs, seccomp). The server holds each client to it, and each
    client its server."""
    if pid <= 0 or own is None or len(own) != len(_STATUS) + 1:
        return False
    if own["NoNewPrivs"] != "0" or own["Seccomp"] != "0":
        return False
    try:
        for mine, theirs in [(f"/proc/self/ns/{n}", f"/proc/{pid}/ns/{n}") for n in ("mnt", "user")] + [
            ("/", f"/proc/{pid}/root")
        ]:
            a, b = os.stat(mine), os.stat(theirs)
            if (a.st_dev, a.st_ino) != (b.st_dev, b.st_ino):
                return False
    except OSError:
        return False
    return context(str(pid)) == own
