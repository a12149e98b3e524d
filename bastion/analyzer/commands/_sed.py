"""sed that only prints: a script of addresses and the commands p = l q d n { } (sed_script.lark),
the files it reads checked as cat's are, and no flag that edits, reads a script file or follows links.

The script is parsed by the grammar beside this module, from its tables built at install
(`bastion.grammar.Grammar`); anything else sed knows asks, among it `w`/`W` (write a file), `r`/`R`
(read an unchecked file), `e` and `s///e` (run a command) and `s///w` (write a file).
"""

from __future__ import annotations

import functools
import re

from ...grammar import Grammar, Stage, Unexpected
from ._flags import ANY, NUMBER, FlagTable, parse_args
from ._operands import script_checkers

__all__ = ["SCRIPT", "SED_FILTER", "SED_FIRST", "SED_FLAGS", "script_prints_only"]

# Scripts that only print lines by number (`1,5p`, `$p`, `10p;20,30p`), most of what agents type: a
# sentence of sed_script.lark, settled without loading its tables
# (tests/analyzer/commands/test_readers_names_words.py checks the grammar accepts all this matches).
_LINE_PRINTS = re.compile(r"(?:[0-9]+|\$)(?:,(?:[0-9]+|\$))?p(?:;(?:[0-9]+|\$)(?:,(?:[0-9]+|\$))?p)*")
SCRIPT = Grammar("bastion.analyzer.commands", "sed_script.lark")
_IN_PLACE = "sed -i edits the file in place, a write"

SED_FLAGS = FlagTable(
    bare=frozenset(
        {
            "-n",
            "--quiet",
            "--silent",
            "-E",
            "-r",
            "--regexp-extended",
            "-s",
            "--separate",
            "-u",
            "--unbuffered",
            "-z",
            "--null-data",
            "--posix",
        }
    ),
    letters="nErsuz",
    spaced={"-e": ANY, "-l": NUMBER},
    attached={"--expression=": ANY, "--line-length=": NUMBER},
    refused={
        "-i": _IN_PLACE,
        "--in-place": _IN_PLACE,
        "-f": "sed -f reads its script from a file that is not checked",
        "--file": "sed --file reads its script from a file that is not checked",
        "--follow-symlinks": "sed --follow-symlinks only matters to -i, which writes through a link",
    },
)


@functools.lru_cache(maxsize=1024)
def script_prints_only(script: str) -> bool:
    """Whether the whole script (what sed would compile) is in sed_script.lark."""
    if _LINE_PRINTS.fullmatch(script):
        return True
    try:
        SCRIPT.parse(script)
    except Unexpected:
        return False
    return True


def _files(stage: Stage) -> tuple[str, tuple[str, ...]]:
    """(why not, or "", the file operands): the script is the -e values joined by newlines, as sed
    joins them, or else the first operand."""
    args = parse_args("sed", SED_FLAGS, stage.args)
    if not args.ok:
        return args.why, ()
    pieces = [value or "" for flag, value in args.flags if flag in ("-e", "--expression=")]
    operands = args.operands
    if not pieces:
        if not operands:
            return "sed needs a script, and without one it would take a file name as the script", ()
        pieces, operands = [operands[0]], operands[1:]
    script = "\n".join(pieces)
    if not script_prints_only(script):
        return (
            f"the sed script {script!r} is not only addresses with p, =, l, q, d, n and {{ }}; other "
            "commands write files (w, W, s///w), read unchecked ones (r, R) or run programs (e, s///e)",
            (),
        )
    return "", operands


SED_FIRST, SED_FILTER = script_checkers("sed", _files)
