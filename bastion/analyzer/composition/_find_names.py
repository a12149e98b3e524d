"""find as a source of names another command reads: `find ... -exec CMD ... {} ;` (or `{} +`) and
`find ... | xargs CMD` (design rule 65).

The walk is the plan's: it runs `find -P` (no link is ever followed below the starting points), prunes
every directory whose base name a secret-looking pattern in force matches, and `.git` (the globs
grep -r excludes, bastion/analyzer/commands/_grepr.py), and hands on only what is a regular file whose base
name no such glob matches. The user's expression is kept; what hands names on is guarded in it:

    -exec CMD ARGS {} ;    becomes   ( -type f ! -name G ... -exec /abs/CMD OPTIONS -- ARGS {} ; )
    -print / -print0       becomes   ( -type f ! -name G ... -print0 -o -true )

and an expression without an action gets the guarded `-print0` after it, as find's implicit
`-print` would come. So a link (to `/etc` or to `.env`), a FIFO, a secret-looking file and anything
inside a secret-looking directory never reaches the command, whatever the names are; names go on
NUL-separated (xargs `-0`), and the command gets them after `--`.

What the command may read is judged as it would be on its own: every regular file the walk can
reach (pruned as the plan prunes, within `-maxdepth`/`-mindepth`, narrowed only by `-name`/`-iname`
terms every name handed on must pass) is given to the command's own checker as its file operands
(bastion/analyzer/composition/_compose.py), so each is a read subject, inside, under the read bound, and a
tree past MAX_TREE_FILES asks. A starting point inside a directory the plan prunes asks (the prune
exempts starting points).
"""

from __future__ import annotations

import fnmatch
import posixpath
import stat
from collections.abc import Callable, Sequence
from typing import NamedTuple

from ...grammar import Stage, Word
from ...workspace import resolve
from .._result import Context
from ..commands import (
    FIND_TESTS,
    GLOBAL_OPTIONS,
    MAX_TREE_FILES,
    exclude_globs,
    expression_why,
    find_skips,
    listed,
    names_inside,
    secret_name,
)

__all__ = ["Found", "FindParts", "found_names", "guard", "planned_find", "split_find"]

_MAX_ENTRIES = 50_000  # entries a walk may look at, whatever it hands on
_EXEC = "\x00exec"  # where the -exec action stood, in the expression the filters read
_PRINTS = frozenset({"-print", "-print0"})


class FindParts(NamedTuple):
    """A find line cut as find reads it: leading options, starting points, the expression (the
    -exec action, if any, left out and marked), and the -exec action's words and terminator."""

    options: tuple[str, ...]
    starts: tuple[str, ...]
    expression: tuple[str, ...]
    inner: tuple[Word, ...] = ()
    terminator: str = ""


def split_find(stage: Stage) -> FindParts | str:
    """The parts of a find stage, or why it cannot be read (a glob, two -exec actions, an -exec
    without its end)."""
    if any(w.glob for w in stage.args):
        return "find is given a glob, which bash expands to names this check never saw; quote a -name pattern"
    words = list(stage.args)
    options: list[str] = []
    while words and words[0].text in ("-P", "-O0", "-O1", "-O2", "-O3"):
        options.append(words.pop(0).text)
    starts: list[str] = []
    while words and not (words[0].text.startswith("-") or words[0].text in ("!", "(", ")")):
        starts.append(words.pop(0).text)
    expression: list[str] = []
    inner: tuple[Word, ...] = ()
    terminator = ""
    i = 0
    while i < len(words):
        text = words[i].text
        if text in FIND_TESTS and i + 1 < len(words):  # a value is never an action
            expression += [text, words[i + 1].text]
            i += 2
            continue
        if text != "-exec":
            expression.append(text)
            i += 1
            continue
        if inner:
            return "find with two -exec actions: only one command may read what find hands on"
        end = _exec_end(words, i + 1)
        if end is None:
            return "find -exec without its end (`;`, or `{} +`): find would refuse it"
        inner, terminator = tuple(words[i + 1 : end]), words[end].text
        if not inner:
            return "find -exec names no command"
        expression.append(_EXEC)
        i = end + 1
    return FindParts(tuple(options), tuple(starts), tuple(expression), inner, terminator)


def _exec_end(words: Sequence[Word], start: int) -> int | None:
    """The index of the word that ends an -exec action: `;`, or `+` right after `{}` (find reads
    any other `+` as an argument)."""
    for j in range(start, len(words)):
        if words[j].text == ";" or (words[j].text == "+" and j > start and words[j - 1].text == "{}"):
            return j
    return None


