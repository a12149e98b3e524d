"""The hostile-repository variants of the fixture (issue 12): a repository that tries to get a read, a
write or a program out of a line the policy allows. Each variant is named, belongs to one class of
the issue, and is applied to a freshly built workspace by `fixtures.build(base, name)`.

Classes: 1 names that look like something else (in every fixture: `ls `, `evil.sh`, `-rf`, quotes);
2 config keys that make git read a file; 3 links and odd files inside `.git`; 4 committed and
modified secrets (in every fixture) and a workspace that is no repository (`git diff A B` is then
`--no-index`); 5 an embedded repository with its own config, entered through a stash, and submodules (clean,
nested with a hostile one inside, a git directory outside, a hostile config of their own);
7 a history big enough that `sort` spills to temporary files; issue 30's 304 secret-looking
directories with children (names and contents canaries) and 305 a PATH whose relative or
in-workspace entry holds a fake of every command (each run leaves a marker); issue 33's 331 tracked
names `git ls-files` hands to xargs (split on a blank, a link, a gitlink); issue 43's 432 a
PATH whose first entry holds multiplexers under the tools' names (fuzz/multiplexers.py). Class 6
(the plan run by another agent, in its environment) is a way of running, not a fixture:
`ReadOnlyRunner(agent="claude")`.
Classes 31-33 are issue 30's classes 1-3 (fuzz/hostile30.py): names that reach a secret's blob,
credentials at rest in the git directory, and an index whose stat data matches no file. Class 433
(fuzz/filters43.py) is the run environment's git config: filter drivers of the user's, the system's
or the environment's config that the repository's attributes choose.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from .filters43 import VARIANTS43
from .hostile30 import VARIANTS30
from .multiplexers import FAKE, FAKED, SHIM_VARIANTS

__all__ = ["CANARY", "CLASSES", "FILE_KEYS", "GIT_LINKS", "UNFIXED", "VARIANTS", "Variant"]

CANARY = "BASTION-CANARY-"  # every secret's content holds this and a name of its own (fixtures.CANARIES)

Git = Callable[..., None]

CLASSES = {
    1: "a quoted command word with a space or slash, matched by a command rule",
    2: "a git config key that makes git read a file",
    3: "a link or odd file inside .git",
    4: "a committed or modified secret printed by git; git diff outside a work tree",
    5: "an embedded repository's own config run by git",
    6: "the plan run by another agent in its own environment",
    7: "a helper program or temporary file (sort spills, go env runs the C compiler)",
    31: "a name that is not its path reaches a secret's blob (a ref, tag, packed-refs line, reflog entry)",
    32: "credentials at rest in the git directory (a remote URL's user:token@)",
    33: "git opens tracked secrets to refresh an index whose stat data matches no file",
    # issue 30 (numbered 30N: class N of that issue)
    304: "names inside secret-looking directories, listed or walked into",
    331: "a name git ls-files hands to xargs that is not what it looks like (split, a link, a gitlink)",
    305: "a program of the workspace on PATH (a relative or an in-workspace entry)",
    # issue 43 (numbered 43N: part N of that issue)
    432: "a multiplexer on PATH under a tool's name (ccache's masquerade directory, mise's shims, a link)",
    433: "a filter or diff driver of the user's, the system's or the environment's config, chosen by the"
    " repository's attributes",
    434: "a variable where the plan runs that loads the project's code (PYTHONPATH, LD_LIBRARY_PATH...)",
}

# Classes whose fix is not merged on this branch: tests/soundness expects their attacks to succeed
# (strict xfails). The lead removes a class here when its fix lands.
UNFIXED: frozenset[int] = frozenset()


class Variant(NamedTuple):
    klass: int
    make: Callable[[Path, Git], None]  # (workspace, git runner) -> None
    embed: bool = False
    fresh: bool = False  # the scratch copy keeps its index as copied (class 33)
    # The PATH the line is decided and run with, from the scratch workspace (None: the fixed one).
    path: Callable[[Path], str] | None = None
    # More variables the line is decided and run with (bastion's workspace has them, a hook decides
    # under them, the other agent runs the plan with them), from the scratch workspace.
    env: Callable[[Path], dict[str, str]] | None = None


def _outside(ws: Path) -> str:
    return str(ws.parent / "outside" / "canary.txt")


# Keys whose value names a file git reads (or a blob it reads), each pointed at `.env` and at a
# file outside the workspace.
FILE_KEYS = (
    "blame.ignoreRevsFile", "mailmap.file", "core.excludesFile", "diff.orderFile", "core.attributesFile",
    "commit.template", "gpg.ssh.allowedSignersFile", "include.path",
)  # fmt: skip


def _key(key: str, where: str) -> Callable[[Path, Git], None]:
    def make(ws: Path, git: Git) -> None:
        git(ws, "config", key, ".env" if where == "env" else _outside(ws))
        if key == "gpg.ssh.allowedSignersFile":
            git(ws, "config", "gpg.format", "ssh")
            git(ws, "config", "log.showSignature", "true")

    return make


def _mailmap_blob(ws: Path, git: Git) -> None:
    git(ws, "config", "mailmap.blob", "HEAD:.env")
    git(ws, "config", "log.mailmap", "true")


# Files inside .git made links to `.env` (relative to the file) or to a file outside.
GIT_LINKS = (
    "packed-refs", "shallow", "info/exclude", "info/grafts", "info/attributes", "objects/info/alternates",
    "refs/heads/x", "refs/tags/t", "ORIG_HEAD",
)  # fmt: skip


def _link(name: str, where: str) -> Callable[[Path, Git], None]:
    def make(ws: Path, git: Git) -> None:
        path = ws / ".git" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() or path.is_symlink():
            path.unlink()
        depth = name.count("/") + 1
        target = "../" * depth + ".env" if where == "env" else _outside(ws)
        os.symlink(target, path)

    return make


def _alternates_outside(ws: Path, git: Git) -> None:
    objects = ws.parent / "outside" / "objects"
    shutil.copytree(ws / ".git" / "objects", objects)
    (ws / ".git" / "objects" / "info" / "alternates").write_text(f"{objects}\n")
    (objects / "info").mkdir(exist_ok=True)  # a chained alternate: git reads it, and prints it
    shutil.copy(ws.parent / "outside" / "canary.txt", objects / "info" / "alternates")


def _no_repository(ws: Path, git: Git) -> None:
    shutil.rmtree(ws / ".git")
    (ws / "other").mkdir()
    (ws / "other" / ".env").write_text((ws / ".env").read_text())


def _embedded(ws: Path, git: Git) -> None:
    """vendor/evil (fully hostile config, hooks) committed as a gitlink; a stash whose entry moves
    the gitlink, and config that makes diffs enter submodules."""
    nested = ws / "vendor" / "evil"
    git(ws, "config", "diff.submodule", "diff")
    git(ws, "config", "status.submoduleSummary", "true")
    (nested / "lib.go").write_text("package evil\n// two\n")
    git(nested, "commit", "-q", "-a", "-m", "second")
    git(ws, "add", "vendor/evil")
    git(ws, "stash", "push", "-q", "--", "main.go", "vendor/evil")  # not .env: that is class 4's
    (ws / "main.go").write_text("package main\n// changed\n")
    (nested / "lib.go").write_text("package evil\n// dirty\n")


def _submodule(ws: Path, git: Git, name: str = "mods/lib") -> Path:
    """A clean submodule at `name`, cloned from a one-commit repository beside the workspace; its
    git directory is in .git/modules."""
    source = ws.parent / "libsrc"
    if not source.exists():
        source.mkdir()
        (source / "lib.go").write_text("package lib\n")
        git(source, "init", "-q", "-b", "main")
        git(source, "add", "-A")
        git(source, "commit", "-q", "-m", "first")
    git(ws, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(source), name)
    git(ws, "commit", "-q", "-m", f"submodule {name}")
    return ws / name


def _program_config(repo: Path, git: Git, config: Path | None = None) -> None:
    """Config that runs evil.sh in a repository git looks into: core.fsmonitor, and a clean filter
    every file of its work tree goes through (git status hashes a file whose stat data changed)."""
    where = ["--file", str(config)] if config is not None else []
    evil = str(_evil(repo))
    for key in ("core.fsmonitor", "filter.evil.clean"):
        git(repo if config is None else repo.parent, "config", *where, key, evil)
    (repo / ".gitattributes").write_text("* filter=evil\n")


def _evil(path: Path) -> Path:
    """The fixture's evil.sh, beside the workspace that holds `path`."""
    for parent in path.parents:
        if (parent / "evil.sh").exists() and (parent / "ws").is_dir():
            return parent / "evil.sh"
    raise FileNotFoundError(f"no evil.sh above {path}")


