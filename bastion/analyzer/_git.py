"""The git checker: read-only subcommands with their flag tables, everything else left to the rules.

Every argument is matched against the subcommand's table (`_gitflags`); every positional, revision
or path alike, is judged as a path inside the working directory, and diff/log/show/blame report
theirs as reads. An ok git stage sets `git`, so the driver probes the repository's config, and
its words become the self-contained plan `_gitplan` renders (secret excludes where it prints
file contents).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..grammar import Stage
from ._gitflags import CONFIG_FLAGS, CONFIG_KEYS, REFUSED, SPECS, STASH_LIST, GitSpec
from ._gitplan import DIFF_FORMS, GitArgs, excluding_words, plan_words, prints_contents, secret_excludes
from ._paths import resolve
from ._result import Check, Context
from ._secrets import hidden_by

__all__ = ["check_git"]

_COUNT = re.compile(r"-[nUM]?[0-9]+")
_ATTACHED = ("-S", "-G", "-L")
_CONFIG_KEY = re.compile(CONFIG_KEYS, re.IGNORECASE)
# A positional git takes as a pathspec whether or not a file has that name.
_PATHSPEC_CHARS = frozenset("*?[\\")
# Peeling that keeps a blob a blob (`X^{}`, `X^{blob}`, `X^{object}`).
_BLOB_PEEL = re.compile(r"\^\{(?:|blob|object)\}")


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
            return Check(ok=True, words=plan_words([sub], None, rest), git=True)
        return Check.refuse("git remote changes or contacts remotes unless it only lists them (-v)")
    if sub == "stash":
        if rest[:1] != ["list"]:
            return Check.refuse("git stash changes the work tree unless it only lists (git stash list)")
        return _check_table(ctx, ("stash", "list"), STASH_LIST, rest[1:])
    if sub == "status" and any(a == "--verbose" or (a[:1] == "-" != a[1:2] and "v" in a) for a in rest):
        return Check.refuse(
            "git status -v prints the staged diff and runs the textconv programs a repository's config"
            " names; status has no flag to stop them"
        )
    if sub == "config":
        check = _check_config(rest)
        return check._replace(words=plan_words([sub], None, rest)) if check.ok else check
    spec = SPECS.get(sub)
    if spec is None:
        return Check(ok=True, auto=False, git=True)
    return _check_table(ctx, (sub,), spec, rest)


def _check_table(ctx: Context, sub: tuple[str, ...], spec: GitSpec, rest: list[str]) -> Check:
    name = " ".join(sub)
    why, args = _read_args(name, spec, rest)
    if why:
        return Check.refuse(why)
    reads: list[str] = []
    regular: dict[str, str] = {}  # literal names of regular files (no link), as typed -> root-relative
    paths_at = len(args.before)
    for index, raw in enumerate((*args.before, *args.after)):
        if ":" in raw:
            return Check.refuse(
                f"{raw!r} has a ':', which names a blob, an index entry or a magic pathspec"
                " that the path checks cannot see"
            )
        if _BLOB_PEEL.search(raw):
            return Check.refuse(
                f"{raw!r} can name a blob, whose contents git prints whatever the path checks and"
                " secret excludes say"
            )
        resolved = resolve(ctx.ws, ctx.cwd, raw)
        if not resolved.ok:
            return Check.refuse(resolved.why)
        # git reads the first name that is a file (or a pattern) and all after it as paths
        first_path = resolved.exists or bool(_PATHSPEC_CHARS & set(raw))
        if first_path and index < len(args.before) == paths_at and not args.dashdash:
            paths_at = index
        if spec.reads:
            reads.append(resolved.name)
            if resolved.real and resolved.real != resolved.name:
                reads.append(resolved.real)
        if resolved.is_regular and resolved.real == resolved.name and not _PATHSPEC_CHARS & set(raw):
            regular[raw] = resolved.name
    paths = (*args.before[paths_at:], *args.after)
    files = tuple((raw, regular[raw]) for raw in paths) if paths and all(p in regular for p in paths) else ()
    form = DIFF_FORMS.get(name)
    if form is None or not prints_contents(form, args.options):
        words = plan_words(sub, form, rest)
    else:
        excludes = secret_excludes(ctx.secrets, files)
        shown = [r for r in reads if r not in {n for _, n in files}]  # a named file is a read decided
        why = _hides(ctx, name, args, shown, len(excludes))
        if why:  # the names stay reads, so a secret among them is asked as such
            return Check.refuse(why)._replace(reads=tuple(dict.fromkeys(reads)))
        words = excluding_words(sub, form, args, paths_at, excludes)
    return Check(ok=True, reads=tuple(dict.fromkeys(reads)), words=words, git=True)


def _hides(ctx: Context, name: str, args: GitArgs, reads: list[str], excludes: int) -> str:
    """Why a form that prints contents cannot carry the secret excludes ("" when it can)."""
    if name == "stash list":
        return (
            "git stash list with a patch shows stashed secret files: git stash passes its arguments"
            " before refs/stash, so no exclude pathspec can follow them"
        )
    if "--follow" in args.options:
        return "git log --follow with a patch takes exactly one path, so secret files cannot be excluded"
    names = len(args.before) + len(args.after) + excludes
    if name == "diff" and names == 2:
        return (
            "git diff with exactly two names is a --no-index diff of any two files outside a work tree"
            " (or with a path outside it), beyond the repository's checks"
        )
    for read in reads:
        pattern = hidden_by(read, ctx.secrets)
        if pattern is not None:
            return (
                f"{read!r} is a secret-looking path ({pattern}) that the plan's excludes would hide;"
                " asked so that an approved line runs as typed"
            )
    return ""


def _unknown(sub: str, arg: str) -> str:
    name = arg.split("=", 1)[0]
    if name in REFUSED:
        return f"git {sub}: {REFUSED[name]}"
    if not name.startswith("--") and name[:2] in REFUSED:
        return f"git {sub}: {REFUSED[name[:2]]}"
    return f"git {sub} {arg} is not known to be read-only"


def _read_args(sub: str, spec: GitSpec, args: Sequence[str]) -> tuple[str, GitArgs]:
    """The flag algorithm: why the arguments fail ("" when they pass) and the arguments read."""
    options: list[str] = []
    before: list[str] = []
    after: list[str] = []
    listing = False
    dashdash = False
    none = GitArgs((), (), (), False)
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if dashdash or arg == "-" or not arg.startswith("-"):
            (after if dashdash else before).append(arg)
            continue
        if arg == "--":
            dashdash = True
            continue
        options.append(arg)
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
            return _unknown(sub, arg), none
        if name in spec.spaced and i < len(args) and not args[i].startswith("-"):
            options.append(args[i])
            i += 1
            continue
        if name in spec.bare:
            continue
        if name in spec.spaced:
            if i >= len(args):
                return f"git {sub} {arg} needs a value", none
            options.append(args[i])
            i += 1
            continue
        if _combined(spec, arg):
            listing = listing or any(f"-{c}" in spec.list_flags for c in arg[1:])
            continue
        return _unknown(sub, arg), none
    if (before or after) and not spec.positionals:
        return f"git {sub} takes no names here", none
    if (before or after) and spec.list_flags and not listing:
        flags = " or ".join(sorted(spec.list_flags))
        return f"git {sub} with a name creates or changes it; only listing ({flags}) is read-only", none
    return "", GitArgs(tuple(options), tuple(before), tuple(after), dashdash)


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
