"""The index git finds from a stage's directory, read here (its top, git directory, index and
entries), and the tracked directories a form that opens the work tree's files by their paths would
pass through: one that is a link now makes such a form ask (`linked_directory`)."""

from __future__ import annotations

import errno
import posixpath
import stat

from .._result import Context
from ..commands import MAX_TREE_FILES
from ._index import MAX_INDEX, index_entries

__all__ = ["Entries", "linked_directory", "tracked_index"]

Entries = tuple[tuple[bytes, int], ...]


def tracked_index(ctx: Context) -> tuple[str, str, str, Entries] | str:
    """The repository git finds from the stage's directory (its top, git directory and index, each
    root-relative) and the index's entries (name, mode), or why they cannot be known."""
    parts = [] if ctx.cwd == "." else ctx.cwd.split("/")
    if ".git" in (p.lower() for p in parts):
        return "git ls-files inside the git directory lists nothing a reader should get"
    for depth in range(len(parts), -1, -1):
        top = "/".join(parts[:depth]) or "."
        gitdir = posixpath.join(top, ".git") if top != "." else ".git"
        try:
            mode = ctx.ws.lstat(gitdir).st_mode
        except FileNotFoundError:
            continue
        except OSError as err:
            return f"git ls-files: {gitdir} cannot be examined ({err.strerror or err})"
        if not stat.S_ISDIR(mode):
            return f"git ls-files: {gitdir} is not a directory, so git would read another repository"
        break
    else:
        return (
            "git ls-files: no repository inside the workspace holds the working directory, so its "
            "index (and the names it lists) is not one the check can read"
        )
    index = f"{gitdir}/index"
    try:
        st = ctx.ws.lstat(index)
    except FileNotFoundError:
        return top, gitdir, index, ()
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_INDEX:
        return f"git ls-files: {index} is not a regular file of at most {MAX_INDEX} bytes"
    entries = index_entries(ctx.ws.read(index, MAX_INDEX + 1))
    if entries is None:
        return (
            f"git ls-files: {index} is not an index this check reads with certainty (a split or sparse "
            "index, another hash, or damaged), so the names git prints are not known"
        )
    return top, gitdir, index, tuple((e.name, e.mode) for e in entries)


def linked_directory(ctx: Context, form: str) -> tuple[str, tuple[str, ...]]:
    """Why `form` (git ls-files --eol, or a --format: git opens every tracked file it lists, and
    reads the attributes beside it, by its path from the top, following a link on the way) would
    leave the work tree through a tracked directory that is a link now ("" when none can), and
    the names the answer rests on: the index and every tracked directory (each a directory or
    absent), bound into the stamp so that one swapped for a link after the decision refuses it.
    git status and git diff take such an entry for deleted (`has_symlink_leading_path`)."""
    found = tracked_index(ctx)
    if isinstance(found, str):
        return found.replace("git ls-files:", f"{form}:", 1), ()
    top, gitdir, index, entries = found
    directories: dict[bytes, None] = {}
    for name, _ in entries:
        parts = name.split(b"/")[:-1]
        directories.update(dict.fromkeys(b"/".join(parts[: i + 1]) for i in range(len(parts))))
    if len(directories) > MAX_TREE_FILES:
        return f"{form} opens files in more than {MAX_TREE_FILES} tracked directories, too many to judge", ()
    depends = [gitdir, index]
    for raw in directories:  # a directory comes before the ones below it
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return f"{form}: a tracked directory's name is not UTF-8, so it cannot be examined", ()
        path = text if top == "." else posixpath.join(top, text)
        depends.append(path)
        try:
            mode = ctx.ws.lstat(path).st_mode
        except OSError as err:
            if err.errno in (errno.ENOENT, errno.ENOTDIR):
                continue  # absent: git opens nothing there (bound: one made later refuses the stamp)
            return f"{form}: the tracked directory {path!r} cannot be examined ({err.strerror or err})", ()
        if stat.S_ISLNK(mode):
            return (
                f"{form} opens every tracked file it lists, and the tracked directory {path!r} is a "
                "symbolic link now, which git follows (out of the workspace, or into a directory no "
                "check names)"
            ), ()
    return "", tuple(depends)
