"""ls: listing flags, names inside the workspace, and globs expanded and checked match by match.

ls lists names and reads no file, so it has no reads; the names its globs expand to are bound
into the stamp (`depends`). A line with a glob runs rewritten so that every expanded name comes
after `--` and is never taken for an option (a file named `-rf` or `--output=x`); a glob that
matches nothing runs quoted, as the name it was decided as (_glob.py).
"""

from __future__ import annotations

import itertools
import re

from ..grammar import Stage, Word
from ..workspace import resolve
from ._flags import FlagTable, parse_args
from ._glob import operand
from ._result import Check, Context
from ._secrets import hidden_by

__all__ = ["check_ls"]

_STYLE = re.compile(r"[A-Za-z+-]+")

LS_FLAGS = FlagTable(
    bare=frozenset(
        {
            "--all",
            "--almost-all",
            "--human-readable",
            "--classify",
            "--directory",
            "--recursive",
            "--reverse",
            "--size",
            "--inode",
            "--color",
            "--group-directories-first",
        }
    ),
    letters="aAlh1dFtrSsiRkp",
    attached={"--color=": _STYLE, "--time-style=": _STYLE, "--sort=": _STYLE},
    options_after_operands=True,
)


def _rewritten(stage: Stage, globs: list[Word]) -> tuple[Word, ...]:
    """Flags, then plain names, then `--`, then the names after the user's own `--`, then the
    globs as they run (spec §2.6, with flags moved before names so none is read as a name)."""
    flags: list[Word] = []
    names: list[Word] = []
    after: list[Word] = []
    ended = False
    for w in stage.args:
        if w.glob:
            continue
        elif ended:
            after.append(w)
        elif w.text == "--":
            ended = True
        elif w.text.startswith("-") and w.text != "-":
            flags.append(w)
        else:
            names.append(w)
    return (stage.words[0], *flags, *names, Word("--"), *after, *globs)


def _option_after_name(stage: Stage) -> bool:
    """Whether an option follows a name before any `--` (a name under POSIXLY_CORRECT)."""
    seen_name = False
    for w in stage.args:
        if w.text == "--":
            return False
        if w.text.startswith("-") and w.text != "-" and not w.glob:
            if seen_name:
                return True
        else:
            seen_name = True
    return False


def _secret_directory(ctx: Context, pattern: str) -> str:
    """The literal directories a glob lists from (`.ssh` of `.ssh/*`), when they are or lead to a
    secret-looking name, or ""."""
    parts = pattern.split("/")
    literal = "/".join(itertools.takewhile(lambda p: "*" not in p and "?" not in p, parts[:-1]))
    if not literal:
        return ""
    r = resolve(ctx.ws, ctx.cwd, literal)
    return literal if any(hidden_by(n, ctx.secrets) for n in (r.name, r.real) if n) else ""


def check_ls(ctx: Context, stage: Stage) -> Check:
    plain = tuple(w for w in stage.args if not w.glob)
    args = parse_args("ls", LS_FLAGS, plain)
    if not args.ok:
        return Check.refuse(args.why)
    for raw in args.operands:
        r = resolve(ctx.ws, ctx.cwd, raw)
        if not r.ok:
            return Check.refuse(r.why)
    depends: dict[str, None] = {}
    globs: list[Word] = []
    for w in stage.args:
        if not w.glob:
            continue
        if secret := _secret_directory(ctx, w.text):
            return Check.refuse(
                f"the glob {w.text!r} lists inside {secret!r}, a secret-looking directory (its names are "
                "not shown unasked)"
            )
        found = operand(ctx.ws, ctx.cwd, w)
        if found.why:
            return Check.refuse(found.why)
        for name in found.names if not found.word.glob else ():
            if not (r := resolve(ctx.ws, ctx.cwd, name)).ok:
                return Check.refuse(r.why)
        depends.update(dict.fromkeys(found.depends))
        globs.append(found.word)
    if globs or _option_after_name(stage):
        return Check(ok=True, depends=tuple(depends), words=_rewritten(stage, globs))
    return Check(ok=True)
