"""Which entries of a repository's git config make git run a program, move the repository, or
bring in config nobody checked. This is the one deny-list here: the keys come from git's own
documentation of what it executes; the neutralising environment and the inserted
`--no-ext-diff --no-textconv` stand behind it for auto-allowed runs."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Entry", "bad_key", "judge_entries"]

TRUSTED_SCOPES = frozenset({"system", "global"})

_BOOLISH = frozenset({"", "true", "false", "yes", "no", "on", "off", "1", "0"})
_TRUE = frozenset({"true", "yes", "on", "1"})

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


@dataclass(frozen=True, slots=True)
class Entry:
    """One config entry: its scope, the absolute file it came from ("" for the command line), its
    key as git prints it, and its value (None for a key written without `=`, which means true)."""

    scope: str
    origin: str
    key: str
    value: str | None


def bad_key(key: str, value: str | None, *, strict: bool, submodule: bool = False) -> str:
    """Why this entry makes git do something the checks cannot see ("" when it is harmless)."""
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
    if k == "core.bare" and v.lower() in _TRUE:
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


def judge_entries(entries: Iterable[Entry], origins: frozenset[str], home: str, *, strict: bool) -> str:
    """The first reason among the repository's entries ("" for none). Entries of scope `command`
    that come from a file are submodule configs (passed as command-line includes): judged strictly."""
    for entry in entries:
        if entry.scope in TRUSTED_SCOPES or not entry.origin:
            continue
        submodule = entry.scope == "command"
        whose = "a submodule's config" if submodule else "the repository's config"
        why = bad_key(entry.key, entry.value, strict=strict or submodule, submodule=submodule)
        if why:
            return f"{whose} sets {entry.key} (in {entry.origin}): it {why}"
        if _INCLUDE.fullmatch(entry.key) and _include_target(entry, home) not in origins:
            return (
                f"{whose} includes {entry.value!r} (in {entry.origin}), which git did not read now:"
                " what it would bring in is not checked"
            )
    return ""
