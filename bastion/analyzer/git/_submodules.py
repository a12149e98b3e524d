"""The submodules and embedded repositories git status and git diff look into, probed like the top.

For each gitlink in the index (mode 160000) whose directory holds a `.git`, git status and git diff
run a git of their own in it (to see whether it is modified), and that git reads that repository's
own config, where a `core.fsmonitor` or a filter driver runs a program (git 2.39 passes the plan's
`-c` keys on to it, traced, but they pin only their own keys). So a plan leaves out
`--ignore-submodules=all` only when every such repository is probed as the top one is, and clean:

- its directory and every directory on the way from the top is a directory, not a link;
- its `.git` is a directory (an embedded repository, whose git directory is walked as the top's
  is: `_dir`) or a file that says `gitdir: X` with X inside the top's `.git/modules` (walked with
  the top's git directory); a link, or a file naming any other place, keeps the flag;
- git, asked in it, agrees on its top and git directory, and every key of its own scopes is on the
  allow-list for git status (a submodule's keys, judged strictly); it reads no filter driver the
  top's plan does not switch off (an `includeIf` of the user's config for that directory alone);
- its own gitlinks are probed the same way (nested submodules), to a bounded depth and count.

A gitlink whose directory has no `.git` (an uninitialised submodule) starts no git: its directory
and `.git` are looked at, so one appearing later changes the fingerprint. Every directory, `.git`,
git directory and config file looked at is a place of the probe, so a stamp that binds it is
refused once one changes. A line run as typed (no plan) asks when a submodule's config runs a
program or cannot be read.
"""

from __future__ import annotations

import os
import posixpath
import stat
from typing import NamedTuple, Protocol

from ...workspace import System
from .._result import GitFinding
from ._filters import drivers_of
from ._index import read_gitlinks
from ._keys import Entry, judge_entries

__all__ = ["MAX_SUBMODULES", "ProbeAccess", "Submodules", "probe_submodules"]

MAX_SUBMODULES = 32
MAX_DEPTH = 3
_GITFILE_LIMIT = 4096
_STATUS = frozenset({"status"})


class Submodules(NamedTuple):
    """What the probe found of a repository's submodules: how many gitlinks the index holds
    (nested ones included), why git status and diff must not look into them ("" when every one
    was probed clean), and for a line run as typed the finding that makes it ask (None: none)."""

    gitlinks: int
    hidden: str
    typed: GitFinding | None


class ProbeAccess(Protocol):
    """What the walk needs of the probe it is part of: record a place it looked at, record a
    directory of a git directory with the identity it was read with, run git in a root-relative
    directory (exit code and output, None when it did not finish), the root-relative name of an
    absolute path (None outside the workspace), read a config listing, the user's HOME, the
    files where the workspace is; and the words of the top's plan that switch its filter drivers
    off (`_filters`)."""

    home: str
    drivers: tuple[str, ...]

    @property
    def system(self) -> System: ...

    def look(self, absolute: str) -> object: ...

    def remember(self, path: str, st: os.stat_result) -> None: ...

    def try_git(self, run_in: str, argv: list[str]) -> tuple[int, bytes] | None: ...

    def inside(self, absolute: str) -> str | None: ...

    def entries(self, out: bytes, repo: str) -> tuple[Entry, ...]: ...


class _Hidden(Exception):
    """Why submodules stay hidden; `typed` when a line run as typed must ask too."""

    def __init__(self, why: str, typed: GitFinding | None = None) -> None:
        super().__init__(why)
        self.typed = typed


