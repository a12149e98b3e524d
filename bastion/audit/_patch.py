"""Codex's patches: the files an apply_patch writes, read by a strict grammar (codex_patch.lark).

A patch reaches a hook in two ways: as Codex's own `apply_patch` tool (the patch itself), or as a
shell line that runs it (`apply_patch <<'EOF' ... EOF`, or the patch as one single-quoted
argument, either optionally after `cd DIR && `). bash's subset grammar cannot carry a
here-document or a quoted newline, so the shell shapes are recognised here, before the line reaches
the analyzer, and exactly: any other line that may run apply_patch is not read (`NOT_READ`), and
asks.

Every file a patch names is a write: an added, updated or deleted file, and both ends of a move.
A patch that does not parse exactly, or a path with a space at either end or an unprintable
character, is not read either. Where both parse, Codex reads the same paths (see the grammar).
"""

from __future__ import annotations

import functools
import posixpath
import re
from typing import NamedTuple

from ..grammar import Grammar, Unexpected

__all__ = ["NOT_READ", "PATCH", "Patch", "patch_in_line", "patch_paths"]

PATCH = Grammar("bastion.audit", "codex_patch.lark")  # run from its tables built at install
_HEADS = ("*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: ")
NOT_READ = (
    "a patch bastion cannot read exactly (Codex's patch format, in the shapes docs/integrations.md names)"
)

# The shell shapes Codex runs a patch in. A here-document's delimiter is a plain word; quoted, the
# body is taken as written; bare, only a body without $, ` or \ is (bash expands nothing else).
_CD = r"(?:cd (?P<dir>[A-Za-z0-9_.][A-Za-z0-9_./-]*) && )?"
_HEREDOC = re.compile(
    _CD + r"(?:apply_patch|applypatch) <<[ ]?(?P<q>['\"]?)(?P<delim>[A-Za-z_][A-Za-z0-9_]*)(?P=q)\n"
    r"(?P<body>.*)\n(?P=delim)\n?",
    re.DOTALL,
)
_ARGUMENT = re.compile(_CD + r"(?:apply_patch|applypatch) '(?P<body>[^']*)'")
_NAMES = re.compile(r"(?<![A-Za-z0-9_])(?:apply_patch|applypatch)(?![A-Za-z0-9_])")


class Patch(NamedTuple):
    """A patch found in a shell line: the paths it writes, as written, and the directory they are
    taken from (`cd DIR && `), relative to where the line runs."""

    paths: tuple[str, ...]
    where: str = "."


def _path(line: str) -> str | None:
    """The path of a header line (its marker and newline taken off), or None when Codex could
    read it otherwise."""
    head = next(h for h in _HEADS if line.startswith(h))
    path = line[len(head) :].removesuffix("\n")
    if path != path.strip(" ") or not path.isprintable():
        return None
    return path


@functools.lru_cache(maxsize=256)
def patch_paths(text: str) -> tuple[str, ...] | None:
    """Every path a patch writes, in order (added, deleted, updated, moved to), or None when the
    text is not a patch in the grammar's exact form."""
    try:
        tree = PATCH.parse(text)
    except Unexpected:
        return None
    paths: list[str] = []
    for token in (t for t in tree.tokens() if t.type in ("ADD", "DELETE", "UPDATE", "MOVE")):
        path = _path(str(token))
        if path is None:
            return None
        paths.append(path)
    return tuple(paths)


def _body(line: str) -> tuple[str, str] | None:
    """(the patch text, the cd directory or "") of a line in one of the shell shapes, else None."""
    found = _HEREDOC.fullmatch(line)
    if found is not None:
        body, delim = found["body"], found["delim"]
        if delim in body.split("\n"):  # bash ends the here-document at its first such line
            return None
        if not found["q"] and any(c in body for c in "$`\\"):
            return None
        return body, found["dir"] or ""
    found = _ARGUMENT.fullmatch(line)
    if found is not None:
        return found["body"], found["dir"] or ""
    return None


def _runs_apply_patch(line: str) -> bool:
    """Whether a line may run apply_patch: it names it, and either lies outside bash's subset (which
    cannot be read word by word) or has a stage whose command is it (`cat p | apply_patch` reads
    a patch from its input). A line of the subset that names it only as an argument does not."""
    if _NAMES.search(line) is None:
        return False
    from ..grammar import Plan, parse

    plan = parse(line)
    if not isinstance(plan, Plan):
        return True
    commands = (posixpath.basename(s.command) for p in plan.pipelines for s in p.stages)
    return any(c in ("apply_patch", "applypatch") for c in commands)


def patch_in_line(line: str) -> Patch | str | None:
    """The patch a shell line applies, NOT_READ when the line may run apply_patch in a shape that is
    not read exactly, or None when it runs none (an ordinary line)."""
    if not _runs_apply_patch(line):
        return None
    found = _body(line.lstrip(" \t"))
    if found is None:
        return NOT_READ
    body, where = found
    if ".." in where.split("/"):
        return NOT_READ
    paths = patch_paths(body)
    if paths is None:
        return NOT_READ
    return Patch(paths, where or ".")
