"""grep -r: the excludes its plan carries, and every file it then reads, found as grep finds them.

GNU grep -r (not -R) follows a link only when it is an operand: below the operands it opens each
entry with O_NOFOLLOW, so a link there is never read. It skips a subdirectory whose base name
matches an `--exclude-dir` glob and a file whose base name matches an `--exclude` glob, matched
case-sensitively, and where `--include` and `--exclude` disagree the last one given wins. The plan
therefore carries, after the model's own options, `-D skip` (a FIFO or device below is never
opened) and, for each secret-looking pattern in force and for `.git` (whose config may hold
credentials in a remote's URL), the pattern's first component with every ASCII letter written as
`[Xx]`, both as `--exclude-dir` and `--exclude`. A pattern with a `/` (`.kube/config`) is excluded by
its first component (`.kube`), which leaves out more than it needs: never less.

grep matches a directory operand's own name against `--exclude-dir` as written: `.git` is skipped,
`.git/` and `.git/.` are not. So the plan writes each operand without its trailing `/` and `/.`
(`operand_name`; grep prints the same names either way), and every exclude holds for it.

The excludes only make such a line pass; what decides it is the walk. `tree_files` lists every
regular file the plan reads, skipping exactly what the same globs make grep skip (fnmatch on the
same strings), and each becomes a read subject: a file the policy would not let `cat` read unasked
asks, whatever the excludes said, and so does a file past the read bound or a tree past
MAX_TREE_FILES.
"""

from __future__ import annotations

import fnmatch
import posixpath
import stat
from collections.abc import Sequence
from typing import NamedTuple

from ...workspace import Workspace

__all__ = ["MAX_TREE_FILES", "Tree", "exclude_globs", "exclude_words", "operand_name", "tree_files"]

MAX_TREE_FILES = 5000
# Directories the plan leaves out whatever the policy says: git's own files.
ALWAYS_EXCLUDED = (".git",)
# Characters that mean something in an fnmatch glob besides `*`: a pattern holding one is not turned
# into a glob (the line asks), so that Python's and GNU's readings of it cannot differ.
_GLOB_SPECIAL = frozenset("?[]\\")


def _folded(text: str) -> str:
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isascii() and c.isalpha() else c for c in text)


def exclude_globs(secrets: Sequence[str], always: Sequence[str] = ALWAYS_EXCLUDED) -> tuple[str, ...] | str:
    """One case-folded base-name glob per pattern (its first component) and per name of `always`,
    or why one cannot be (the walkers of _listers.py take these, without `.git`)."""
    out: list[str] = []
    for pattern in (*always, *secrets):
        first = pattern.split("/", 1)[0]
        if not first or _GLOB_SPECIAL & set(first):
            return f"the secret-looking pattern {pattern!r} cannot be written as an exclude glob"
        out.append(_folded(first))
    return tuple(dict.fromkeys(out))


def exclude_words(globs: Sequence[str]) -> tuple[str, ...]:
    """The words a grep -r plan carries after the model's options (so that they win)."""
    return ("-D", "skip", *(f"--exclude-dir={g}" for g in globs), *(f"--exclude={g}" for g in globs))


def operand_name(text: str) -> str:
    """An operand as grep matches it against its excludes: without trailing `/` and `/.`
    (`.git/` -> `.git`, `./` -> `.`); `/` stays."""
    while len(text) > 1 and (text.endswith("/") or text.endswith("/.")):
        text = text[:-1] if text.endswith("/") else text[:-2]
    return text or "/"


class Tree(NamedTuple):
    """The files a grep -r reads below one directory (root-relative, walked without following a
    link), or why they cannot be listed."""

    files: tuple[str, ...] = ()
    why: str = ""


def _skipped(name: str, globs: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, g) for g in globs)


def tree_files(ws: Workspace, top: str, globs: Sequence[str], max_bytes: int, budget: int) -> Tree:
    """Every regular file below the root-relative directory `top` that grep -r with `globs` as its
    excludes opens; links, FIFOs and devices below are not opened. At most `budget` files."""
    found: list[str] = []
    pending = [top]
    while pending:
        here = pending.pop()
        try:
            entries = ws.readdir(here)
        except OSError as err:
            return Tree(why=f"grep -r: the directory {here!r} cannot be listed ({err.strerror or err})")
        for entry in entries:
            name = entry if here == "." else posixpath.join(here, entry)
            try:
                mode, size = _mode_size(ws, name)
            except OSError as err:
                return Tree(why=f"grep -r: {name!r} cannot be examined ({err.strerror or err})")
            if stat.S_ISDIR(mode):
                if not _skipped(entry, globs):
                    pending.append(name)
            elif stat.S_ISREG(mode) and not _skipped(entry, globs):
                if size > max_bytes:
                    return Tree(
                        why=f"grep -r reads {name!r}, {size} bytes, over the {max_bytes}-byte read "
                        "limit that keeps a huge file out of the conversation"
                    )
                found.append(name)
                if len(found) > budget:
                    return Tree(
                        why=f"grep -r reads more than {MAX_TREE_FILES} files, too many to judge one "
                        "by one; narrow the directory"
                    )
    return Tree(tuple(found))


def _mode_size(ws: Workspace, name: str) -> tuple[int, int]:
    st = ws.lstat(name)
    return st.st_mode, st.st_size
