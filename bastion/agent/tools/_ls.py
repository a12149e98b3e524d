"""ls: one directory, sorted; directories end in /, files show their size, links their target."""

from __future__ import annotations

import posixpath
import stat

from ..._safe import safe_name
from ._base import Args, Tool, ToolContext, ToolError, check_path_stamp, confined, path_of, schema

__all__ = ["LS"]


def _paths(args: Args) -> tuple[str, ...]:
    return (path_of("ls", args),)


def _describe(ctx: ToolContext, real: str, raw: str) -> str:
    name = safe_name(raw)
    try:
        st = ctx.ws.lstat(real)
    except OSError as err:
        return f"{name} (cannot be read: {err.strerror or err})"
    if stat.S_ISDIR(st.st_mode):
        return f"{name}/"
    if stat.S_ISREG(st.st_mode):
        return f"{name} ({st.st_size} bytes)"
    if stat.S_ISLNK(st.st_mode):
        try:
            return f"{name} -> {safe_name(ctx.ws.readlink(real))}"
        except OSError:
            return f"{name} -> ?"
    return f"{name} (not a regular file)"


def _run(args: Args, ctx: ToolContext) -> str:
    raw = path_of("ls", args)
    check_path_stamp("ls", args, _paths(args), ctx)
    r = confined(ctx, raw)
    if not r.is_dir:
        raise ToolError(f"{raw} is not a directory" if r.exists else f"{raw} does not exist")
    try:
        names = ctx.ws.readdir(r.real)
    except OSError as err:
        raise ToolError(f"{raw} cannot be read: {err.strerror or err}") from err
    if not names:
        return f"{raw} is empty"
    return "\n".join(_describe(ctx, posixpath.join(r.real, n) if r.real != "." else n, n) for n in names)


LS = Tool(
    "ls",
    "List one directory of the workspace, sorted: directories end in /, files show their size. A name "
    "that is not plain printable text (a newline, a control character in it) is shown as a JSON string.",
    schema({"path": {"type": "string", "description": "The directory (default: the working one)."}}, []),
    _run,
    _paths,
)
