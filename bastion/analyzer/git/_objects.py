"""A file of a revision, `REV:path` (show, cat-file, ls-tree): the revision's spelling and the path
judged as a read from the repository's top, found as the nearest `.git` inside the workspace."""

from __future__ import annotations

import posixpath
import re

from ...workspace import resolve
from .._result import Context

__all__ = ["PATHSPEC_CHARS", "blob_names"]

# A positional git takes as a pathspec whether or not a file has that name.
PATHSPEC_CHARS = frozenset("*?[\\")
# The revision before REV:path's ':' (a name, ~, ^, @{...}, ^{...}; no ':' and no leading '-').
_REVISION = re.compile(r"[\w@][\w@./~^{}+-]*")


def blob_names(ctx: Context, raw: str) -> tuple[str, list[str]]:
    """`REV:path`, a blob or tree of a revision: why it cannot be judged ("" when it can) and the
    root-relative names it reads. git takes the path from the repository's top (which must lie
    inside the workspace) unless it starts with `./`, which is from the working directory."""
    rev, _, path = raw.partition(":")
    if not _REVISION.fullmatch(rev) or ":" in path or ".." in raw:
        return (
            f"{raw!r}: only REV:path names a file of a revision here (an index entry ':path', a"
            " commit message search ':/text', a second ':' or a range is not judged)",
            [],
        )
    if path in ("", "."):
        return "", []  # the revision's top tree: names only
    relative = path == "./" or path.startswith("./")
    top = ctx.cwd if relative else _top(ctx)
    if top is None:
        return (
            f"{raw!r} names a file from the repository's top, which is not inside the working"
            " directory: the path checks cannot see what it names",
            [],
        )
    resolved = resolve(ctx.ws, top, path)
    if not resolved.ok:
        return f"{raw!r}: {resolved.why}", []
    if PATHSPEC_CHARS & set(path):
        return f"{raw!r} holds a character the read rules take as a pattern", []
    return "", list(dict.fromkeys(n for n in (resolved.name, resolved.real) if n))


def _top(ctx: Context) -> str | None:
    """The root-relative directory holding the `.git` git finds from the working directory (the
    probe checks it is git's top and binds it), or None when there is none inside."""
    directory = ctx.cwd
    while True:
        try:
            ctx.ws.lstat(".git" if directory == "." else f"{directory}/.git")
            return directory
        except FileNotFoundError:
            pass
        except OSError:
            return None
        if directory == ".":
            return None
        directory = posixpath.dirname(directory) or "."