def guard(globs: Sequence[str]) -> tuple[str, ...]:
    """The tests a name must pass before it is handed on: a regular file (find -P: a link is a link)
    whose base name no skipped glob matches."""
    out = ["-type", "f"]
    for g in globs:
        out += ["!", "-name", g]
    return tuple(out)


class Found(NamedTuple):
    """What a find that hands names on may hand on (names as the command gets them, from the
    stage's directory), its plan's words, the secret-looking directories it lists; or why not."""

    names: tuple[str, ...] = ()
    words: tuple[Word, ...] = ()
    lists: tuple[str, ...] = ()
    why: str = ""


def planned_find(
    ctx: Context, stage: Stage, parts: FindParts, action: Callable[[tuple[str, ...]], tuple[str, ...]]
) -> Found:
    """The checks every find that hands names on shares, and its plan: `action(guarded)` gives the
    words that stand where the -exec action was (or each -print), `guarded` being `guard`'s tests."""
    why, compared = expression_why([w for w in parts.expression if w != _EXEC])
    if why:
        return Found(why=why)
    for word in parts.expression:
        if word == "-depth" or (word == "-ls" and not parts.inner):
            return Found(
                why=f"find {word} cannot hand names on safely: the walk's skipping or the stream "
                "would not hold"
            )
    starts = parts.starts or (".",)
    inside = names_inside(ctx, [*starts, *compared])
    if not inside.ok:
        return Found(why=inside.why)
    lists, why = listed(ctx, starts)
    if why:
        return Found(why=why)
    globs = exclude_globs(ctx.secrets)
    if isinstance(globs, str):
        return Found(why=globs)
    depth = _depths(parts.expression)
    if isinstance(depth, str):
        return Found(why=depth)
    for start in starts:
        if why := _start_skipped(ctx, start, globs):
            return Found(why=why)
    guarded = guard(globs)
    rest: list[str] = []
    lead: list[str] = []
    words = list(parts.expression)
    while words and words[0] in GLOBAL_OPTIONS:
        n = 1 + GLOBAL_OPTIONS[words[0]]
        lead, words = lead + words[:n], words[n:]
    acted = False
    i = 0
    while i < len(words):
        word = words[i]
        if word in FIND_TESTS:
            rest += words[i : i + 2]
            i += 2
            continue
        if word == _EXEC or (word in _PRINTS and not parts.inner):
            rest += ["(", *action(guarded), ")"]
            acted = True
        else:
            rest.append(word)
        i += 1
    tail = [] if acted else ["(", *action(guarded), ")"]
    body = [*(["(", *rest, ")"] if rest else []), *tail]
    skips = [w.text for w in find_skips(globs, starts)]
    expression = [*skips, "-o", *body] if skips else body
    options = parts.options if "-P" in parts.options else ("-P", *parts.options)
    plan = tuple(Word(w) for w in (*options, *parts.starts, *lead, *expression))
    keep = _name_filter(parts.expression, bool(parts.inner))
    names = _walk(ctx, starts, globs, depth, keep)
    if isinstance(names, str):
        return Found(why=names)
    return Found(names, (stage.words[0], *plan), lists)


def _depths(expression: Sequence[str]) -> tuple[int, int | None] | str:
    """(mindepth, maxdepth or None) as the expression sets them (the last of each wins)."""
    low, high = 0, None
    for i, word in enumerate(expression[:-1]):
        if word == "-mindepth":
            low = int(expression[i + 1])
        elif word == "-maxdepth":
            high = int(expression[i + 1])
    if low >= 2:
        return (
            "find -mindepth 2 or more runs no test above that depth, so it cannot skip a "
            "secret-looking directory"
        )
    return low, high


def _start_skipped(ctx: Context, start: str, globs: Sequence[str]) -> str:
    """Why a starting point lies at or below a directory the plan would skip (or is a file of a
    skipped name), which the prune does not reach: "" if it does not."""
    r = resolve(ctx.ws, ctx.cwd, start)
    for name in (r.name, r.real):
        parts = [] if name == "." else name.split("/")
        if any(secret_name(p, globs) for p in parts):
            return (
                f"find {start!r} starts at or inside {name!r}, whose name the plan skips below a starting "
                "point: what it hands on would not be kept from secret-looking files"
            )
    return ""


