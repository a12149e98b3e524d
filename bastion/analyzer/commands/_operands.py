"""What the new readers and listers do with their operands: files read (as read subjects, the way
cat reads them) or names only looked at (inside the working directory, as ls takes them)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...grammar import Stage
from ...workspace import resolve
from .._result import Check, Checker, Context
from ._readers import MAX_FILES, _read_file

__all__ = ["names_inside", "read_files", "script_checkers"]

# A program-taking reader's operands: (why not, or "", the files it reads).
Files = Callable[[Stage], tuple[str, tuple[str, ...]]]


def script_checkers(command: str, files: Files) -> tuple[dict[str, Checker], dict[str, Checker]]:
    """The checkers of a reader run by a program it is given (sed, awk): first in a pipeline it
    reads its files whole (`read_files`); after a pipe it reads standard input, so a file operand
    would be an unchecked read and asks."""

    def first(ctx: Context, stage: Stage) -> Check:
        why, found = files(stage)
        return Check.refuse(why) if why else read_files(ctx, command, found)

    def after_pipe(ctx: Context, stage: Stage) -> Check:
        why, found = files(stage)
        if why:
            return Check.refuse(why)
        if found:
            return Check.refuse(
                f"{command} after a pipe reads standard input; the operand {found[0]!r} is a file "
                "that is not checked"
            )
        return Check(ok=True)

    return {command: first}, {command: after_pipe}


def read_files(ctx: Context, command: str, files: Sequence[str]) -> Check:
    """A stage that reads `files` whole: each a regular file inside, under the read limit, and
    reported as a read so that a secret asks; none, or standard input, asks."""
    if not files:
        return Check.refuse(f"{command} without a file reads standard input, which is not checked")
    if len(files) > MAX_FILES:
        return Check.refuse(f"{command} names more than {MAX_FILES} files, more than one call should read")
    reads: list[str] = []
    for raw in files:
        if why := _read_file(ctx, command, raw, reads):
            return Check.refuse(why)
    return Check(ok=True, reads=tuple(reads))


def names_inside(ctx: Context, names: Sequence[str]) -> Check:
    """A stage that only looks at `names` (their type, size, where links lead, what is below them):
    each inside the working directory once its links are followed, and not `-` (standard input)."""
    for raw in names:
        if raw == "-":
            return Check.refuse("'-' names standard input here, which is not checked")
        r = resolve(ctx.ws, ctx.cwd, raw)
        if not r.ok:
            return Check.refuse(r.why)
    return Check(ok=True)
