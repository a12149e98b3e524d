"""The program a command word runs: found on PATH as bash finds it, outside the workspace, and
named by its absolute path in the plan, so that no PATH where the plan runs can swap in another.

bash runs a builtin (`BUILTINS`) before it looks at PATH, so those keep their names (an exported
function of the same name would run instead: it asks here). For any other command bash takes the
first PATH entry holding an executable file of that name, an empty entry being `.`. Where the plan
runs decides which PATH counts (`shell_of`): the workspace's environment in bastion's own runs (the
child environment of policy/_env.py), this process's for a dry-run (a hook runs in the other
agent's environment, `bastion check` in its own). A relative entry, or one inside the workspace,
that holds the name before the program found would make the line as typed run the project's own
program: the line asks. Otherwise the program is the first hit on an absolute entry outside the
workspace, and it must lie outside the workspace once its links are followed.

A script there (a `#!` line) starts its interpreter, which runs whatever the script says; a file
neither `#!` nor ELF is run by bash as a script of its own. Neither starts "no other program", so
each asks, but for the scripts read and pinned in `PINNED_SCRIPTS` by their SHA-256 (Debian's
`which`: a `/bin/sh` script that runs only the shell's builtins) and, for the commands in
`PYTHON_SCRIPTS`, a Python console script whose interpreter is an ELF file outside the workspace
(mypy's entry point). A pinned or Python script's interpreter is a program the plan starts too.
A binary, or an interpreter, that is not the program its name says asks as a script does: a
multiplexer reached by a link of another name, by its own name, in a shim directory or as a file of
several hard links (_shims.py: a mise shim runs what the project's `.tool-versions` picks).

The lookup is made once per process for every workspace (per PATH, command and machine): each
entry up to the first holding the name, with its path once its links are followed, and the file's
judgement. It rests on the identity (device, inode, size, times, mode) of every entry it looked
in, of every file it found and of every directory on the way to where each of them leads, and is
used again only while a `stat` of each gives the same (design rule 12): a file put in an entry, a
link made, moved or removed on the way to one, changes one of them. What depends on the workspace
is judged on every decision from it: which entries and programs lie inside its root (those entries
are looked up again every time, and the lookup goes on past one that holds the name, as it does
for that workspace alone). `program_identity` is what a stamp binds.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
import stat
import weakref
from collections.abc import Mapping
from typing import NamedTuple

from ...workspace import System, Workspace, resolve, root_relative
from ._shims import hard_linked, impostor

__all__ = [
    "BUILTINS",
    "Identity",
    "PINNED_SCRIPTS",
    "PYTHON_SCRIPTS",
    "Program",
    "Shell",
    "find_program",
    "program_identity",
    "shell_of",
]

# Commands a plan may run that bash (and zsh) run as builtins, never from PATH.
BUILTINS = frozenset(
    {"cd", "echo", "printf", "true", "false", "test", "[", "pwd", "type", "command", "unset"}
)
# Scripts read line by line and found to run nothing but /bin/sh's builtins (test, printf, getopts),
# by SHA-256 of their content, with what they are.
PINNED_SCRIPTS: dict[str, str] = {
    "7bdde142dc5cb004ab82f55adba0c56fc78430a6f6b23afd33be491d4c7c238b": "debianutils 5.7 which",
}
# Commands whose program may be a Python console script (an entry point: python imports the tool).
PYTHON_SCRIPTS = frozenset({"mypy"})

_PYTHON = re.compile(rb"#!(/\S*/python[0-9.]*)\s")
_SHEBANG = re.compile(rb"#![ \t]*(/\S+)")
_MAX_MEMO = 1024


class Shell(NamedTuple):
    """Where a plan's command words are looked up: the PATH it runs with, and the environment whose
    exported functions (`BASH_FUNC_NAME%%`) bash would run before anything (None: there are none)."""

    path: str
    environ: Mapping[str, str] | None = None

    def exports(self, name: str) -> bool:
        """Whether a function `name` is exported where the plan runs."""
        return self.environ is not None and f"BASH_FUNC_{name}%%" in self.environ


def shell_of(ws: Workspace) -> Shell:
    """The shell a plan decided in `ws` runs in: bastion's bash tool runs it in the workspace's
    environment, less every exported function (analyzer/git/_neutral.py); a workspace without one is
    a dry-run's, whose plan runs where this process runs (a hook's caller, or the caller of check)."""
    env = ws.env()
    if env:
        return Shell(env.get("PATH", os.defpath))
    return Shell(os.environ.get("PATH", os.defpath), os.environ)


class Program(NamedTuple):
    """The absolute path a command word runs (empty for a builtin) and every program the plan
    starts for it (the file, and a script's interpreter); or why the line must ask."""

    path: str = ""
    starts: tuple[str, ...] = ()
    why: str = ""


Identity = tuple[int, int, int, int, int, int] | None


def program_identity(system: System, path: str) -> Identity:
    """What a program is now where the plan runs (`system`: the workspace's), links followed:
    device, inode, size, modification and change times, mode; None when there is none."""
    try:
        st = system.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)


