"""glob: the names under a directory that match a doublestar pattern, sorted."""

from __future__ import annotations

from ..._safe import safe_name
from ._base import Args, Tool, ToolContext, ToolError, check_path_stamp, confined, path_of, schema, text
from ._walk import compile_glob, literal_parts, walk

__all__ = ["GLOB"]

MAX_MATCHES = 1000


def _paths(args: Args) -> tuple[str, ...]:
    return (path_of("glob", args),)


def shown(raw: str, rel: str) -> str:
    """A name found under the path argument `raw`, as the model can pass it on (quoted as a JSON
    string when it is not plain printable text: bastion/_safe.py)."""
    base = raw.rstrip("/")
    return safe_name(rel if base in ("", ".") else f"{base}/{rel}")


def _run(args: Args, ctx: ToolContext) -> str:
    pattern = text(args, "pattern")
    raw = path_of("glob", args)
    matcher = compile_glob(pattern)
    check_path_stamp("glob", args, _paths(args), ctx)
    r = confined(ctx, raw)
    if not r.is_dir:
        raise ToolError(f"{raw} is not a directory" if r.exists else f"{raw} does not exist")
    found = sorted(
        shown(raw, e.rel) for e in walk(ctx.ws, r.real, literal_parts(raw, pattern)) if matcher.match(e.rel)
    )
    if not found:
        return f"no names match {pattern} under {raw}"
    more = len(found) - MAX_MATCHES
    lines = found[:MAX_MATCHES]
    if more > 0:
        lines.append(f"... [{more} more matches; narrow the pattern]")
    return "\n".join(lines)


GLOB = Tool(
    "glob",
    "List the files and directories under path whose names match a pattern (**/*.py, src/*/main.py, "
    "*.{md,txt}), sorted. Skips .git, node_modules, vendor, .venv, __pycache__ and similar trees "
    "unless path or pattern names them. A name that is not plain printable text is shown as a JSON string.",
    schema(
        {
            "pattern": {"type": "string", "description": "A glob; ** matches any number of directories."},
            "path": {"type": "string", "description": "The directory to search (default: the working one)."},
        },
        ["pattern"],
    ),
    _run,
    _paths,
)
