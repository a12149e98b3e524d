"""`X --version` for a fixed table of toolchains whose version query, checked under strace in a
project directory, reads no project file and runs no project code (the interpreter prints its
version before it imports anything; node, ruff, tmux and gh are single binaries).
tests/analyzer/test_versions33.py runs each query found on PATH under strace in a project directory.

Tools whose version query loads the project (pytest reads conftest.py and its plugins) are not in
the table and ask. Which program the name runs is the driver's question, as for every command
(analyzer/_programs.py): one inside the working directory (an activated project `.venv/bin`) is
the project's own code, and a script where a binary is expected (a pyenv shim, a wrapper) runs
programs of its own; each asks. mypy's entry point is a Python script (`PYTHON_SCRIPTS`).
"""

from __future__ import annotations

from ..grammar import Stage
from ._result import Check, Checker, Context

__all__ = ["VERSION_COMMANDS", "VERSION_QUERIES"]

# The words that ask each tool for its version.
VERSION_QUERIES: dict[str, frozenset[str]] = {
    "python3": frozenset({"--version", "-V"}),
    "python": frozenset({"--version", "-V"}),
    "node": frozenset({"--version", "-v"}),
    "ruff": frozenset({"--version", "-V"}),
    "tmux": frozenset({"-V"}),
    "mypy": frozenset({"--version", "-V"}),
    # gh 2.23 (a Go binary) under strace: opens its own config in HOME, nothing in the project, runs nothing.
    "gh": frozenset({"--version"}),
    # Traced the same way (tests/analyzer/test_versions33.py, beside a Makefile, .sqliterc, .psqlrc,
    # .jq): jq 1.6, GNU make 4.3 and gcc 12 open nothing of the project and start nothing (make
    # reads no makefile for --version, gcc runs no compiler). Not here: sqlite3 3.40 (its --version
    # looks for a file `:memory:` in the working directory), Debian's psql (a Perl wrapper).
    "jq": frozenset({"--version"}),
    "make": frozenset({"--version", "-v"}),
    "gcc": frozenset({"--version"}),
}


def check_version(ctx: Context, stage: Stage) -> Check:
    words = [w.text for w in stage.args]
    if len(words) != 1 or words[0] not in VERSION_QUERIES[stage.command] or stage.args[0].glob:
        # Anything else runs the tool on the project: left to the rules, never unasked.
        return Check(ok=True, auto=False)
    return Check(ok=True)


VERSION_COMMANDS: dict[str, Checker] = dict.fromkeys(VERSION_QUERIES, check_version)
