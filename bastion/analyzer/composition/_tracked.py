"""`git ls-files` as a source of names another command reads: `git ls-files [-c] [PATHSPEC...] |
xargs READER ...` (design rules 114-116).

git lists the names its index holds, and nothing in the line says what they are: a tracked name
may be a symbolic link (mode 120000, to `/etc` or to `.env`), a gitlink (160000: a submodule's
directory), a secret-looking file, or a regular file whose work-tree entry is a link now; and
without `-z` git writes a name with a blank as it is (it quotes only `"`, `\\` and control
characters), so xargs would split `x /home/u/.ssh/id_rsa` (a file in a directory named `x `) into
`x` and `/home/u/.ssh/id_rsa`. So the analyzer reads the index itself (`git/_index.py`: versions
2-4, checksum, every length; anything it is not sure of asks) and judges every name the line can
print, a superset of what git's pathspec matching picks (`_superset`): each must be a regular
file's entry, UTF-8, with no `.`, `..` or `.git` component, below the working directory, of no
secret-looking name or directory (the patterns in force), and in the work tree a regular file (or
absent) reached through no link. More than MAX_TREE_FILES names ask. The names then go to the
reader's own checker as its file operands (analyzer/composition/_compose.py), so each is a read subject whose
identity the stamp binds, beside the index's (`depends`): an index written again, or a file
replaced by a link, after the decision refuses the stamp.

The plan is `git ... ls-files -z [-c] -- PATHSPEC... | xargs -0 -r /abs/READER OPTIONS --`: the
names go NUL-separated whatever they hold. Only `-c`/`--cached`, `-z`, `--deduplicate` and
`--error-unmatch` are taken: every other flag changes what git prints (a stage, a tag, untracked
or submodule names, a format) or reads (`-X`). The stage is the git checker's first (`-C`,
`-c KEY=V`, globs and `:` magic ask there), and git's config is probed as for every git stage.
A pathspec with `[` or `\\`, an absolute one, one with a `..` component, and `git -C` ask.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence
from typing import NamedTuple

from ...grammar import Stage
from ...workspace import resolve
from .._result import Check, Context
from .._secrets import hidden_by
from ..commands import MAX_TREE_FILES

__all__ = ["Tracked", "tracked_names"]

_KEPT = {"-c": "-c", "--cached": "-c", "-z": "", "--deduplicate": "--deduplicate"}
_KEPT["--error-unmatch"] = "--error-unmatch"
_LETTERS = frozenset("cz")
_PREFIXED = "prints more than the name on each line (a mode, an object name, a stage or a tag)"
_UNTRACKED = "lists names the index does not hold (untracked or ignored files), which the check did not read"
_REFUSED = {
    **dict.fromkeys(("-s", "--stage", "-u", "--unmerged", "-t", "-v", "--debug"), _PREFIXED),
    **dict.fromkeys(("-o", "--others", "-i", "--ignored", "--directory", "-k", "--killed"), _UNTRACKED),
    **dict.fromkeys(
        ("-d", "--deleted", "-m", "--modified"),
        "compares the index with the work tree (opening files whose stat data changed)",
    ),
    "--format": "prints what its format says, not only names",
    "--eol": "prints line-ending information and opens every tracked file",
    "--recurse-submodules": "lists the files of submodules, from indexes the check did not read",
    "--full-name": "prints names from the repository's top, which xargs reads from the working directory",
    "--with-tree": "adds the names of a tree to the index's",
    "--sparse": "lists sparse directories as names",
    "-X": "reads exclude patterns from a file that is not checked",
    "--exclude-from": "reads exclude patterns from a file that is not checked",
}


class Tracked(NamedTuple):
    """What a `git ls-files` stage hands on: the names as git prints them (from the stage's
    directory), its check (the plan's words, the index bound as a dependency); or why not."""

    names: tuple[str, ...] = ()
    check: Check = Check(ok=False)
    why: str = ""


def _refuse(why: str) -> Tracked:
    return Tracked(check=Check.refuse(why), why=why)


def tracked_names(ctx: Context, stage: Stage, git_check: Check) -> Tracked:
    """The names `git ls-files ...` can print in the stage's directory, and its plan with `-z`;
    `git_check` is the git checker's own check of the stage."""
    if not git_check.ok:
        return Tracked(check=git_check, why=git_check.why)
    args = [w.text for w in stage.args]
    if args[:1] != ["ls-files"]:
        return _refuse(
            "xargs reads names from git only as `git ls-files`: its output is then a list of the index's "
            "names the check can read itself"
        )
    read = _arguments(args[1:])
    if isinstance(read, str):
        return _refuse(read)
    kept, specs = read
    from ..git import tracked_index  # the dry-run path's weight: git's modules load with a git line

    found = tracked_index(ctx)
    if isinstance(found, str):
        return _refuse(found)
    top, gitdir, index, entries = found
    prefix = "" if ctx.cwd == top else posixpath.relpath(ctx.cwd, top) + "/"
    matches = _superset(prefix.encode(), [s.encode() for s in specs])
    names: dict[str, None] = {}
    for name, mode in entries:
        if not matches(name):
            continue
        why, shown = _judged(ctx, prefix, name, mode)
        if why:
            return _refuse(why)
        names[shown] = None
        if len(names) > MAX_TREE_FILES:
            return _refuse(
                f"git ls-files lists more than {MAX_TREE_FILES} names, too many to judge one by one; "
                "narrow the pathspec"
            )
    from ..git import plan_words

    words = plan_words(("ls-files",), None, ("-z", *kept, "--", *specs))
    depends = (*git_check.depends, gitdir, index)
    return Tracked(tuple(names), git_check._replace(words=words, depends=depends))


def _arguments(args: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]] | str:
    """The flags the plan keeps and the pathspecs, or why the arguments ask."""
    kept: dict[str, None] = {}
    specs: list[str] = []
    ended = False
    for arg in args:
        if ended or not arg.startswith("-"):
            if why := _pathspec_why(arg):
                return why
            specs.append(arg)
            continue
        if arg == "--":
            ended = True
            continue
        name = arg.split("=", 1)[0]
        if arg in _KEPT:
            kept[_KEPT[arg]] = None
        elif name[:2] != "--" and len(arg) > 2 and set(arg[1:]) <= _LETTERS:
            kept.update(dict.fromkeys(_KEPT[f"-{c}"] for c in arg[1:]))
        elif name in _REFUSED or name[:2] in _REFUSED:
            return f"git ls-files {arg} {_REFUSED.get(name) or _REFUSED[name[:2]]}: not a list of names"
        else:
            return f"git ls-files {arg} is not known to leave git's output a list of the index's names"
    return tuple(k for k in kept if k), tuple(specs)


