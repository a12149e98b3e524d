"""What the analyzer says about a line: per stage, governed or not, ok or why not, what it reads;
and what the git probe found (`GitFinding`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from ..grammar import Outside, Plan, Stage, Word
from ..workspace import Workspace
from ._secrets import SECRET_PATHS

__all__ = ["Analysis", "Check", "Checker", "Context", "GitFinding", "StageResult"]

DEFAULT_MAX_READ_BYTES = 2 * 1024 * 1024


class Context(NamedTuple):
    """What a checker may look at: the workspace, the stage's root-relative directory, limits, and
    the secret-looking path patterns in force (the policy's, less what a user's rule lifts), which
    a git plan that prints file contents excludes."""

    ws: Workspace
    cwd: str = "."
    max_read_bytes: int = DEFAULT_MAX_READ_BYTES
    after_pipe: bool = False
    secrets: tuple[str, ...] = SECRET_PATHS


class Check(NamedTuple):
    """A checker's answer for one stage.

    `auto` says the stage may run unasked as a rendered plan when ok; `reads` are the root-relative
    files it reads (with the names links lead to); `lists` the secret-looking directories whose names
    it prints or walks into (a lister's operands, the directories a glob is expanded in: each a read
    subject, so it asks as `ls` of it does, design rule 41); `words` replace the stage's
    words in the plan that runs (git's --no-ext-diff, ls's `--` before a glob); `cwd` is the
    directory later stages run in (cd); `runs_in` the directory the stage itself runs in when it
    moves there (`git -C`);
    `depends` are other root-relative names whose identity the decision rested on
    (ls's expanded matches, cd's directory), bound into the stamp with the reads; `prints` are the
    git config keys (`section.*.variable` for any subsection) whose values a git stage prints, which
    the probe must find free of a URL's credentials; `program` is the absolute path the plan runs
    for the stage's command (set by the driver, analyzer/programs/_programs.py; empty for a builtin and for
    a stage that does not run unasked); `inner` are the places in `words` of the commands a stage
    runs for each name it hands on (find -exec's, xargs's), which the driver names by absolute path
    too."""

    ok: bool
    why: str = ""
    auto: bool = True
    reads: tuple[str, ...] = ()
    lists: tuple[str, ...] = ()
    depends: tuple[str, ...] = ()
    words: tuple[Word, ...] | None = None
    cwd: str | None = None
    git: bool = False
    runs_in: str | None = None
    prints: tuple[str, ...] = ()
    program: str = ""
    inner: tuple[int, ...] = ()

    @staticmethod
    def refuse(why: str) -> Check:
        return Check(ok=False, why=why, auto=False)


Checker = Callable[[Context, Stage], Check]


class StageResult(NamedTuple):
    """One stage as decided: `position` is its place in the line (0-based); `governed` is false for
    a command no checker knows (rules decide it)."""

    stage: Stage
    position: int
    governed: bool
    check: Check
    cwd: str

    @property
    def ok(self) -> bool:
        return self.check.ok

    @property
    def why(self) -> str:
        return self.check.why

    @property
    def reads(self) -> tuple[str, ...]:
        return self.check.reads

    @property
    def lists(self) -> tuple[str, ...]:
        return self.check.lists


# What the git probe found, as a value: the config key that makes git run or read what the checks
# cannot see and the file that sets it, or what else keeps git from running unasked here. Its words
# for people are made here, from its fields, and nowhere else.
class GitFinding(NamedTuple):
    """`why` says what is wrong in words: what the key does ("names a program git runs"), or, for a
    finding that is no key (a `.git` that points elsewhere, a config that could not be read), all
    of it. `key` is the config key as git prints it and `origin` the absolute file it is set in
    ("" for neither); `value` is the key's value (None when written without `=`); `submodule` says
    the file is a submodule's config; `includes` that the key includes a file git did not read now."""

    why: str
    key: str = ""
    origin: str = ""
    value: str | None = None
    submodule: bool = False
    includes: bool = False

    @property
    def reason(self) -> str:
        """The finding in words, as a refusal gives it."""
        if not self.key:
            return self.why
        whose = "a submodule's config" if self.submodule else "the repository's config"
        if self.includes:
            read = f"{whose} includes {self.value!r} (in {self.origin}), which git did not read now"
            return f"{read}: {self.why}"
        return f"{whose} sets {self.key} (in {self.origin}): it {self.why}"


class Analysis(NamedTuple):
    """A line analysed. `auto` lines may run unasked as `rendered`, which is what runs.

    `outside` is set for a line outside the subset (then `plan` is None and there are no stages).
    `git_finding` is what the git config probe found (None for nothing). `submodules_hidden` says
    why an auto-allowed git status or diff runs with `--ignore-submodules=all`, so that it does not
    show the repository's submodules ("" when it shows them, or there are none). `credentials` says
    which config value an auto-allowed line prints holds a URL's credentials: bastion's bash tool
    hides a URL's userinfo in what it shows, a plan handed to another agent asks ("" for none).
    `programs` are the absolute paths of every program the plan starts (a script's interpreter
    among them), whose identities the stamp binds."""

    line: str
    plan: Plan | None
    outside: Outside | None
    stages: tuple[StageResult, ...] = ()
    auto: bool = False
    rendered: str | None = None
    git_finding: GitFinding | None = None
    probed: tuple[str, ...] = ()
    submodules_hidden: str = ""
    credentials: str = ""
    programs: tuple[str, ...] = ()

    @property
    def git_reason(self) -> str:
        """What the git config probe found, in words ("" for nothing)."""
        return "" if self.git_finding is None else self.git_finding.reason
