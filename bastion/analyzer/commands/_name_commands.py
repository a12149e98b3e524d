"""realpath, readlink, stat, du and tree: they look at names (where links lead, types, sizes, what
lies below a directory) and read no file's contents, so, as with ls, every path operand must stay
inside the working directory once its links are followed, and no flag may follow links out, read
a list of names from a file or write one. du and tree list the directories they are given and
skip every secret-looking one below them (_listers.py, design rule 41)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...grammar import Stage
from .._result import Check, Checker, Context
from ._flags import ANY, NUMBER, FlagTable, parse_args
from ._listers import du_skips, listed, secret_name, skip_globs, tree_skips
from ._operands import names_inside

__all__ = ["NAME_COMMANDS", "TABLES"]

_FOLLOW = "follows symbolic links below the operands, which can lead out of the working directory"
_FROM_FILE = "reads the names to look at from a file that is not checked"
_TIME = re.compile(r"[A-Za-z+-]+")

TABLES: dict[str, FlagTable] = {
    "realpath": FlagTable(
        bare=frozenset(
            {
                "-e",
                "--canonicalize-existing",
                "-m",
                "--canonicalize-missing",
                "-L",
                "--logical",
                "-P",
                "--physical",
                "-q",
                "--quiet",
                "-s",
                "--strip",
                "--no-symlinks",
                "-z",
                "--zero",
            }
        ),
        letters="emLPqsz",
        attached={"--relative-to=": ANY, "--relative-base=": ANY},
    ),
    "readlink": FlagTable(
        bare=frozenset(
            {
                "-f",
                "--canonicalize",
                "-e",
                "--canonicalize-existing",
                "-m",
                "--canonicalize-missing",
                "-n",
                "--no-newline",
                "-q",
                "--quiet",
                "-s",
                "--silent",
                "-v",
                "--verbose",
                "-z",
                "--zero",
            }
        ),
        letters="femnqsvz",
    ),
    "stat": FlagTable(
        bare=frozenset({"-L", "--dereference", "-f", "--file-system", "-t", "--terse"}),
        letters="Lft",
        spaced={"-c": ANY},
        attached={"--format=": ANY, "--printf=": ANY},
    ),
    "du": FlagTable(
        bare=frozenset(
            {
                "-a",
                "--all",
                "-h",
                "--human-readable",
                "-s",
                "--summarize",
                "-c",
                "--total",
                "-k",
                "-m",
                "-b",
                "--bytes",
                "--apparent-size",
                "-x",
                "--one-file-system",
                "--si",
                "-l",
                "--count-links",
                "-0",
                "--null",
                "-S",
                "--separate-dirs",
                "--inodes",
            }
        ),
        letters="ahsckmbxlS0",
        spaced={"-d": NUMBER, "-t": re.compile(r"[+-]?[0-9]+[KMGTPEZY]?")},
        attached={
            "--max-depth=": NUMBER,
            "--exclude=": ANY,
            "--time=": _TIME,
            "--time-style=": _TIME,
            "--block-size=": re.compile(r"[0-9]*[KMGTPEZY]?i?B?"),
        },
        refused={
            "-L": f"du -L {_FOLLOW}",
            "--dereference": f"du --dereference {_FOLLOW}",
            "-X": "du -X reads patterns from a file that is not checked",
            "--exclude-from": "du --exclude-from reads patterns from a file that is not checked",
            "--files0-from": f"du --files0-from {_FROM_FILE}",
        },
    ),
    "tree": FlagTable(
        bare=frozenset(
            {
                "-a",
                "-d",
                "-f",
                "-i",
                "-x",
                "-p",
                "-s",
                "-h",
                "-u",
                "-g",
                "-D",
                "-F",
                "-Q",
                "-N",
                "-C",
                "-n",
                "-v",
                "-t",
                "-c",
                "-r",
                "--noreport",
                "--dirsfirst",
                "--filesfirst",
                "--prune",
                "--du",
                "--si",
                "--inodes",
                "--device",
                "--matchdirs",
                "--ignore-case",
                "-A",
                "-S",
            }
        ),
        letters="adfixpshugDFQNCnvtcrAS",
        spaced={"-L": NUMBER, "-I": ANY, "-P": ANY},
        attached={"--filelimit=": NUMBER, "--charset=": re.compile(r"[A-Za-z0-9_.-]+"), "--sort=": _TIME},
        # tree reads its options wherever they stand (its own loop over argv, not getopt), so
        # `tree src -I '*.pyc'` means what it says under POSIXLY_CORRECT too.
        options_after_operands=True,
        refused={
            "-l": f"tree -l {_FOLLOW}",
            "-o": "tree -o writes its output to a file",
            "--fromfile": f"tree --fromfile {_FROM_FILE}",
            "-R": "tree -R writes an output file in every directory it lists",
            "-H": "tree -H makes HTML, which with -R writes files",
            "--gitignore": "tree --gitignore reads .gitignore files, which are not checked",
            "--gitfile": "tree --gitfile reads a file that is not checked",
        },
    ),
}

_RELATIVE = ("--relative-to=", "--relative-base=")


def _check(ctx: Context, stage: Stage) -> Check:
    command = stage.command
    args = parse_args(command, TABLES[command], stage.args)
    if not args.ok:
        return Check.refuse(args.why)
    if command in ("realpath", "readlink", "stat") and not args.operands:
        return Check.refuse(f"{command} needs a name to look at")
    bases = [value or "" for flag, value in args.flags if flag in _RELATIVE]
    inside = names_inside(ctx, [*args.operands, *bases])
    if not inside.ok or command not in ("du", "tree"):
        return inside
    return _walker(ctx, stage, args.operands or (".",))


def _walker(ctx: Context, stage: Stage, operands: Sequence[str]) -> Check:
    """du and tree list their operands and walk below them, skipping secret-looking directories:
    their plan carries du's `--exclude` or tree's `-I` (_listers.py) before its own words."""
    lists, why = listed(ctx, operands)
    if why:
        return Check.refuse(why)
    globs = skip_globs(ctx)
    if isinstance(globs, str):
        return Check.refuse(globs)
    if not globs:
        return Check(ok=True, lists=lists)
    if stage.command == "du":
        secret = next((o for o in operands if secret_name(o, globs)), None)
        if secret is not None:
            return Check.refuse(
                f"du {secret!r}: du leaves out a secret-looking directory even when it is the operand, so "
                "it cannot skip the ones below and still count this one"
            )
        skips = du_skips(globs)
    else:
        skips = tree_skips(globs)
    return Check(ok=True, lists=lists, words=(stage.words[0], *skips, *stage.args))


NAME_COMMANDS: dict[str, Checker] = {c: _check for c in TABLES}
