"""ls: listing flags, names inside the workspace, and globs expanded and checked match by match.

ls lists names and reads no file, so it has no reads; the names its globs expand to are bound
into the stamp (`depends`). A line with a glob runs rewritten so that every expanded name comes
after `--` and is never taken for an option (a file named `-rf` or `--output=x`); a glob that
matches nothing runs quoted, as the name it was decided as (_glob.py). The directories it lists
(and those its globs are expanded in) are `lists`, so a secret-looking one (`ls .ssh`, `ls .ssh/*`,
`ls *` beside `.ssh`) is a read subject, and `ls -R` skips every secret-looking directory below
them (`--ignore`, _listers.py).

Every plan runs ls with `--quoting-style=shell-escape`, as ls quotes on a terminal: a name holding
a newline, a control or an escape sequence comes out quoted (`'a'$'\\n''b'`), one entry a line,
never two lines the model reads as two names nor bytes that act on a terminal; a piped ls gives
what the model sees.
"""

from __future__ import annotations

import re

from ...grammar import Stage, Word
from ...workspace import resolve
from .._result import Check, Context
from ._flags import FlagTable, parse_args
from ._glob import operand
from ._listers import listed, ls_skips, secret_dirs, skip_globs

__all__ = ["check_ls"]

_STYLE = re.compile(r"[A-Za-z+-]+")
# Set first in every plan; the user's flags cannot name another style (none is in the table).
QUOTED = Word("--quoting-style=shell-escape")

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
    lists: dict[str, None] = {}
    matches: list[str] = []
    globs: list[Word] = []
    for w in stage.args:
        if not w.glob:
            continue
        found = operand(ctx.ws, ctx.cwd, w)
        if found.why:
            return Check.refuse(found.why)
        for name in found.names if not found.word.glob else ():
            if not (r := resolve(ctx.ws, ctx.cwd, name)).ok:
                return Check.refuse(r.why)
        depends.update(dict.fromkeys(found.depends))
        # The directories it was expanded in (`.ssh` of `.ssh/*`, as named and where a link leads).
        lists.update(dict.fromkeys(secret_dirs(ctx, found.listed)))
        if found.word.glob:
            matches.extend(found.names)
        globs.append(found.word)
    # ls lists each directory it is given (the working one when it is given none), but with -d.
    if not (args.has("-d") or args.has("--directory")):
        given = [*args.operands, *matches] or ([] if globs else ["."])
        found_dirs, why = listed(ctx, given)
        if why:
            return Check.refuse(why)
        lists.update(dict.fromkeys(found_dirs))
    skips: tuple[Word, ...] = ()
    if args.has("-R") or args.has("--recursive"):
        walk = skip_globs(ctx)
        if isinstance(walk, str):
            return Check.refuse(walk)
        skips = ls_skips(walk)
    words = _rewritten(stage, globs) if globs or skips or _option_after_name(stage) else stage.words
    return Check(
        ok=True,
        lists=tuple(lists),
        depends=tuple(depends),
        words=(words[0], QUOTED, *skips, *words[1:]),
    )
