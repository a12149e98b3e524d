"""awk that only computes and prints: a program of awk_program.lark, the files it reads checked as
cat's are, and no option but `-F` (a field separator).

The program is parsed by the grammar beside this module, LALR with lark's contextual lexer, run
from tables built at install (so no awk line imports lark). The grammar is the whole rule: what it
accepts is what runs, and its comments say how it cuts a program into tokens as awk's own lexers
do. Above all a `/` is a regular expression only in a state reached after a token where mawk, gawk
and busybox all start one, and a division only after an operand where all three divide; where they
disagree (after a postfix ++/--, `length` without parentheses, a regular expression, the `)` of an
if; `/=`) neither is accepted and the line asks. tests/analyzer/commands/test_awk_lexing.py proves that from
the tables; the differential property (fuzz/awk_readers.py) holds the reading to the real
interpreters' own dumps. No sentence names a file, a program or the environment (no `|`, no
redirect after print, no getline, system, close, fflush, ENVIRON, ARGV, @include...). Refused: `-f`
(a program file that is not checked), `-v` (an assignment before the program runs), every other
option (gawk's `-i`/`-l` load files and libraries, `-o`/`-p`/`-d` write awkprof.out or awkvars.out,
mawk's `-W exec` reads a program file), and an operand `NAME=value`, which awk takes for an
assignment, not a file.
"""

from __future__ import annotations

import functools
import re

from ...grammar import Grammar, Stage, Unexpected
from ._flags import ANY, FlagTable, parse_args
from ._operands import script_checkers

__all__ = ["AWK_FIRST", "AWK_FILTER", "program_prints_only"]

# LALR over lark's contextual lexer, run from tables built at install.
AWK = Grammar("bastion.analyzer.commands", "awk_program.lark")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")

AWK_FLAGS = FlagTable(
    spaced={"-F": ANY},
    attached={"-F": ANY},
    refused={
        "-f": "awk -f reads its program from a file that is not checked",
        "--file": "awk --file reads its program from a file that is not checked",
        "-v": "awk -v assigns a variable before the program runs, which this check does not read",
        "--assign": "awk --assign assigns a variable before the program runs",
        "-i": "gawk -i includes a source file that is not checked",
        "-l": "gawk -l loads a shared library, a program",
        "-E": "gawk -E reads its program from a file that is not checked",
        "-e": "gawk -e joins program texts this check reads one at a time",
        "-o": "gawk -o writes the program to a file",
        "-p": "gawk -p writes a profile to a file",
        "-d": "gawk -d writes the variables to a file",
        "-W": "mawk -W takes options (exec reads a program file, dump writes)",
    },
)


@functools.lru_cache(maxsize=1024)
def program_prints_only(program: str) -> bool:
    """Whether the whole program is a sentence of awk_program.lark (whose names are all variables)."""
    try:
        AWK.parse(program)
    except Unexpected:
        return False
    return True


def _files(stage: Stage) -> tuple[str, tuple[str, ...]]:
    """(why not, or "", the file operands): the program is the first operand."""
    args = parse_args("awk", AWK_FLAGS, stage.args)
    if not args.ok:
        return args.why, ()
    if not args.operands:
        return "awk needs a program, and without one it prints an error", ()
    program, files = args.operands[0], args.operands[1:]
    if not program_prints_only(program):
        return (
            f"the awk program {program!r} is not only patterns and actions that compute and print; "
            "others run programs (system, |), write files (>), read unchecked ones (getline) or the "
            "environment (ENVIRON)",
            (),
        )
    for name in files:
        if _ASSIGNMENT.match(name):
            return f"awk takes {name!r} for an assignment, not a file, which this check does not read", ()
    return "", files


AWK_FIRST, AWK_FILTER = script_checkers("awk", _files)
