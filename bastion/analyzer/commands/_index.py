"""The checkers of every governed command but git, as the driver (_analyze.py) looks them up.

Each checker module's table (`FILE_COMMANDS`, `SED_FIRST`, ...) defines its commands' checkers; the
index below says which table holds a command, so a module is imported when a line first names one
of its commands (a start that decides `ls` does not load sed's grammar or find's tables).
tests/analyzer/commands/test_commands_index.py checks the index against the tables both ways.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator

from .._result import Checker
from ._cd_pwd_go import check_cd, check_go, check_pwd
from ._ls import check_ls

__all__ = ["FILTERS", "FIRST_STAGE", "INDEX", "check_cd"]

# (module, table) -> the commands it checks; first-stage tables, then filters of standard input.
INDEX: dict[tuple[str, str], tuple[str, ...]] = {
    ("_readers", "FILE_COMMANDS"): ("cat", "grep", "head", "tail", "wc"),
    ("_sed", "SED_FIRST"): ("sed",),
    ("_awk", "AWK_FIRST"): ("awk",),
    ("_contents", "CONTENT_READERS"): ("cmp", "diff", "file", "nl", "strings"),
    ("_find", "FIND_COMMANDS"): ("find",),
    ("_name_commands", "NAME_COMMANDS"): ("du", "readlink", "realpath", "stat", "tree"),
    ("_word_commands", "WORD_COMMANDS"): ("basename", "dirname", "which"),
    ("_versions", "VERSION_COMMANDS"): (
        "gcc",
        "gh",
        "jq",
        "make",
        "mypy",
        "node",
        "python",
        "python3",
        "ruff",
        "tmux",
    ),
    ("_prints", "PRINT_COMMANDS"): ("echo", "false", "od", "printf", "test", "true", "["),
    ("_readers", "FILTER_COMMANDS"): ("cut", "grep", "head", "sort", "tail", "uniq", "wc"),
    ("_sed", "SED_FILTER"): ("sed",),
    ("_awk", "AWK_FILTER"): ("awk",),
    ("_contents", "CONTENT_FILTERS"): ("nl", "strings"),
    ("_word_commands", "WORD_FILTERS"): ("tr",),
    ("_prints", "PRINT_FILTERS"): ("cat", "od"),
}
_FIRST_TABLES = frozenset(
    {"FILE_COMMANDS", "SED_FIRST", "AWK_FIRST", "CONTENT_READERS", "FIND_COMMANDS", "NAME_COMMANDS",
     "WORD_COMMANDS", "VERSION_COMMANDS", "PRINT_COMMANDS"}
)  # fmt: skip


class _Checkers:
    """Command -> checker, each table's module imported when one of its commands is first looked up
    (a plain class: an ABC costs more to create than a start can spare)."""

    def __init__(self, eager: dict[str, Checker], first: bool) -> None:
        self._eager = eager
        self._where = {
            command: where
            for where, commands in INDEX.items()
            if (where[1] in _FIRST_TABLES) is first
            for command in commands
        }

    def __getitem__(self, command: str) -> Checker:
        if command in self._eager:
            return self._eager[command]
        module, table = self._where[command]
        checkers: dict[str, Checker] = getattr(importlib.import_module(f"{__package__}.{module}"), table)
        return checkers[command]

    def __iter__(self) -> Iterator[str]:
        return iter({**self._eager, **self._where})

    def __contains__(self, command: object) -> bool:
        return command in self._eager or command in self._where


FIRST_STAGE = _Checkers({"ls": check_ls, "pwd": check_pwd, "go": check_go}, first=True)
FILTERS = _Checkers({}, first=False)
