"""git's config read without git, where that reading can be shown to be git's own (design rule 117).

A first git decision spawned git once for `git config --list` (design rule 85). Here the files
git 2.39's `config --list` reads are read directly, in its order (system, XDG, ~/.gitconfig,
the repository's, then the command scope of GIT_CONFIG_COUNT), but only where every file is in a
strict subset of the config syntax whose meaning is certain: whole-line `[section]` and
`[section "subsection"]` headers, `key`, `key = value` lines whose value holds no quote, backslash
or comment character, whole-line comments, nothing else. Anything else answers None and the
probe asks git as before: an include or includeIf, a `worktreeConfig` or other extension, a file
that is a link or not a regular file or cannot be read, a repository another user owns, a BOM,
CR, NUL, form feed or tab of a kind git reads otherwise, GIT_CONFIG_* variables it cannot follow,
or a system config whose path is not known. The path of the system file is git's own (compiled
in): it is learnt once per process and git program, by asking that git (`learn_system`). A test compares this
reading with git's listing on generated files (tests/analyzer/git/test_git_configread.py).
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from collections.abc import Callable, Mapping

from ...workspace import ExecRequest, LocalSystem, LocalWorkspace
from ._keys import GIT_FALSE, GIT_TRUE, Entry
from ._neutral import neutral_env

__all__ = [
    "learn_git_system",
    "config_files",
    "learn_system",
    "parse_config",
    "parse_listing",
    "read_configs",
    "read_local",
    "system_path_from",
]

# A config file larger than this is left to git.
MAX_CONFIG_BYTES = 1 << 20

_NAME = re.compile(rb"[A-Za-z0-9-]+")
_KEY = re.compile(rb"[A-Za-z][A-Za-z0-9-]*")
_HEADER = re.compile(rb'\[([A-Za-z0-9-]+)(?:[ \t]+"([^"\\\n\0]*)")?\][ \t]*(?:[#;][^\n]*)?')
_PAIR = re.compile(rb"([A-Za-z][A-Za-z0-9-]*)[ \t]*(?:=[ \t]*([^\"\\#;\n]*))?")
_MISSING_SYSTEM = re.compile(r"fatal: unable to read config file '(/[^'\n]*)': No such file or directory\n?")

# Reads an absolute path: (what lstat gave, the bytes) or None for a missing file; raises OSError.
Reader = Callable[[str], "tuple[os.stat_result, bytes] | None"]


_SCOPES = frozenset({"system", "global", "command", "local", "worktree"})
_FILE = re.compile(r"file:(.*)", re.DOTALL)


def parse_listing(out: bytes, repo: str) -> tuple[Entry, ...]:
    """Entries of `git config --list -z --show-scope --show-origin`; relative origins are relative to
    the repository's top directory `repo`. ValueError for a listing not in that form."""
    fields = out.split(b"\0")
    if fields[-1] != b"" or (len(fields) - 1) % 3:
        raise ValueError("the listing is not in the expected form")
    entries: list[Entry] = []
    for i in range(0, len(fields) - 1, 3):
        scope, origin, pair = (f.decode("utf-8", "surrogateescape") for f in fields[i : i + 3])
        if scope not in _SCOPES:
            raise ValueError(f"unknown scope {scope!r}")
        key, newline, value = pair.partition("\n")
        match = _FILE.fullmatch(origin)
        if match:
            path = posixpath.normpath(posixpath.join(repo, match.group(1)))
        elif origin == "command line:" and scope == "command" or scope in ("system", "global"):
            path = ""
        else:
            raise ValueError(f"{key} comes from {origin!r}")
        entries.append(Entry(scope, path, key, value if newline else None))
    return tuple(entries)


def parse_config(data: bytes) -> list[tuple[str, str | None]] | None:
    """The (key, value) pairs of one config file as git lists them, or None when the file is not
    in the subset."""
    if b"\0" in data or b"\r" in data or data.startswith(b"\xef\xbb\xbf"):
        return None
    pairs: list[tuple[str, str | None]] = []
    section: str | None = None
    for raw in data.split(b"\n"):
        line = raw.lstrip(b" \t")
        if not line or line[:1] in (b"#", b";"):
            continue
        if line[:1] == b"[":
            header = _HEADER.fullmatch(line)
            if header is None:
                return None
            name, sub = header.group(1).lower(), header.group(2)
            section = name.decode() if sub is None else f"{name.decode()}.{_text(sub)}"
            continue
        pair = _PAIR.fullmatch(line)
        if pair is None or section is None:
            return None
        key = f"{section}.{pair.group(1).lower().decode()}"
        value = pair.group(2)
        if value is not None and any(c in value for c in b"\x0b\x0c"):
            return None
        # git keeps the value's inner blanks, each as one space, and drops those at its ends.
        pairs.append((key, None if value is None else _text(re.sub(rb"[ \t]", b" ", value.rstrip(b" \t")))))
    return pairs


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def _canonical(key: str) -> str | None:
    """A GIT_CONFIG_KEY_n as git canonicalises it (section and name lowered, the subsection kept),
    or None for one this reading does not follow."""
    section, dot, rest = key.partition(".")
    middle, _, name = rest.rpartition(".")
    if not dot or not _NAME.fullmatch(section.encode()) or not _KEY.fullmatch(name.encode()):
        return None
    if any(c in middle for c in "\n\0"):
        return None
    return f"{section.lower()}.{middle}.{name.lower()}" if middle else f"{section.lower()}.{name.lower()}"


