"""git probing: may git run in this directory without reading what the checks cannot see?

One probe looks for a `.git` that redirects git (a file or a link), walks the git directory (every
entry a regular file or a directory: `_dir`), lists every config entry git would use with its
scope and origin, makes sure git finds the repository the walk found, and reads the config of
every submodule. The user's own scopes (system, global, command) are trusted; the repository's
(local, worktree, and files they include) are judged by `_keys`: an allow-list per subcommand for
lines run neutralised, the deny-list for lines run as typed. Anything unreadable is a reason.

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

import os
import posixpath
import stat
import threading
from collections import OrderedDict
from typing import NamedTuple

from ...workspace import ExecRequest, LocalSystem, System, Workspace, resolve
from ._configread import learn_system, parse_listing, read_configs, read_local
from ._discovery import bare_on_the_way, located, unusable
from ._filters import REHASHES, Drivers, drivers_of
from ._finding import GitFinding
from ._keys import Entry, judge_entries
from ._neutral import neutral_env, probed_env
from ._submodules import Submodules, probe_submodules
from ._urls import credential_finding

__all__ = [
    "filter_drivers",
    "find_git",
    "git_fingerprint",
    "printed_credentials",
    "probe_git",
    "submodules_of",
]

TIMEOUT_SECONDS = 10.0
MAX_OUTPUT = 8 * 1024 * 1024
MAX_SUBMODULE_CONFIGS = 200
_CACHE_SIZE = 256

# A place the probe looked at: ("ws", root-relative name), ("os", absolute path) for what lies
# outside the workspace (the repository above it, or config files git names there), or ("tree",
# absolute path) for a directory of the git directory and the files whose contents matter there.
Place = tuple[str, str]
# A place's identity (device, inode, size, mtime, ctime, mode), or why there is none.
Token = tuple[int, ...] | str


class _Snapshot(NamedTuple):
    places: tuple[Place, ...]
    tokens: tuple[Token, ...]
    problem: str
    where: str
    cacheable: bool
    entries: tuple[Entry, ...]
    home: str
    # What judge_entries found in the entries, per (strict, subcommands) asked so far.
    judged: dict[tuple[bool, frozenset[str]], GitFinding | None]
    submodules: Submodules

    def judge(self, strict: bool, subcommands: frozenset[str]) -> GitFinding | None:
        key = (strict, frozenset() if strict else subcommands)
        if key not in self.judged:
            origins = frozenset(e.origin for e in self.entries if e.origin)
            self.judged[key] = judge_entries(
                self.entries, origins, self.home, strict=strict, subcommands=key[1]
            )
        return self.judged[key]


_cache: OrderedDict[tuple[object, ...], _Snapshot] = OrderedDict()
_lock = threading.Lock()


class _Unreadable(Exception):
    """The probe could not read what it needs: a reason, never a clean answer."""


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


def _key(ws: Workspace, cwd: str) -> tuple[object, ...]:
    return (type(ws).__qualname__, ws.root, ws.real_root, cwd, frozenset(probed_env(ws.env()).items()))


def _snapshot(ws: Workspace, cwd: str) -> _Snapshot:
    key = _key(ws, cwd)
    with _lock:
        cached = _cache.get(key)
    if cached is not None and _tokens(ws, cached.places) == cached.tokens:
        return cached
    snap = _take(ws, cwd)
    if snap.cacheable:
        with _lock:
            _cache[key] = snap
            _cache.move_to_end(key)
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
    return snap


def _place(ws: Workspace, absolute: str) -> Place:
    absolute = posixpath.normpath(absolute)
    root = ws.real_root.rstrip("/")
    if absolute == ws.real_root:
        return ("ws", ".")
    if absolute.startswith(root + "/"):
        return ("ws", absolute[len(root) + 1 :])
    return ("os", absolute)


def _lstat(ws: Workspace, place: Place) -> os.stat_result:
    kind, name = place
    # Outside the workspace (a repository root above it, a config file git names there) the probe
    # reads the file system where the workspace is (`ws.system`) by absolute path. The
    # directories of the git directory, walked without following a link, are stat'ed there by
    # absolute path too (one system call each, no open): every one of them is a place, so a link
    # swapped in on the way changes the token of the directory that holds it.
    return ws.lstat(name) if kind == "ws" else ws.system.lstat(name)


def _identity(st: os.stat_result) -> Token:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)


def _token(ws: Workspace, place: Place) -> Token:
    try:
        st = _lstat(ws, place)
    except FileNotFoundError:
        return "missing"
    except OSError as err:
        return f"error {err.errno}"
    return _identity(st)


def _tokens(ws: Workspace, places: tuple[Place, ...]) -> tuple[Token, ...]:
    return tuple(_token(ws, p) for p in places)


class _Probe:
    """One probe of one directory, collecting every place it looked at."""

    def __init__(self, ws: Workspace, cwd: str) -> None:
        self.ws = ws
        self.cwd = cwd
        self.places: list[Place] = []
        # The directories the walk up looked at, from the working directory on.
        self.dirs: list[str] = []
        # Identities taken as the walk of the git directory read each place: what was checked.
        self.known: dict[Place, Token] = {}
        self.where = ""
        self.env = {**neutral_env(probed_env(ws.env())), "LC_ALL": "C", "CDPATH": ""}
        self.submodules = Submodules(0, "", None)
        self.home = self.env.get("HOME", "")
        self.drivers: tuple[str, ...] = ()  # the words switching off the top's filter drivers

    # What the submodules' walk needs of the probe (ProbeAccess).
    @property
    def system(self) -> System:
        return self.ws.system

    def remember(self, path: str, st: os.stat_result) -> None:
        if ("tree", path) not in self.known:
            self.places.append(("tree", path))
            self.known["tree", path] = _identity(st)

    def try_git(self, run_in: str, argv: list[str]) -> tuple[int, bytes] | None:
        try:
            return self._git(run_in, argv)
        except _Unreadable:
            return None

    def inside(self, absolute: str) -> str | None:
        kind, name = _place(self.ws, absolute)
        return name if kind == "ws" else None

    def entries(self, out: bytes, repo: str) -> tuple[Entry, ...]:
        return _parsed(out, repo)

    def look(self, absolute: str) -> Place:
        place = _place(self.ws, absolute)
        if place not in self.places:
            self.places.append(place)
        return place

    def _scan(self, gitdir: str) -> list[str]:
        """The git directory's entries must be regular files and directories (a reason that holds
        while nothing changes); the submodule configs it holds."""
        scan = self.ws.system.scan_gitdir(gitdir)
        # The git directory itself is a place already (the walk up looked at it).
        for path, st in scan.read[1:]:
            self.places.append(("tree", path))
            self.known["tree", path] = _identity(st)
        if scan.problem:
            raise _Redirect(scan.problem)
        if len(scan.configs) > MAX_SUBMODULE_CONFIGS:
            raise _Redirect(f"{gitdir}/modules holds more than {MAX_SUBMODULE_CONFIGS} submodule configs")
        for config in scan.configs:
            self.look(config)
        return sorted(scan.configs)

    def run(self) -> _Snapshot:
        try:
            real = resolve(self.ws, ".", self.cwd)
            if not real.ok or not real.is_dir:
                why = real.why or "not a directory"
                raise _Unreadable(f"the directory {self.cwd!r} cannot be probed ({why})")
            abs_cwd = posixpath.normpath(posixpath.join(self.ws.real_root, real.real))
            gitdir = self._walk(abs_cwd)
            configs = self._scan(gitdir) if gitdir else []
            repo = posixpath.dirname(gitdir) if gitdir else abs_cwd
            entries = self._list(real.real, repo, gitdir, configs)
            try:
                self._where(real.real, abs_cwd, gitdir, entries)
            except _Redirect as err:
                self.where = str(err)
            if gitdir and not self.where:
                self.drivers = drivers_of(entries).words
                self.submodules = probe_submodules(self, repo, gitdir)
        except _Unreadable as err:
            return self._done(str(err), (), cacheable=False)
        except _Redirect as err:
            return self._done(str(err), (), cacheable=True)
        except OSError as err:
            return self._done(f"git's configuration could not be read: {err}", (), cacheable=False)
        return self._done("", entries, cacheable=True)

    def _done(self, problem: str, entries: tuple[Entry, ...], cacheable: bool) -> _Snapshot:
        places = tuple(self.places)
        tokens = tuple(self.known.get(p) or _token(self.ws, p) for p in places)
        return _Snapshot(
            places, tokens, problem, self.where, cacheable, entries, self.home, {}, self.submodules
        )

    def _walk(self, abs_cwd: str) -> str:
        """The `.git` directory git will use, "" for none; a `.git` that redirects git is a reason."""
        directory = abs_cwd
        while True:
            self.look(directory)
            self.dirs.append(directory)
            dotgit = posixpath.join(directory, ".git")
            place = self.look(dotgit)
            try:
                mode = _lstat(self.ws, place).st_mode
            except FileNotFoundError:
                mode = 0
            except OSError as err:
                raise _Unreadable(f"git's configuration could not be read: {dotgit}: {err.strerror}") from err
            if stat.S_ISLNK(mode):
                raise _Redirect(f".git in {directory} is a symbolic link")
            if stat.S_ISDIR(mode):
                return dotgit
            if mode:
                raise _Redirect(f".git in {directory} is a file that points git at another directory")
            if directory == "/":
                return ""
            directory = posixpath.dirname(directory)

    def _git(self, run_in: str, argv: list[str]) -> tuple[int, bytes]:
        result = self.ws.exec(
            ExecRequest(argv, cwd=run_in, env=self.env, timeout=TIMEOUT_SECONDS, max_output=MAX_OUTPUT)
        )
        if result.timed_out or result.exit_code is None:
            raise _Unreadable(f"git's configuration could not be read: {argv[-1]} did not finish")
        if result.omitted:
            raise _Unreadable("git's configuration could not be read: the listing is too large")
        return result.exit_code, result.output

    def _list(self, run_in: str, repo: str, gitdir: str, configs: list[str]) -> tuple[Entry, ...]:
        if not configs and isinstance(self.ws.system, LocalSystem):
            read = self._read(run_in, gitdir)
            if read is not None:
                return read
        includes = [a for c in configs for a in ("-c", f"include.path={c}")]
        argv = ["git", *includes, "config", "--list", "-z", "--show-scope", "--show-origin"]
        code, out = self._git(run_in, argv)
        if code != 0:
            text = out.decode("utf-8", "replace").strip()[:300]
            raise _Unreadable(f"git's configuration could not be read: {text or f'exit {code}'}")
        entries = _parsed(out, repo)
        for entry in entries:
            if entry.origin:
                self.look(entry.origin)
                if _token(self.ws, _place(self.ws, entry.origin)) == "missing":
                    raise _Unreadable(f"git read a config file the probe cannot find: {entry.origin}")
        return entries

    def _read(self, run_in: str, gitdir: str) -> tuple[Entry, ...] | None:
        """The listing read from the files themselves, where that is git's own (`_configread`),
        each file it came from a place; None: git is asked."""
        if bare_on_the_way(self.dirs, gitdir, self._lstat_abs, self.ws.system):
            return None  # git would list that repository's config
        read_from: dict[str, os.stat_result] = {}
        system = lambda: learn_system(self.env, lambda argv: self.try_git(run_in, argv))  # noqa: E731
        entries = read_configs(self.env, system, gitdir, read_local, os.lstat, read_from)
        for origin in dict.fromkeys(e.origin for e in entries or () if e.origin):  # git's places
            self.known[self.look(origin)] = _identity(read_from[origin])
        return entries

    def _where(self, run_in: str, abs_cwd: str, walked: str, entries: tuple[Entry, ...]) -> None:
        """git's repository must be the walk's: its git dir the `.git` walked (none: no repository)
        and its work tree containing the directory. Shown from what the probe read where it can
        be (`_discovery`), else asked of git."""
        lstat = self._lstat_abs
        system = self.ws.system
        why = bare_on_the_way(self.dirs, walked, lstat, system) or (
            unusable(walked, self.remember, system) if walked else ""
        )
        if why:
            raise _Redirect(why)
        if located(self.dirs, walked, entries, lstat):
            return
        code, out = self._git(run_in, ["git", "rev-parse", "--absolute-git-dir", "--show-toplevel"])
        if code != 0:
            return  # not a repository, or a bare one (which the listing reports as core.bare)
        lines = out.decode("utf-8", "surrogateescape").splitlines()
        if len(lines) != 2:
            raise _Unreadable("git's configuration could not be read: rev-parse printed something unexpected")
        gitdir, top = (self.ws.system.realpath(line) for line in lines)
        if abs_cwd != top and not abs_cwd.startswith(top.rstrip("/") + "/"):
            raise _Redirect(f"git's work tree {top} does not contain the working directory")
        if gitdir != posixpath.join(top, ".git"):
            raise _Redirect(f"git's directory {gitdir} is not {top}/.git")
        if gitdir != walked:
            raise _Redirect(f"git's directory {gitdir} is not the .git the probe walked ({walked or 'none'})")

    def _lstat_abs(self, absolute: str) -> os.stat_result:
        return _lstat(self.ws, _place(self.ws, absolute))


class _Redirect(Exception):
    """The repository itself sends git elsewhere: a reason that holds while nothing changes."""


def _take(ws: Workspace, cwd: str) -> _Snapshot:
    return _Probe(ws, cwd).run()


def _parsed(out: bytes, repo: str) -> tuple[Entry, ...]:
    try:
        return parse_listing(out, repo)
    except ValueError as err:
        raise _Unreadable(f"git's configuration could not be read: {err}") from None
