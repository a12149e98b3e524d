"""The git checker: read-only subcommands with their flag tables, everything else left to the rules.

Every argument is matched against the subcommand's table (`_flags`); every positional, revision
or path alike, is judged as a path inside the working directory, and diff/log/show/blame (and
status, which opens the files it names) report theirs as reads. An ok git stage sets `git`, so the
driver probes the repository's config, and its words become the self-contained plan `_plan`
renders (each revision peeled to a commit, secret excludes where it prints or opens file
contents); a stage that prints config values names their keys (`Check.prints`), which the probe
judges for a URL's credentials (`_urls`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...grammar import Stage, Word
from ...workspace import resolve
from .._result import Check, Context
from .._secrets import GIT_DIR_SECRETS, hidden_by
from ._flags import CONFIG_FLAGS, CONFIG_KEYS, REFUSED, SPECS, STASH_LIST, GitSpec
from ._objects import PATHSPEC_CHARS, blob_names
from ._plan import (
    DIFF_FORMS,
    GIT_PREFIX,
    GitArgs,
    excluding_words,
    needs_excludes,
    peel,
    plan_words,
    secret_excludes,
)
from ._urls import REMOTE_URL_KEYS
from ._worktree import linked_directory

__all__ = ["check_git"]

_COUNT = re.compile(r"-[nUM]?[0-9]+")
_ATTACHED = ("-S", "-G", "-L")
_CONFIG_KEY = re.compile(CONFIG_KEYS, re.IGNORECASE)
# Peeling that keeps a blob a blob (`X^{}`, `X^{blob}`, `X^{object}`).
_BLOB_PEEL = re.compile(r"\^\{(?:|blob|object)\}")
# Subcommands that take REV:path (a file of a revision) among their revisions.
_BLOB_FORMS = frozenset({"show", "cat-file", "ls-tree"})
_OBJECT_TYPES = frozenset({"blob", "tree", "commit", "tag"})
# What cat-file -p prints as named: a tree's entries or a tag object's text.
_NO_BLOB = ("^{tree}", "^{tag}")
# cat-file's one object, judged with the table's positional checks.
_CAT_FILE_OBJECT = GitSpec(reads=True)
# Options that make git show show every ref's object, which may be a blob: no peel reaches them.
_EVERY_REF = frozenset({"--all", "--branches", "--tags", "--remotes"})


def check_git(ctx: Context, stage: Stage) -> Check:
    args = [w.text for w in stage.args]
    if not args:
        return Check(ok=True, auto=False, git=True)
    if any(w.glob for w in stage.args):
        return Check.refuse("a glob makes bash choose git's arguments from whatever file names exist")
    if args[0] == "-C":
        return _check_moved(ctx, args[1:])
    return _check_sub(ctx, args)


def _check_moved(ctx: Context, args: list[str]) -> Check:
    """`git -C DIR SUB ...`: DIR inside the working directory, SUB one of the read-only forms,
    checked (and probed) as if it ran in DIR."""
    if len(args) < 2:
        return Check.refuse("git -C needs a directory and then a read-only subcommand")
    target = resolve(ctx.ws, ctx.cwd, args[0])
    if not target.ok:
        return Check.refuse(f"git -C: {target.why}")
    if not target.is_dir:
        return Check.refuse(f"git -C {args[0]!r}: git can only move into a directory that exists")
    check = _check_sub(ctx._replace(cwd=target.real), args[1:])
    if not check.ok:
        return check
    if check.words is None:
        return Check.refuse(
            "git -C moves git into another directory; only a read-only form may follow it, so that"
            " the rules see the command that runs"
        )
    at = len(GIT_PREFIX)
    words = (*check.words[:at], Word("-C"), Word(args[0]), *check.words[at:])
    depends = tuple(dict.fromkeys((*check.depends, target.name, target.real)))
    return check._replace(words=words, runs_in=target.real, depends=depends)


def _check_sub(ctx: Context, args: list[str]) -> Check:
    sub, rest = args[0], args[1:]
    if sub == "--version":
        if rest:
            return Check.refuse("git --version takes nothing after it here")
        return Check(ok=True, words=plan_words([sub], None, rest), git=True)
    if sub.startswith("-"):
        return Check.refuse(
            f"git {sub} before the subcommand can point git at other config, directories or programs"
        )
    if any("%G" in a for a in rest):
        return Check.refuse("%G in a format makes git run gpg to verify signatures")
    if sub == "remote":
        if rest in ([], ["-v"], ["--verbose"]):
            prints = REMOTE_URL_KEYS if rest and _urls_secret(ctx) else ()
            return Check(ok=True, words=plan_words([sub], None, rest), git=True, prints=prints)
        return Check.refuse("git remote changes or contacts remotes unless it only lists them (-v)")
    if sub == "stash":
        if rest[:1] != ["list"]:
            return Check.refuse("git stash changes the work tree unless it only lists (git stash list)")
        return _check_table(ctx, ("stash", "list"), STASH_LIST, rest[1:])
    if sub == "status" and _long_verbose(rest):
        return Check.refuse(
            "git status -v in the long format prints the staged diff of every file, whatever the"
            " pathspec says (so secret files cannot be excluded), and runs textconv programs; with"
            " -s or --porcelain last it prints no diff"
        )
    if sub == "config":
        check = _check_config(rest)
        if not check.ok:
            return check
        prints = tuple(a for a in rest if not a.startswith("-")) if _urls_secret(ctx) else ()
        return check._replace(words=plan_words([sub], None, rest), prints=prints)
    if sub == "cat-file":
        return _check_cat_file(ctx, rest)
    spec = SPECS.get(sub)
    if spec is None:
        return Check(ok=True, auto=False, git=True)
    return _check_table(ctx, (sub,), spec, rest)


def _urls_secret(ctx: Context) -> bool:
    """Whether the git directory's config is a secret in force: then a line that prints a config
    value asks the probe whether it holds a URL's credentials (a rule of yours lifting it lets
    them through)."""
    return GIT_DIR_SECRETS[0] in ctx.secrets


def _long_verbose(args: Sequence[str]) -> bool:
    """Whether `git status` prints the staged diff: -v with the long format (the last of -s,
    --short, --porcelain and --long chooses; git's status.short config only sets the default)."""
    verbose = short = False
    for arg in args:
        cluster = arg[:1] == "-" != arg[1:2]
        verbose = verbose or arg == "--verbose" or (cluster and "v" in arg)
        if arg in ("--short", "--porcelain") or arg.startswith("--porcelain=") or (cluster and "s" in arg):
            short = True
        elif arg == "--long":
            short = False
    return verbose and not short


def _check_table(ctx: Context, sub: tuple[str, ...], spec: GitSpec, rest: list[str]) -> Check:
    name = " ".join(sub)
    why, args = _read_args(name, spec, rest)
    if why:
        return Check.refuse(why)
    if name == "grep" and not any(o == "-e" or o.startswith("-e") and o[:2] != "--" for o in args.options):
        if not args.before:
            return Check.refuse("git grep takes its pattern first (or with -e), before any name or --")
        # the pattern is no name: it runs with the options, before the revisions
        args = GitArgs((*args.options, args.before[0]), args.before[1:], args.after, args.dashdash)
    form = DIFF_FORMS.get(name)
    excluding = form is not None and needs_excludes(form, args.options)
    why = _unsafe_form(name, args.options)
    if why:
        return Check.refuse(why)
    reading = spec.reads or excluding  # a form that opens files reads what it names
    reads: list[str] = []
    regular: dict[str, str] = {}  # literal names of regular files (no link), as typed -> root-relative
    paths_at = 0 if form is not None and form.takes == "paths" else len(args.before)
    for index, raw in enumerate((*args.before, *args.after)):
        if ":" in raw:
            if name not in _BLOB_FORMS or index >= min(paths_at, len(args.before)):
                return Check.refuse(
                    f"{raw!r} has a ':', which names a blob, an index entry or a magic pathspec"
                    " that the path checks cannot see"
                )
            why, names = blob_names(ctx, raw)
            if why:
                return Check.refuse(why)
            reads += names if reading else []
            continue
        if _BLOB_PEEL.search(raw):
            return Check.refuse(
                f"{raw!r} can name a blob, whose contents git prints whatever the path checks and"
                " secret excludes say"
            )
        resolved = resolve(ctx.ws, ctx.cwd, raw)
        if not resolved.ok:
            return Check.refuse(resolved.why)
        # git reads the first name that is a file (or a pattern) and all after it as paths
        first_path = resolved.exists or bool(PATHSPEC_CHARS & set(raw))
        if first_path and index < len(args.before) == paths_at and not args.dashdash:
            paths_at = index
        if reading:
            reads.append(resolved.name)
            if resolved.real and resolved.real != resolved.name:
                reads.append(resolved.real)
        if resolved.is_regular and resolved.real == resolved.name and not PATHSPEC_CHARS & set(raw):
            regular[raw] = resolved.name
    if name == "grep" and "--cached" not in args.options and not args.before[:paths_at]:
        return Check.refuse(
            "git grep in the work tree follows a link that replaced a tracked directory, out of the"
            " workspace or into a secret directory no exclude names; with --cached or a revision it"
            " reads only git's objects"
        )
    depends: tuple[str, ...] = ()
    if name == "ls-files" and excluding:  # git opens the work tree's files by their paths
        flag = next(o for o in args.options if o == "--eol" or o.startswith("--format"))
        why, depends = linked_directory(ctx, f"git ls-files {flag.split('=', 1)[0]}")
        if why:
            return Check.refuse(why)
    paths = (*args.before[paths_at:], *args.after)
    files = tuple((raw, regular[raw]) for raw in paths) if paths and all(p in regular for p in paths) else ()
    if form is None or not (excluding or form.revisions):
        words = plan_words(sub, form, rest)
    elif not excluding:  # revisions to peel, nothing printed of a file: log without a patch
        words = excluding_words(sub, form, args, paths_at, ())
    else:
        excludes = secret_excludes(ctx.secrets, files)
        shown = [r for r in reads if r not in {n for _, n in files}]  # a named file is a read decided
        why = _hides(ctx, name, args, shown, len(excludes))
        if why:  # the names stay reads, so a secret among them is asked as such
            return Check.refuse(why)._replace(reads=tuple(dict.fromkeys(reads)))
        words = excluding_words(sub, form, args, paths_at, excludes)
    return Check(ok=True, reads=tuple(dict.fromkeys(reads)), depends=depends, words=words, git=True)


def _unsafe_form(name: str, options: Sequence[str]) -> str:
    """Why options make a form unsafe whatever its operands ("" when they do not)."""
    if name == "show" and _EVERY_REF & set(options):
        return (
            "git show --all (--branches, --tags, --remotes) shows the object every ref names, and a"
            " ref may name a blob (a committed secret), which no peel or exclude reaches"
        )
    modified = any(o == "--modified" or o[:1] == "-" != o[1:2] and "m" in o for o in options)
    if name == "ls-files" and modified:
        return (
            "git ls-files -m opens every tracked file whose stat data changed, secret ones included,"
            " before its pathspec applies; git diff --name-only lists them with the secret excludes"
        )
    return ""


def _check_cat_file(ctx: Context, rest: list[str]) -> Check:
    """`git cat-file (-t|-s|-e|-p) OBJ` or `git cat-file TYPE OBJ`: contents only of `REV:path`
    (a read) or of an object that is no blob (a bare name is peeled to a commit)."""
    why, args = _read_args("cat-file", SPECS["cat-file"], rest)
    if why:
        return Check.refuse(why)
    options, names = args.options, (*args.before, *args.after)
    typed = not options and len(names) == 2 and names[0] in _OBJECT_TYPES
    if not typed and (len(options) != 1 or len(names) != 1):
        return Check.refuse("git cat-file takes one of -t, -s, -e, -p and one object here, or a type and one")
    check = _check_table(ctx, ("cat-file",), _CAT_FILE_OBJECT, [names[-1]])
    if not check.ok:
        return check
    obj = names[-1]
    contents = typed and names[0] == "blob" or options == ("-p",)
    if contents and ":" not in obj:
        if typed:
            return Check.refuse(
                "git cat-file blob prints a blob only as REV:path here, so that its path is judged"
            )
        obj = peel(obj, _NO_BLOB)  # a blob named by its object name or a ref would bypass the path checks
    words = plan_words(("cat-file",), None, (*options, *names[:-1], obj))
    return check._replace(words=words, reads=check.reads if contents else ())


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
    if sub == "grep" and name[:2] == "-O":
        return f"git grep: {REFUSED['--open-files-in-pager']}"
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
    return (
        len(arg) >= 3
        and not arg.startswith("--")
        and bool(spec.letters)
        and all(c in spec.letters for c in arg[1:])
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
