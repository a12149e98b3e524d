"""Following a name through the workspace as the kernel would: the one walk every check uses.

`walk` takes a root-relative name one component at a time, reading each link through the
workspace (at most 40) and taking `..` from where the previous component really is. The path
checks, the facts a stamp binds and the files a redirect opens all judge a name by this walk.
"""

from __future__ import annotations

import os
import posixpath
import stat
from typing import NamedTuple

from ._workspace import Workspace

__all__ = ["MAX_LINK_HOPS", "Walk", "root_relative", "walk"]

MAX_LINK_HOPS = 40


class Walk(NamedTuple):
    """Where a name leads.

    `state` is "found" (`real` is the link-free root-relative name, `st` its lstat), "absent"
    (`real` is the missing name with the rest of the way, normalised; `climbs` when that rest
    holds a `..`), "outside" (a `..` or a link led out of the root), "loop" (more than 40 links),
    "not-a-directory" (`real` is the file met on the way) or "unreadable" (`detail` says why).
    `chain` lists every link met, as (link, target)."""

    state: str
    real: str = ""
    chain: tuple[tuple[str, str], ...] = ()
    st: os.stat_result | None = None
    climbs: bool = False
    detail: str = ""


def root_relative(ws: Workspace, absolute: str) -> str | None:
    """The root-relative name of an absolute path inside the root (as given or resolved), or None."""
    absolute = posixpath.normpath(absolute)
    for root in (ws.root, ws.real_root):
        root = root.rstrip("/")
        if absolute == (root or "/"):
            return "."
        if absolute.startswith(root + "/"):
            return absolute[len(root) + 1 :]
    return None


def walk(ws: Workspace, name: str) -> Walk:
    """Follow the root-relative `name` (which may hold `..`) from the root."""
    pending = name.split("/")
    if "" not in pending and "." not in pending and ".." not in pending:
        # Most names have no link on the way: one lstat settles them, since the workspace refuses a
        # link or a file where a directory must be. Anything else takes the walk below.
        try:
            st = ws.lstat(name)
        except OSError:
            pass
        else:
            if not stat.S_ISLNK(st.st_mode):
                return Walk("found", name, (), st=st)
    real: list[str] = []
    chain: list[tuple[str, str]] = []
    last: tuple[str, os.stat_result] | None = None  # the name lstat'ed last, and what it gave
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not real:
                return Walk("outside", chain=tuple(chain))
            real.pop()
            continue
        candidate = "/".join([*real, part])
        try:
            st = ws.lstat(candidate)
        except FileNotFoundError:
            rest = [p for p in pending if p not in ("", ".")]
            missing = posixpath.normpath("/".join([candidate, *rest]))
            return Walk("absent", missing, tuple(chain), climbs=".." in rest)
        except OSError as err:
            return Walk("unreadable", candidate, tuple(chain), detail=str(err.strerror or err))
        if stat.S_ISLNK(st.st_mode):
            if len(chain) >= MAX_LINK_HOPS:
                return Walk("loop", candidate, tuple(chain))
            try:
                target = ws.readlink(candidate)
            except OSError as err:
                return Walk("unreadable", candidate, tuple(chain), detail=f"the link cannot be read ({err})")
            chain.append((candidate, target))
            if target.startswith("/"):
                inside = root_relative(ws, target)
                if inside is None:
                    return Walk("outside", candidate, tuple(chain))
                real = []
                target = inside
            pending = target.split("/") + pending
            continue
        if pending and not stat.S_ISDIR(st.st_mode):
            return Walk("not-a-directory", candidate, tuple(chain))
        real.append(part)
        last = (candidate, st)
    where = "/".join(real) or "."
    if last is not None and last[0] == where:
        return Walk("found", where, tuple(chain), st=last[1])
    try:
        return Walk("found", where, tuple(chain), st=ws.lstat(where))
    except OSError as err:
        return Walk("unreadable", where, tuple(chain), detail=str(err.strerror or err))
