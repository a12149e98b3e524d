"""grep: a regular expression over the files under a path, as path:line:text, with bounded work.

Files bigger than max_read_bytes, binary files and non-regular files are skipped, the bytes
scanned in one call are bounded, and the pattern runs in a worker process with a deadline, since
Python's `re` backtracks and a pattern can take exponential time.

The call is decided on its path; below a directory, a file the policy would not let a read of run
unasked (a secret-looking name, a link to one, a path a rule of yours asks or denies) is not opened,
a directory it would not let a read of run unasked is not entered (its names are not listed), and
the result says which were skipped. The walk never follows a link out of the workspace, and
`include` only narrows the files the walk already may open.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

from ._base import (
    Args,
    Tool,
    ToolContext,
    ToolError,
    check_path_stamp,
    confined,
    flag,
    number,
    path_of,
    readable,
    schema,
    text,
)
from ._glob import closed_note, shown
from ._walk import compile_glob, literal_parts, walk

__all__ = ["GREP"]

DEFAULT_RESULTS = 200
MAX_SCANNED = 32 * 1024 * 1024
DEADLINE_SECONDS = 20.0
LINE_WIDTH = 500
NAMED_SKIPS = 20
_WORKER = str(Path(__file__).with_name("_grep_worker.py"))


def _paths(args: Args) -> tuple[str, ...]:
    return (path_of("grep", args),)


class _Found(NamedTuple):
    """The files to search, as (shown name, root-relative real name), and the shown names of those
    the policy keeps closed, files and directories."""

    files: list[tuple[str, str]]
    closed: list[str]
    directories: list[str]


def _candidates(ctx: ToolContext, raw: str, include: str) -> _Found:
    """The regular files to search: the path itself (the call was decided on it), or the files below
    it that the include glob names and the policy lets a read of run unasked."""
    r = confined(ctx, raw)
    if not r.exists:
        raise ToolError(f"{raw} does not exist")
    if r.is_regular:
        return _Found([(raw, r.real)], [], [])
    if not r.is_dir:
        raise ToolError(f"{raw} is not a regular file or a directory")
    keep = compile_glob(include) if include else None
    may_open = readable(ctx)
    found = _Found([], [], [])
    for e in walk(ctx.ws, r.real, literal_parts(raw, include), listable=may_open, given=r.name):
        if e.closed:
            found.directories.append(shown(raw, e.rel))
        if e.is_dir:
            continue
        if keep is not None and not keep.match(e.rel if "/" in include else posixpath.basename(e.rel)):
            continue
        name = posixpath.join(r.name, e.rel) if r.name != "." else e.rel
        if not may_open((name, e.real) if e.real != name else (name,)):
            found.closed.append(shown(raw, e.rel))
            continue
        found.files.append((shown(raw, e.rel), e.real))
    found.files.sort()
    found.closed.sort()
    found.directories.sort()
    return found


def _closed_note(closed: list[str]) -> str:
    if not closed:
        return ""
    more = len(closed) - NAMED_SKIPS
    names = ", ".join(closed[:NAMED_SKIPS]) + (f" and {more} more" if more > 0 else "")
    files = "1 file" if len(closed) == 1 else f"{len(closed)} files"
    return (
        f"[{files} not searched: the policy would not let a read of them run unasked (a secret-looking "
        f"name, a link to one, or a rule of yours): {names}; grep or read one by name to be asked]"
    )


def _payload(ctx: ToolContext, files: list[tuple[str, str]]) -> tuple[list[str], bytes, str]:
    names: list[str] = []
    frames: list[bytes] = []
    total = 0
    note = ""
    for name, real in files:
        try:
            if ctx.ws.lstat(real).st_size > ctx.max_read_bytes:
                continue
            data = ctx.ws.read(real, ctx.max_read_bytes + 1)
        except OSError:
            continue
        if len(data) > ctx.max_read_bytes or b"\x00" in data[:8192]:
            continue
        if total + len(data) > MAX_SCANNED:
            note = f"... [the search stopped after {total} bytes; narrow the path or include]"
            break
        total += len(data)
        encoded = name.encode("utf-8", "surrogateescape")
        frames.append(b"%d %d\n" % (len(encoded), len(data)) + encoded + data)
        names.append(name)
    return names, b"".join(frames), note


def _run(args: Args, ctx: ToolContext) -> str:
    pattern = text(args, "pattern")
    raw = path_of("grep", args)
    include = text(args, "include", "")
    ignore_case = flag(args, "ignore_case")
    max_results = number(args, "max_results", DEFAULT_RESULTS, low=1, high=10_000)
    try:
        re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except (re.error, RecursionError, OverflowError) as err:
        raise ToolError(f"the pattern {pattern!r} is not a valid regular expression: {err}") from err
    check_path_stamp("grep", args, _paths(args), ctx)
    found = _candidates(ctx, raw, include)
    names, frames, note = _payload(ctx, found.files)
    header = {"pattern": pattern, "ignore_case": ignore_case, "max_results": max_results, "width": LINE_WIDTH}
    proc = subprocess.Popen(
        [sys.executable, "-I", "-S", _WORKER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={"PATH": os.defpath},
    )
    try:
        out, _ = proc.communicate(json.dumps(header).encode() + b"\n" + frames, timeout=DEADLINE_SECONDS)
    except subprocess.TimeoutExpired as err:
        proc.kill()
        proc.communicate()
        raise ToolError(
            f"the pattern {pattern!r} ran for more than {DEADLINE_SECONDS:g}s; simplify it (nested repeats "
            "backtrack)"
        ) from err
    if proc.returncode != 0:
        raise ToolError(f"the search failed (worker exit {proc.returncode})")
    result = json.loads(out)
    lines = [f"{names[i]}:{n}:{line}" for i, n, line in result["matches"]]
    if result["more"]:
        lines.append(f"... [more than {max_results} matches; narrow the search or raise max_results]")
    if note:
        lines.append(note)
    if not lines:
        lines.append(f"no matches for {pattern} under {raw}")
    if closed := _closed_note(found.closed):
        lines.append(closed)
    if directories := closed_note(found.directories):
        lines.append(directories)
    return "\n".join(lines)


GREP = Tool(
    "grep",
    "Search files under path for a regular expression (Python syntax); prints path:line:text. include "
    "is a glob the file names must match (*.py). Skips big, binary and non-regular files, the "
    "trees glob skips, and files and directories the policy asks before reading (secret-looking ones: "
    "it says which).",
    schema(
        {
            "pattern": {"type": "string", "description": "A regular expression."},
            "path": {"type": "string", "description": "A file or directory (default: the working one)."},
            "include": {"type": "string", "description": "Only files whose names match this glob."},
            "ignore_case": {"type": "boolean"},
            "max_results": {"type": "integer", "minimum": 1, "default": DEFAULT_RESULTS},
        },
        ["pattern"],
    ),
    _run,
    _paths,
)
