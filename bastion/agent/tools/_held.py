"""The text of a file the file tools read and write: the disk's, or, where the session has another
holder of the files (`ToolContext.files`: an editor's unsaved buffers, bastion/agent/acp), that
holder's, by the file's real path.

Every check stays here and comes first: the tool has resolved the path inside the workspace (no
link leading out, no `..`), checked its stamp and that it is a regular file, and the gate decided
it (a secret-looking path asks, a hard-linked one asks) before the holder is asked. The holder is
given the resolved name (no link on the way) and asked while the workspace's write lock is held (no
writer of bastion's runs meanwhile); the file must still be the same one after (a link or another
file swapped in meanwhile fails the call, and a read's text is not shown). A file other names
share (hard links) is written on the disk, entry replaced, as without a holder: the holder would
write it in place, through every other name. Commands (bash) and the analyzer see the disk only."""

from __future__ import annotations

import contextlib
import os
import posixpath
import stat
from collections.abc import Iterator

from ...workspace import Resolved, resolve
from ._base import ToolContext, ToolError

__all__ = ["file_text", "read_file", "write_file"]


def _full(ctx: ToolContext, r: Resolved) -> str:
    return os.path.join(ctx.ws.real_root, r.real) if r.real != "." else ctx.ws.real_root


def _still(ctx: ToolContext, r: Resolved, raw: str, before: os.stat_result | None, what: str) -> None:
    """The name leads where it led, to a regular file (the same one, for a read): else ToolError."""
    now = resolve(ctx.ws, ctx.cwd, raw)
    try:
        st = ctx.ws.lstat(r.real) if now.ok and now.real == r.real else None
    except OSError:
        st = None
    same = st is not None and stat.S_ISREG(st.st_mode)
    if same and before is not None:
        same = st is not None and (st.st_dev, st.st_ino) == (before.st_dev, before.st_ino)
    if not same:
        raise ToolError(f"{raw} changed while the editor {what} it; nothing of it is shown, ask again")


@contextlib.contextmanager
def _locked(ctx: ToolContext, held: bool) -> Iterator[None]:
    from ._writing import writing

    with contextlib.nullcontext() if held else writing(ctx):
        yield


def read_file(ctx: ToolContext, r: Resolved, raw: str, limit: int, *, held: bool = False) -> bytes:
    """At most `limit` bytes of the file's text (`held`: the caller holds the write lock)."""
    if ctx.files is None:
        return ctx.ws.read(r.real, limit)
    with _locked(ctx, held):
        before = ctx.ws.lstat(r.real)
        try:
            text = ctx.files.text_of(_full(ctx, r))
        except OSError as err:
            raise ToolError(f"{raw} cannot be read through the editor: {err}") from None
        if text is None:
            return ctx.ws.read(r.real, limit)
        _still(ctx, r, raw, before, "read")
    return text.encode("utf-8", "replace")[:limit]


def write_file(ctx: ToolContext, r: Resolved, raw: str, data: bytes) -> str:
    """Write the file's new text (the caller holds the write lock); what to add to the tool's result
    when the editor took it: whether it is on the disk yet, which is what commands see."""
    if ctx.files is None:
        ctx.ws.write(r.real, data)
        return ""
    try:
        st: os.stat_result | None = ctx.ws.lstat(r.real)
    except FileNotFoundError:
        st = None
    if (st is not None and st.st_nlink > 1) or not _is_dir(ctx, posixpath.dirname(r.real) or "."):
        ctx.ws.write(r.real, data)  # shared by other names, or a new directory: the disk, as ever
        return ""
    try:
        taken = ctx.files.put_text(_full(ctx, r), data.decode("utf-8"))
    except OSError as err:
        raise ToolError(f"{raw} cannot be written through the editor: {err}; nothing was changed") from None
    if not taken:
        ctx.ws.write(r.real, data)
        return ""
    _still(ctx, r, raw, None, "wrote")
    try:
        saved = ctx.ws.read(r.real, len(data) + 1) == data
    except OSError:
        saved = False
    if saved:
        return " through the editor (saved)"
    return " through the editor, which has not saved it yet: commands see the file on disk as it was"


def _is_dir(ctx: ToolContext, name: str) -> bool:
    try:
        return stat.S_ISDIR(ctx.ws.lstat(name).st_mode)
    except OSError:
        return False


def file_text(ctx: ToolContext, raw: str, limit: int) -> str | None | OSError:
    """The file's text as the file tools would read it now, for a person (a question's diff; the
    write lock is not taken: a running writer may hold it): None when there is no such file; an
    error when it cannot be shown (over `limit` bytes, not text, outside)."""
    r = resolve(ctx.ws, ctx.cwd, raw) if raw else None
    if r is None or not r.ok:
        return OSError("outside the workspace")
    if not r.exists:
        return None
    if not r.is_regular:
        return OSError("not a regular file")
    try:
        data = read_file(ctx, r, raw, limit + 1, held=True)
    except (OSError, ToolError) as err:
        return err if isinstance(err, OSError) else OSError(str(err))
    if len(data) > limit:
        return OSError(f"larger than {limit} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return OSError("not UTF-8 text")
