"""git probing: may git run in this directory without reading what the checks cannot see?

One probe (`_prober`) looks for a `.git` that redirects git (a file or a link), walks the git
directory (every entry a regular file or a directory: `_dir`), lists every config entry git would
use with its scope and origin, makes sure git finds the repository the walk found, and reads the
config of every submodule. The user's own scopes (system, global, command) are trusted; the
repository's (local, worktree, and files they include) are judged by `_keys`: an allow-list per
subcommand for lines run neutralised, the deny-list for lines run as typed. Anything unreadable is
a reason. This module answers the questions asked of a probe and keeps its snapshots.

A first probe spawns no git where the config files can be read as git reads them (`_configread`, rule
117), else git once (rule 85): the listing, which reads the submodule configs too (each passed as a
command-line `include.path`, its entries come back with scope `command` and their own origin). Where git
finds the repository is shown from the walk (`_discovery`: a bare repository on the way, or a `.git` git
would skip, is a reason), and `git rev-parse` is asked only where it cannot be (`core.worktree`, a true
`core.bare`, another file system on the way); the gitlinks are read from the index (`_index`), and `git
ls-files` is asked only where the reader is not sure. The gitlinks' checked-out repositories (submodules
and embedded repositories) are probed by `_submodules` (git asked twice each). Results are cached per
directory while a fingerprint of every file and directory the probe looked at (each directory of the git
directory included, HEAD and the index, and each place the submodules' probe read) is unchanged.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from ...workspace import Workspace
from .._result import GitFinding
from ._filters import REHASHES, Drivers, drivers_of
from ._neutral import probed_env
from ._prober import Snapshot, plan_git, take_snapshot, tokens_of
from ._submodules import Submodules
from ._urls import credential_finding

__all__ = [
    "filter_drivers",
    "find_git",
    "git_fingerprint",
    "printed_credentials",
    "probe_git",
    "submodules_of",
]


_CACHE_SIZE = 256

_cache: OrderedDict[tuple[object, ...], Snapshot] = OrderedDict()
_lock = threading.Lock()


def find_git(
    ws: Workspace, cwd: str, *, strict: bool, subcommands: frozenset[str] = frozenset()
) -> GitFinding | None:
    """None when git in the root-relative `cwd` reads and runs only what the checks allow, else
    what it found: the key (and its file), or the entry of the git directory.

    `strict` is for lines that will run as typed, without the neutralising environment; the others
    are judged against the allow-list of keys for their git `subcommands` (none: only keys harmless
    for every read-only subcommand), and a form that hashes work-tree files against the filter
    drivers its plan must switch off (`_filters`)."""
    snap = _snapshot(ws, cwd)
    if snap.problem:
        return GitFinding(snap.problem)
    found = snap.judge(strict, subcommands)
    if found is None and snap.where:
        return GitFinding(snap.where)
    if found is None and strict:
        return snap.submodules.typed  # a line run as typed lets git look into every submodule
    drivers = drivers_of(snap.entries) if found is None and subcommands & REHASHES else None
    return GitFinding(drivers.why) if drivers is not None and drivers.why else found


def filter_drivers(ws: Workspace, cwd: str) -> Drivers:
    """The filter drivers git in the root-relative `cwd` reads (every scope), as a plan's words."""
    return drivers_of(_snapshot(ws, cwd).entries)


def printed_credentials(ws: Workspace, cwd: str, prints: tuple[str, ...]) -> str:
    """Which value of the config keys `prints` (as git in the root-relative `cwd` reads them) holds
    a URL's credentials, in words ("" for none: `_urls`)."""
    found = credential_finding(_snapshot(ws, cwd).entries, prints)
    return "" if found is None else found.reason


def submodules_of(ws: Workspace, cwd: str) -> Submodules:
    """The submodules git status and git diff in the root-relative `cwd` would look into: how many
    gitlinks, and why they must stay hidden ("" when every one was probed clean)."""
    snap = _snapshot(ws, cwd)
    if snap.problem or snap.where:
        return Submodules(max(snap.submodules.gitlinks, 1), snap.problem or snap.where, None)
    return snap.submodules


def probe_git(ws: Workspace, cwd: str, *, strict: bool, subcommands: frozenset[str] = frozenset()) -> str:
    """What find_git found, in words ("" for nothing)."""
    found = find_git(ws, cwd, strict=strict, subcommands=subcommands)
    return "" if found is None else found.reason


def git_fingerprint(ws: Workspace, cwd: str) -> str:
    """A digest of the identity of every config file, `.git` and directory the probe of `cwd` read:
    a stamp that binds it is refused once any of them changes."""
    import hashlib  # OpenSSL's load (a few ms of a hook's start): only a stamp needs the digest

    snap = _snapshot(ws, cwd)
    digest = hashlib.sha256()
    for (kind, name), token in zip(snap.places, snap.tokens, strict=True):
        digest.update(f"{kind}\0{name}\0{token}\n".encode("utf-8", "surrogateescape"))
    digest.update(f"{snap.problem}\0{snap.where}".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def _key(ws: Workspace, cwd: str, git: tuple[str, str]) -> tuple[object, ...]:
    env = frozenset(probed_env(ws.env()).items())
    return (type(ws).__qualname__, ws.root, ws.real_root, cwd, env, git)


def _snapshot(ws: Workspace, cwd: str) -> Snapshot:
    git = plan_git(ws, cwd)
    key = _key(ws, cwd, git)
    with _lock:
        cached = _cache.get(key)
    if cached is not None and tokens_of(ws, cached.places) == cached.tokens:
        return cached
    snap = take_snapshot(ws, cwd, git)
    if snap.cacheable:
        with _lock:
            _cache[key] = snap
            _cache.move_to_end(key)
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
    return snap