class _Walk(NamedTuple):
    """The lookup of one command on one PATH on one machine, the same for every workspace: each
    entry up to the first that holds an executable file of that name (an absolute one with its
    path once its links are followed, a relative one with ""), that file's judgement (None: no
    entry holds one), the rest of PATH after it, and the identities all of it rests on."""

    system: weakref.ref[System]  # not kept alive by this memo (an executor's, once closed)
    entries: tuple[tuple[str, str], ...]
    hit: _Judged | None
    rest: tuple[str, ...]
    rests_on: tuple[tuple[str, Identity], ...]


class _Judged(NamedTuple):
    """A file found on PATH as it is on any workspace: the program, or why it asks, once none of
    the paths of `inside` (each with why it asks if there) lies inside the workspace, in order."""

    program: Program
    inside: tuple[tuple[str, str], ...]


_memo: dict[tuple[tuple[str, ...], str, int], _Walk] = {}
_UNSEEN = (0,)  # not yet stat'ed in this decision


def find_program(
    ws: Workspace, cwd: str, shell: Shell, command: str, seen: dict[str, Identity] | None = None
) -> Program:
    """The program the plan runs for `command` in the root-relative directory `cwd`, or why not.
    `seen` holds the identities taken for this decision (the stages of one line share a PATH)."""
    if command in BUILTINS:
        if shell.exports(command):
            return Program(why=f"an exported function {command} runs instead of the builtin where this runs")
        return Program()
    inside: list[str] = []
    names = _entries(shell.path)
    roots = tuple(dict.fromkeys(root.rstrip("/") for root in (ws.root, ws.real_root)))
    while True:  # past a hit whose entry lies inside this workspace, the lookup goes on after it
        walk = _walked(ws.system, names, command, seen)
        entered = [_entered(roots, entry, real) for entry, real in walk.entries]
        inside.extend(name for name in entered if name is not None)
        if walk.hit is None or entered[-1] is None:
            break
        names = walk.rest
    for entry in inside:
        if why := _shadowed(ws, cwd, entry, command):
            return Program(why=why)
    if walk.hit is None:
        return Program(why=f"{command} is not on PATH ({shell.path})")
    for real, why in walk.hit.inside:
        if root_relative(ws, real) is not None:
            return Program(why=why)
    program = walk.hit.program
    if program.path and shell.exports(program.path):  # bash lets a function's name hold a `/`
        return Program(why=f"an exported function {program.path} runs instead of it where this runs")
    return program


