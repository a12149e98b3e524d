"""Listers and walkers, and the secret-looking directories they must not show (design rule 41).

A directory's names are what a lister shows of it, so a secret-looking directory a stage lists
(an operand of ls, find, du or tree, the working directory of a bare `ls`, a directory a glob is
expanded in: one a secret pattern in force hides, as `hidden_by` tells) is a `lists` name of the
check: a read subject, which the policy decides as it decides the ls tool's path. It asks there,
as `ls .ssh` in the ls tool does, and a rule of yours that lifts it lifts it for both. Other
directories are no subject (a bare `bash(ls:*)` runs `ls -la` without a `read` rule).

Below their operands the walkers (ls -R, find, du, tree; grep -r in _grepr.py) skip every
directory whose base name matches a secret-looking pattern in force, in the plan itself: the
pattern's first component with each ASCII letter case-folded (`.[Ss][Ss][Hh]`, the globs grep -r
excludes, without `.git`), given as each program takes it. GNU ls matches `--ignore` with
FNM_PERIOD, so a glob starting with `*` is given again after a `.`; find, du and tree let `*` match
a leading dot. ls, du and tree leave out a file of such a name too (they cannot tell the two
apart); find prunes directories only (`-type d`), so `find . -name id_rsa` still finds the file
beside `ls`'s. ls and tree never ignore an operand; find's starting points are exempted by name
(`! -path START`); du excludes an operand too, so a du whose operand is itself such a directory
asks (approved, it runs as typed). A find whose skipping could not hold asks: `-depth` (find then
ignores `-prune`) and `-mindepth` of 2 or more (no test runs above that depth).
"""

from __future__ import annotations

import fnmatch
import posixpath
from collections.abc import Sequence

from ...grammar import Word
from ...workspace import resolve
from .._result import Context
from .._secrets import hidden_by
from ._grepr import exclude_globs

__all__ = [
    "du_skips",
    "find_skips",
    "listed",
    "ls_skips",
    "secret_dirs",
    "secret_name",
    "skip_globs",
    "tree_skips",
]


def skip_globs(ctx: Context) -> tuple[str, ...] | str:
    """The base-name globs a walker's plan skips (none when every secret pattern is lifted)."""
    return exclude_globs(ctx.secrets, always=())


def secret_name(name: str, globs: Sequence[str]) -> bool:
    """Whether a walker skips a directory of this (root-relative or given) name."""
    base = posixpath.basename(name.rstrip("/")) or name
    return any(fnmatch.fnmatchcase(base, g) for g in globs)


def secret_dirs(ctx: Context, names: Sequence[str]) -> tuple[str, ...]:
    """The root-relative directory names a secret-looking pattern in force hides (the directory or
    one above it): the ones a lister's check names as `lists`."""
    return tuple(n for n in names if hidden_by(n, ctx.secrets) is not None)


def listed(ctx: Context, names: Sequence[str]) -> tuple[tuple[str, ...], str]:
    """The secret-looking directories among `names` (root-relative, as given and where links lead),
    which a lister lists; or why one of them cannot be judged."""
    out: dict[str, None] = {}
    for raw in names:
        if ctx.cwd == "." and raw in (".", "./"):  # the root itself, which no pattern hides
            continue
        r = resolve(ctx.ws, ctx.cwd, raw)
        if not r.ok:
            return (), r.why
        if r.is_dir:
            out.update(dict.fromkeys((r.name, r.real)))
    return secret_dirs(ctx, tuple(out)), ""


def ls_skips(globs: Sequence[str]) -> tuple[Word, ...]:
    dotted = [f".{g}" for g in globs if g.startswith("*")]
    return tuple(Word(f"--ignore={g}") for g in (*globs, *dotted))


def tree_skips(globs: Sequence[str]) -> tuple[Word, ...]:
    return (Word("-I"), Word("|".join(globs))) if globs else ()


def du_skips(globs: Sequence[str]) -> tuple[Word, ...]:
    return tuple(Word(f"--exclude={g}") for g in globs)


def _literal(name: str) -> str:
    """`name` as a find -path glob that matches only itself."""
    return "".join(f"\\{c}" if c in "*?[]\\" else c for c in name)


def find_skips(globs: Sequence[str], starts: Sequence[str]) -> tuple[Word, ...]:
    """What goes before `-o ( EXPRESSION )`: every directory below the starting points whose name
    a glob matches is pruned (`-type d ( -name G ... ) -prune`); a starting point of such a name is
    exempt (it is a read subject)."""
    if not globs:
        return ()
    exempt: list[str] = []
    for start in dict.fromkeys(s for s in starts if secret_name(s, globs)):
        exempt += ["!", "-path", _literal(start)]
    names: list[str] = []
    for g in globs:
        names += [*(["-o"] if names else []), "-name", g]
    return tuple(Word(w) for w in (*exempt, "-type", "d", "(", *names, ")", "-prune"))
