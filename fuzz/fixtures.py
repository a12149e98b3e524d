"""Fixture workspaces: files, directories, links in and out, secret names, a big file, a FIFO and git
repositories with and without program-running config. Built once as a template, copied by `cp -a`
(which keeps FIFOs, links and modes) into scratch directories for each run."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

__all__ = ["BIG", "MAX_READ", "build", "copy", "hostile_git", "scratch_env"]

MAX_READ = 4096  # the read bound the soundness runs configure (big.bin is over it)
BIG = MAX_READ + 904

FILES = {
    "main.go": "package main\n",
    "README.md": "# hi\nhttps://user:pw@example.com/x\n",
    ".env": "KEY=1\n",
    "id_rsa": "-----BEGIN KEY-----\n",
    "secrets/token.txt": "s3cret\n",
    "sub/a.go": "package sub\n",
    "sub/deep/b.go": "package deep\n",
    "docs/guide.txt": "read me\n",
    "a b.txt": "spaced\n",
    "café.txt": "non-ascii\n",
    "dash/-rf": "",
    "dash/--output=x": "",
}
LINKS = {
    "notes.txt": ".env",
    "inlink": "sub",
    "etclink": "/etc",
    "outfile": "/etc/passwd",
    "outlink": "../outside/secret.txt",
    "dangling": "/nonexistent/x",
    "sub/up": "..",
    "chain": "notes.txt",
}
# Config that makes git run a program; each must either be refused by the probe or neutralised.
HOSTILE_CONFIG = (
    ("core.fsmonitor", "{evil}"),
    ("core.pager", "{evil}"),
    ("core.sshCommand", "{evil}"),
    ("diff.external", "{evil}"),
    ("diff.evil.textconv", "{evil}"),
    ("filter.evil.clean", "{evil}"),
    ("filter.evil.smudge", "{evil}"),
    ("filter.evil.process", "{evil}"),
    ("core.hooksPath", "hooks"),
    ("alias.st", "!{evil}"),
    ("gpg.program", "{evil}"),
    ("log.showSignature", "true"),
    ("core.editor", "{evil}"),
    ("credential.helper", "!{evil}"),
    ("pager.log", "{evil}"),
)

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@e", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_AUTHOR_DATE": "2020-01-01T00:00:00", "GIT_COMMITTER_DATE": "2020-01-01T00:00:00",
}  # fmt: skip


def _git(cwd: Path, *args: str) -> None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(cwd), **GIT_ENV}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _repo(path: Path, exclude: str = "") -> None:
    _git(path, "init", "-q", "-b", "main")
    if exclude:
        (path / ".git" / "info" / "exclude").write_text(exclude + "\n")
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "-m", "first")
    _git(path, "tag", "v1")
    (path / "main.go").write_text("package main\n// changed\n")


def hostile_git(repo: Path, evil: str, only: int | None = None) -> None:
    """Write program-running config (all of it, or entry `only`) and attributes naming it."""
    for key, value in HOSTILE_CONFIG if only is None else HOSTILE_CONFIG[only : only + 1]:
        _git(repo, "config", key, value.format(evil=evil))
    (repo / ".gitattributes").write_text("* diff=evil filter=evil\n")


def build(base: Path, hostile: int | None = None, embed: bool = False) -> Path:
    """The template under `base`: `base/ws` (the workspace, a git repository whose config is
    benign, or has entry `hostile` of HOSTILE_CONFIG, with a fully hostile nested repository at
    vendor/evil) and `base/outside`."""
    ws, outside = base / "ws", base / "outside"
    outside.mkdir(parents=True)
    (outside / "secret.txt").write_text("outside secret\n")
    ws.mkdir()
    for name, text in FILES.items():
        path = ws / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (ws / "empty").mkdir()
    with open(ws / "big.bin", "wb") as f:
        f.write(b"b" * BIG)
    os.chmod(ws / "main.go", 0o644)
    for name, target in LINKS.items():
        os.symlink(target, ws / name)
    evil = str(base / "evil.sh")
    Path(evil).write_text("#!/bin/sh\ntouch \"$HOME/pwned\"\ncat\n")
    os.chmod(evil, 0o755)
    nested = ws / "vendor" / "evil"
    nested.mkdir(parents=True)
    (nested / "lib.go").write_text("package evil\n")
    _repo(nested)
    hostile_git(nested, evil)
    _repo(ws, "" if embed else "/vendor/")  # embed: vendor/evil is committed as a gitlink
    if hostile is not None:
        hostile_git(ws, evil, hostile)
    os.mkfifo(ws / "pipe")  # after the commits: git add would not take it anyway
    return ws


def copy(template: Path, dest: Path) -> Path:
    """A scratch copy of the template's base directory; returns the copy's workspace."""
    if dest.exists():
        shutil.rmtree(dest)
    subprocess.run(["cp", "-a", str(template.parent), str(dest)], check=True)
    return dest / template.name


def scratch_env(home: Path, tmp: Path, path: str | None = None) -> dict[str, str]:
    """A small, fixed environment: HOME and TMPDIR point at checked scratch directories."""
    return {
        "PATH": path or "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "TMPDIR": str(tmp),
        "LC_ALL": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "XDG_CONFIG_HOME": str(home / ".config"),
    }
