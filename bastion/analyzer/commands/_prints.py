"""echo, printf, true, false and test, and cat and od as filters that show bytes visibly.

echo and printf print their own words and open nothing: in the subset every word is already
literal (no $, no backtick, no glob here), and what their escapes make (`echo -e '\\t'`, printf's
`%b`, `%q`, `%(...)T` for a time) is only printed. printf's `-v NAME` assigns a shell variable
instead of printing and is refused; bash's printf has no working `%n` (it stores nothing). true and
false do nothing. test looks at names only (stat, lstat or access, as ls does): each name a file
test is given must stay inside the working directory once its links are followed, and the string
tests compare words. `[` is test with a last word `]` (the grammar has `[` as a command word of
its own and `]` as a word of its own).

In `bash -c` echo, printf, true, false and test are builtins, which no PATH reaches (their names
stay in the plan, every program's is its absolute path: _programs.py). An exported function of the
same name would replace them: bastion's own runs drop every `BASH_FUNC_*` variable (_neutral.py),
one exported where a dry-run's plan runs asks, and one the other agent's shell defines at its start
is trusted (`unset -f` and `builtin` can be functions too); docs/rules.md rules 21 and 43."""

from __future__ import annotations

import re

from ...grammar import Stage
from .._result import Check, Checker, Context
from ._flags import NUMBER, FlagTable, parse_args
from ._operands import names_inside, read_files
from ._readers import TABLES as READER_TABLES

__all__ = ["PRINT_COMMANDS", "PRINT_FILTERS"]

_GLOB = "{0} is given the glob {1!r}, which bash expands to names this check never saw"
# A conversion of printf's format: flags, width, precision, then the letter (or a time in %(...)T).
_CONVERSION = re.compile(r"%([-+ #0]*)([0-9*]*)(?:\.([0-9*]*))?(\([^)]*\)T|.?)", re.DOTALL)
_LETTERS = frozenset("diouxXfeEgGaAcsbqQ%")
_MAX_WIDTH = 4  # digits of a width or precision: `%999999999s` would fill the memory, not the screen
_FILE_TESTS = frozenset(
    {
        "-f",
        "-d",
        "-e",
        "-s",
        "-r",
        "-w",
        "-x",
        "-L",
        "-h",
        "-p",
        "-S",
        "-b",
        "-c",
        "-u",
        "-g",
        "-k",
        "-O",
        "-G",
    }
)
_STRING_TESTS = frozenset({"-n", "-z"})
_COMPARISONS = frozenset({"=", "==", "!="})
_INTEGER_COMPARISONS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_INTEGER = re.compile(r"[+-]?[0-9]{1,18}")
_OD_TYPE = re.compile(r"[acdfoux][0-9CSILFDL]*z?")
_OD_TABLE = FlagTable(
    bare=frozenset(
        {
            "-a",
            "-b",
            "-c",
            "-d",
            "-f",
            "-i",
            "-l",
            "-o",
            "-s",
            "-x",
            "-v",
            "-w",
            "--output-duplicates",
            "--width",
        }
    ),
    letters="abcdfilosxv",
    spaced={"-A": re.compile(r"[doxn]"), "-t": _OD_TYPE, "-N": NUMBER, "-j": NUMBER},  # -w: attached only
    attached={
        "-A": re.compile(r"[doxn]"),
        "-t": _OD_TYPE,
        "-N": NUMBER,
        "-j": NUMBER,
        "-w": NUMBER,
        "--address-radix=": re.compile(r"[doxn]"),
        "--format=": _OD_TYPE,
        "--read-bytes=": NUMBER,
        "--skip-bytes=": NUMBER,
        "--width=": NUMBER,
    },
    refused={"--traditional": "od --traditional reads a +offset operand as a place to start, not a file"},
)


def _no_glob(stage: Stage) -> str:
    for word in stage.args:
        if word.glob:
            return _GLOB.format(stage.command, word.text)
    return ""


def _check_echo(ctx: Context, stage: Stage) -> Check:
    if why := _no_glob(stage):
        return Check.refuse(why)
    return Check(ok=True)