def _submodule_clean(ws: Path, git: Git) -> None:
    """A clean submodule (modified in its work tree) and an uninitialised one: git status and diff
    show them, and the git they run inside must run nothing else."""
    lib = _submodule(ws, git)
    (lib / "lib.go").write_text("package lib\n// dirty\n")
    hooks = ws / ".git" / "modules" / "mods" / "lib" / "hooks"
    for hook in ("post-index-change", "reference-transaction", "fsmonitor-watchman"):
        (hooks / hook).write_text('#!/bin/sh\ntouch "$HOME/pwned-hook"\n')  # if the git inside wrote
        (hooks / hook).chmod(0o755)
    other = _submodule(ws, git, "mods/other")
    git(ws, "submodule", "deinit", "-q", "-f", "mods/other")
    assert not (other / ".git").exists()


def _submodule_nested(ws: Path, git: Git) -> None:
    """A clean submodule holding, as a gitlink of its own, a repository whose config runs evil.sh:
    the git that status runs in the submodule runs another in the nested one."""
    lib = _submodule(ws, git)
    nested = lib / "inner"
    nested.mkdir()
    (nested / "x.go").write_text("package x\n")
    git(nested, "init", "-q", "-b", "main")
    git(nested, "add", "-A")
    git(nested, "commit", "-q", "-m", "first")
    _program_config(nested, git)
    git(lib, "add", "inner")
    git(lib, "commit", "-q", "-m", "nest")
    git(ws, "add", "mods/lib")
    git(ws, "commit", "-q", "-m", "nested")
    (nested / "x.go").write_text("package x\n// dirty\n")


