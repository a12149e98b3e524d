"""Path arguments: inside the working directory with links resolved, and no `..` at all.

`resolve` walks a path one component at a time through the workspace, following each link as the
kernel would (at most 40), so a name is judged by where it really leads. A component that does not
exist yet is judged by its existing parent.
"""

from __future__ import annotations

import posixpath
import stat
from dataclasses import dataclass

from ._workspace import Workspace, WorkspaceError

__all__ = ["MAX_LINK_HOPS", "Resolved", "join", "resolve"]

MAX_LINK_HOPS = 40


@dataclass(frozen=True, slots=True)
class Resolved:
    """A path argument, judged.

    `name` is the lexical name relative to the root ("." for the root); `real` is where it leads,
    relative to the root, with every link resolved. `why` is empty when the path is acceptable,
    else one sentence saying which escape it closes."""

    raw: str
    name: str
    real: str
    exists: bool
    mode: int
    why: str

    @property
    def ok(self) -> bool:
        return not self.why

    @property
    def is_regular(self) -> bool:
        return self.exists and stat.S_ISREG(self.mode)

    @property
    def is_dir(self) -> bool:
        return self.exists and stat.S_ISDIR(self.mode)


def join(cwd: str, name: str) -> str:
    """A root-relative name: `name` (no `..` in it) taken from the root-relative `cwd`."""
    joined = posixpath.normpath(posixpath.join(cwd, name))
    return "." if joined in ("", ".") else joined


def _relative_to_root(ws: Workspace, absolute: str) -> str | None:
    absolute = posixpath.normpath(absolute)
    for root in (ws.root, ws.real_root):
        if absolute == root:
            return "."
        if absolute.startswith(root.rstrip("/") + "/"):
            return absolute[len(root.rstrip("/")) + 1 :]
    return None


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
        rel = _relative_to_root(ws, raw)
        if rel is None:
            return _refuse(raw, raw, f"{raw!r} is outside the working directory")
        name = rel
    else:
        name = join(cwd, raw)
    return _walk(ws, raw, name)


def _walk(ws: Workspace, raw: str, name: str) -> Resolved:
    pending = [] if name == "." else name.split("/")
    real: list[str] = []
    hops = 0
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not real:
                return _refuse(raw, name, f"{raw!r} leads out of the working directory through a link")
            real.pop()
            continue
        candidate = "/".join([*real, part])
        try:
            st = ws.lstat(candidate)
        except FileNotFoundError:
            # A missing directory on the way: the rest cannot exist either. A `..` after it (from
            # a link's target) would climb from wherever that directory later appears.
            rest = [p for p in pending if p not in ("", ".")]
            if ".." in rest:
                return _refuse(raw, name, f"{raw!r} leads through a missing directory and then .., "
                               "which could climb out once the directory exists")
            return Resolved(raw, name, "/".join([candidate, *rest]), False, 0, "")
        except (WorkspaceError, OSError) as err:
            return _refuse(raw, name, f"{raw!r} cannot be followed in the workspace ({err.strerror or err})")
        if stat.S_ISLNK(st.st_mode):
            hops += 1
            if hops > MAX_LINK_HOPS:
                return _refuse(raw, name, f"{raw!r} has more than {MAX_LINK_HOPS} links on its way")
            try:
                target = ws.readlink(candidate)
            except OSError as err:
                return _refuse(raw, name, f"the link {candidate!r} cannot be read ({err.strerror or err})")
            if target.startswith("/"):
                rel = _relative_to_root(ws, target)
                if rel is None:
                    return _refuse(raw, name, f"{raw!r} leads out of the working directory through a link")
                real = []
                pending = ([] if rel == "." else rel.split("/")) + pending
            else:
                pending = target.split("/") + pending
            continue
        if pending and not stat.S_ISDIR(st.st_mode):
            return _refuse(raw, name, f"{raw!r}: {candidate!r} is not a directory")
        real.append(part)
    real_name = "/".join(real) or "."
    try:
        mode = ws.lstat(real_name).st_mode
    except OSError as err:
        return _refuse(raw, name, f"{raw!r} cannot be read in the workspace ({err.strerror or err})")
    return Resolved(raw, name, real_name, True, mode, "")
