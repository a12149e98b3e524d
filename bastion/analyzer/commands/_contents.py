"""nl, strings, file, diff and cmp: they read files whole and print what they found, so each file
operand is checked as cat's are (inside, regular, under the read limit, a read subject so that a
secret asks). nl and strings also filter standard input after a pipe."""

from __future__ import annotations

import re

from ...grammar import Stage
from ...workspace import resolve
from .._result import Check, Checker, Context
from ._flags import ANY, NUMBER, FlagTable, parse_args
from ._operands import read_files

__all__ = ["CONTENT_FILTERS", "CONTENT_READERS", "TABLES"]

_NL_STYLE = re.compile(r"[atn]|p.*", re.DOTALL)  # all, non-empty, none, or lines matching a regex
_NL_FORMAT = re.compile(r"ln|rn|rz")
_RADIX = re.compile(r"[odx]")
_ENCODING = re.compile(r"[sSbBlL]")
_WHEN = re.compile(r"never|always|auto")
# nl's short options that take a value, the same whether it is attached (-ba) or the next word (-b a).
_NL_VALUES = {
    "-b": _NL_STYLE,
    "-h": _NL_STYLE,
    "-f": _NL_STYLE,
    "-n": _NL_FORMAT,
    "-w": NUMBER,
    "-s": ANY,
    "-v": NUMBER,
    "-i": NUMBER,
    "-l": NUMBER,
    "-d": ANY,
}
_FROM_FILE = "reads the names of the files from a file that is not checked"

TABLES: dict[str, FlagTable] = {
    "nl": FlagTable(
        bare=frozenset({"-p", "--no-renumber"}),
        letters="p",
        spaced=_NL_VALUES,
        attached={
            **_NL_VALUES,
            "--body-numbering=": _NL_STYLE,
            "--header-numbering=": _NL_STYLE,
            "--footer-numbering=": _NL_STYLE,
            "--number-format=": _NL_FORMAT,
            "--number-width=": NUMBER,
            "--number-separator=": ANY,
            "--starting-line-number=": NUMBER,
            "--line-increment=": NUMBER,
            "--join-blank-lines=": NUMBER,
            "--section-delimiter=": ANY,
        },
    ),
    "strings": FlagTable(
        bare=frozenset({"-a", "--all", "-f", "--print-file-name", "-w", "--include-all-whitespace"}),
        letters="afw",
        spaced={"-n": NUMBER, "-t": _RADIX, "-e": _ENCODING},
        attached={"--bytes=": NUMBER, "--radix=": _RADIX, "--encoding=": _ENCODING},
        digits=True,
        refused={"-T": "strings -T names an object format, which this check does not know"},
    ),
    "file": FlagTable(
        bare=frozenset(
            {
                "-b",
                "--brief",
                "-i",
                "--mime",
                "--mime-type",
                "--mime-encoding",
                "-L",
                "--dereference",
                "-h",
                "--no-dereference",
                "-N",
                "--no-pad",
                "-k",
                "--keep-going",
                "-r",
                "--raw",
                "-E",
                "--extension",
            }
        ),
        letters="biLhNkrE",
        refused={
            "-f": f"file -f {_FROM_FILE}",
            "--files-from": f"file --files-from {_FROM_FILE}",
            "-m": "file -m reads magic from a file of the caller's choice, unchecked",
            "--magic-file": "file --magic-file reads magic from a file of the caller's choice, unchecked",
            "-C": "file -C compiles magic and writes a .mgc file",
            "--compile": "file --compile writes a .mgc file",
            "-z": "file -z looks inside compressed files, which can run a decompressor",
            "-Z": "file -Z looks inside compressed files, which can run a decompressor",
            "--uncompress": "file --uncompress can run a decompressor",
            "-s": "file -s reads devices and FIFOs, which can block or never end",
            "--special-files": "file --special-files reads devices and FIFOs, which can block",
            "-p": "file -p sets the files' access times back, a write",
            "--preserve-date": "file --preserve-date sets the files' access times back, a write",
        },
    ),
    "diff": FlagTable(
        bare=frozenset(
            {
                "-u",
                "-c",
                "-q",
                "--brief",
                "-s",
                "--report-identical-files",
                "-y",
                "--side-by-side",
                "-w",
                "--ignore-all-space",
                "-b",
                "--ignore-space-change",
                "-B",
                "--ignore-blank-lines",
                "-i",
                "--ignore-case",
                "-a",
                "--text",
                "-p",
                "--show-c-function",
                "-t",
                "--expand-tabs",
                "-T",
                "--initial-tab",
                "--strip-trailing-cr",
                "--suppress-common-lines",
                "--color",
                "-E",
                "--ignore-tab-expansion",
                "-Z",
                "--ignore-trailing-space",
                "--minimal",
                "-d",
            }
        ),
        letters="ucqsywbBiaptTEZd",
        spaced={"-U": NUMBER, "-C": NUMBER, "-W": NUMBER},
        attached={
            "-U": NUMBER,
            "-C": NUMBER,
            "-W": NUMBER,
            "--unified=": NUMBER,
            "--context=": NUMBER,
            "--width=": NUMBER,
            "--color=": _WHEN,
        },
        refused={
            "-r": "diff -r reads every file below two directories, which are not checked",
            "--recursive": "diff --recursive reads every file below two directories, unchecked",
            "-N": "diff -N only matters to directories, whose files are not checked",
            "--from-file": "diff --from-file compares a file against names not checked as pairs",
            "--to-file": "diff --to-file compares names against a file not checked as a pair",
            "-X": "diff -X reads patterns from a file that is not checked",
            "--exclude-from": "diff --exclude-from reads patterns from a file that is not checked",
        },
    ),
    "cmp": FlagTable(
        bare=frozenset({"-b", "--print-bytes", "-l", "--verbose", "-s", "--quiet", "--silent"}),
        letters="bls",
        spaced={"-n": NUMBER, "-i": NUMBER},
        attached={"--bytes=": NUMBER, "--ignore-initial=": NUMBER},
    ),
}