def _walked(system: System, names: tuple[str, ...], command: str, seen: dict[str, Identity] | None) -> _Walk:
    """The walk of `command` on the PATH entries `names`, remembered while what it rests on is
    unchanged."""
    key = (names, command, id(system))
    found = _memo.get(key)
    if found is None or found.system() is not system or not _unchanged(system, found.rests_on, seen):
        found = _walk(system, names, command)
        if len(_memo) >= _MAX_MEMO:
            _memo.clear()
        _memo[key] = found
    return found


def _entered(roots: tuple[str, ...], entry: str, real: str) -> str | None:
    """A PATH entry as the lookup inside the workspace takes it: a relative one as it is, an
    absolute one (normalised, as `real` is) inside the workspace (its `roots` without a trailing
    `/`), as written or with its links followed, by its root-relative name after a `/`; None for an
    entry outside. It is `root_relative` on paths already normal, once per entry of every line."""
    if not real:
        return entry
    for path in (entry, real) if real != entry else (entry,):
        for root in roots:
            if path == (root or "/"):
                return "/."
            if path.startswith(root + "/"):
                return f"/{path[len(root) + 1 :]}"
    return None


def _unchanged(
    system: System, rests_on: tuple[tuple[str, Identity], ...], seen: dict[str, Identity] | None
) -> bool:
    """Whether every directory and file a lookup rested on is what it was (each stat'ed once per
    decision when `seen` is given)."""
    seen = {} if seen is None else seen
    look = system.stat
    for path, known in rests_on:
        now = seen.get(path, _UNSEEN)
        if now is _UNSEEN:  # program_identity, inline: this loop is most of a first decision's time
            try:
                st = look(path)
            except OSError:
                now = None
            else:
                now = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)
            seen[path] = now
        if now != known:
            return False
    return True


@functools.lru_cache(maxsize=64)
def _entries(path: str) -> tuple[str, ...]:
    """PATH's entries in order, each once (a later repeat can never be where bash finds one)."""
    return tuple(dict.fromkeys(entry or "." for entry in path.split(os.pathsep)))


def _walk(system: System, names: tuple[str, ...], command: str) -> _Walk:
    """The lookup on this machine, and the identities it rests on (`_followed`)."""
    entries: list[tuple[str, str]] = []
    rested: dict[str, Identity] = {}
    for i, entry in enumerate(names):
        if not entry.startswith("/"):
            entries.append((entry, ""))
            continue
        entries.append((posixpath.normpath(entry), _followed(system, entry, rested)))
        candidate = os.path.join(entry, command)
        try:
            st = system.stat(candidate)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or not system.executable(candidate):
            continue
        hit = _judge(system, command, candidate, entries[-1], rested)
        return _Walk(weakref.ref(system), tuple(entries), hit, names[i + 1 :], tuple(rested.items()))
    return _Walk(weakref.ref(system), tuple(entries), None, (), tuple(rested.items()))


_NEVER: Identity = (-1, -1, -1, -1, -1, -1)  # what no stat gives: a lookup made while a link moved


def _followed(system: System, path: str, rested: dict[str, Identity]) -> str:
    """`path` with its links followed, resting on the identity of the path and of every directory
    on the way to where it leads, each taken before the path is followed again to make sure: a
    link made, moved or removed on the way changes one of them, so the walk is made again."""
    real = system.realpath(path)
    rested.setdefault(path, program_identity(system, path))
    along = "/"
    for part in real.split("/"):
        along = os.path.join(along, part)
        rested.setdefault(along, program_identity(system, along))
    if system.realpath(path) != real:
        rested[path] = _NEVER
    return real


def _shadowed(ws: Workspace, cwd: str, entry: str, command: str) -> str:
    """Why an entry inside the workspace (root-relative after `/`) or a relative one (taken from
    `cwd`) makes the line ask: it holds `command`, or where it leads cannot be told; "" if not."""
    if entry.startswith("/"):
        r = resolve(ws, ".", f"{entry[1:]}/{command}")
        where = f"the PATH entry {os.path.join(ws.root, entry[1:])!r}, inside the working directory"
    else:
        r = resolve(ws, cwd, f"{entry}/{command}")
        where = f"the relative PATH entry {entry!r}"
    if not r.ok:
        return f"{command} could be the project's own program: {where} cannot be followed ({r.why})"
    if r.exists:
        return (
            f"{command} is the project's own program here: {where} holds {r.name!r} before any "
            f"{command} outside it"
        )
    return ""


