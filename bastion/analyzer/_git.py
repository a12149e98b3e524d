"""The git checker: read-only subcommands with their flag tables, everything else left to the rules.

Every argument is matched against the subcommand's table (`_gitflags`); every positional, revision
or path alike, is judged as a path inside the working directory, and diff/log/show/blame report
theirs as reads. An ok git stage sets `git`, so the driver probes the repository's config.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..grammar import Stage, Word
from ._gitflags import CONFIG_FLAGS, CONFIG_KEYS, REFUSED, SPECS, STASH_LIST, GitSpec
from ._paths import resolve
from ._result import Check, Context

__all__ = ["check_git"]

_COUNT = re.compile(r"-[nUM]?[0-9]+")
_ATTACHED = ("-S", "-G", "-L")
_CONFIG_KEY = re.compile(CONFIG_KEYS, re.IGNORECASE)
_NEUTRAL_FLAGS = (Word("--no-ext-diff"), Word("--no-textconv"))
# git clears GIT_CONFIG_* for the git it runs inside a submodule or an embedded repository, so the
# neutralising config cannot reach it and that repository's own config (core.fsmonitor...) would
# run: the plan tells git not to look into submodules at all.
_NO_SUBMODULES = (Word("--ignore-submodules=all"),)
_PLAN_FLAGS: dict[str, tuple[Word, ...]] = {
    "status": _NO_SUBMODULES,
    "diff": _NEUTRAL_FLAGS + _NO_SUBMODULES,
    "log": _NEUTRAL_FLAGS + _NO_SUBMODULES,
    "show": _NEUTRAL_FLAGS + _NO_SUBMODULES,
    "blame": _NEUTRAL_FLAGS,
    "stash list": _NEUTRAL_FLAGS,
}


def check_git(ctx: Context, stage: Stage) -> Check:
    args = [w.text for w in stage.args]
    if not args:
        return Check(ok=True, auto=False, git=True)
    if any(w.glob for w in stage.args):
        return Check.refuse("a glob makes bash choose git's arguments from whatever file names exist")
    sub, rest = args[0], args[1:]
    if sub.startswith("-"):
        return Check.refuse(
            f"git {sub} before the subcommand can point git at other config, directories or programs"
        )
    if any("%G" in a for a in rest):
        return Check.refuse("%G in a format makes git run gpg to verify signatures")
    if sub == "remote":
        if rest in ([], ["-v"], ["--verbose"]):
            return Check(ok=True, git=True)
        return Check.refuse("git remote changes or contacts remotes unless it only lists them (-v)")
    if sub == "stash":
        if rest[:1] != ["list"]:
            return Check.refuse("git stash changes the work tree unless it only lists (git stash list)")
        return _check_table(ctx, stage, "stash list", STASH_LIST, rest[1:], insert_at=3)
    if sub == "config":
        return _check_config(rest)
    spec = SPECS.get(sub)
    if spec is None:
        return Check(ok=True, auto=False, git=True)
    return _check_table(ctx, stage, sub, spec, rest, insert_at=2)


def _check_table(
    ctx: Context, stage: Stage, sub: str, spec: GitSpec, rest: list[str], insert_at: int
) -> Check:
    why, positionals = _read_args(sub, spec, rest)
    if why:
        return Check.refuse(why)
    reads: list[str] = []
    for raw in positionals:
        if ":" in raw:
            return Check.refuse(
                f"{raw!r} has a ':', which names a blob, an index entry or a magic pathspec"
                " that the path checks cannot see"
            )
        resolved = resolve(ctx.ws, ctx.cwd, raw)
        if not resolved.ok:
            return Check.refuse(resolved.why)
        if spec.reads:
            reads.append(resolved.name)
            if resolved.real and resolved.real != resolved.name:
                reads.append(resolved.real)
    flags = _PLAN_FLAGS.get(sub, ())
    words = stage.words[:insert_at] + flags + stage.words[insert_at:] if flags else None
    return Check(ok=True, reads=tuple(dict.fromkeys(reads)), words=words, git=True)


def _unknown(sub: str, arg: str) -> str:
    name = arg.split("=", 1)[0]
    if name in REFUSED:
        return f"git {sub}: {REFUSED[name]}"
    if not name.startswith("--") and name[:2] in REFUSED:
        return f"git {sub}: {REFUSED[name[:2]]}"
    return f"git {sub} {arg} is not known to be read-only"


def _read_args(sub: str, spec: GitSpec, args: Sequence[str]) -> tuple[str, list[str]]:
    """The flag algorithm: why the arguments fail ("" when they pass) and the positionals."""
    positionals: list[str] = []
    listing = False
    only_positionals = False
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if only_positionals or arg == "-" or not arg.startswith("-"):
            positionals.append(arg)
            continue
        if arg == "--":
            only_positionals = True
            continue
        if arg in spec.list_flags:
            listing = True
        if _COUNT.fullmatch(arg) and spec.counts:
            continue
        if arg[:2] in _ATTACHED and len(arg) > 2 and arg[:2] in spec.spaced:
            continue
        name, eq, _value = arg.partition("=")
        if eq:
            if name in spec.valued:
                continue
            return _unknown(sub, arg), []
        if name in spec.spaced and i < len(args) and not args[i].startswith("-"):
            i += 1
            continue
        if name in spec.bare:
            continue
        if name in spec.spaced:
            if i >= len(args):
                return f"git {sub} {arg} needs a value", []
            i += 1
            continue
        if _combined(spec, arg):
            listing = listing or any(f"-{c}" in spec.list_flags for c in arg[1:])
            continue
        return _unknown(sub, arg), []
    if positionals and not spec.positionals:
        return f"git {sub} takes no names here", []
    if positionals and spec.list_flags and not listing:
        flags = " or ".join(sorted(spec.list_flags))
        return f"git {sub} with a name creates or changes it; only listing ({flags}) is read-only", []
    return "", positionals


def _combined(spec: GitSpec, arg: str) -> bool:
    """Short flags written together (`-sb`), every letter known."""
    return len(arg) >= 3 and not arg.startswith("--") and bool(spec.letters) and all(
        c in spec.letters for c in arg[1:]
    )


def _check_config(args: Sequence[str]) -> Check:
    flags = [a for a in args if a.startswith("-")]
    keys = [a for a in args if not a.startswith("-")]
    for flag in flags:
        if flag not in CONFIG_FLAGS:
            return Check.refuse(
                f"git config {flag} is not a single lookup; it could list secrets or change the config"
            )
    if "--get" not in flags and "--get-all" not in flags:
        return Check.refuse("git config without --get can change the config")
    if len(keys) != 1:
        return Check.refuse("git config --get reads exactly one key here")
    if not _CONFIG_KEY.fullmatch(keys[0]):
        return Check.refuse(
            f"git config key {keys[0]!r} is not on the list of keys that hold no secret (tokens, helpers)"
        )
    return Check(ok=True, git=True)
