"""Facts: what a decision rested on, read through the workspace, and their canonical encoding.

A name's identity is the chain of links met on its way from the root (each link's name and
target) and what it ends at: absent, outside, or an entry's type and (for a plan) its device,
inode, and for a regular file its size and modification time. Directories leave out size and
time, so a file created beside a plan's reads does not change the plan's facts.
"""

from __future__ import annotations

import posixpath
import stat
from collections.abc import Iterable

from .._errors import BastionError
from ..workspace import Workspace, root_relative, walk
from ._programs import program_identity
from ._result import Analysis
from .git._probe import git_fingerprint

__all__ = ["Fact", "FactError", "encode", "identity", "line_facts", "path_facts", "plan_facts"]

Fact = str | int | None | tuple["Fact", ...]


class FactError(OSError, BastionError):
    """A fact that cannot be read: the decision cannot be bound, so it must not stand."""


def encode(value: Fact) -> bytes:
    """An injective encoding: every string and tuple is length-prefixed and typed."""
    if value is None:
        return b"n"
    if isinstance(value, bool):
        raise TypeError("a fact is never a bool")
    if isinstance(value, int):
        return b"i%d;" % value
    if isinstance(value, str):
        data = value.encode("utf-8", "surrogateescape")
        return b"s%d:" % len(data) + data
    return b"t%d:" % len(value) + b"".join(encode(v) for v in value)


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISREG, "file"),
        (stat.S_ISDIR, "dir"),
        (stat.S_ISLNK, "link"),
        (stat.S_ISFIFO, "fifo"),
        (stat.S_ISCHR, "char-device"),
        (stat.S_ISBLK, "block-device"),
        (stat.S_ISSOCK, "socket"),
    ):
        if test(mode):
            return name
    return "other"


def _root_relative(ws: Workspace, cwd: str, raw: str) -> str | None:
    if raw.startswith("/"):
        return root_relative(ws, raw)
    if ".." in raw.split("/") or "\x00" in raw:
        return None
    return posixpath.normpath(posixpath.join(cwd, raw))


def identity(ws: Workspace, raw: str, cwd: str = ".", *, full: bool = True) -> Fact:
    """Where the name `raw` (taken from the root-relative `cwd`) leads, and what is there."""
    name = _root_relative(ws, cwd, raw)
    if name is None:
        return ("outside", raw)
    w = walk(ws, name)
    if w.state == "unreadable":
        raise FactError(0, f"{raw}: {w.detail}")
    if w.state == "outside":
        return ("outside", raw, w.chain)
    if w.state == "loop":
        return ("loop", w.chain)
    if w.state != "found" or w.st is None:
        return (w.state, w.real, w.chain)
    st = w.st
    kind = _kind(st.st_mode)
    if not full:
        # Whether other hard links share the file: a write tool's call allowed without the question
        # they bring (bastion.policy's hard-linked subject) is refused if one appears before it runs.
        return ("is", w.real, kind, w.chain, "linked" if kind == "file" and st.st_nlink > 1 else "")
    if kind == "file":
        return ("is", w.real, kind, w.chain, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    return ("is", w.real, kind, w.chain, st.st_dev, st.st_ino)


def plan_facts(analysis: Analysis, ws: Workspace) -> Fact:
    """The rendered plan, each stage's directory, reads, listed directories and dependencies, the
    fingerprint of git's configuration for each directory a git stage runs in, and what each
    program the plan starts is (so that a program swapped since the decision refuses)."""
    stages: list[Fact] = []
    for r in analysis.stages:
        stages.append(
            (
                r.position,
                r.stage.text,
                r.cwd,
                identity(ws, r.cwd),
                tuple((n, identity(ws, n)) for n in r.check.reads),
                tuple((n, identity(ws, n)) for n in r.check.lists),
                tuple((n, identity(ws, n)) for n in r.check.depends),
            )
        )
    git = tuple((d, git_fingerprint(ws, d)) for d in analysis.probed)
    programs = tuple((p, program_identity(p)) for p in analysis.programs)
    return (analysis.rendered, tuple(stages), git, programs)


def line_facts(line: str, targets: Iterable[tuple[str, str | None]], ws: Workspace) -> Fact:
    """The line as typed and, for each name its redirects write, where it leads now."""
    bound: list[Fact] = []
    for raw, real in targets:
        bound.append((raw, real, identity(ws, raw), None if real is None else identity(ws, real)))
    return (len(line.encode("utf-8", "surrogateescape")), line, tuple(bound))


def path_facts(tool: str, names: Iterable[str], ws: Workspace, cwd: str = ".") -> Fact:
    """For a file tool: where each of its names leads (not what the file holds). A name that is
    only where another of the names leads adds nothing, so the path argument alone and the path
    with its resolved name give the same facts."""
    found: dict[str, Fact] = {}
    for n in names:
        found[_root_relative(ws, cwd, n) or n] = identity(ws, n, cwd, full=False)
    reached = {
        f[1] for k, f in found.items() if isinstance(f, tuple) and f[0] in ("is", "absent") and f[1] != k
    }
    return (tool, tuple((k, found[k]) for k in sorted(found) if k not in reached))
