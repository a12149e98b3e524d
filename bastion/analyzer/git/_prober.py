"""One probe of one directory: what git would read there, and every place the probe looked at.

The probe (`Probe`) looks for a `.git` that redirects git (a file or a link), walks the git
directory (every entry a regular file or a directory: `_dir`), lists every config entry git would
use with its scope and origin, makes sure git finds the repository the walk found, and reads the
config of every submodule; what it found is a `Snapshot`, with the identity (`Token`) of every
place it looked at as it looked, so that `_probe` can keep it while nothing changed and bind it in
a stamp. Anything unreadable is a reason.
"""

from __future__ import annotations

import os
import posixpath
import stat
from typing import NamedTuple

from ...workspace import ExecRequest, LocalSystem, System, Workspace, resolve
from .._result import GitFinding
from ..programs import find_program, shell_of
from ._configread import config_files, learn_system, parse_listing, read_configs, read_local
from ._discovery import bare_on_the_way, located, unusable
from ._filters import drivers_of
from ._keys import Entry, judge_entries
from ._neutral import neutral_env, probed_env
from ._submodules import Submodules, probe_submodules

__all__ = ["Place", "Probe", "Snapshot", "Token", "plan_git", "take_snapshot", "tokens_of"]

TIMEOUT_SECONDS = 10.0
MAX_OUTPUT = 8 * 1024 * 1024
MAX_SUBMODULE_CONFIGS = 200

# A place the probe looked at: ("ws", root-relative name), ("os", absolute path) for what lies
# outside the workspace (the repository above it, or config files git names there), or ("tree",
# absolute path) for a directory of the git directory and the files whose contents matter there.
Place = tuple[str, str]
# A place's identity (device, inode, size, mtime, ctime, mode), or why there is none.
Token = tuple[int, ...] | str


class Snapshot(NamedTuple):
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


class _Unreadable(Exception):
    """The probe could not read what it needs: a reason, never a clean answer."""


class _Redirect(Exception):
    """The repository itself sends git elsewhere: a reason that holds while nothing changes."""


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


def tokens_of(ws: Workspace, places: tuple[Place, ...]) -> tuple[Token, ...]:
    return tuple(_token(ws, p) for p in places)


class Probe:
    """One probe of one directory, collecting every place it looked at."""

    def __init__(self, ws: Workspace, cwd: str, git: tuple[str, str]) -> None:
        self.ws = ws
        self.cwd = cwd
        self.git, self.no_git = git  # the git the plan runs (absolute), or why none can be named
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

    def run(self) -> Snapshot:
        try:
            if self.no_git or not self.git:
                why = self.no_git or "git is a builtin here"
                raise _Unreadable(f"the git a plan would run here cannot be probed: {why}")
            real = resolve(self.ws, ".", self.cwd)
            if not real.ok or not real.is_dir:
                why = real.why or "not a directory"
                raise _Unreadable(f"the directory {self.cwd!r} cannot be probed ({why})")
            abs_cwd = posixpath.normpath(posixpath.join(self.ws.real_root, real.real))
            gitdir = self._walk(abs_cwd)
            configs = self._scan(gitdir) if gitdir else []
            repo = posixpath.dirname(gitdir) if gitdir else abs_cwd
            entries = self._list(real.real, repo, gitdir, configs)
            self._absent(gitdir)
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

    def _done(self, problem: str, entries: tuple[Entry, ...], cacheable: bool) -> Snapshot:
        places = tuple(self.places)
        tokens = tuple(self.known.get(p) or _token(self.ws, p) for p in places)
        return Snapshot(
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

    def _absent(self, gitdir: str) -> None:
        """Every config file git may read is a place, present or not: one created after the
        decision (a `~/.gitconfig`, a `config.worktree`) changes the fingerprint."""
        for path in config_files(self.env, gitdir):
            self.look(path)

    def _git(self, run_in: str, argv: list[str]) -> tuple[int, bytes]:
        if argv[:1] == ["git"]:  # the plan's own git, by its absolute path (not the probe's PATH)
            argv = [self.git, *argv[1:]]
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
        system = lambda: learn_system(self.git, lambda argv: self.try_git(run_in, argv))  # noqa: E731
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


def plan_git(ws: Workspace, cwd: str) -> tuple[str, str]:
    """The git program a plan decided in the root-relative `cwd` of `ws` runs (found as
    analyzer/programs/_programs.py finds every command, on the PATH where the plan runs), and why none can
    be named ("" when one can): the probe runs that git, never one of its own PATH."""
    try:
        found = find_program(ws, cwd, shell_of(ws), "git")
    except Exception as err:  # a lookup that fails asks
        return "", f"{type(err).__name__}: {err}"
    return found.path, found.why


def take_snapshot(ws: Workspace, cwd: str, git: tuple[str, str]) -> Snapshot:
    """Probe the root-relative directory `cwd` of `ws` now, with the git `plan_git` named."""
    return Probe(ws, cwd, git).run()


def _parsed(out: bytes, repo: str) -> tuple[Entry, ...]:
    try:
        return parse_listing(out, repo)
    except ValueError as err:
        raise _Unreadable(f"git's configuration could not be read: {err}") from None
