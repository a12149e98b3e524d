"""Expanding a glob word in the workspace as bash would, or more widely, so every match is seen.

The expansion errs on the side of more matches: `*` and `?` match a leading dot (bash's dotglob)
and letters in either case (nocaseglob), since a user's BASHOPTS could turn either on. A name
that is not ASCII in a directory the pattern walks stops it: bash matches by character or by
byte depending on the locale, so `??` may or may not match a two-byte name.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..workspace import Workspace, resolve

__all__ = ["MAX_MATCHES", "Expansion", "expand", "pattern_problem"]

MAX_MATCHES = 5000


class Expansion(NamedTuple):
    """The matches as bash writes them (relative to cwd), or why the expansion is refused.
    `names` are the root-relative names of the matches and where their links lead; `listed` the
    root-relative directories whose names the expansion read (what it lists of them is printed
    by whatever command gets the matches: each a lister's directory, _listers.py)."""

    matches: tuple[str, ...] = ()
    why: str = ""
    names: tuple[str, ...] = ()
    listed: tuple[str, ...] = ()


def pattern_problem(pattern: str) -> str:
    """Why a glob pattern is refused before it is expanded, or ""."""
    if pattern.startswith("/"):
        return f"the glob {pattern!r} is absolute and would list directories outside the working directory"
    if pattern.startswith("~"):
        return f"the glob {pattern!r} starts with ~, which names a home directory, not the workspace"
    for part in pattern.split("/"):
        if part == "..":
            return f"the glob {pattern!r} has a .. component, which the kernel resolves through links"
        if part.startswith(".") and part != ".":
            return f"the glob {pattern!r} has a component starting with '.', which bash expands to include .."
        if "**" in part:
            return f"the glob {pattern!r} has **, which walks every directory below when globstar is on"
    return ""


def _matcher(part: str) -> re.Pattern[str]:
    body = "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in part)
    return re.compile(body, re.IGNORECASE | re.DOTALL)


def _join(prefix: str, name: str) -> str:
    return name if prefix == "" else f"{prefix.rstrip('/')}/{name}"


def _directories(ws: Workspace, cwd: str, candidates: list[str]) -> tuple[list[tuple[str, str]], str]:
    """The candidates that are directories, each with its real root-relative name, or why one
    cannot be followed (a link out of the workspace)."""
    out: list[tuple[str, str]] = []
    for c in candidates:
        r = resolve(ws, cwd, c or ".")
        if not r.ok:
            return [], r.why
        if r.is_dir:
            out.append((c, r.real))
    return out, ""


def _listing(ws: Workspace, directory: str, real: str) -> tuple[list[str], str]:
    """The names in `directory` (relative to cwd, "" for cwd; `real` from the root), or why it
    cannot be walked."""
    try:
        names = ws.readdir(real)
    except OSError as err:
        shown = directory or "."
        return [], f"the directory {shown!r} cannot be read to expand a glob ({err.strerror or err})"
    for name in names:
        if not name.isascii():
            return [], (
                f"{_join(directory, name)!r} is not an ASCII name, and bash matches it by character "
                "or by byte depending on the locale, so the expansion cannot be known"
            )
    return names, ""


def expand(ws: Workspace, cwd: str, pattern: str) -> Expansion:
    """Every name bash could produce for `pattern` in the root-relative `cwd`, each checked to exist."""
    if why := pattern_problem(pattern):
        return Expansion(why=why)
    parts = pattern.split("/")
    want_dir = parts[-1] == ""
    candidates = [""]
    listed: dict[str, None] = {}
    for part in (p for p in parts if p != ""):
        directories, why = _directories(ws, cwd, candidates)
        if why:
            return Expansion(why=why)
        if "*" not in part and "?" not in part:
            candidates = [_join(c, part) for c, _ in directories]
            continue
        matcher = _matcher(part)
        found: list[str] = []
        for directory, real in directories:
            names, why = _listing(ws, directory, real)
            if why:
                return Expansion(why=why)
            listed[real] = None
            found.extend(_join(directory, n) for n in names if matcher.fullmatch(n))
            if len(found) > MAX_MATCHES:
                return Expansion(why=f"the glob {pattern!r} matches more than {MAX_MATCHES} names")
        candidates = found
    matches: list[str] = []
    found_names: dict[str, None] = {}
    for c in candidates:
        r = resolve(ws, cwd, c)
        if not r.ok:
            return Expansion(why=r.why)
        if not r.exists or (want_dir and not r.is_dir):
            continue
        matches.append(c + "/" if want_dir else c)
        found_names.update(dict.fromkeys((r.name, r.real)))
    return Expansion(tuple(matches), names=tuple(found_names), listed=tuple(listed))
