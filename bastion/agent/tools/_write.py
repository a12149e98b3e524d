"""write: create or replace a regular file, making its parent directories."""

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
from ._held import write_file
from ._writing import writing

__all__ = ["WRITE"]


def _paths(args: Args) -> tuple[str, ...]:
    return (path_of("write", args),)


def _run(args: Args, ctx: ToolContext) -> str:
    raw = path_of("write", args)
    content = text(args, "content")
    check_path_stamp("write", args, _paths(args), ctx)
    r = confined(ctx, raw)
    if r.exists and not r.is_regular:
        raise ToolError(f"{raw} is not a regular file")
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError as err:
        raise ToolError("content holds a lone surrogate, which is not text") from err
    with writing(ctx), file_lock(ctx, r.real):
        try:
            how = write_file(ctx, r, raw, data)
        except OSError as err:
            raise ToolError(f"{raw} cannot be written: {err.strerror or err}") from err
    return f"wrote {len(data)} bytes to {raw}{how}"


WRITE = Tool(
    "write",
    "Create or replace a file of the workspace with the given content, making parent directories.",
    schema(
        {
            "path": {"type": "string", "description": "The file, relative to the working directory."},
            "content": {"type": "string", "description": "The whole new content of the file."},
        },
        ["path", "content"],
    ),
    _run,
    _paths,
)
