"""Path arguments: inside the working directory with links resolved, and no `..` at all.

`resolve` follows a path with the workspace's one walk (`_walk.walk`: each link as the kernel
would, at most 40), so a name is judged by where it really leads. A component that does not exist
yet is judged by its existing parent.
"""

from __future__ import annotations

import posixpath
import re
import stat
from typing import NamedTuple

from ._walk import MAX_LINK_HOPS, root_relative, walk
from ._workspace import Workspace

__all__ = ["MAX_LINK_HOPS", "Resolved", "join", "resolve"]


class Resolved(NamedTuple):
    """A path argument, judged.

    `name` is the lexical name relative to the root ("." for the root); `real` is where it leads,
    relative to the root, with every link resolved; `mode` and `size` are what its lstat gave.
    `why` is empty when the path is acceptable, else one sentence saying which escape it closes."""

    raw: str
    name: str
    real: str
    exists: bool
    mode: int
    why: str
    size: int = 0

    @property
    def ok(self) -> bool:
        return not self.why

    @property
    def is_regular(self) -> bool:
        return self.exists and stat.S_ISREG(self.mode)

    @property
    def is_dir(self) -> bool:
        return self.exists and stat.S_ISDIR(self.mode)


# A relative name that is already normal: no empty, `.` or `..` component, no trailing `/`.
_PLAIN = re.compile(r"(?!\.{1,2}(?:/|$))[^/]+(?:/(?!\.{1,2}(?:/|$))[^/]+)*")


def join(cwd: str, name: str) -> str:
    """A root-relative name: `name` (no `..` in it) taken from the root-relative `cwd`."""
    if cwd == "." and _PLAIN.fullmatch(name):
        return name
    joined = posixpath.normpath(posixpath.join(cwd, name))
    return "." if joined in ("", ".") else joined


def _refuse(raw: str, name: str, why: str) -> Resolved:
    return Resolved(raw, name, "", False, 0, why)


def resolve(ws: Workspace, cwd: str, raw: str) -> Resolved:
    """Judge the path argument `raw` given in the root-relative directory `cwd`."""
    if raw == "":
        return _refuse(raw, "", "an empty path names nothing")
    if raw.startswith("~"):
        return _refuse(raw, raw, f"{raw!r} starts with ~, which names a home directory, not the workspace")
    if ".." in raw.split("/"):
        return _refuse(raw, raw, f"{raw!r} has a .. component, which the kernel resolves through links")
    if "\x00" in raw:
        return _refuse(raw, raw, "a path cannot hold a NUL byte")
    if raw.startswith("/"):
        rel = root_relative(ws, raw)
        if rel is None:
            return _refuse(raw, raw, f"{raw!r} is outside the working directory")
        name = rel
    else:
        name = join(cwd, raw)
    return _judge(ws, raw, name)


def _judge(ws: Workspace, raw: str, name: str) -> Resolved:
    w = walk(ws, name)
    if w.state == "found" and w.st is not None:
        return Resolved(raw, name, w.real, True, w.st.st_mode, "", w.st.st_size)
    if w.state == "absent" and not w.climbs:
        return Resolved(raw, name, w.real, False, 0, "")
    why = {
        "absent": f"{raw!r} leads through a missing directory and then .., which could climb out once "
        "the directory exists",
        "outside": f"{raw!r} leads out of the working directory through a link",
        "loop": f"{raw!r} has more than {MAX_LINK_HOPS} links on its way",
        "not-a-directory": f"{raw!r}: {w.real!r} is not a directory",
    }.get(w.state, f"{raw!r} cannot be followed in the workspace ({w.detail})")
    return _refuse(raw, name, why)