_TWO = frozenset({"diff", "cmp"})


def _binutils_response_file(command: str, operands: tuple[str, ...]) -> str:
    if command == "strings" and any(o.startswith("@") for o in operands):
        return "strings reads more options from a file named after @, which is not checked"
    return ""


def _file_operands(ctx: Context, operands: tuple[str, ...]) -> Check:
    """file: regular files are read (their first bytes); a directory is only looked at."""
    files = []
    for raw in operands:
        r = resolve(ctx.ws, ctx.cwd, raw)
        if r.ok and r.is_dir:
            continue
        files.append(raw)
    if not files:
        return Check(ok=True) if operands else read_files(ctx, "file", ())
    return read_files(ctx, "file", files)


def _check_first(ctx: Context, stage: Stage) -> Check:
    command = stage.command
    args = parse_args(command, TABLES[command], stage.args)
    if not args.ok:
        return Check.refuse(args.why)
    if why := _binutils_response_file(command, args.operands):
        return Check.refuse(why)
    if command in _TWO and len(args.operands) != 2:
        return Check.refuse(
            f"{command} compares exactly two files here; more operands are offsets or "
            "names this check does not read as files"
        )
    if command == "file":
        return _file_operands(ctx, args.operands)
    return read_files(ctx, command, args.operands)


def _check_filter(ctx: Context, stage: Stage) -> Check:
    command = stage.command
    args = parse_args(command, TABLES[command], stage.args)
    if not args.ok:
        return Check.refuse(args.why)
    if args.operands:
        return Check.refuse(
            f"{command} after a pipe reads standard input; the operand {args.operands[0]!r} "
            "is a file that is not checked"
        )
    return Check(ok=True)


CONTENT_READERS: dict[str, Checker] = {c: _check_first for c in TABLES}
CONTENT_FILTERS: dict[str, Checker] = {c: _check_filter for c in ("nl", "strings")}