def system_path_from(exit_code: int, output: bytes) -> str | None:
    """The system config's path from `git config --system --list -z --show-origin` (its first
    origin, or the file named missing), or None when the answer does not show it."""
    text = output.decode("utf-8", "surrogateescape")
    if exit_code == 0 and text.startswith("file:/"):
        return posixpath.normpath(text[5:].split("\0", 1)[0])
    missing = _MISSING_SYSTEM.fullmatch(text) if exit_code == 128 else None
    return posixpath.normpath(missing.group(1)) if missing else None


# The system file's path per git program (its path and identity): git's own, learnt once.
_learnt: dict[tuple[object, ...], str | None] = {}


def learn_system(git: str, ask: Callable[[list[str]], tuple[int, bytes] | None]) -> str | None:
    """The path of the system config of the git program `git` (an absolute path), asked of it
    (`ask` runs a git command line with it) the first time in this process; None when not shown."""
    key = _program(git)
    if key is None:
        return None
    if key not in _learnt:
        got = ask([git, "config", "--system", "--list", "-z", "--show-origin"])
        _learnt[key] = None if got is None else system_path_from(*got)
    return _learnt[key]


def learn_git_system(environ: Mapping[str, str]) -> None:
    """Learn, for this process, where the git that PATH in `environ` finds keeps its system config
    (one spawn of it, in the probe's environment made of PATH alone: no other variable of
    `environ` reaches it): what a resident server's spare child does before its call, so the
    call's first git decision spawns nothing."""
    env = {**neutral_env({"PATH": environ["PATH"]} if "PATH" in environ else {}), "LC_ALL": "C"}
    here = LocalWorkspace("/", env)

    def ask(argv: list[str]) -> tuple[int, bytes] | None:
        done = here.exec(ExecRequest(argv, env=env, timeout=10.0, max_output=1 << 16))
        return None if done.exit_code is None or done.omitted else (done.exit_code, done.output)

    git = _git_on_path(env.get("PATH", os.defpath))
    if git:
        learn_system(git, ask)


def _git_on_path(path: str) -> str:
    """The git PATH finds ("" for none, or a relative entry on the way)."""
    for directory in path.split(":"):
        if not directory.startswith("/"):
            return ""
        program = posixpath.join(directory, "git")
        if _program(program) is not None:
            return program
    return ""


