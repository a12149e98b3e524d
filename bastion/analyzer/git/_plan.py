"""What an allowed git stage runs: its words made safe on their own, wherever the line runs.

A plan may run in bastion's neutralised environment or be handed to another agent (a hook's
`updatedInput`) that runs it in its own, so every git plan carries its own safety in its words: a
line with a git stage starts with `unset -v` of each variable that steers git (a shell builtin:
no program runs), and each git stage is `git -c KEY=VALUE` for each neutralising key, then
`--no-pager --no-optional-locks`. One table, `DIFF_FORMS`, says which subcommands can produce a
diff, the flags that keep it from running a program, and when it prints file contents; a form that
prints them gets `--` and one exclude pathspec per secret-looking pattern in force.
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
    "secret_excludes",
    "plan_words",
    "prints_contents",
    "showing_submodules",
]

# The first pipeline of a line with a git stage: the variables that steer git, unset by the shell.
UNSET_GIT_STEERING: tuple[str, ...] = ("unset", "-v", *GIT_STEERING)
# A git stage's first words: the neutralising config, on the command line.
GIT_PREFIX: tuple[str, ...] = (
    "git",
    *(word for key, value in NEUTRAL_GIT_CONFIG for word in ("-c", f"{key}={value}")),
    "--no-pager",
    "--no-optional-locks",
)

_NO_PROGRAMS = ("--no-ext-diff", "--no-textconv")
# git clears GIT_CONFIG_* and `-c` for the git it runs inside a submodule or an embedded
# repository, so the neutralising config cannot reach it and that repository's own config would
# run: the plan tells git not to look into submodules at all, unless every one was probed clean
# (_submodules.py), where git status and git diff show them (`showing_submodules`).
NO_SUBMODULES = "--ignore-submodules=all"
_NO_SUBMODULES = (NO_SUBMODULES,)
# What git status and git diff carry in its place: diff's short form, so that no config can make
# it print a submodule's files (diff.submodule=diff), which no exclude reaches.
SHOWN_SUBMODULES: dict[str, tuple[str, ...]] = {"status": (), "diff": ("--submodule=short",)}


class DiffForm(NamedTuple):
    """A subcommand that can produce a diff: the flags its plan always carries, and when it prints
    file contents: "always" (diff, show), "patch" (with a flag that asks for a patch or searches
    one), or "never"."""

    flags: tuple[str, ...]
    contents: str


DIFF_FORMS: dict[str, DiffForm] = {
    "diff": DiffForm(_NO_PROGRAMS + _NO_SUBMODULES, "always"),
    "show": DiffForm(_NO_PROGRAMS + _NO_SUBMODULES, "always"),
    "log": DiffForm(_NO_PROGRAMS + _NO_SUBMODULES, "patch"),
    "stash list": DiffForm(_NO_PROGRAMS + _NO_SUBMODULES, "patch"),
    "blame": DiffForm(_NO_PROGRAMS, "never"),
    "status": DiffForm(_NO_SUBMODULES, "never"),
    # git grep prints the lines of tracked files (a textconv only with --textconv, refused)
    "grep": DiffForm(("--no-textconv",), "always"),
}

# Flags that print a patch (or part of one), or pick commits by what their patches contain.
_CONTENT_FLAGS = frozenset(
    {"-p", "--patch", "-u", "-U", "--unified", "--word-diff", "--color-words", "--binary", "--check", "-W",
     "--function-context", "-S", "-G"}
)  # fmt: skip
_CONTENT_LETTERS = frozenset("puW")
_ATTACHED_CONTENT = re.compile(r"-U[0-9]*|-[SG].+")
# A bare object name (alone, after `^`, or at either end of `..`/`...`) may name a blob, which git
# show prints whatever the pathspec says: the plan peels it to a commit, which a blob refuses.
_BARE_OBJECT = re.compile(r"(?<![^.^])([0-9a-fA-F]{4,64})(?![^.])")


class GitArgs(NamedTuple):
    """A git stage's arguments after its subcommand, as the flag algorithm read them: options
    (values kept beside their flag) in order, positionals before `--` and after it."""

    options: tuple[str, ...]
    before: tuple[str, ...]
    after: tuple[str, ...]
    dashdash: bool


def prints_contents(form: DiffForm, options: Sequence[str]) -> bool:
    if form.contents != "patch":
        return form.contents == "always"
    for option in options:
        name = option.split("=", 1)[0]
        if name in _CONTENT_FLAGS or _ATTACHED_CONTENT.fullmatch(option):
            return True
        if not option.startswith("--") and option.startswith("-") and _CONTENT_LETTERS & set(option[1:]):
            return True
    return False


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
    """The words of a form that prints contents: options, revisions (a bare object name peeled to
    a commit), `--`, the paths, then the `excludes` (`secret_excludes`). Without the user's `--`,
    the positionals from `paths_at` on are paths."""
    revisions = tuple(_BARE_OBJECT.sub(r"\1^{commit}", r) for r in args.before[:paths_at])
    paths = (*args.before[paths_at:], *args.after)
    words = (*GIT_PREFIX, *sub, *form.flags, *args.options, *revisions, "--", *paths, *excludes)
    return tuple(Word(w) for w in words)


def showing_submodules(words: Sequence[Word], sub: str) -> tuple[Word, ...]:
    """A git status or diff stage's words with git looking into submodules: the plan's
    `--ignore-submodules=all` (the first one, which the plan put after the subcommand) in its
    SHOWN_SUBMODULES form."""
    texts = [w.text for w in words]
    at = texts.index(NO_SUBMODULES)
    return (*words[:at], *(Word(w) for w in SHOWN_SUBMODULES[sub]), *words[at + 1 :])
