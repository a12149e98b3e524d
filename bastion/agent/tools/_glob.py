"""glob: the names under a directory that match a doublestar pattern, sorted; a directory the
policy would not let a listing of run unasked (a secret-looking one) is not entered, and the result
says which were not."""

from __future__ import annotations

from ..._safe import safe_name
from ._base import (
    Args,
    Tool,
    ToolContext,
    ToolError,
    check_path_stamp,
    confined,
    path_of,
    readable,
    schema,
    text,
)
from ._walk import compile_glob, literal_parts, walk

__all__ = ["GLOB", "closed_note"]

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
    found: list[str] = []
    closed: list[str] = []
    for e in walk(ctx.ws, r.real, literal_parts(raw, pattern), listable=readable(ctx), given=r.name):
        if e.closed:
            closed.append(shown(raw, e.rel))
        if matcher.match(e.rel):
            found.append(shown(raw, e.rel))
    found.sort()
    note = closed_note(sorted(closed))
    if not found:
        return f"no names match {pattern} under {raw}" + (f"\n{note}" if note else "")
    more = len(found) - MAX_MATCHES
    lines = found[:MAX_MATCHES]
    if more > 0:
        lines.append(f"... [{more} more matches; narrow the pattern]")
    if note:
        lines.append(note)
    return "\n".join(lines)


def closed_note(directories: list[str], named: int = 20) -> str:
    """What a walk says of the directories it did not enter ("" for none)."""
    if not directories:
        return ""
    more = len(directories) - named
    names = ", ".join(directories[:named]) + (f" and {more} more" if more > 0 else "")
    what = "1 directory" if len(directories) == 1 else f"{len(directories)} directories"
    return (
        f"[{what} not searched: the policy would not let a listing of them run unasked (a "
        f"secret-looking name, or a rule of yours): {names}; ls one by name to be asked]"
    )


GLOB = Tool(
    "glob",
    "List the files and directories under path whose names match a pattern (**/*.py, src/*/main.py, "
    "*.{md,txt}), sorted. Skips .git, node_modules, vendor, .venv, __pycache__ and similar trees "
    "unless path or pattern names them, and secret-looking directories (it says which). A name that is "
    "not plain printable text is shown as a JSON string.",
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