def _pathspec_why(spec: str) -> str:
    if not spec or spec == "-":
        return f"git ls-files {spec!r}: a pathspec that names nothing plainly"
    if spec.startswith("/") or ".." in spec.split("/"):
        return (
            f"git ls-files {spec!r}: a pathspec that can leave the working directory, whose names the "
            "reader would get"
        )
    if set(spec) & set("[]\\:"):
        return f"git ls-files {spec!r}: `[`, `\\` and `:` in a pathspec are matched in ways not judged here"
    return ""


def _superset(prefix: bytes, specs: Sequence[bytes]) -> Callable[[bytes], bool]:
    """Which index names (bytes, from the top) the pathspecs can match in the directory `prefix`
    (from the top, "/"-ended, b"" at the top): at least every name git matches. git matches a
    pathspec as a literal name or a leading directory of it, or with its wildmatch (`wildmatch.c`:
    without WM_PATHNAME `*` and `?` match `/` too, a `?` one byte; with it, under
    GIT_GLOB_PATHSPECS, `*` stops at `/` and `**/` matches no directory too), or case-blind
    (GIT_ICASE_PATHSPECS). Here a pathspec matches case-blind as a literal name or leading
    directory, or as a pattern where each run of `*` is any bytes, a `/` after one may be left out
    and a `?` is any byte."""
    if not specs:
        return lambda name: name.startswith(prefix)
    literals: list[bytes] = []
    patterns: list[re.Pattern[bytes]] = []
    for spec in specs:
        full = posixpath.normpath(prefix + spec)
        if full == b".":
            return lambda name: True
        literals.append(full.lower())
        patterns.append(_pattern(full))

    def matches(name: bytes) -> bool:
        low = name.lower()
        if any(low == f or low.startswith(f + b"/") for f in literals):
            return True
        return any(p.fullmatch(name) for p in patterns)

    return matches


def _pattern(spec: bytes) -> re.Pattern[bytes]:
    out: list[bytes] = []
    i = 0
    while i < len(spec):
        c = spec[i : i + 1]
        if c != b"*":
            out.append(b"." if c == b"?" else re.escape(c))
            i += 1
            continue
        while spec[i : i + 1] == b"*":
            i += 1
        out.append(b".*")
        if spec[i : i + 1] == b"/":
            out.append(b"/?")
            i += 1
    return re.compile(b"".join(out), re.IGNORECASE | re.DOTALL)


def _judged(ctx: Context, prefix: str, raw: bytes, mode: int) -> tuple[str, str]:
    """Why the index name `raw` (mode `mode`) may not be handed on ("" when it may), and the name
    as git prints it from the stage's directory."""
    from ..git import GITLINK, SYMLINK

    try:
        name = raw.decode("utf-8")
    except UnicodeDecodeError:
        return f"git ls-files lists {raw!r}, a name that is not UTF-8, which the check cannot judge", ""
    if mode == SYMLINK:
        return (
            f"git ls-files lists {name!r}, a tracked symbolic link: the reader would follow it (out of the "
            "workspace, or to a secret)"
        ), ""
    if mode == GITLINK:
        return (
            f"git ls-files lists {name!r}, a submodule (gitlink): the reader would get its directory, "
            "whose files no check read"
        ), ""
    parts = name.split("/")
    if any(p in ("", ".", "..") or p.lower() == ".git" for p in parts):
        return f"git ls-files lists {name!r}, which no index git writes holds (a ., .. or .git part)", ""
    if not name.startswith(prefix):
        return f"git ls-files can list {name!r}, which is not below the working directory", ""
    shown = name[len(prefix) :]
    r = resolve(ctx.ws, ctx.cwd, shown)
    if not r.ok:
        return f"git ls-files lists {name!r}: {r.why}", ""
    if r.real != r.name or r.exists and not r.is_regular:
        return (
            f"git ls-files lists {name!r} as a file, and the work tree holds a link or another kind of "
            "entry there (or on the way): the reader would follow it"
        ), ""
    pattern = hidden_by(r.name, ctx.secrets)
    if pattern is not None:
        return (
            f"git ls-files lists {name!r}, a secret-looking name ({pattern}) the reader would print; name it "
            "on its own so that the read is decided as one"
        ), ""
    return "", shown
