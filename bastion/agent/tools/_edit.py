"""edit: replace the one exact occurrence of a string in a regular file."""

from __future__ import annotations

from ._base import (
    Args,
    Tool,
    ToolContext,
    ToolError,
    check_path_stamp,
    confined,
    file_lock,
    path_of,
    schema,
    text,
)
from ._held import read_file, write_file
from ._writing import writing

__all__ = ["EDIT"]


def _paths(args: Args) -> tuple[str, ...]:
    return (path_of("edit", args),)


def _run(args: Args, ctx: ToolContext) -> str:
    raw = path_of("edit", args)
    old = text(args, "old_string")
    new = text(args, "new_string")
    if old == "":
        raise ToolError("old_string is empty; use write to create a file")
    if old == new:
        raise ToolError("old_string and new_string are the same")
    check_path_stamp("edit", args, _paths(args), ctx)
    r = confined(ctx, raw)
    if not r.exists:
        raise ToolError(f"{raw} does not exist")
    if not r.is_regular:
        raise ToolError(f"{raw} is not a regular file")
    with writing(ctx), file_lock(ctx, r.real):
        try:
            data = read_file(ctx, r, raw, ctx.max_read_bytes + 1, held=True)
        except OSError as err:
            raise ToolError(f"{raw} cannot be read: {err.strerror or err}") from err
        if len(data) > ctx.max_read_bytes:
            raise ToolError(f"{raw} is larger than {ctx.max_read_bytes} bytes; edit it with a command")
        try:
            content = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise ToolError(f"{raw} is not UTF-8 text") from err
        count = content.count(old)
        if count == 0:
            raise ToolError(f"old_string was not found in {raw} (0 occurrences)")
        if count > 1:
            raise ToolError(
                f"old_string occurs {count} times in {raw}; include more context so it occurs once"
            )
        try:
            how = write_file(ctx, r, raw, content.replace(old, new, 1).encode("utf-8"))
        except UnicodeEncodeError as err:
            raise ToolError("new_string holds a lone surrogate, which is not text") from err
        except OSError as err:
            raise ToolError(f"{raw} cannot be written: {err.strerror or err}") from err
    return f"edited {raw}: 1 occurrence replaced{how}"


EDIT = Tool(
    "edit",
    "Replace one exact occurrence of old_string with new_string in a file of the workspace. "
    "old_string must occur exactly once.",
    schema(
        {
            "path": {"type": "string", "description": "The file, relative to the working directory."},
            "old_string": {"type": "string", "description": "The exact text to replace; it must occur once."},
            "new_string": {"type": "string", "description": "The text to put in its place."},
        },
        ["path", "old_string", "new_string"],
    ),
    _run,
    _paths,
)
