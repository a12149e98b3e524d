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

The lookup outside the workspace is remembered per (PATH, command, workspace) with the identity of
every directory it looked in before the hit and of every file it found (device, inode, size, times,
mode), and used again only while a `stat` of each gives the same (design rule 12); the entries
inside the workspace are looked up again every time. `program_identity` is what a stamp binds.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping
from typing import NamedTuple

from ..workspace import System, Workspace, resolve, root_relative

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


class _Lookup(NamedTuple):
    """The lookup of one command on one PATH for one workspace: the entries before the hit that lie
    inside the workspace or are relative (looked up again each time), the program found (or why
    none), and the identities it rests on."""

    inside: tuple[str, ...]
    program: Program
    rests_on: tuple[tuple[str, Identity], ...]


_memo: dict[tuple[str, str, str, str, int], _Lookup] = {}


def find_program(
    ws: Workspace, cwd: str, shell: Shell, command: str, seen: dict[str, Identity] | None = None
) -> Program:
    """The program the plan runs for `command` in the root-relative directory `cwd`, or why not.
    `seen` holds the identities taken for this decision (the stages of one line share a PATH)."""
    if command in BUILTINS:
        if shell.exports(command):
            return Program(why=f"an exported function {command} runs instead of the builtin where this runs")
        return Program()
    key = (shell.path, command, ws.root, ws.real_root, id(ws.system))
    found = _memo.get(key)
    if found is None or not _unchanged(ws.system, found.rests_on, seen):
        found = _lookup(ws, shell.path, command)
        if len(_memo) >= _MAX_MEMO:
            _memo.clear()
        _memo[key] = found
    for entry in found.inside:
        if why := _shadowed(ws, cwd, entry, command):
            return Program(why=why)
    program = found.program
    if program.path and shell.exports(program.path):  # bash lets a function's name hold a `/`
        return Program(why=f"an exported function {program.path} runs instead of it where this runs")
    return program


def _unchanged(
    system: System, rests_on: tuple[tuple[str, Identity], ...], seen: dict[str, Identity] | None
) -> bool:
    """Whether every directory and file a lookup rested on is what it was (each stat'ed once per
    decision when `seen` is given)."""
    for path, known in rests_on:
        if seen is None:
            now = program_identity(system, path)
        elif path in seen:
            now = seen[path]
        else:
            now = seen[path] = program_identity(system, path)
        if now != known:
            return False
    return True


def _entries(path: str) -> list[str]:
    """PATH's entries in order, each once (a later repeat can never be where bash finds one)."""
    return list(dict.fromkeys(entry or "." for entry in path.split(os.pathsep)))


def _inside(ws: Workspace, entry: str) -> str | None:
    """An absolute entry's root-relative name when it lies inside the workspace (as written or with
    its links followed), else None."""
    name = root_relative(ws, entry)
    return name if name is not None else root_relative(ws, ws.system.realpath(entry))


def _lookup(ws: Workspace, path: str, command: str) -> _Lookup:
    inside: list[str] = []
    rests_on: list[tuple[str, Identity]] = []
    for entry in _entries(path):
        if not entry.startswith("/"):
            inside.append(entry)
            continue
        name = _inside(ws, entry)
        if name is not None:
            inside.append(f"/{name}")  # root-relative, marked as coming from an absolute entry
            continue
        rests_on.append((entry, program_identity(ws.system, entry)))
        candidate = os.path.join(entry, command)
        try:
            st = ws.system.stat(candidate)
        except OSError:
            continue
        if not stat.S_ISREG(st.st_mode) or not ws.system.executable(candidate):
            continue
        program = _judge(ws, command, candidate)
        rests_on.extend((p, program_identity(ws.system, p)) for p in (candidate, *program.starts))
        return _Lookup(tuple(inside), program, tuple(rests_on))
    return _Lookup(tuple(inside), Program(why=f"{command} is not on PATH ({path})"), tuple(rests_on))


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


def _judge(ws: Workspace, command: str, found: str) -> Program:
    """The file found on PATH: outside the workspace once its links are followed, and an ELF binary,
    a pinned script or (for PYTHON_SCRIPTS) a Python script, whose interpreter is an ELF binary."""
    real = ws.system.realpath(found)
    if root_relative(ws, real) is not None:
        return Program(
            why=f"{command} on PATH is {found}, which leads inside the working directory: the project's code"
        )
    head, why = _head(ws.system, command, found, real)
    if why:
        return Program(why=why)
    if head.startswith(b"\x7fELF"):
        return Program(found, (found,))
    script = f"{command} on PATH ({found}) is a script"
    if not head.startswith(b"#!"):
        return Program(why=f"{command} on PATH ({found}) is neither a binary nor a script with a #! line")
    if command in PYTHON_SCRIPTS:
        python = _PYTHON.match(head)
        if python is None:
            return Program(why=f"{script}, but not a Python one: it runs programs of its own")
        return _interpreted(ws, script, found, os.fsdecode(python.group(1)))
    if _digest(ws.system, real) not in PINNED_SCRIPTS:
        return Program(
            why=f"{script}, which runs programs of its own (a version manager's shim reads the "
            "project's settings); bastion runs only the scripts it has read"
        )
    shebang = _SHEBANG.match(head)
    if shebang is None:
        return Program(why=f"{script} whose interpreter bastion cannot read")
    return _interpreted(ws, script, found, os.fsdecode(shebang.group(1)))


def _head(system: System, command: str, found: str, real: str) -> tuple[bytes, str]:
    try:
        return system.read(real, 256)[1], ""  # never blocks on a FIFO swapped in (_files.py)
    except OSError as err:
        return b"", f"{command} on PATH ({found}) cannot be read: {err.strerror}"


def _digest(system: System, path: str) -> str:
    import hashlib  # OpenSSL's load (a few ms of every start): only a script on PATH is digested

    try:
        return hashlib.sha256(system.read(path, 1 << 20)[1]).hexdigest()
    except OSError:
        return ""


def _interpreted(ws: Workspace, script: str, found: str, interpreter: str) -> Program:
    """A script's program: the script, and its interpreter, an ELF binary outside the workspace."""
    real = ws.system.realpath(interpreter)
    if root_relative(ws, real) is not None:
        return Program(why=f"{script} run by {interpreter}, inside the working directory")
    head, why = _head(ws.system, os.path.basename(found), interpreter, real)
    if why or not head.startswith(b"\x7fELF"):
        return Program(why=why or f"{script} run by {interpreter}, which is not a binary")
    return Program(found, (found, interpreter))