# Characters whose meaning in find's -name (fnmatch) Python's fnmatch could read otherwise.
_UNSURE = frozenset("[]\\")


def _name_filter(expression: Sequence[str], exec_form: bool) -> Callable[[str], bool]:
    """Which base names can reach the action, judged from `-name`/`-iname` terms alone and only
    where that is certain: a name passes unless every branch (between top-level `-o`) that can hand
    names on has a positive -name or -iname before its action that it fails. With parentheses, or
    a pattern holding `[` or `\\`, every name passes."""
    if "(" in expression or ")" in expression:
        return _every
    branches: list[list[tuple[str, str]]] = []
    acting: list[bool] = []
    current: list[tuple[str, str]] = []
    reached = False
    negated = False
    done = False
    i = 0
    actions = {_EXEC} if exec_form else _PRINTS
    explicit = any(w in actions for w in expression)
    while True:
        word = expression[i] if i < len(expression) else "-o"
        if word in ("-o", "-or"):
            branches.append(current)
            acting.append(reached if explicit else True)
            current, reached, negated, done = [], False, False, False
            if i >= len(expression):
                break
            i += 1
            continue
        if word in actions:
            reached, done = True, True
        elif word in FIND_TESTS:
            value = expression[i + 1]
            if word in ("-name", "-iname") and not negated and not done:
                if _UNSURE & set(value):
                    return _every
                current.append((word, value))
            i += 2
            negated = False
            continue
        negated = word in ("!", "-not")
        i += 1
    chosen = [b for b, a in zip(branches, acting, strict=True) if a]
    if any(not b for b in chosen):
        return _every
    return lambda name: not name.isascii() or any(all(_matches(t, p, name) for t, p in b) for b in chosen)


def _every(name: str) -> bool:
    return True


def _matches(test: str, pattern: str, name: str) -> bool:
    if test == "-iname":
        return not pattern.isascii() or fnmatch.fnmatchcase(name.lower(), pattern.lower())
    return fnmatch.fnmatchcase(name, pattern)


def _walk(
    ctx: Context,
    starts: Sequence[str],
    globs: Sequence[str],
    depth: tuple[int, int | None],
    keep: Callable[[str], bool],
) -> tuple[str, ...] | str:
    """Every regular file the plan's walk can hand on (names from the stage's directory), or why not."""
    low, high = depth
    found: list[str] = []
    seen = 0

    def take(name: str, level: int) -> str:
        base = posixpath.basename(name)
        if level >= low and not secret_name(base, globs) and keep(base):
            found.append(name)
        if len(found) > MAX_TREE_FILES:
            return (
                f"find hands on more than {MAX_TREE_FILES} files, too many to judge one by one; narrow "
                "the starting points or the -name"
            )
        return ""

    for start in starts:
        r = resolve(ctx.ws, ctx.cwd, start)
        if not r.exists:
            continue
        if r.is_regular:
            if why := take(start, 0):
                return why
            continue
        if not r.is_dir:
            continue
        pending = [(start, r.real, 0)]
        while pending:
            shown, real, level = pending.pop()
            if high is not None and level >= high:
                continue
            try:
                entries = ctx.ws.readdir(real)
            except OSError as err:
                return f"find: the directory {shown!r} cannot be listed ({err.strerror or err})"
            seen += len(entries)
            if seen > _MAX_ENTRIES:
                return (
                    f"find walks more than {_MAX_ENTRIES} entries, too many to judge what it hands on; "
                    "narrow the starting points"
                )
            for entry in entries:
                name, below = (
                    posixpath.join(shown, entry),
                    entry if real == "." else posixpath.join(real, entry),
                )
                try:
                    mode = ctx.ws.lstat(below).st_mode
                except OSError as err:
                    return f"find: {name!r} cannot be examined ({err.strerror or err})"
                if stat.S_ISDIR(mode) and not secret_name(entry, globs):
                    pending.append((name, below, level + 1))
                elif stat.S_ISREG(mode) and (why := take(name, level + 1)):
                    return why
    return tuple(found)


def found_names(ctx: Context, stage: Stage, parts: FindParts) -> Found:
    """A find whose names go on to xargs: each -print (or the implicit one) guarded and NUL-ended."""
    if parts.inner:
        return Found(why="find -exec's output is not a list of names xargs can be given safely")
    return planned_find(ctx, stage, parts, lambda guarded: (*guarded, "-print0", "-o", "-true"))
