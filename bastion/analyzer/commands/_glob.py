"""Expanding a glob word in the workspace as bash would, or more widely, so every match is seen.

The expansion errs on the side of more matches: `*` and `?` match a leading dot (bash's dotglob)
and letters in either case (nocaseglob), since a user's BASHOPTS could turn either on. A name
that is not ASCII in a directory the pattern walks stops it: bash matches by character or by
byte depending on the locale, so `??` may or may not match a two-byte name. An absolute pattern
is expanded from its literal directories when they lie inside the workspace.

A glob that matches nothing is passed by bash as it is, or dropped under nullglob (a command
left without its operand reads standard input), or makes failglob stop the line: the plan writes
such a word quoted (`operand`), so that it is the literal name it was decided as in every shell
and under every option, and needs no `shopt`. Since the pattern matches its own text, that name
does not exist when the line is decided; a re-check that finds a match renders another plan.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ...grammar import Word
from ...workspace import Workspace, resolve, root_relative

__all__ = ["MAX_MATCHES", "Expansion", "Operand", "expand", "operand", "pattern_problem"]

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


class Operand(NamedTuple):
    """A glob operand as it runs: the names the command gets (the matches, or the pattern itself
    when nothing matches), the word the plan writes (the glob, or the pattern quoted), the
    root-relative names the decision rested on, or why the glob is refused; `listed` as in
    `Expansion`."""

    names: tuple[str, ...] = ()
    word: Word = Word("")
    depends: tuple[str, ...] = ()
    why: str = ""
    listed: tuple[str, ...] = ()


def _is_glob(part: str) -> bool:
    return "*" in part or "?" in part


def pattern_problem(pattern: str) -> str:
    """Why a glob pattern is refused before it is expanded, or ""."""
    if pattern.startswith("~"):
        return f"the glob {pattern!r} starts with ~, which names a home directory, not the workspace"
    for part in pattern.split("/"):
        if part == "..":
            return f"the glob {pattern!r} has a .. component, which the kernel resolves through links"
        if part.startswith(".") and part != "." and _is_glob(part):
            return f"the glob {pattern!r} has a pattern starting with '.', which bash expands to include .."
    return ""


def _matcher(part: str) -> re.Pattern[str]:
    body = "".join("[^/]*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in part)
    return re.compile(body, re.IGNORECASE | re.DOTALL)


def _join(prefix: str, name: str) -> str:
    return name if prefix == "" else f"{prefix.rstrip('/')}/{name}"


def _directories(ws: Workspace, cwd: str, candidates: list[str]) -> tuple[list[tuple[str, str, str]], str]:
    """The candidates that are directories, each with its root-relative name as given and its real
    one, or why one cannot be followed (a link out of the workspace)."""
    out: list[tuple[str, str, str]] = []
    for c in candidates:
        r = resolve(ws, cwd, c or ".")
        if not r.ok:
            return [], r.why
        if r.is_dir:
            out.append((c, r.name, r.real))
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
    if pattern.startswith("/"):  # from its literal directories, which must lie inside
        first = next(i for i, part in enumerate(parts) if _is_glob(part))
        top = "/".join(parts[:first]) or "/"
        if root_relative(ws, top) is None:
            return Expansion(why=f"the glob {pattern!r} lists {top!r}, outside the working directory")
        candidates, parts = [top], parts[first:]
    for part in (p for p in parts if p != ""):
        directories, why = _directories(ws, cwd, candidates)
        if why:
            return Expansion(why=why)
        if "*" not in part and "?" not in part:
            candidates = [_join(c, part) for c, _, _ in directories]
            continue
        matcher = _matcher(part)
        found: list[str] = []
        for directory, name, real in directories:
            names, why = _listing(ws, directory, real)
            if why:
                return Expansion(why=why)
            listed.update(dict.fromkeys((name, real)))
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


_STARS = re.compile(r"\*+")


def operand(ws: Workspace, cwd: str, word: Word) -> Operand:
    """A glob word given as an operand: its matches, with the glob written with each run of `*` as
    one (bash without globstar reads `**` as `*`; so written, a shell with globstar on, or zsh,
    cannot make it walk every directory below), or, when it matches nothing, its own text, which
    the plan then writes quoted (what bash passes without nullglob). Either way the directories it
    was expanded in are `listed` (whether a name matched there is what the command's output shows)."""
    expansion = expand(ws, cwd, word.text)
    if expansion.why:
        return Operand(why=expansion.why)
    if not expansion.matches:
        return Operand((word.text,), Word(word.text), listed=expansion.listed)
    glob = Word(_STARS.sub("*", word.text), glob=True)
    return Operand(expansion.matches, glob, expansion.names, listed=expansion.listed)
