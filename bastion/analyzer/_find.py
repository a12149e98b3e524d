"""find that lists names, as ls -R does: starting points inside the working directory, tests that
only look at names, types, sizes and times, and actions that only print.

find reads no file's contents, so it has no reads (a secret's name is not its content), and it never
follows a link below its starting points unless told to (-L, -H, -follow: refused). Every word of
the expression is matched against the tables below; an action that runs a program (-exec, -ok),
deletes (-delete) or writes a file (-fprint, -fls) asks, and so does anything not listed.
"""

from __future__ import annotations

import re

from ..grammar import Stage
from ._flags import ANY, NUMBER
from ._operands import names_inside
from ._result import Check, Checker, Context

__all__ = ["FIND_COMMANDS", "FIND_TESTS", "FIND_WORDS"]

_TYPE = re.compile(r"[bcdpfls](?:,[bcdpfls])*")
_SIZE = re.compile(r"[+-]?[0-9]+[bcwkMG]?")
_DAYS = re.compile(r"[+-]?[0-9]+")

# Tests (and global options) that take the next word as their value, and the value's form.
FIND_TESTS: dict[str, re.Pattern[str]] = {
    "-name": ANY, "-iname": ANY, "-path": ANY, "-ipath": ANY, "-wholename": ANY, "-iwholename": ANY,
    "-regex": ANY, "-iregex": ANY, "-lname": ANY, "-ilname": ANY,
    "-type": _TYPE, "-maxdepth": NUMBER, "-mindepth": NUMBER, "-size": _SIZE,
    "-mtime": _DAYS, "-mmin": _DAYS, "-ctime": _DAYS, "-cmin": _DAYS, "-atime": _DAYS, "-amin": _DAYS,
    "-newer": ANY, "-links": _DAYS, "-perm": re.compile(r"[-/]?(?:[0-7]{1,4}|[ugoa]*[+=-][rwxXst]*)"),
}  # fmt: skip
# Words that stand alone: tests, operators, parentheses and the actions that only print.
FIND_WORDS = frozenset(
    {
        "-empty",
        "-prune",
        "-not",
        "!",
        "-o",
        "-or",
        "-a",
        "-and",
        "(",
        ")",
        "-true",
        "-false",
        "-readable",
        "-writable",
        "-executable",
        "-depth",
        "-xdev",
        "-mount",
        "-nowarn",
        "-noleaf",
        "-print",
        "-print0",
        "-ls",
        "-quit",
    }
)

_RUNS = "runs a program on every name found"
_WRITES = "writes its output to a file"
_FOLLOWS = "follows symbolic links below the starting points, which can lead out of the working directory"
_REFUSED: dict[str, str] = {
    "-exec": f"find -exec {_RUNS}", "-execdir": f"find -execdir {_RUNS}",
    "-ok": f"find -ok {_RUNS}", "-okdir": f"find -okdir {_RUNS}",
    "-delete": "find -delete removes the files it finds",
    "-fprint": f"find -fprint {_WRITES}", "-fprint0": f"find -fprint0 {_WRITES}",
    "-fprintf": f"find -fprintf {_WRITES}", "-fls": f"find -fls {_WRITES}",
    "-L": f"find -L {_FOLLOWS}", "-H": f"find -H {_FOLLOWS}", "-follow": f"find -follow {_FOLLOWS}",
    "-files0-from": "find -files0-from reads its starting points from a file that is not checked",
    "-D": "find -D prints debugging information this check does not know",
}  # fmt: skip


def _starts_expression(word: str) -> bool:
    return word.startswith("-") or word in ("!", "(", ")")


def _expression(words: list[str]) -> tuple[str, list[str]]:
    """(why not, or "", the names -newer compares with)."""
    compared: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        if word in FIND_WORDS:
            continue
        if word in FIND_TESTS:
            if i >= len(words):
                return f"find {word} needs a value", []
            value = words[i]
            i += 1
            if not FIND_TESTS[word].fullmatch(value):
                return f"find {word} {value!r}: the value is not of the expected form", []
            if word == "-newer":
                compared.append(value)
            continue
        if word in _REFUSED:
            return _REFUSED[word], []
        return (
            f"find {word!r} is not a test or action bastion knows, and an unknown one could run a "
            "program, write a file or follow links out"
        ), []
    return "", compared


def check_find(ctx: Context, stage: Stage) -> Check:
    words = [w.text for w in stage.args]
    if any(w.glob for w in stage.args):
        return Check.refuse(
            "find is given a glob, which bash expands to names this check never saw; quote a -name pattern"
        )
    while words and words[0] in ("-P", "-O0", "-O1", "-O2", "-O3"):
        words.pop(0)
    starts: list[str] = []
    while words and not _starts_expression(words[0]):
        starts.append(words.pop(0))
    if words and words[0] in _REFUSED:
        return Check.refuse(_REFUSED[words[0]])
    why, compared = _expression(words)
    if why:
        return Check.refuse(why)
    return names_inside(ctx, [*(starts or ["."]), *compared])


FIND_COMMANDS: dict[str, Checker] = {"find": check_find}
