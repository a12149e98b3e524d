"""Doublestar patterns and the bounded walk glob and grep share.

The walk goes through the workspace only, sorted, never into a link (a link to a file inside is
a file; one that leaves, or leads to a directory, is skipped), never into cache and vendor trees
unless the search names them, never into a directory the policy would not let a read (an `ls`)
of run unasked (a secret-looking one: it is met as a closed entry, so the tool can say so; design
rule 41), and stops after a bounded number of entries.
"""

from __future__ import annotations

import posixpath
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ...workspace import Workspace, resolve
from ._base import ToolError

__all__ = ["MAX_ENTRIES", "SKIPPED", "Entry", "compile_glob", "literal_parts", "walk"]

SKIPPED = frozenset(
    {
        ".git", ".hg", ".svn", "node_modules", "vendor", ".venv", "venv", "__pycache__", ".mypy_cache",
        ".pytest_cache", ".ruff_cache", ".hypothesis", ".tox", ".nox", ".cache", ".gradle", ".next",
        ".terraform",
    }
)  # fmt: skip
MAX_ENTRIES = 200_000


@dataclass(frozen=True, slots=True)
class Entry:
    """A name met on the walk: `rel` from the walk's base, `real` root-relative with links resolved."""

    rel: str
    real: str
    is_dir: bool
    closed: bool = False


def compile_glob(pattern: str) -> re.Pattern[str]:
    """A doublestar pattern (`*`, `?`, `[...]`, `{a,b}`, `**` as a whole segment) as a regex over
    `/`-separated relative names."""
    if pattern == "" or pattern.startswith("/") or ".." in pattern.split("/"):
        raise ToolError(f"the pattern {pattern!r} must be relative, without ..")
    out: list[str] = []
    depth = 0
    i = 0
    while i < len(pattern):
        c = pattern[i]
        at_start = i == 0 or pattern[i - 1] == "/"
        if pattern.startswith("**", i) and at_start and pattern[i + 2 : i + 3] in ("", "/"):
            out.append("(?:.*/)?" if pattern[i + 2 : i + 3] == "/" else ".*")
            i += 3
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : end]
                negate = body[:1] in ("!", "^")
                body = body[1:] if negate else body
                escaped = body.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
                out.append(f"[^/{escaped}]" if negate else f"(?!/)[{escaped}]")
                i = end
        elif c == "{":
            depth += 1
            out.append("(?:")
        elif c == "," and depth:
            out.append("|")
        elif c == "}" and depth:
            depth -= 1
            out.append(")")
        elif c == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    if depth:
        raise ToolError(f"the pattern {pattern!r} has an unclosed {{")
    try:
        return re.compile("\\A" + "".join(out) + "\\Z", re.DOTALL)
    except re.error as err:
        raise ToolError(f"the pattern {pattern!r} is not a valid glob: {err}") from err


def literal_parts(*texts: str) -> frozenset[str]:
    """The plain segments of paths and patterns: a skipped tree they name is searched."""
    return frozenset(p for t in texts for p in t.split("/") if p and not set(p) & set("*?[]{}\\"))


def walk(
    ws: Workspace,
    base: str,
    named: frozenset[str],
    limit: int = MAX_ENTRIES,
    *,
    listable: Callable[[tuple[str, ...]], bool] | None = None,
    given: str | None = None,
) -> Iterator[Entry]:
    """Every file and directory under the root-relative directory `base`, sorted, depth first.
    A directory `listable` refuses (asked with its root-relative names: below `given`, the name
    `base` was given by, and its real one) is yielded closed and not entered. Raises ToolError when
    more than `limit` entries would be visited."""
    shown = base if given is None else given
    seen = 0
    stack: list[tuple[str, str]] = [("", base)]
    while stack:
        rel_dir, real_dir = stack.pop()
        try:
            names = ws.readdir(real_dir)
        except OSError:
            continue
        below: list[tuple[str, str]] = []
        for name in names:
            seen += 1
            if seen > limit:
                raise ToolError(f"the search visits more than {limit} entries; narrow the path")
            rel = posixpath.join(rel_dir, name) if rel_dir else name
            real = posixpath.join(real_dir, name) if real_dir != "." else name
            try:
                mode = ws.lstat(real).st_mode
            except OSError:
                continue
            if stat.S_ISLNK(mode):
                target = resolve(ws, ".", real)
                if target.ok and target.is_regular:
                    yield Entry(rel, target.real, False)
            elif stat.S_ISDIR(mode):
                if name in SKIPPED and name not in named:
                    continue
                if listable is not None:
                    given_name = posixpath.join(shown, rel) if shown != "." else rel
                    if not listable(tuple(dict.fromkeys((given_name, real)))):
                        yield Entry(rel, real, True, closed=True)
                        continue
                yield Entry(rel, real, True)
                below.append((rel, real))
            elif stat.S_ISREG(mode):
                yield Entry(rel, real, False)
        stack.extend(reversed(below))
