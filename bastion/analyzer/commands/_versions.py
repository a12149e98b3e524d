"""`X --version` for a fixed table of toolchains whose version query, checked under strace in a
project directory, reads no project file and runs no project code (the interpreter prints its
version before it imports anything; node, ruff, tmux and gh are single binaries).
tests/analyzer/commands/test_version_queries_traced.py runs each query found on PATH under strace
in a project directory, and finds there the binary each entry names (`Query`): the promise is the
traced release's.

Tools whose version query loads the project (pytest reads conftest.py and its plugins) are not in
the table and ask. Which program the name runs is the driver's question, as for every command
(analyzer/programs/_programs.py): one inside the working directory (an activated project `.venv/bin`) is
the project's own code, a script where a binary is expected (a pyenv shim, a wrapper) runs
programs of its own, and a multiplexer under the tool's name (a mise shim, ccache's `gcc`, a rustup
proxy) runs what its configuration picks (analyzer/programs/_shims.py); each asks. mypy's entry point is a
Python script (`PYTHON_SCRIPTS`).
"""

from __future__ import annotations

from typing import NamedTuple

from ...grammar import Stage
from .._result import Check, Checker, Context

__all__ = ["VERSION_COMMANDS", "VERSION_QUERIES", "Query"]


class Query(NamedTuple):
    """A tool's version query: the words that ask it, and the binary it was traced with (its file's
    name once links are followed, where it came from: package and version, the release it prints)."""

    words: frozenset[str]
    program: str
    package: str
    release: str


# Each query traced under strace beside a Makefile, .sqliterc, .psqlrc, .jq, pyproject.toml, ...
# (tests/analyzer/commands/test_version_queries_traced.py): it opens nothing of the project and
# starts nothing (make reads no makefile for --version, gcc runs no compiler, gh opens only its own
# config in HOME). Not here: sqlite3 3.40 (its --version looks for a file `:memory:` in the
# working directory), Debian's psql (a Perl wrapper).
VERSION_QUERIES: dict[str, Query] = {
    "python3": Query(
        frozenset({"--version", "-V"}), "python3.11", "Debian python3.11-minimal 3.11.2-6+deb12u6", "3.11.2"
    ),
    "python": Query(frozenset({"--version", "-V"}), "python3.11", "CPython 3.11.7 built by pyenv", "3.11.7"),
    "node": Query(
        frozenset({"--version", "-v"}), "node", "NodeSource's nodejs 20.20.2-1nodesource1+repack1", "20.20.2"
    ),
    "ruff": Query(frozenset({"--version", "-V"}), "ruff", "PyPI ruff 0.17.6 (constraints.txt)", "0.17.6"),
    "tmux": Query(frozenset({"-V"}), "tmux", "Debian tmux 3.3a-3", "3.3a"),
    "mypy": Query(
        frozenset({"--version", "-V"}),
        "mypy",
        "PyPI mypy 2.4.1 (constraints.txt)",
        "2.4.1",
    ),
    "gh": Query(frozenset({"--version"}), "gh", "Debian gh 2.23.0+dfsg1-1 (a Go binary)", "2.23.0"),
    "jq": Query(frozenset({"--version"}), "jq", "Debian jq 1.6-2.1+deb12u1", "1.6"),
    "make": Query(frozenset({"--version", "-v"}), "make", "Debian make 4.3-4.1", "4.3"),
    "gcc": Query(
        frozenset({"--version"}), "x86_64-linux-gnu-gcc-12", "Debian gcc-12 12.2.0-14+deb12u1", "12.2.0"
    ),
}


def check_version(ctx: Context, stage: Stage) -> Check:
    words = [w.text for w in stage.args]
    if len(words) != 1 or words[0] not in VERSION_QUERIES[stage.command].words or stage.args[0].glob:
        # Anything else runs the tool on the project: left to the rules, never unasked.
        return Check(ok=True, auto=False)
    return Check(ok=True)


VERSION_COMMANDS: dict[str, Checker] = dict.fromkeys(VERSION_QUERIES, check_version)
