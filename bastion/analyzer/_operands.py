"""What the new readers and listers do with their operands: files read (as read subjects, the way
cat reads them) or names only looked at (inside the working directory, as ls takes them)."""

from __future__ import annotations

from collections.abc import Sequence

from ..workspace import resolve
from ._readers import MAX_FILES, _read_file
from ._result import Check, Context

__all__ = ["names_inside", "read_files"]


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