def _submodule_gitdir_outside(ws: Path, git: Git) -> None:
    """A submodule whose `.git` file points at a git directory outside the workspace, whose config
    runs evil.sh."""
    lib = _submodule(ws, git)
    moved = ws.parent / "outside" / "libgit"
    shutil.move(str(ws / ".git" / "modules" / "mods" / "lib"), moved)
    (lib / ".git").write_text("gitdir: ../../../outside/libgit\n")
    git(ws, "config", "--file", str(moved / "config"), "core.worktree", "../../ws/mods/lib")
    _program_config(lib, git, moved / "config")
    (lib / "lib.go").write_text("package lib\n// dirty\n")


def _submodule_config(ws: Path, git: Git) -> None:
    """A submodule whose own config (in .git/modules) runs evil.sh."""
    _program_config(_submodule(ws, git), git)


def _big_history(ws: Path, git: Git) -> None:
    """A tracked file of 1.2 million short lines: what git prints of it is more than sort keeps
    in memory."""
    with open(ws / "data.txt", "w") as f:
        f.writelines(f"{i}\n" for i in range(1_200_000, 0, -1))
    git(ws, "add", "data.txt")
    git(ws, "commit", "-q", "-m", "data")


def _tracked_dir_link(ws: Path, git: Git) -> None:
    """The tracked directory `docs` replaced by a link to a directory outside holding the same
    name with the outside canary: git grep in the work tree follows it (git diff does not)."""
    target = ws.parent / "outside" / "docs"
    target.mkdir()
    shutil.copy(_outside(ws), target / "guide.txt")
    shutil.rmtree(ws / "docs")
    os.symlink("../outside/docs", ws / "docs")