def _judge(
    system: System, command: str, found: str, entry: tuple[str, str], rested: dict[str, Identity]
) -> _Judged:
    """The file found on PATH in `entry` (as written and followed): outside the workspace once its
    links are followed, the program its name says (_shims.py), and an ELF binary, a pinned script or
    (for PYTHON_SCRIPTS) a Python script, whose interpreter is an ELF binary."""
    real = _followed(system, found, rested)
    inside = (
        (real, f"{command} on PATH is {found}, which leads inside the working directory: the project's code"),
    )
    head, why = _head(system, f"{command} on PATH ({found})", command, real, entry)
    if why:
        return _Judged(Program(why=why), inside)
    if head.startswith(b"\x7fELF"):
        return _Judged(Program(found, (found,)), inside)
    script = f"{command} on PATH ({found}) is a script"
    if not head.startswith(b"#!"):
        why = f"{command} on PATH ({found}) is neither a binary nor a script with a #! line"
        return _Judged(Program(why=why), inside)
    if command in PYTHON_SCRIPTS:
        python = _PYTHON.match(head)
        if python is None:
            return _Judged(
                Program(why=f"{script}, but not a Python one: it runs programs of its own"), inside
            )
        return _interpreted(system, script, found, os.fsdecode(python.group(1)), inside, rested)
    if _digest(system, real) not in PINNED_SCRIPTS:
        why = (
            f"{script}, which runs programs of its own (a version manager's shim reads the "
            "project's settings); bastion runs only the scripts it has read"
        )
        return _Judged(Program(why=why), inside)
    shebang = _SHEBANG.match(head)
    if shebang is None:
        return _Judged(Program(why=f"{script} whose interpreter bastion cannot read"), inside)
    return _interpreted(system, script, found, os.fsdecode(shebang.group(1)), inside, rested)


def _head(system: System, what: str, command: str, real: str, entries: tuple[str, ...]) -> tuple[bytes, str]:
    """The first bytes of the program `what` (called `command`, `real` once its links are followed,
    on the PATH `entries`), or why it asks: not the program its name says (_shims.py), unreadable."""
    if why := impostor(command, real, entries):
        return b"", f"{what} {why}"
    try:
        st, head = system.read(real, 256)  # never blocks on a FIFO swapped in (_files.py)
    except OSError as err:
        return b"", f"{what} cannot be read: {err.strerror}"
    if why := hard_linked(st.st_nlink):
        return b"", f"{what} {why}"
    return head, ""


def _digest(system: System, path: str) -> str:
    import hashlib  # OpenSSL's load (a few ms of every start): only a script on PATH is digested

    try:
        return hashlib.sha256(system.read(path, 1 << 20)[1]).hexdigest()
    except OSError:
        return ""


def _interpreted(
    system: System,
    script: str,
    found: str,
    interpreter: str,
    inside: tuple[tuple[str, str], ...],
    rested: dict[str, Identity],
) -> _Judged:
    """A script's program: the script, and its interpreter, an ELF binary outside the workspace."""
    real = _followed(system, interpreter, rested)
    inside = (*inside, (real, f"{script} run by {interpreter}, inside the working directory"))
    entry = (posixpath.dirname(posixpath.normpath(interpreter)),)
    name = posixpath.basename(interpreter)
    head, why = _head(system, f"{script} run by {interpreter}, which", name, real, entry)
    if why or not head.startswith(b"\x7fELF"):
        return _Judged(Program(why=why or f"{script} run by {interpreter}, which is not a binary"), inside)
    return _Judged(Program(found, (found, interpreter)), inside)
