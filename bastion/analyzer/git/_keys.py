"""How the repository's own git config is judged.

A line that runs neutralised (auto-allowed, read-only subcommands) meets an allow-list: every key of
the repository's scopes (local, worktree, the files they include, submodule configs) must be one
known to be harmless for the subcommands of the line. No key on the list names a file, a program, a
helper or a place to contact, or changes which files git reads (git's documentation, key by key:
`git help config`). Keys the neutralising environment pins (`-c key=value` wins over every file) are
harmless in the repository's scopes; a submodule's are judged as if its git did not get that
environment (git 2.39 passes it on, traced), so there they ask.

A line that runs as typed (strict) keeps the deny-list below, from git's own documentation of what
it executes, made stricter by the keys the neutral run would have overridden.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from typing import NamedTuple

from .._result import GitFinding
from ._neutral import NEUTRAL_GIT_CONFIG

__all__ = ["READ_ONLY", "Entry", "bad_key", "judge_entries", "split_key", "subcommand"]

TRUSTED_SCOPES = frozenset({"system", "global"})

_BOOLISH = frozenset({"", "true", "false", "yes", "no", "on", "off", "1", "0"})
# git's boolean words (git_parse_maybe_bool_text, compared lowered); "" is false.
GIT_TRUE = frozenset({"true", "yes", "on", "1"})
GIT_FALSE = frozenset({"false", "no", "off", "0", ""})
_RESTRICTS = frozenset({"never", "user"})

_EXEC = re.compile(
    r"filter\..+\.(?:clean|smudge|process)|diff\..+\.(?:command|textconv)|diff\.external"
    r"|core\.askpass|core\.editor|core\.gitproxy|core\.attributesfile|core\.alternaterefscommand"
    r"|remote\..+\.(?:uploadpack|receivepack|proxy|vcs)|credential\.helper|credential\..+\.helper"
    r"|sequence\.editor|merge\..+\.driver|uploadpack\.packobjectshook"
    r"|(?:difftool|mergetool|browser|man)\..+\.(?:cmd|path)|trailer\..+\.(?:command|cmd)",
    re.IGNORECASE,
)
_PROTOCOL_ALLOW = re.compile(r"protocol\..*allow", re.IGNORECASE)
_SUBMODULE_UPDATE = re.compile(r"submodule\..+\.update", re.IGNORECASE)
_GPG_PROGRAM = re.compile(r"gpg\.(?:.+\.)?program", re.IGNORECASE)
_STRICT_PREFIXES = ("core.hookspath", "core.sshcommand", "core.pager")
_INCLUDE = re.compile(r"include\.path|includeif\..+\.path", re.IGNORECASE)

# The subcommands a line may run neutralised (the git checker's read-only forms).
READ_ONLY = frozenset(
    {
        "status",
        "diff",
        "log",
        "show",
        "branch",
        "rev-parse",
        "ls-files",
        "blame",
        "tag",
        "describe",
        "shortlog",
        "stash list",
        "remote",
        "config",
        "ls-tree",
        "cat-file",
        "grep",
        "check-ignore",
        "count-objects",
        "--version",
    }
)
# Subcommands that print commits through log's machinery (signatures, pretty formats).
_PRINTS_COMMITS = frozenset({"log", "show", "shortlog", "stash list"})

# Keys by shape: `section.variable`, or `section.*.variable` for any subsection. The value says for
# which subcommands the key is harmless (None: all of them).
_HARMLESS: dict[str, frozenset[str] | None] = {
    **dict.fromkeys(
        (
            # how the repository is laid out and how git compares files; none names a file (the
            # commit-graph, multi-pack-index and untracked cache are files inside .git, checked there)
            "core.repositoryformatversion",
            "core.filemode",
            "core.bare",
            "core.logallrefupdates",
            "core.ignorecase",
            "core.precomposeunicode",
            "core.symlinks",
            "core.autocrlf",
            "core.eol",
            "core.safecrlf",
            "core.quotepath",
            "core.abbrev",
            "core.checkstat",
            "core.trustctime",
            "core.untrackedcache",
            "core.preloadindex",
            "core.commitgraph",
            "core.multipackindex",
            "core.compression",
            "core.loosecompression",
            "core.whitespace",
            "core.warnambiguousrefs",
            "core.protecthfs",
            "core.protectntfs",
            "user.name",
            "user.email",
            "user.useconfigonly",
            "init.defaultbranch",
            # how output looks
            "status.short",
            "status.branch",
            "status.showstash",
            "status.showuntrackedfiles",
            "status.relativepaths",
            "status.aheadbehind",
            "status.renames",
            "status.renamelimit",
            "status.displaycommentprefix",
            "diff.renames",
            "diff.renamelimit",
            "diff.algorithm",
            "diff.mnemonicprefix",
            "diff.noprefix",
            "diff.context",
            "diff.interhunkcontext",
            "diff.indentheuristic",
            "diff.colormoved",
            "diff.colormovedws",
            "diff.statgraphwidth",
            "diff.suppressblankempty",
            "diff.wserrorhighlight",
            "diff.ignoresubmodules",
            "diff.relative",
            "diff.dirstat",
            "diff.wordregex",
            "log.abbrevcommit",
            "log.date",
            "log.decorate",
            "log.follow",
            "log.graphcolors",
            "log.showroot",
            "log.excludedecoration",
            "log.initialdecorationset",
            "log.diffmerges",
            "blame.blankboundary",
            "blame.coloring",
            "blame.date",
            "blame.showemail",
            "blame.showroot",
            "blame.markunblamablelines",
            "blame.markignoredlines",
            "branch.sort",
            "tag.sort",
            "grep.linenumber",
            "grep.column",
            "grep.patterntype",
            "grep.extendedregexp",
            "grep.threads",
            "grep.fullname",
            # read only by commands that write, fetch or push, never by a read-only one
            "branch.autosetupmerge",
            "branch.autosetuprebase",
            "pull.rebase",
            "pull.ff",
            "push.default",
            "push.autosetupremote",
            "push.followtags",
            "fetch.prune",
            "fetch.prunetags",
            "merge.ff",
            "merge.conflictstyle",
            "rebase.autostash",
            "rebase.autosquash",
            "rebase.updaterefs",
            "commit.gpgsign",
            "commit.verbose",
            "tag.gpgsign",
            "gc.auto",
            "gc.autodetach",
            "gc.autopacklimit",
            "maintenance.auto",
            "maintenance.strategy",
            "submodule.active",
            # where remotes and branches are; a read-only command contacts none of them
            "remote.*.url",
            "remote.*.pushurl",
            "remote.*.fetch",
            "remote.*.push",
            "remote.*.tagopt",
            "remote.*.prune",
            "remote.*.prunetags",
            "remote.*.mirror",
            "remote.*.skipdefaultupdate",
            "branch.*.remote",
            "branch.*.merge",
            "branch.*.rebase",
            "branch.*.pushremote",
            "branch.*.description",
            "submodule.*.url",
            "submodule.*.active",
            "submodule.*.branch",
            "submodule.*.update",
            "submodule.*.ignore",
            # transports: only the values that forbid or restrict one ("always" asks)
            "protocol.allow",
            "protocol.*.allow",
            # written by gh and VS Code; git reads neither
            "remote.*.gh-resolved",
            "branch.*.vscode-merge-base",
        ),
        None,
    ),
    # log's machinery verifies signatures (runs gpg) and expands pretty formats (%G runs gpg too)
    **dict.fromkeys(("log.showsignature", "format.pretty", "pretty.*"), READ_ONLY - _PRINTS_COMMITS),
    # status runs a git of its own in each submodule to summarise it
    "status.submodulesummary": READ_ONLY - {"status"},
}
# Sections whose every variable, with or without a subsection, is harmless given its value.
_VALUE_RULES: dict[str, Callable[[str], bool]] = {
    "color": lambda _: True,
    "pager": lambda v: v.lower() in _BOOLISH,  # a string names a pager program
    # git ignores an alias that hides one of its commands, so none replaces a read-only subcommand
    "alias": lambda _: True,
}
_VALUE_OF: dict[str, Callable[[str], bool]] = {
    "core.bare": lambda v: v.lower() not in GIT_TRUE,
    "submodule.*.update": lambda v: not v.startswith("!"),
    "protocol.allow": lambda v: v.lower() in _RESTRICTS,
    "protocol.*.allow": lambda v: v.lower() in _RESTRICTS,
}
_NEUTRALISED = frozenset(key.lower() for key, _ in NEUTRAL_GIT_CONFIG)  # their subsections are lowercase
# git writes core.worktree into every submodule's config it checks out.
_SUBMODULE_ONLY = frozenset({"core.worktree"})


class Entry(NamedTuple):
    """One config entry: its scope, the absolute file it came from ("" for the command line), its
    key as git prints it, and its value (None for a key written without `=`, which means true)."""

    scope: str
    origin: str
    key: str
    value: str | None


def subcommand(args: Iterable[str]) -> str:
    """The subcommand a git stage's arguments name ("stash list" for stash's listing), after a
    leading `-C DIR`."""
    words = list(args)
    if words[:1] == ["-C"]:
        words = words[2:]
    if not words:
        return ""
    return "stash list" if words[0] == "stash" and words[1:2] == ["list"] else words[0]


def split_key(key: str) -> tuple[str, str, str]:
    """Section and variable as git compares them (case-blind), and the subsection as written."""
    section, _, rest = key.partition(".")
    sub, _, variable = rest.rpartition(".")
    return section.lower(), sub, variable.lower()


def _harmless(key: str, value: str | None, subcommands: frozenset[str], *, submodule: bool) -> bool:
    """Whether the key is on the allow-list for every subcommand of the line."""
    section, sub, variable = split_key(key)
    if not section or not variable:
        return False
    v = "true" if value is None else value
    if section in _VALUE_RULES:
        return _VALUE_RULES[section](v)
    shape = f"{section}.*.{variable}" if sub else f"{section}.{variable}"
    exact = f"{section}.{sub}.{variable}" if sub else shape
    if exact in _NEUTRALISED and not submodule:
        return True
    if submodule and shape in _SUBMODULE_ONLY:
        return True
    if shape not in _HARMLESS and f"{section}.*" not in _HARMLESS:
        return False
    only = _HARMLESS.get(shape, _HARMLESS.get(f"{section}.*"))
    if only is not None and not (subcommands and subcommands <= only):
        return False
    rule = _VALUE_OF.get(shape)
    return rule is None or rule(v)


def bad_key(key: str, value: str | None, *, strict: bool, submodule: bool = False) -> str:
    """Why this entry makes git run something the checks cannot see ("" when the deny-list has no
    reason): the judgement of lines run as typed, and the words of a refusal where it has them."""
    k = key.lower()
    v = "true" if value is None else value
    if submodule and (k.startswith("core.bare") or k == "core.worktree"):
        return ""  # git writes both for every submodule it checks out
    if k.startswith("pager."):
        return "" if v.lower() in _BOOLISH else "names a pager program git runs"
    if _EXEC.fullmatch(k):
        return "names a program git runs"
    if _PROTOCOL_ALLOW.fullmatch(k) and v.lower() == "always":
        return "allows every transport, including ones that run commands"
    if k == "core.worktree":
        return "moves the work tree away from the checked directory"
    if k == "core.bare" and v.lower() in GIT_TRUE:
        return "makes git treat the directory as a bare repository"
    if k.startswith("extensions."):
        return "changes how git reads the repository"
    if _SUBMODULE_UPDATE.fullmatch(k) and v.startswith("!"):
        return "runs a command when submodules update"
    if not strict:
        return ""
    if (k == "core.fsmonitor" or _GPG_PROGRAM.fullmatch(k)) and v.lower() not in _BOOLISH:
        return "names a program git runs"
    if k.startswith(_STRICT_PREFIXES):
        return "names a program or hooks git runs"
    if k.startswith("alias.") and v.startswith("!"):
        return "runs a shell command when the alias is typed"
    return ""


def _include_target(entry: Entry, home: str) -> str:
    value = entry.value or ""
    if value.startswith("~/"):
        return posixpath.normpath(home + value[1:]) if home else ""
    if value.startswith("/"):
        return posixpath.normpath(value)
    if value.startswith("%(prefix)/") or not entry.origin:
        return ""
    return posixpath.normpath(posixpath.join(posixpath.dirname(entry.origin), value))


def _unlisted(subcommands: frozenset[str]) -> str:
    names = ", ".join(f"git {s}" for s in sorted(subcommands)) or "a line run unasked"
    return (
        f"is not on the list of keys known to be harmless for {names} (a key git reads can name a"
        " file it prints, a program it runs or a place it contacts)"
    )


def judge_entries(
    entries: Iterable[Entry],
    origins: frozenset[str],
    home: str,
    *,
    strict: bool,
    subcommands: frozenset[str] = frozenset(),
) -> GitFinding | None:
    """The first finding among the repository's entries (None for none). Entries of scope `command`
    that come from a file are submodule configs (passed as command-line includes): judged strictly.
    Lines run neutralised (`strict` false) meet the allow-list for their `subcommands`."""
    for entry in entries:
        if entry.scope in TRUSTED_SCOPES or not entry.origin:
            continue
        submodule = entry.scope == "command"
        if _INCLUDE.fullmatch(entry.key):
            if _include_target(entry, home) not in origins:
                why = "what it would bring in is not checked"
                return GitFinding(why, entry.key, entry.origin, entry.value, submodule, includes=True)
            continue
        why = bad_key(entry.key, entry.value, strict=strict or submodule, submodule=submodule)
        if not why and not strict and not _harmless(entry.key, entry.value, subcommands, submodule=submodule):
            why = _unlisted(subcommands)
        if why:
            return GitFinding(why, entry.key, entry.origin, entry.value, submodule)
    return None