def _tracked_names(ws: Path, git: Git) -> None:
    """Issue 33: names `git ls-files` hands to xargs that are not what they look like. A file in a
    directory named `x ` whose name then holds the absolute path of the canary outside (xargs
    without -0 reads `x` and the file outside: git quotes no blank); odd names under `names/`; a
    file committed and then swapped for a link to `.env` in the work tree; a tracked link out,
    added but not committed; a gitlink never checked out."""
    import subprocess

    spaced = Path(f"{ws}/x {_outside(ws)}")
    spaced.parent.mkdir(parents=True)
    spaced.write_text("inside: xargs without -0 reads the file outside instead\n")
    for name in ("a .env b.txt", 'q"uote.txt', "back\\slash.txt", "tab\there.txt", "-n.txt"):
        (ws / "names" / name).parent.mkdir(exist_ok=True)
        (ws / "names" / name).write_text("odd\n")
    (ws / "swap.txt").write_text("a file when committed\n")
    git(ws, "add", "x ", "names", "swap.txt")
    git(ws, "commit", "-q", "-m", "tracked names")
    (ws / "swap.txt").unlink()
    os.symlink(".env", ws / "swap.txt")
    os.symlink("../outside/secret.txt", ws / "tlink.txt")
    git(ws, "add", "tlink.txt")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ws, capture_output=True, text=True, check=True)
    git(ws, "update-index", "--add", "--cacheinfo", f"160000,{head.stdout.strip()},gl")


# Issue 30, class 4: secret-looking directories with children, each child named and filled with a
# canary: a listing that shows a name inside shows one. They are untracked, in directories git has
# no tracked file of (plain `git status` shows `?? .ssh/`); git's listers of untracked names
# (`status -uall`, `ls-files -o`) are issue 30's class 3, with git's excludes.
SECRET_CHILDREN = (
    ".ssh/keys/{c}listed-ssh-key", ".ssh/{c}listed-ssh", "secrets/keys/{c}listed-secrets",
    "sub/.aws/{c}listed-aws", "certs.pem/{c}listed-pem", "sub/deep/credentials/{c}listed-credentials",
    ".env.d/{c}listed-envdir",
)  # fmt: skip


def _secret_children(ws: Path, git: Git) -> None:
    for pattern in SECRET_CHILDREN:
        path = ws / pattern.format(c=CANARY)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{CANARY}content-{path.name.removeprefix(CANARY)}\n")
    os.symlink(".ssh", ws / "sshlink")
    os.symlink("../.ssh/keys", ws / "sub" / "keys")


# Issue 30, class 5: a fake of every command the generators name, in a relative PATH entry or in
# one inside the workspace; each leaves a marker in HOME and in the tree if it ever runs.


def _fakes(where: str) -> Callable[[Path, Git], None]:
    def make(ws: Path, git: Git) -> None:
        for name in FAKED:
            path = ws / where / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(FAKE)
            path.chmod(0o755)

    return make


_SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


# Issue 43, part 4: project code that leaves a marker in HOME and the tree wherever it is loaded: a
# Python package on PYTHONPATH (what mypy imports first), libraries ls, grep and git load on
# LD_LIBRARY_PATH (built with gcc; without it the variant has none), a file BASH_ENV names.
_PY_MARK = 'import os\nfor d in (os.environ.get("HOME", "."), "."):\n    open(d + "/pwned-python", "w")\n'
_LIB_MARK = r"""
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void mark(void) {
    char path[4096];
    snprintf(path, sizeof path, "%s/pwned-library", getenv("HOME") ? getenv("HOME") : ".");
    close(open(path, O_WRONLY | O_CREAT, 0644));
    close(open("pwned-library", O_WRONLY | O_CREAT, 0644));
}
"""
_LIBRARIES = ("libselinux.so.1", "libpcre2-8.so.0", "libz.so.1")


