"""The executor's protocol: one JSON object a line, each way, over the pipe to `bastion execute`.

The executor speaks first, a hello naming the protocol's version, its bastion's version, the
workspace (kind, ref, root, real root), the environment its commands get (credentials already
removed there) and its kernel's Landlock ABI. Then the session sends requests, `{"id": N, "op":
"lstat", ...}`, and the executor answers each with `{"id": N, "ok": VALUE}` or `{"id": N, "error":
{"errno", "kind", "message"}}`; a command's output comes before its answer as `{"id": N, "output":
BASE64}`, and `{"op": "cancel", "target": N}` stops it. Bytes travel as base64, a stat as its ten
integers (times in nanoseconds), names as JSON strings (a name that is not UTF-8 keeps its bytes as
surrogate escapes). A frame past MAX_FRAME, a cut frame, or one of another shape is a ProtocolError.
"""

from __future__ import annotations

import base64
import binascii
import errno
import json
import os
from typing import IO, Any

from ._gitdir import GitDirScan
from ._workspace import FactsChanged, WorkspaceError

__all__ = [
    "MAX_FRAME",
    "PROTOCOL",
    "ExecutorLost",
    "ProtocolError",
    "error_in",
    "error_out",
    "field",
    "from_b64",
    "read_frame",
    "scan_in",
    "scan_out",
    "stat_in",
    "stat_out",
    "to_b64",
    "write_frame",
]

PROTOCOL = 1
MAX_FRAME = 64 << 20
_NS = 1_000_000_000


class ProtocolError(WorkspaceError):
    """A frame that is not what the protocol says: cut, too long, not JSON, or of another shape."""


class ExecutorLost(WorkspaceError):
    """The executor is gone (its pipe closed), stalled past the bound, or broke the protocol: the
    call fails, and so does every later one (there is no fallback to this machine)."""


def write_frame(stream: IO[bytes], message: dict[str, Any]) -> None:
    data = json.dumps(message, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n"
    if len(data) > MAX_FRAME:
        raise ProtocolError(errno.EMSGSIZE, f"a frame of {len(data)} bytes is past the bound of {MAX_FRAME}")
    stream.write(data)
    stream.flush()


def read_frame(stream: IO[bytes], who: str) -> dict[str, Any] | None:
    """The next frame from `who` (for the error's words); None at the end of the stream."""
    line = stream.readline(MAX_FRAME + 1)
    if not line:
        return None
    if not line.endswith(b"\n"):
        if len(line) > MAX_FRAME:
            raise ProtocolError(errno.EMSGSIZE, f"{who} sent a frame longer than {MAX_FRAME} bytes")
        raise ProtocolError(errno.EPROTO, f"{who}'s stream ended in the middle of a frame")
    try:
        message = json.loads(line)
    except ValueError as err:
        raise ProtocolError(errno.EPROTO, f"{who} sent a frame that is not JSON ({err})") from None
    if not isinstance(message, dict):
        raise ProtocolError(errno.EPROTO, f"{who} sent a frame that is not a JSON object")
    return message


def field(message: dict[str, Any], name: str, kind: type | tuple[type, ...], what: str) -> Any:
    """`message[name]`, which must be of `kind` (None allowed only when kind says so); `what` names
    the frame in the error."""
    value = message.get(name)
    if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        value = None  # JSON's true is no integer here
    if value is None and not (isinstance(kind, tuple) and type(None) in kind):
        raise ProtocolError(errno.EPROTO, f"{what}: the field {name!r} is missing or not {_named(kind)}")
    if not isinstance(value, kind):
        raise ProtocolError(errno.EPROTO, f"{what}: the field {name!r} is not {_named(kind)}")
    return value


def _named(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {
        str: "a string",
        int: "an integer",
        float: "a number",
        bool: "true or false",
        list: "a list",
        dict: "an object",
        type(None): "null",
    }
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def to_b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def from_b64(value: object, what: str) -> bytes:
    if not isinstance(value, str):
        raise ProtocolError(errno.EPROTO, f"{what}: bytes must come as a base64 string")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ProtocolError(errno.EPROTO, f"{what}: the bytes are not valid base64") from None


def stat_out(st: os.stat_result) -> list[int]:
    return [
        st.st_mode,
        st.st_ino,
        st.st_dev,
        st.st_nlink,
        st.st_uid,
        st.st_gid,
        st.st_size,
        st.st_atime_ns,
        st.st_mtime_ns,
        st.st_ctime_ns,
    ]


def stat_in(value: object, what: str) -> os.stat_result:
    if not isinstance(value, list) or len(value) != 10 or not all(type(v) is int for v in value):
        raise ProtocolError(errno.EPROTO, f"{what}: a stat must be ten integers")
    *head, atime, mtime, ctime = value
    seconds = [t // _NS for t in (atime, mtime, ctime)]
    return os.stat_result((*head, *seconds, *(t / _NS for t in (atime, mtime, ctime)), atime, mtime, ctime))


def scan_out(scan: GitDirScan) -> dict[str, Any]:
    return {
        "problem": scan.problem,
        "read": [[p, stat_out(st)] for p, st in scan.read],
        "configs": list(scan.configs),
    }


def scan_in(value: object, what: str) -> GitDirScan:
    if not isinstance(value, dict):
        raise ProtocolError(errno.EPROTO, f"{what}: a git directory's walk must be an object")
    read = field(value, "read", list, what)
    pairs = []
    for pair in read:
        if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[0], str):
            raise ProtocolError(errno.EPROTO, f"{what}: each place read must be [path, stat]")
        pairs.append((pair[0], stat_in(pair[1], what)))
    configs = field(value, "configs", list, what)
    if not all(isinstance(c, str) for c in configs):
        raise ProtocolError(errno.EPROTO, f"{what}: the configs must be strings")
    return GitDirScan(field(value, "problem", str, what), tuple(pairs), tuple(configs))


# An error's kind, as it crosses: the workspace's refusal, facts that changed, or the system's.
_KINDS: dict[str, type[OSError]] = {"changed": FactsChanged, "workspace": WorkspaceError}


def error_out(err: OSError) -> dict[str, Any]:
    kind = (
        "changed"
        if isinstance(err, FactsChanged)
        else "workspace"
        if isinstance(err, WorkspaceError)
        else "os"
    )
    return {"errno": err.errno or 0, "kind": kind, "message": err.strerror or str(err)}


def error_in(value: object, what: str) -> OSError:
    """The error an answer carries, as the same exception class (OSError picks the subclass of an
    errno: ENOENT is FileNotFoundError)."""
    if not isinstance(value, dict):
        raise ProtocolError(errno.EPROTO, f"{what}: an error must be an object")
    number = field(value, "errno", int, what)
    message = field(value, "message", str, what)
    kind = field(value, "kind", str, what)
    if kind == "os":
        return OSError(number, message)
    if kind not in _KINDS:
        raise ProtocolError(errno.EPROTO, f"{what}: an error of unknown kind {kind!r}")
    return _KINDS[kind](number, message)
