"""Commands that only print their own words, changed, and open no file: basename, dirname and
which as the first stage, and tr as a filter of standard input.

Their operands are text, not names of files read, so any word runs but a glob (which bash would
expand to names this check never saw). which looks programs up on PATH and prints where they are:
it runs none of them and reads no file of the workspace. (echo, printf, true and false: _prints.py.)"""

from __future__ import annotations

import re

from ...grammar import Stage
from .._result import Check, Checker, Context
from ._flags import ANY, FlagTable, parse_args

__all__ = ["WORD_COMMANDS", "WORD_FILTERS"]

_NAME = re.compile(r"[A-Za-z0-9_.+-][A-Za-z0-9_.+@-]*")  # a program's name, never a path

_TABLES: dict[str, FlagTable] = {
    "basename": FlagTable(
        bare=frozenset({"-a", "--multiple", "-z", "--zero"}),
        letters="az",
        spaced={"-s": ANY},
        attached={"--suffix=": ANY},
    ),
    "dirname": FlagTable(bare=frozenset({"-z", "--zero"}), letters="z"),
    "which": FlagTable(bare=frozenset({"-a", "-s"}), letters="as"),
    "tr": FlagTable(
        bare=frozenset(
            {"-c", "-C", "--complement", "-d", "--delete", "-s", "--squeeze-repeats", "-t", "--truncate-set1"}
        ),
        letters="cCdst",
    ),
}


def _check_table(ctx: Context, stage: Stage) -> Check:
    command = stage.command
    args = parse_args(command, _TABLES[command], stage.args)
    if not args.ok:
        return Check.refuse(args.why)
    if not args.operands:
        return Check.refuse(f"{command} needs an operand, and without one it prints an error")
    if command == "which":
        for name in args.operands:
            if not _NAME.fullmatch(name):
                return Check.refuse(f"which {name!r}: only a program's name is looked up here, not a path")
    return Check(ok=True)


def _check_tr(ctx: Context, stage: Stage) -> Check:
    args = parse_args("tr", _TABLES["tr"], stage.args)
    if not args.ok:
        return Check.refuse(args.why)
    if not 1 <= len(args.operands) <= 2:
        return Check.refuse("tr takes one or two sets of characters")
    return Check(ok=True)


WORD_COMMANDS: dict[str, Checker] = {
    "basename": _check_table,
    "dirname": _check_table,
    "which": _check_table,
}
WORD_FILTERS: dict[str, Checker] = {"tr": _check_tr}