def _format_why(fmt: str) -> str:
    """Why printf's format is refused, or ""."""
    for match in _CONVERSION.finditer(fmt):
        _, width, precision, letter = match.groups()
        if letter.endswith(")T"):
            continue
        if letter not in _LETTERS:
            return f"printf's conversion {match.group(0)!r} is not one bastion knows"
        for digits in (width, precision or ""):
            if "*" in digits or len(digits) > _MAX_WIDTH:
                return (
                    f"printf's conversion {match.group(0)!r} takes a width from an argument or one over "
                    f"{_MAX_WIDTH} digits, which can fill the memory"
                )
    return ""


def _check_printf(ctx: Context, stage: Stage) -> Check:
    if why := _no_glob(stage):
        return Check.refuse(why)
    words = [w.text for w in stage.args]
    if words and words[0] == "--":
        words = words[1:]
    elif words and words[0].startswith("-"):
        return Check.refuse(
            f"printf {words[0]!r}: printf -v assigns a shell variable instead of printing, "
            "and no other option exists; put `--` before a format that starts with -"
        )
    if not words:
        return Check.refuse("printf needs a format, and without one it prints an error")
    if why := _format_why(words[0]):
        return Check.refuse(why)
    return Check(ok=True)


def _check_nothing(ctx: Context, stage: Stage) -> Check:
    if stage.args:
        return Check.refuse(f"{stage.command} takes no arguments here, so that no word is read as anything")
    return Check(ok=True)


def _check_test(ctx: Context, stage: Stage) -> Check:
    """test (and `[`, whose last word must be `]`) as POSIX reads it by the number of its words:
    one word; a unary test (a file test looks at its name: stat, lstat, access); a binary string
    or integer comparison; each after an optional `!`. Nothing joins tests (`-a`, `-o`, parentheses)."""
    if why := _no_glob(stage):
        return Check.refuse(why)
    words = [w.text for w in stage.args]
    if stage.command == "[":
        if not words or words[-1] != "]":
            return Check.refuse("[ needs ] as its last word, and without it prints an error")
        words = words[:-1]
    if words and words[0] == "!" and len(words) > 1:
        words = words[1:]
    if len(words) == 1:
        return Check(ok=True)
    if len(words) == 2 and words[0] in _STRING_TESTS:
        return Check(ok=True)
    if len(words) == 2 and words[0] in _FILE_TESTS:
        return names_inside(ctx, [words[1]])
    if len(words) == 3 and words[1] in _COMPARISONS:
        return Check(ok=True)
    if len(words) == 3 and words[1] in _INTEGER_COMPARISONS:
        # test compares integers as written (it never evaluates an expression, as [[ ]] would).
        if all(_INTEGER.fullmatch(w) for w in (words[0], words[2])):
            return Check(ok=True)
        return Check.refuse(f"test {words[1]} compares integers; {words[0]!r} or {words[2]!r} is not one")
    return Check.refuse(
        "test takes here one word, a file test (-e -f -d -s -r -w -x -L -h -p -S -b -c -u -g -k -O -G) "
        "on a name inside, -n or -z on a word, two words compared with = == != or two integers with "
        "-eq -ne -lt -le -gt -ge, each after an optional `!`; its other tests look at terminals (-t), "
        "variables (-v) or options (-o), and -a, -o and parentheses join expressions this check does "
        "not read"
    )


def _check_od(ctx: Context, stage: Stage) -> Check:
    args = parse_args("od", _OD_TABLE, stage.args)
    if not args.ok:
        return Check.refuse(args.why)
    if ctx.after_pipe:
        if args.operands:
            return Check.refuse(
                f"od after a pipe reads standard input; the operand {args.operands[0]!r} is "
                "a file that is not checked"
            )
        return Check(ok=True)
    if any(o.startswith("+") for o in args.operands):
        return Check.refuse("od reads a +word as an offset when it stands last, not as a file")
    return read_files(ctx, "od", args.operands)


def _check_cat_filter(ctx: Context, stage: Stage) -> Check:
    args = parse_args("cat", READER_TABLES["cat"], stage.args)
    if not args.ok:
        return Check.refuse(args.why)
    if args.operands:
        return Check.refuse(
            f"cat after a pipe reads standard input; the operand {args.operands[0]!r} is a "
            "file that is not checked"
        )
    return Check(ok=True)


PRINT_COMMANDS: dict[str, Checker] = {
    "echo": _check_echo, "printf": _check_printf, "true": _check_nothing, "false": _check_nothing,
    "test": _check_test, "[": _check_test, "od": _check_od,
}  # fmt: skip
PRINT_FILTERS: dict[str, Checker] = {"od": _check_od, "cat": _check_cat_filter}
