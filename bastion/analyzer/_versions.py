"""`X --version` for a fixed table of toolchains whose version query, checked under strace in a
project directory, reads no project file and runs no project code (the interpreter prints its
version before it imports anything; node, ruff, tmux and gh are single binaries).
tests/analyzer/test_versions33.py runs each query found on PATH under strace in a project directory.

Tools whose version query loads the project (pytest reads conftest.py and its plugins) are not in
the table and ask. The program bash would run is looked up on PATH when the line is decided: one
inside the working directory is the project's own code, a PATH with a relative entry depends on
where the line runs, and a script where the table expects a binary (a pyenv shim, a wrapper) runs
programs of its own; each of these asks. The plan runs the program found, by its absolute path.
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple

from .._files import read_regular
from ..grammar import Stage, Word
from ..workspace import root_relative
from ._result import Check, Checker, Context

__all__ = ["VERSION_COMMANDS", "VERSION_QUERIES"]

_PYTHON = re.compile(rb"#!\S*/python[0-9.]*\s")


class Query(NamedTuple):
    """The words that ask a tool for its version, and whether its program may be a Python script
    (a console-script entry point such as mypy's) rather than a binary."""

    words: frozenset[str]
    python_script: bool = False


VERSION_QUERIES: dict[str, Query] = {
    "python3": Query(frozenset({"--version", "-V"})),
    "python": Query(frozenset({"--version", "-V"})),
    "node": Query(frozenset({"--version", "-v"})),
    "ruff": Query(frozenset({"--version", "-V"})),
    "tmux": Query(frozenset({"-V"})),
    "mypy": Query(frozenset({"--version", "-V"}), python_script=True),
    # gh 2.23 (a Go binary) under strace: opens its own config in HOME, nothing in the project, runs nothing.
    "gh": Query(frozenset({"--version"})),
}


class _Program(NamedTuple):
    """The program bash would run for a command (its absolute path on PATH), or why not to run it."""

    path: str = ""
    why: str = ""


def _program(ctx: Context, command: str, query: Query) -> _Program:
    path = os.environ.get("PATH", "")
    if any(not entry.startswith("/") for entry in path.split(os.pathsep)):
        return _Program(
            why=f"PATH has a relative entry, so which {command} runs depends on the directory; "
            "it could be the project's own"
        )
    found = next(
        (
            p
            for p in (os.path.join(e, command) for e in path.split(os.pathsep))
            if os.path.isfile(p) and os.access(p, os.X_OK)
        ),
        None,
    )
    if found is None:
        return _Program(why=f"{command} is not on PATH")
    real = os.path.realpath(found)
    if root_relative(ctx.ws, found) is not None or root_relative(ctx.ws, real) is not None:
        return _Program(why=f"{command} on PATH is {found}, inside the working directory: the project's code")
    try:
        head = read_regular(real, 256)
    except OSError as err:
        return _Program(why=f"{command} on PATH ({found}) cannot be read: {err.strerror}")
    if head.startswith(b"#!") and not (query.python_script and _PYTHON.match(head)):
        return _Program(
            why=f"{command} on PATH ({found}) is a script, which runs programs of its own (a "
            "version manager's shim reads the project's settings)"
        )
    return _Program(found)


def check_version(ctx: Context, stage: Stage) -> Check:
    command = stage.command
    query = VERSION_QUERIES[command]
    words = [w.text for w in stage.args]
    if len(words) != 1 or words[0] not in query.words or stage.args[0].glob:
        # Anything else runs the tool on the project: left to the rules, never unasked.
        return Check(ok=True, auto=False)
    program = _program(ctx, command, query)
    if program.why:
        return Check.refuse(program.why)
    # The plan runs the program checked, by its path: a shell whose PATH differs (a hook's caller
    # that activates a virtual environment inside the project) cannot swap in another.
    return Check(ok=True, words=(Word(program.path), *stage.args))


VERSION_COMMANDS: dict[str, Checker] = dict.fromkeys(VERSION_QUERIES, check_version)
