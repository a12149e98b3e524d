"""read: numbered lines of a regular file, from an offset, at most max_read_bytes scanned."""

from __future__ import annotations

from ._base import Args, Tool, ToolContext, ToolError, check_path_stamp, confined, number, path_of, schema
from ._held import read_file

__all__ = ["READ"]

DEFAULT_LIMIT = 2000


def _paths(args: Args) -> tuple[str, ...]:
    return (path_of("read", args),)


def _run(args: Args, ctx: ToolContext) -> str:
    raw = path_of("read", args)
    offset = number(args, "offset", 1, low=1, high=1 << 31)
    limit = number(args, "limit", DEFAULT_LIMIT, low=1, high=1 << 31)
    check_path_stamp("read", args, _paths(args), ctx)
    r = confined(ctx, raw)
    if not r.exists:
        raise ToolError(f"{raw} does not exist")
    if not r.is_regular:
        raise ToolError(f"{raw} is not a regular file")
    try:
        data = read_file(ctx, r, raw, ctx.max_read_bytes + 1)
    except OSError as err:
        raise ToolError(f"{raw} cannot be read: {err.strerror or err}") from err
    cut = len(data) > ctx.max_read_bytes
    if cut:
        data = data[: ctx.max_read_bytes]
        data = data[: data.rfind(b"\n") + 1]  # the last whole line
    lines = data.decode("utf-8", "replace").splitlines()
    if not lines:
        return f"{raw} is empty" if not cut else f"{raw} has no line end within {ctx.max_read_bytes} bytes"
    if offset > len(lines):
        within = f" in its first {ctx.max_read_bytes} bytes" if cut else ""
        return f"{raw} has {len(lines)} lines{within}; offset {offset} is past the end"
    shown = lines[offset - 1 : offset - 1 + limit]
    out = [f"{n:6d}\t{line}" for n, line in enumerate(shown, start=offset)]
    last = offset - 1 + len(shown)
    if last < len(lines):
        out.append(f"... [{len(lines) - last} more lines; read on with offset={last + 1}]")
    elif cut:
        out.append(f"... [read stops after {ctx.max_read_bytes} bytes; the rest of {raw} is not shown]")
    return "\n".join(out)


READ = Tool(
    "read",
    "Read a file of the workspace as numbered lines. offset is the first line (1-based), limit the "
    f"number of lines (default {DEFAULT_LIMIT}).",
    schema(
        {
            "path": {"type": "string", "description": "The file, relative to the working directory."},
            "offset": {"type": "integer", "minimum": 1},
            "limit": {"type": "integer", "minimum": 1},
        },
        ["path"],
    ),
    _run,
    _paths,
)
