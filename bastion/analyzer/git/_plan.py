"""What an allowed git stage runs: its words made safe on their own, wherever the line runs.

A plan may run in bastion's neutralised environment or be handed to another agent (a hook's
`updatedInput`) that runs it in its own, so every git plan carries its own safety in its words: a
line with a git stage starts with `unset -v` of each variable that steers git (a shell builtin:
no program runs), and each git stage is `git -c KEY=VALUE` for each neutralising key (and, where
it hashes work-tree files, for each filter driver switched off: `_filters`), then
`--no-pager --no-optional-locks`. One table, `DIFF_FORMS`, says which subcommands can produce a
diff, the flags that keep it from running a program, when it prints or opens file contents (a form
that does gets `--` and one exclude pathspec per secret-looking pattern in force), and whether its
positionals may be revisions: each revision of such a form is peeled in the plan to a commit (or
kept a tree), so that no name (a ref, a tag, a reflog entry, a packed-refs line) reaches a blob.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from ...grammar import Word
from .._secrets import git_excludes, hidden_by
from ._neutral import GIT_STEERING, NEUTRAL_GIT_CONFIG

__all__ = [
    "DIFF_FORMS",
    "GIT_PREFIX",
    "UNSET_GIT_STEERING",
    "NO_SUBMODULES",
    "SHOWN_SUBMODULES",
    "GitArgs",
    "DiffForm",
    "excluding_words",
    "needs_excludes",
    "peel",
    "peeled",
    "secret_excludes",
    "plan_words",
    "showing_submodules",
]

# The first pipeline of a line with a git stage: the variables that steer git, unset by the shell.
UNSET_GIT_STEERING: tuple[str, ...] = ("unset", "-v", *GIT_STEERING)
# A git stage's first words: the neutralising config, on the command line.
GIT_PREFIX: tuple[str, ...] = (
    "git",
    *(word for key, value in NEUTRAL_GIT_CONFIG for word in ("-c", f"{key}={value}")),
    # a replace ref makes an object's name stand for another object, a blob among them
    "--no-replace-objects",
    "--no-pager",
    "--no-optional-locks",
)

_NO_PROGRAMS = ("--no-ext-diff", "--no-textconv")
# A notes ref names blobs that log and show print beneath each commit (`Notes:`, `%N`), and its
# commits hold them under the names of the commits they annotate, which no exclude knows: log's
# `--all` leaves the notes refs out (a notes commit named on its own is not judged: design.md).
_NO_NOTES = ("--no-notes",)
_NO_NOTES_REFS = "--exclude=refs/notes/*"
# The git that git runs inside a submodule or an embedded repository reads that repository's own
# config (git 2.39 passes the plan's `-c` on, but it pins only its own keys), so a program key of
# its own would run: the plan tells git not to look into submodules at all, unless every one was
# probed clean (_submodules.py), where git status and git diff show them (`showing_submodules`).
NO_SUBMODULES = "--ignore-submodules=all"
_NO_SUBMODULES = (NO_SUBMODULES,)
# What git status and git diff carry in its place: diff's short form, so that no config can make
# it print a submodule's files (diff.submodule=diff), which no exclude reaches.
SHOWN_SUBMODULES: dict[str, tuple[str, ...]] = {"status": (), "diff": ("--submodule=short",)}


class DiffForm(NamedTuple):
    """A subcommand that can produce a diff or read the work tree's files: the flags its plan always
    carries; when it carries the secret excludes: "always" (diff, show and grep print contents,
    status opens and hashes every tracked file whose stat data changed), "patch" (with a flag that
    asks for a patch or searches one), "eol" (ls-files with a flag that opens work-tree files), or
    "never"; what its positionals are: "revisions" then paths (the revisions peeled to
    commits), "paths" only, or "typed" (blame's revision and file, run as typed: blame fails on a
    blob); and whether it hashes work-tree files through their filter driver (`_filters`)."""

    flags: tuple[str, ...]
    contents: str
    takes: str
    rehashes: bool = False

    @property
    def revisions(self) -> bool:
        return self.takes == "revisions"


DIFF_FORMS: dict[str, DiffForm] = {
    "diff": DiffForm(_NO_PROGRAMS + _NO_SUBMODULES, "always", "revisions", rehashes=True),
    "show": DiffForm(_NO_PROGRAMS + _NO_SUBMODULES + _NO_NOTES, "always", "revisions"),
    "log": DiffForm(_NO_PROGRAMS + _NO_SUBMODULES + _NO_NOTES, "patch", "revisions"),
    "stash list": DiffForm(_NO_PROGRAMS + _NO_SUBMODULES + _NO_NOTES, "patch", "paths"),
    "blame": DiffForm(_NO_PROGRAMS, "never", "typed", rehashes=True),
    "status": DiffForm(_NO_SUBMODULES, "always", "paths", rehashes=True),
    # git grep prints the lines of tracked files (a textconv only with --textconv, refused)
    "grep": DiffForm(("--no-textconv",), "always", "revisions"),
    # ls-files --eol (or an %(eolinfo:worktree) format) opens every tracked file it lists
    "ls-files": DiffForm((), "eol", "paths"),
}

# Flags that print a patch (or part of one), or pick commits by what their patches contain.
_CONTENT_FLAGS = frozenset(
    {"-p", "--patch", "-u", "-U", "--unified", "--word-diff", "--color-words", "--binary", "--check", "-W",
     "--function-context", "-S", "-G"}
)  # fmt: skip
_CONTENT_LETTERS = frozenset("puW")
_ATTACHED_CONTENT = re.compile(r"-U[0-9]*|-[SG].+")
# A revision's last part that git reads before peeling (`A^@` its parents, `A^!` it without them,
# `A^-N` it without parent N): the peel goes before it.
_RANGE_SUFFIX = re.compile(r"\^(?:@|!|-[0-9]*)\Z")
# The peel: `~0` is the commit itself, and git resolves `X~0` to a commit or fails, whatever X
# names (a tag is followed). `X^{commit}` is no peel for a reflog form: when it fails, git reads
# `X@{0}^{commit}` again as the reflog entry `X@{...}` at the date `0}^{commit` (approxidate: now),
# which is the blob itself (git 2.39).
PEEL = "~0"
_TREE = "^{tree}"


class GitArgs(NamedTuple):
    """A git stage's arguments after its subcommand, as the flag algorithm read them: options
    (values kept beside their flag) in order, positionals before `--` and after it."""

    options: tuple[str, ...]
    before: tuple[str, ...]
    after: tuple[str, ...]
    dashdash: bool


def needs_excludes(form: DiffForm, options: Sequence[str]) -> bool:
    """Whether the plan of `form` with `options` carries the secret excludes."""
    if form.contents == "eol":
        return any(o == "--eol" or o.startswith("--format") for o in options)
    if form.contents != "patch":
        return form.contents == "always"
    for option in options:
        name = option.split("=", 1)[0]
        if name in _CONTENT_FLAGS or _ATTACHED_CONTENT.fullmatch(option):
            return True
        if not option.startswith("--") and option.startswith("-") and _CONTENT_LETTERS & set(option[1:]):
            return True
    return False


def peeled(revision: str) -> str:
    """A revision operand that names commits only: each name in it (either end of `A..B` and
    `A...B`, an end left out being HEAD; after `^`; before `^@`, `^!`, `^-N`) followed by `~0`,
    unless it is a tree (`X^{tree}`, X no reflog form), whose entries' names git prints.
    `REV:path` is left as it is: its path is judged as a read (the checker)."""
    if ":" in revision:
        return revision
    if revision.startswith("^"):
        return "^" + peeled(revision[1:])
    for dots in ("...", ".."):
        if dots in revision:
            left, _, right = revision.partition(dots)
            return f"{peel(left or 'HEAD')}{dots}{peel(right or 'HEAD')}"
    suffix = _RANGE_SUFFIX.search(revision)
    if suffix and suffix.start():
        return peel(revision[: suffix.start()]) + revision[suffix.start() :]
    return peel(revision)


def peel(name: str, kept: tuple[str, ...] = (_TREE,)) -> str:
    """One name, a commit (`~0`) unless it ends in one of `kept` and holds no reflog form `@{`."""
    return name if name.endswith(kept) and "@{" not in name else name + PEEL


def plan_words(sub: Sequence[str], form: DiffForm | None, args: Sequence[str]) -> tuple[Word, ...]:
    """The words of a git stage whose arguments run in their own order."""
    flags = form.flags if form is not None else ()
    return tuple(Word(w) for w in (*GIT_PREFIX, *sub, *flags, *args))


def secret_excludes(secrets: Sequence[str], files: Sequence[tuple[str, str]] = ()) -> tuple[str, ...]:
    """The exclude pathspecs of a form that prints contents.

    `files` is given when every path of the line is a named regular file, each `(raw, name)` as
    typed and root-relative. Such a diff covers those names and what a revision or the index holds
    below them, nothing else, and each name is a read the policy decides (a lift of yours lets it
    through): so a pattern that hides one of them is dropped, what lies below each name is excluded
    instead (`raw` is a literal, relative to where git runs), and every other pattern keeps its
    excludes."""
    kept = [p for p in secrets if not any(hidden_by(name, (p,)) for _, name in files)]
    if len(kept) == len(secrets):
        return git_excludes(secrets)
    return (*git_excludes(kept), *(f":(exclude,icase,glob){raw}/**" for raw, _ in files))


def excluding_words(
    sub: Sequence[str], form: DiffForm, args: GitArgs, paths_at: int, excludes: Sequence[str]
) -> tuple[Word, ...]:
    """The words of a form with revisions or excludes: options (log's `--all` without the notes
    refs), revisions (each `peeled`; git show without one shows `HEAD~0`, not whatever HEAD
    names), `--`, the paths, then the `excludes` (`secret_excludes`). Without the user's `--`,
    the positionals from `paths_at` on are paths."""
    revisions = tuple(peeled(r) for r in args.before[:paths_at])
    if not revisions and tuple(sub) == ("show",):
        revisions = ("HEAD" + PEEL,)
    options = (w for o in args.options for w in ((_NO_NOTES_REFS, o) if o == "--all" else (o,)))
    paths = (*args.before[paths_at:], *args.after)
    words = (*GIT_PREFIX, *sub, *form.flags, *options, *revisions, "--", *paths, *excludes)
    return tuple(Word(w) for w in words)


def showing_submodules(words: Sequence[Word], sub: str) -> tuple[Word, ...]:
    """A git status or diff stage's words with git looking into submodules: the plan's
    `--ignore-submodules=all` (the first one, which the plan put after the subcommand) in its
    SHOWN_SUBMODULES form."""
    texts = [w.text for w in words]
    at = texts.index(NO_SUBMODULES)
    return (*words[:at], *(Word(w) for w in SHOWN_SUBMODULES[sub]), *words[at + 1 :])
