"""find that lists names, as ls -R does: starting points inside the working directory, tests that
only look at names, types, sizes and times, and actions that only print. Its plan prunes every
secret-looking directory below the starting points, which are listed directories themselves
(_listers.py, design rule 41).

find reads no file's contents, so it has no reads (a secret's name is not its content), and it never
follows a link below its starting points unless told to (-L, -H, -follow: refused). Every word of
the expression is matched against the tables below; an action that runs a program (-execdir, -ok),
deletes (-delete) or writes a file (-fprint, -fls) asks, and so does anything not listed. One
`-exec READER ... {} ;` (or `{} +`) is composition, checked in _compose.py (design rule 65).
"""

from __future__ import annotations

import re

from ...grammar import Stage, Word
from .._result import Check, Checker, Context
from ._flags import ANY, NUMBER
from ._listers import find_skips, listed, skip_globs
from ._operands import names_inside

__all__ = ["FIND_COMMANDS", "FIND_TESTS", "FIND_WORDS", "GLOBAL_OPTIONS", "expression_why"]

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


def expression_why(words: list[str]) -> tuple[str, list[str]]:
    """Why find's expression (without an -exec action) is refused, or "", and the names -newer
    compares with (each must be inside)."""
    return _expression(words)


def check_find(ctx: Context, stage: Stage) -> Check:
    """find's walk. A find with -exec hands names to a reader: the driver sends it to composition
    (`check_find_exec`); here -exec asks, as any action this module does not know."""
    words = [w.text for w in stage.args]
    if any(w.glob for w in stage.args):
        return Check.refuse(
            "find is given a glob, which bash expands to names this check never saw; quote a -name pattern"
        )
    options: list[str] = []
    while words and words[0] in ("-P", "-O0", "-O1", "-O2", "-O3"):
        options.append(words.pop(0))
    starts: list[str] = []
    while words and not _starts_expression(words[0]):
        starts.append(words.pop(0))
    if words and words[0] in _REFUSED:
        return Check.refuse(_REFUSED[words[0]])
    why, compared = _expression(words)
    if why:
        return Check.refuse(why)
    inside = names_inside(ctx, [*(starts or ["."]), *compared])
    if not inside.ok:
        return inside
    lists, why = listed(ctx, starts or ["."])
    if why:
        return Check.refuse(why)
    globs = skip_globs(ctx)
    if isinstance(globs, str):
        return Check.refuse(globs)
    if not globs:
        return Check(ok=True, lists=lists)
    planned = _skipping(globs, options, starts, words)
    if isinstance(planned, str):
        return Check.refuse(planned)
    return Check(ok=True, lists=lists, words=(stage.words[0], *planned))


# Options that hold for the whole walk wherever they stand; find warns when one follows a test.
GLOBAL_OPTIONS = {
    "-maxdepth": 1,
    "-mindepth": 1,
    "-xdev": 0,
    "-mount": 0,
    "-noleaf": 0,
    "-nowarn": 0,
    "-depth": 0,
}
_ACTIONS = frozenset({"-print", "-print0", "-ls", "-quit"})


def _skipping(
    globs: tuple[str, ...], options: list[str], starts: list[str], words: list[str]
) -> tuple[Word, ...] | str:
    """The arguments that walk as the line's do but skip every secret-looking directory below the
    starting points: `START... [global options] SKIPS -o ( EXPRESSION ) [-print]`."""
    if "-depth" in words:
        return "find -depth visits a directory's entries before it, so it cannot skip a secret-looking one"
    for i, word in enumerate(words[:-1]):
        if word == "-mindepth" and int(words[i + 1]) >= 2:
            return (
                "find -mindepth 2 or more runs no test above that depth, so it cannot skip a "
                "secret-looking directory"
            )
    lead: list[str] = []
    rest = list(words)
    while rest and rest[0] in GLOBAL_OPTIONS:
        lead += rest[: 1 + GLOBAL_OPTIONS[rest[0]]]
        rest = rest[1 + GLOBAL_OPTIONS[rest[0]] :]
    # An expression without an action prints what it is true for (find's implicit -print): the
    # skipped directories are kept out of it by the -o, so the plan says -print itself.
    tail = ["-o", *(["(", *rest, ")"] if rest else []), *([] if _ACTIONS & set(rest) else ["-print"])]
    skips = find_skips(globs, starts or ["."])
    return (*(Word(w) for w in (*options, *starts, *lead)), *skips, *(Word(w) for w in tail))


FIND_COMMANDS: dict[str, Checker] = {"find": check_find}