def _program(git: str) -> tuple[object, ...] | None:
    """An executable regular file's path and identity (links followed); None for none."""
    try:
        st = os.stat(git)
    except OSError:
        return None
    if stat.S_ISREG(st.st_mode) and os.access(git, os.X_OK):
        return (git, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    return None


def read_local(path: str) -> tuple[os.stat_result, bytes] | None:
    """A config file of this machine as read: what lstat gave and its bytes (none for a file
    that is not regular); None when it does not exist. OSError when it changed while read."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return st, b""
    opened, data = LocalSystem().read(path, MAX_CONFIG_BYTES, follow=False)
    if _same(opened) != _same(st):
        raise OSError(f"{path} changed while it was read")
    return st, data


def _same(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)


def _flag(env: Mapping[str, str], name: str) -> bool | None:
    """A boolean variable as git reads it (unset: False), None for a spelling not followed."""
    value = env.get(name)
    if value is None:
        return False
    value = value.lower()
    return True if value in GIT_TRUE else False if value in GIT_FALSE else None


def _files(
    env: Mapping[str, str], system: Callable[[], str | None], gitdir: str
) -> list[tuple[str, str]] | None:
    """(scope, absolute path) of each file git would read, in order; None where it is not known."""
    files: list[tuple[str, str]] = []
    nosystem = _flag(env, "GIT_CONFIG_NOSYSTEM")
    if nosystem is None:
        return None
    if not nosystem:
        path = env["GIT_CONFIG_SYSTEM"] if "GIT_CONFIG_SYSTEM" in env else system()
        if not path or not path.startswith("/"):
            return None
        files.append(("system", posixpath.normpath(path)))
    home, xdg = env.get("HOME"), env.get("XDG_CONFIG_HOME")
    if "GIT_CONFIG_GLOBAL" in env:
        path = env["GIT_CONFIG_GLOBAL"]
        if not path.startswith("/"):
            return None
        files.append(("global", posixpath.normpath(path)))
    else:
        # git: $XDG_CONFIG_HOME/git/config (set and not empty), else $HOME/.config/git/config,
        # then $HOME/.gitconfig; without HOME, neither of those two. An empty HOME is "".
        if (home and not home.startswith("/")) or (xdg and not xdg.startswith("/")):
            return None
        if xdg or home is not None:
            xdg_file = f"{xdg}/git/config" if xdg else f"{home}/.config/git/config"
            files.append(("global", posixpath.normpath(xdg_file)))
        if home is not None:
            files.append(("global", posixpath.normpath(f"{home}/.gitconfig")))
    if gitdir:
        files.append(("local", posixpath.join(gitdir, "config")))
    return files


def config_files(env: Mapping[str, str], gitdir: str) -> tuple[str, ...]:
    """Every config file git may read in `env` for the git directory `gitdir` ("" for none), present
    or not: places whose absence a decision rests on, so that one created later changes its
    fingerprint. The user's files, the repository's `config` and the `config.worktree` that
    `extensions.worktreeConfig` adds, and the system file where GIT_CONFIG_SYSTEM names it; its
    compiled-in path is left out (learnt only where files are read, so an executor's recheck and
    its client would disagree, and only root makes it). Empty where the paths are not known."""
    named = "GIT_CONFIG_SYSTEM" in env and _flag(env, "GIT_CONFIG_NOSYSTEM") is False
    files = _files(env if named else {**env, "GIT_CONFIG_NOSYSTEM": "1"}, lambda: None, gitdir)
    if files is None:
        return ()
    worktree = (posixpath.join(gitdir, "config.worktree"),) if gitdir else ()
    return (*(path for _, path in files if path != "/dev/null"), *worktree)


def _command(env: Mapping[str, str]) -> list[Entry] | None:
    """The command scope of GIT_CONFIG_COUNT (the neutral keys), as git lists them."""
    if "GIT_CONFIG_PARAMETERS" in env:
        return None
    count = env.get("GIT_CONFIG_COUNT")
    if count is None:
        return []
    if not count.isdigit() or int(count) > 100:
        return None
    entries = []
    for i in range(int(count)):
        key = _canonical(env.get(f"GIT_CONFIG_KEY_{i}", ""))
        value = env.get(f"GIT_CONFIG_VALUE_{i}")
        if key is None or value is None:
            return None
        entries.append(Entry("command", "", key, value))
    return entries


def _owned(st: os.stat_result, env: Mapping[str, str]) -> bool:
    """Whether git 2.39 takes a repository of this owner for the current user's (else it ignores
    its config unless safe.directory says otherwise: left to git)."""
    euid = os.geteuid()
    if euid == 0 and "SUDO_UID" in env:
        return False  # git then checks against SUDO_UID: left to git
    return st.st_uid == euid


def _setup_reads(key: str, value: str | None) -> bool:
    """Whether git's setup, which reads these keys of the repository's file before anything else
    (and dies on a bad value), takes this one as the probe does: core.worktree is left to git (it
    moves the work tree), core.bare must be a plain boolean, the format version 0 or 1."""
    if key == "core.worktree":
        return False
    if key == "core.bare":
        return value is None or value.lower() in GIT_TRUE | GIT_FALSE
    return key != "core.repositoryformatversion" or value in ("0", "1")


def _plain_repository(gitdir: str, env: Mapping[str, str], lstat: Callable[[str], os.stat_result]) -> bool:
    """Whether git reads `gitdir`/config as the repository's: the work tree and git directory
    the current user's, and no `commondir` naming another directory whose config git reads."""
    try:
        if not all(_owned(lstat(p), env) for p in (gitdir, posixpath.dirname(gitdir))):
            return False
    except OSError:
        return False
    try:
        lstat(posixpath.join(gitdir, "commondir"))
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


def read_configs(
    env: Mapping[str, str],
    system: Callable[[], str | None],
    gitdir: str,
    read: Reader,
    lstat: Callable[[str], os.stat_result],
    read_from: dict[str, os.stat_result],
) -> tuple[Entry, ...] | None:
    """Every entry `git config --list` would list in the environment `env` for the repository
    whose git directory is `gitdir` ("" for none), `system()` giving git's system file (asked only
    when git would read it; None: not known); None where git must be asked. `read_from` gets each
    file read, with what lstat gave as it was read."""
    command = _command(env)
    files = _files(env, system, gitdir) if command is not None else None
    if files is None or command is None:
        return None
    if gitdir and not _plain_repository(gitdir, env, lstat):
        return None
    entries: list[Entry] = []
    for scope, path in files:
        if path == "/dev/null":
            continue
        try:
            found = read(path)
        except OSError:
            return None
        if found is None:
            continue
        st, data = found
        read_from[path] = st
        if not stat.S_ISREG(st.st_mode) or len(data) >= MAX_CONFIG_BYTES:
            return None
        pairs = parse_config(data)
        if pairs is None:
            return None
        for key, value in pairs:
            if key == "include.path" or key.startswith(("includeif.", "extensions.")):
                return None
            if scope == "local" and not _setup_reads(key, value):
                return None
            entries.append(Entry(scope, path, key, value))
    return (*entries, *command)