def _python_path(ws: Path, git: Git) -> None:
    for package in ("mypy", "encodings"):
        (ws / "src" / package).mkdir(parents=True)
        (ws / "src" / package / "__init__.py").write_text(_PY_MARK)


def _library_path(ws: Path, git: Git) -> None:
    import subprocess

    gcc = shutil.which("gcc")
    if gcc is None:
        return
    (ws / "lib").mkdir(exist_ok=True)  # the fixture's lib/ (secret-looking .go files) holds them too
    source = ws.parent / "mark.c"
    source.write_text(_LIB_MARK)
    for name in _LIBRARIES:
        subprocess.run([gcc, "-shared", "-fPIC", "-o", str(ws / "lib" / name), str(source)], check=True)


def _bash_env(ws: Path, git: Git) -> None:
    (ws / ".bashenv").write_text('touch "$HOME/pwned-bash-env" pwned-bash-env 2>/dev/null\n')


def _interpreter_path(ws: Path) -> str:
    import sys

    return f"{os.path.dirname(sys.executable)}:{_SYSTEM_PATH}"  # mypy, outside the fixture


def _variants() -> dict[str, Variant]:
    out: dict[str, Variant] = {}
    for key in FILE_KEYS:
        out[f"key:{key}"] = Variant(2, _key(key, "env"))
        out[f"key:{key}@outside"] = Variant(2, _key(key, "outside"))
    out["key:mailmap.blob"] = Variant(2, _mailmap_blob)
    for name in GIT_LINKS:
        out[f"link:{name}"] = Variant(3, _link(name, "env"))
    for name in ("packed-refs", "refs/heads/x", "info/exclude"):
        out[f"link:{name}@outside"] = Variant(3, _link(name, "outside"))
    out["alternates@outside"] = Variant(3, _alternates_outside)
    out["no-repository"] = Variant(4, _no_repository)
    out["tracked-dir-link@outside"] = Variant(4, _tracked_dir_link)
    out["embedded"] = Variant(5, _embedded, embed=True)
    out["submodule-clean"] = Variant(5, _submodule_clean)
    out["submodule-nested"] = Variant(5, _submodule_nested)
    out["submodule-gitdir@outside"] = Variant(5, _submodule_gitdir_outside)
    out["submodule-config"] = Variant(5, _submodule_config)
    out["big-history"] = Variant(7, _big_history)
    for name, (klass, make, fresh) in VARIANTS30.items():
        out[name] = Variant(klass, make, fresh=fresh)
    out["secret-directories"] = Variant(304, _secret_children)
    out["tracked-names"] = Variant(331, _tracked_names)
    out["path-relative"] = Variant(
        305, _fakes("node_modules/.bin"), path=lambda ws: f"node_modules/.bin:.:{_SYSTEM_PATH}"
    )
    out["path-inside"] = Variant(305, _fakes(".venv/bin"), path=lambda ws: f"{ws}/.venv/bin:{_SYSTEM_PATH}")
    out["env-pythonpath"] = Variant(
        434, _python_path, path=_interpreter_path, env=lambda ws: {"PYTHONPATH": f"{ws}/src"}
    )
    out["env-library-path"] = Variant(434, _library_path, env=lambda ws: {"LD_LIBRARY_PATH": "lib"})
    out["env-bash-env"] = Variant(434, _bash_env, env=lambda ws: {"BASH_ENV": ".bashenv"})
    for name, (make, env) in VARIANTS43.items():
        out[name] = Variant(433, make, fresh=True, env=env)
    for name, (klass, shims, path) in SHIM_VARIANTS.items():
        out[name] = Variant(klass, shims, path=path)
    return out


VARIANTS: dict[str, Variant] = _variants()
