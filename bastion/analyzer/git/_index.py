"""A repository's index entries read from its index file: its gitlinks, as `git ls-files --stage`
lists them (design rule 85), and every name `git ls-files` can print (design rule 114); or None
where this reader does not fully understand the file (git is asked then, or the line asks).

The index (git's `gitformat-index`): a header (`DIRC`, version 2, 3 or 4, the number of entries),
the entries in order, extensions, and the SHA-1 of all that. An entry is its stat data (ten
32-bit fields, the mode the seventh), the object name (20 bytes), 16 bits of flags (the name's
length in the low 12, 0xFFF for longer; 0x4000 marks 16 more bits of flags, from version 3) and
the name: NUL-terminated and padded with NULs to a multiple of 8 bytes in versions 2 and 3; in
version 4 a varint of how many bytes to drop from the end of the previous name, then the rest,
NUL-terminated. A gitlink's mode is 160000, a symbolic link's 120000 (every stage of a name in a
conflict is an entry; the stage is bits 12-13 of the flags, skip-worktree bit 14 of the more).

Read only what is sure: the checksum must match (a SHA-256 repository's index, or one written
with `index.skipHash`, goes to git), every length must agree, every mode be one git writes, and
an extension whose name starts with a lower-case letter (git must understand it: a split index's
`link`, whose entries live in another file, or a sparse index's `sdir`, whose entries may be
directories), or that lets git read the file in threads (`EOIE`, `IEOT`), sends the question to git.
"""

from __future__ import annotations

import os
import posixpath
import stat
from collections.abc import Callable
from typing import NamedTuple

from ...workspace import System

__all__ = ["GITLINK", "MAX_INDEX", "SYMLINK", "IndexEntry", "gitlinks", "index_entries", "read_gitlinks"]

MAX_INDEX = 8 * 1024 * 1024
GITLINK = 0o160000
SYMLINK = 0o120000
_MODES = frozenset({0o100644, 0o100755, SYMLINK, GITLINK})
_FIXED = 62  # stat data, the object name and the flags
_NAME_MASK = 0xFFF
_EXTENDED = 0x4000
_SKIP_WORKTREE = 0x4000  # of the 16 more bits of flags
# Offsets of the entries and of the extensions, by which git may read them in threads, in blocks
# whose first name is not prefix-compressed: they could make git read what a reading in order does
# not, so an index holding them goes to git.
_THREADED = frozenset({b"EOIE", b"IEOT"})


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """git's offset varint (`varint.c`) at `at`: its value and where it ends."""
    c = data[at]
    value = c & 0x7F
    at += 1
    while c & 0x80:
        c = data[at]
        value = ((value + 1) << 7) | (c & 0x7F)
        at += 1
    return value, at


def _extensions(data: bytes, at: int, end: int) -> bool:
    """Whether the extensions from `at` to `end` are all ones git may ignore and fill it exactly."""
    while at < end:
        name = data[at : at + 4]
        if at + 8 > end or not name[:1].isupper() or name in _THREADED:
            return False
        at += 8 + int.from_bytes(data[at + 4 : at + 8], "big")
    return at == end


class IndexEntry(NamedTuple):
    """One entry of an index: its name (bytes, as git stores it), its mode, its stage (0, or 1-3
    in a conflict) and whether it is marked skip-worktree."""

    name: bytes
    mode: int
    stage: int
    skip_worktree: bool


def index_entries(data: bytes) -> tuple[IndexEntry, ...] | None:
    """The entries of the index `data`, in its order, or None when not sure."""
    import hashlib  # OpenSSL's load (a few ms of a hook's start): only a repository with an index

    end = len(data) - 20
    if end < 12 or data[:4] != b"DIRC" or len(data) > MAX_INDEX:
        return None
    if hashlib.sha1(data[:end], usedforsecurity=False).digest() != data[end:]:
        return None
    version = int.from_bytes(data[4:8], "big")
    count = int.from_bytes(data[8:12], "big")
    if version not in (2, 3, 4):
        return None
    at, previous, entries = 12, b"", []
    try:
        for _ in range(count):
            mode = int.from_bytes(data[at + 24 : at + 28], "big")
            flags = int.from_bytes(data[at + 60 : at + 62], "big")
            extended = int.from_bytes(data[at + 62 : at + 64], "big") if flags & _EXTENDED else 0
            name_at = at + _FIXED + (2 if flags & _EXTENDED else 0)
            if mode not in _MODES or flags & _EXTENDED and version < 3 or name_at > end:
                return None
            if version == 4:
                drop, name_at = _varint(data, name_at)
                if drop > len(previous):
                    return None
                nul = data.index(b"\0", name_at, end)
                name = previous[: len(previous) - drop] + data[name_at:nul]
                at = nul + 1
            else:
                nul = data.index(b"\0", name_at, end)
                name = data[name_at:nul]
                at = at + ((name_at - at + len(name) + 8) & ~7)
            length = flags & _NAME_MASK
            if not name or (length != len(name) if length < _NAME_MASK else len(name) < _NAME_MASK):
                return None
            entries.append(IndexEntry(name, mode, (flags >> 12) & 3, bool(extended & _SKIP_WORKTREE)))
            previous = name
    except (IndexError, ValueError):  # a name or a varint past the end
        return None
    if at > end or not _extensions(data, at, end):
        return None
    return tuple(entries)


def gitlinks(data: bytes) -> tuple[bytes, ...] | None:
    """The names of the gitlinks of the index `data`, in its order, or None when not sure."""
    entries = index_entries(data)
    return None if entries is None else tuple(e.name for e in entries if e.mode == GITLINK)


def read_gitlinks(
    gitdir: str,
    remember: Callable[[str, os.stat_result], None],
    look: Callable[[str], object],
    system: System,
) -> tuple[bytes, ...] | None:
    """The gitlinks of the index of the walked git directory `gitdir` (none without an index), or
    None when not sure; the index is a place of the probe (`remember`ed with the identity it was
    read with, or `look`ed at when missing, so that one written later is a change). Read where the
    workspace is (`system`)."""
    path = posixpath.join(gitdir, "index")
    try:
        st = system.lstat(path)
    except FileNotFoundError:
        look(path)
        return ()
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_INDEX:
        remember(path, st)
        return None
    try:
        st, data = system.read(path, st.st_size + 1, follow=False)
    except FileNotFoundError:
        look(path)
        return ()
    except OSError:  # replaced by a link or a FIFO since the lstat: not sure
        remember(path, st)
        return None
    remember(path, st)
    return gitlinks(data) if len(data) <= MAX_INDEX else None