class _Walk:
    def __init__(self, host: ProbeAccess, top_gitdir: str) -> None:
        self.host = host
        self.modules = top_gitdir.rstrip("/") + "/modules/"
        self.count = 0

    def gitlinks(self, top: str, gitdir: str) -> list[str]:
        """The gitlinks of the repository whose top is the absolute `top` and git directory
        `gitdir` (walked), each absolute: read from its index, or listed by git where the index
        is not one `_index` is sure of."""
        run_in = self.host.inside(top)
        if run_in is None:  # as the top probe trusts a repository above the workspace
            raise _Hidden(f"the repository {top} lies outside the workspace")
        names = read_gitlinks(gitdir, self.host.remember, self.host.look, self.host.system)
        if names is None:
            names = self._listed(top, run_in)
        return [posixpath.join(top, name.decode("utf-8", "surrogateescape")) for name in names]

    def _listed(self, top: str, run_in: str) -> tuple[bytes, ...]:
        found = self.host.try_git(run_in, ["git", "ls-files", "--stage", "-z", "--full-name", ":(top)"])
        if found is None or found[0] != 0:
            raise _Hidden(f"git could not list the gitlinks of {top}")
        links: list[bytes] = []
        for record in found[1].split(b"\0")[:-1]:
            head, tab, path = record.partition(b"\t")
            if not tab or head.count(b" ") != 2:
                raise _Hidden(f"git ls-files printed something unexpected in {top}")
            if head.startswith(b"160000 "):
                links.append(path)
        return tuple(links)

    def repository(self, top: str, gitdir: str, depth: int) -> None:
        for link in self.gitlinks(top, gitdir):
            self.count += 1
            if self.count > MAX_SUBMODULES:
                raise _Hidden(f"more than {MAX_SUBMODULES} submodules to probe")
            self.submodule(top, link, depth)

    def _directory(self, top: str, path: str) -> bool:
        """Whether the gitlink's directory exists; every directory on the way must not be a link."""
        parts = posixpath.relpath(path, top).split("/")
        at = top
        for part in parts:
            at = posixpath.join(at, part)
            self.host.look(at)
            try:
                mode = self.host.system.lstat(at).st_mode
            except FileNotFoundError:
                return False
            if stat.S_ISLNK(mode):
                why = f"{at} is a symbolic link on the way to a submodule"
                raise _Hidden(why, GitFinding(why))
            if not stat.S_ISDIR(mode):
                return False
        return True

    def submodule(self, top: str, path: str, depth: int) -> None:
        if not self._directory(top, path):
            return  # not checked out: git runs nothing there
        dotgit = posixpath.join(path, ".git")
        self.host.look(dotgit)
        try:
            mode = self.host.system.lstat(dotgit).st_mode
        except FileNotFoundError:
            return  # an uninitialised submodule: git runs nothing there
        if stat.S_ISDIR(mode):
            gitdir = dotgit
            self._scan(gitdir)
        elif stat.S_ISREG(mode):
            gitdir = self._gitfile(dotgit, path)
        else:
            why = f"{dotgit} is neither a directory nor a regular file"
            raise _Hidden(why, GitFinding(why))
        self._where(path, gitdir)
        self._config(path)
        if depth >= MAX_DEPTH:
            raise _Hidden(f"submodules nest more than {MAX_DEPTH} deep")
        self.repository(path, gitdir, depth + 1)

    def _gitfile(self, dotgit: str, path: str) -> str:
        st, data = self.host.system.read(dotgit, _GITFILE_LIMIT + 1, follow=False)
        self.host.remember(dotgit, st)
        text = data.decode("utf-8", "surrogateescape")
        named = text[len("gitdir: ") :].rstrip("\n") if text.startswith("gitdir: ") else ""
        gitdir = posixpath.normpath(posixpath.join(path, named)) if named and "\n" not in named else ""
        if not gitdir.startswith(self.modules) or len(text) > _GITFILE_LIMIT:
            why = f"{dotgit} points git at {named or 'an unreadable place'}, not inside {self.modules}"
            raise _Hidden(why, GitFinding(why))
        self._scan(gitdir)
        return gitdir

    def _scan(self, gitdir: str) -> None:
        scan = self.host.system.scan_gitdir(gitdir)
        for place, st in scan.read:
            self.host.remember(place, st)
        if scan.problem:
            raise _Hidden(scan.problem, GitFinding(scan.problem))

    def _where(self, path: str, gitdir: str) -> None:
        run_in = self.host.inside(path)
        argv = ["git", "rev-parse", "--absolute-git-dir", "--show-toplevel"]
        found = self.host.try_git(run_in or ".", argv)
        lines = found[1].decode("utf-8", "surrogateescape").splitlines() if found and found[0] == 0 else []
        real = [self.host.system.realpath(x) for x in lines]
        if run_in is None or len(lines) != 2 or real != [gitdir, path]:
            why = f"git in the submodule {path} does not use {gitdir} with {path} as its work tree"
            raise _Hidden(why, GitFinding(why))

    def _config(self, path: str) -> None:
        run_in = self.host.inside(path) or "."
        found = self.host.try_git(run_in, ["git", "config", "--list", "-z", "--show-scope", "--show-origin"])
        if found is None or found[0] != 0:
            why = f"the config of the submodule {path} could not be read"
            raise _Hidden(why, GitFinding(why))
        listed = self.host.entries(found[1], path)
        entries = [
            Entry("command", e.origin, e.key, e.value)  # a submodule's own: judged strictly
            for e in listed
            if e.scope in ("local", "worktree") and e.origin
        ]
        for entry in entries:
            self.host.look(entry.origin)
        origins = frozenset(e.origin for e in entries)
        typed = judge_entries(entries, origins, self.host.home, strict=True)
        if typed is not None:
            raise _Hidden(typed.reason, typed)
        found_key = judge_entries(entries, origins, self.host.home, strict=False, subcommands=_STATUS)
        if found_key is not None:
            raise _Hidden(found_key.reason)
        drivers = drivers_of(listed)
        if drivers.why or not set(drivers.words) <= set(self.host.drivers):
            raise _Hidden(f"git in the submodule {path} reads a filter driver the plan does not switch off")


def probe_submodules(host: ProbeAccess, top: str, top_gitdir: str) -> Submodules:
    """The submodules of the repository at the absolute `top` with git directory `top_gitdir`."""
    walk = _Walk(host, top_gitdir)
    try:
        walk.repository(top, top_gitdir, 1)
    except _Hidden as hidden:
        return Submodules(max(walk.count, 1), str(hidden), hidden.typed)
    except OSError as err:
        why = f"a submodule could not be probed: {err}"
        return Submodules(max(walk.count, 1), why, GitFinding(why))
    return Submodules(walk.count, "", None)
