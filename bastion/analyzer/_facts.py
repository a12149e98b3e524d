"""Facts: what a decision rested on, read through the workspace, and their canonical encoding.

A name's identity is the chain of links met on its way from the root (each link's name and
target) and what it ends at: absent, outside, or an entry's type and (for a plan) its device,
inode, and for a regular file its size and modification time. Directories leave out size and
time, so a file created beside a plan's reads does not change the plan's facts.
"""

from __future__ import annotations

import hashlib
import posixpath
import stat
from collections.abc import Iterable

from .._errors import BastionError
from ..workspace import Recheck, Workspace, root_relative, walk
from ._result import Analysis
from .git import git_fingerprint
from .programs import program_identity

__all__ = [
    "Fact",
    "FactError",
    "encode",
    "facts_of",
    "identity",
    "line_facts",
    "line_recipe",
    "path_facts",
    "plan_facts",
    "plan_recipe",
    "recheck_digest",
    "rechecked",
]

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


def plan_recipe(analysis: Analysis) -> Fact:
    """What a plan's facts are read from, in plain values (the recipe an executor reads them again
    from): the rendered plan, each stage's position, text, directory, reads, listed directories and
    dependencies, the directories git is probed in and the programs the plan starts."""
    stages = tuple(
        (r.position, r.stage.text, r.cwd, tuple(r.check.reads), tuple(r.check.lists), tuple(r.check.depends))
        for r in analysis.stages
    )
    return ("plan", analysis.rendered, stages, tuple(analysis.probed), tuple(analysis.programs))


def line_recipe(line: str, targets: Iterable[tuple[str, str | None]]) -> Fact:
    """What a line's facts are read from: the line, and each redirect target `(raw, real)`."""
    return ("line", line, tuple((raw, real) for raw, real in targets))


def plan_facts(analysis: Analysis, ws: Workspace) -> Fact:
    """The rendered plan, each stage's directory, reads, listed directories and dependencies, the
    fingerprint of git's configuration for each directory a git stage runs in, and what each
    program the plan starts is (so that a program swapped since the decision refuses)."""
    return facts_of(plan_recipe(analysis), ws)


def line_facts(line: str, targets: Iterable[tuple[str, str | None]], ws: Workspace) -> Fact:
    """The line as typed and, for each name its redirects write, where it leads now."""
    return facts_of(line_recipe(line, targets), ws)


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise FactError(0, f"a recipe holds {type(value).__name__} where a string belongs")
    return value


def _texts(value: object) -> tuple[str, ...]:
    if not isinstance(value, (list, tuple)):
        raise FactError(0, "a recipe holds something else where a list of names belongs")
    return tuple(_text(v) for v in value)


def _plan(rendered: object, stages: object, probed: object, programs: object, ws: Workspace) -> Fact:
    read: list[Fact] = []
    for stage in stages if isinstance(stages, (list, tuple)) else [None]:
        if not isinstance(stage, (list, tuple)) or len(stage) != 6 or type(stage[0]) is not int:
            raise FactError(0, "a recipe's stage is not (position, text, directory, reads, lists, depends)")
        cwd = _text(stage[2])
        read.append(
            (stage[0], _text(stage[1]), cwd, identity(ws, cwd))
            + tuple(tuple((n, identity(ws, n)) for n in _texts(names)) for names in stage[3:])
        )
    git = tuple((d, git_fingerprint(ws, d)) for d in _texts(probed))
    started = tuple((p, program_identity(ws.system, p)) for p in _texts(programs))
    return (_text(rendered), tuple(read), git, started)


def _line(line: object, targets: object, ws: Workspace) -> Fact:
    line = _text(line)
    bound: list[Fact] = []
    for target in targets if isinstance(targets, (list, tuple)) else [None]:
        if not isinstance(target, (list, tuple)) or len(target) != 2:
            raise FactError(0, "a recipe's redirect target is not (raw, real)")
        raw, real = _text(target[0]), None if target[1] is None else _text(target[1])
        bound.append((raw, real, identity(ws, raw), None if real is None else identity(ws, real)))
    return (len(line.encode("utf-8", "surrogateescape")), line, tuple(bound))


def facts_of(recipe: object, ws: Workspace) -> Fact:
    """The facts a recipe (`plan_recipe`, `line_recipe`, or the same sent as JSON) names, read now;
    FactError for a recipe of another shape."""
    if isinstance(recipe, (list, tuple)) and len(recipe) == 5 and recipe[0] == "plan":
        return _plan(recipe[1], recipe[2], recipe[3], recipe[4], ws)
    if isinstance(recipe, (list, tuple)) and len(recipe) == 3 and recipe[0] == "line":
        return _line(recipe[1], recipe[2], ws)
    raise FactError(0, "the recipe is neither a plan's nor a line's")


def _digest(facts: Fact) -> str:
    return hashlib.sha256(encode(facts)).hexdigest()


def rechecked(recipe: Fact, facts: Fact) -> Recheck:
    """What an executor checks again before the call runs: the recipe and its facts' digest."""
    return Recheck(recipe, _digest(facts))


def recheck_digest(recipe: object, ws: Workspace) -> str:
    """The digest of the recipe's facts read now in `ws` (a LocalWorkspace's Rechecker)."""
    return _digest(facts_of(recipe, ws))


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
