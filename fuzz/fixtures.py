"""Fixture workspaces: files, directories, links in and out, secret names, a big file, a FIFO and git
repositories with and without program-running config, and the hostile-repository variants of issue
12 (fuzz/hostile.py). Built once as a template, copied by `cp -a` (which keeps FIFOs, links and
modes) into scratch directories for each run.

Every secret-looking file holds a canary token of its own (`CANARIES`): an allowed line whose output
holds one, or that opens one, read a secret."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from .hostile import CANARY, VARIANTS

__all__ = ["BIG", "CANARIES", "CANARY", "MAX_READ", "build", "copy", "hostile_git", "scratch_env"]

MAX_READ = 4096  # the read bound the soundness runs configure (big.bin is over it)
BIG = MAX_READ + 904

CANARIES = {  # secret file (relative to the fixture's base directory) -> its canary
    "ws/.env": CANARY + "env-committed",  # committed, then modified to the next one
    "ws/.env@modified": CANARY + "env-modified",
    "ws/id_rsa": CANARY + "id-rsa",
    "ws/secrets/token.txt": CANARY + "token",
    "outside/secret.txt": CANARY + "outside",
    "outside/canary.txt": CANARY + "outside-file",
}
FILES = {
    "main.go": "package main\n",
    "README.md": "# hi\nhttps://user:pw@example.com/x\n",
    ".env": f"KEY={CANARIES['ws/.env']}\n",
    "id_rsa": f"-----BEGIN KEY-----\n{CANARIES['ws/id_rsa']}\n",
    "secrets/token.txt": CANARIES["ws/secrets/token.txt"] + "\n",
    "sub/a.go": "package sub\n",
    "sub/deep/b.go": "package deep\n",
    "docs/guide.txt": "read me\n",
    "a b.txt": "spaced\n",
    "café.txt": "non-ascii\n",
    "dash/-rf": "",
    "dash/--output=x": "",
    "dash/new\nline.txt": "newline\n",  # issue 33: a glob's match with a newline in its name
    # names that look like something else (issue 12, class 1)
    "ls /.keep": "",  # a directory `ls ` (and `cat `, `git `): `'ls /../evil.sh'` is ./evil.sh
    "cat /.keep": "",
    "git /.keep": "",
    "-rf": "",
    "it's.txt": "quote\n",
    'say "hi".txt': "quotes\n",
    "sub dir/x.go": "package x\n",
    # issue 33, composition: names a stream carries to a reader (find -exec, xargs): a name xargs
    # would split into `.env` without -0, secret names and a secret directory among the .go files
    "notes .env x.go": "package notes\n",
    "dash/-l.go": "package dash\n",
    "lib/id_ed25519.go": f"{CANARY}id-go\n",
    "lib/.aws/config.go": f"{CANARY}aws-go\n",
    "lib/my_secrets/key.go": f"{CANARY}secrets-go\n",
}
# An executable at the root that a line must never run: it leaves a marker in HOME and the tree.
EVIL_HERE = '#!/bin/sh\ntouch "$HOME/pwned-evil.sh" pwned-evil.sh 2>/dev/null\ncat\n'
# Hooks git runs by itself (a refreshed index, a ref update ...): each leaves a marker if run.
HOOKS = (
    "post-index-change",
    "reference-transaction",
    "post-checkout",
    "pre-auto-gc",
    "fsmonitor-watchman",
    "post-rewrite",
    "sendemail-validate",
)
LINKS = {
    "notes.txt": ".env",
    "inlink": "sub",
    "etclink": "/etc",
    "outfile": "/etc/passwd",
    "outlink": "../outside/secret.txt",
    "dangling": "/nonexistent/x",
    "sub/up": "..",
    "chain": "notes.txt",
    "lib/out.go": "../../outside/secret.txt",  # issue 33: links among what a find hands on
    "envlink.go": ".env",
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


def _git(cwd: Path, *args: str, check: bool = True) -> None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(cwd), **GIT_ENV}
    tame = (
        "core.hooksPath=/dev/null",
        "core.fsmonitor=false",
        "filter.evil.clean=cat",
        "filter.evil.smudge=cat",
        "filter.evil.process=",
        "filter.evil.required=false",
    )  # nothing hostile
    subprocess.run(
        ["git", *(a for c in tame for a in ("-c", c)), *args],
        cwd=cwd,
        env=env,
        check=check,
        capture_output=True,
    )


def _repo(path: Path, exclude: str = "") -> None:
    _git(path, "init", "-q", "-b", "main")
    if exclude:
        (path / ".git" / "info" / "exclude").write_text(exclude + "\n")
    _git(path, "add", "-A")
    _git(path, "commit", "-q", "-m", "first")
    _git(path, "tag", "v1")
    (path / "main.go").write_text("package main\n// changed\n")
    if (path / ".env").exists():  # a committed secret, modified since (issue 12, class 4)
        (path / ".env").write_text(f"KEY={CANARIES['ws/.env@modified']}\n")
    for hook in HOOKS:
        _executable(path / ".git" / "hooks" / hook, '#!/bin/sh\ntouch "$HOME/pwned-hook"\n')


def _executable(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.chmod(path, 0o755)


def hostile_git(repo: Path, evil: str, only: int | None = None) -> None:
    """Write program-running config (all of it, or entry `only`) and attributes naming it."""
    for key, value in HOSTILE_CONFIG if only is None else HOSTILE_CONFIG[only : only + 1]:
        _git(repo, "config", key, value.format(evil=evil))
    (repo / ".gitattributes").write_text("* diff=evil filter=evil\n")


def build(base: Path, hostile: int | str | None = None, embed: bool = False) -> Path:
    """The template under `base`: `base/ws` (the workspace, a git repository whose config is
    benign, or has entry `hostile` of HOSTILE_CONFIG, with a fully hostile nested repository at
    vendor/evil) and `base/outside`; a name for `hostile` is a variant of fuzz/hostile.py."""
    variant = VARIANTS[hostile] if isinstance(hostile, str) else None
    embed = embed or (variant is not None and variant.embed)
    ws, outside = base / "ws", base / "outside"
    outside.mkdir(parents=True)
    for name, token in CANARIES.items():
        if name.startswith("outside/"):
            (base / name).write_text(f"{token}\n")
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
    _executable(Path(evil), '#!/bin/sh\ntouch "$HOME/pwned"\ncat\n')
    _executable(ws / "evil.sh", EVIL_HERE)
    nested = ws / "vendor" / "evil"
    nested.mkdir(parents=True)
    (nested / "lib.go").write_text("package evil\n")
    _repo(nested)
    hostile_git(nested, evil)
    _repo(ws, "" if embed else "/vendor/")  # embed: vendor/evil is committed as a gitlink
    if isinstance(hostile, int):
        hostile_git(ws, evil, hostile)
    if variant is not None:
        variant.make(ws, _git)
    os.mkfifo(ws / "pipe")  # after the commits: git add would not take it anyway
    _age(ws)
    return ws


def _age(ws: Path) -> None:
    """Old times on every file, so that the index a scratch copy refreshes is not racy (git would
    read every file again to be sure, a secret included)."""
    for dirpath, dirnames, filenames in os.walk(ws):
        if ".git" in dirnames:
            dirnames.remove(".git")
        for name in filenames:
            os.utime(os.path.join(dirpath, name), (1577836800, 1577836800), follow_symlinks=False)


def refresh_index(ws: Path) -> None:
    """What a checkout of one's own has: an index whose stat data matches the files (a copy's do
    not), so that git compares by stat and reads no file it does not show."""
    if (ws / ".git").is_dir():
        _git(ws, "update-index", "-q", "--refresh", check=False)


def copy(template: Path, dest: Path, refresh: bool = True) -> Path:
    """A scratch copy of the template's base directory, its index refreshed unless `refresh` is
    false (a fresh index: issue 30, class 3); returns the copy's workspace."""
    if dest.exists():
        shutil.rmtree(dest)
    subprocess.run(["cp", "-a", str(template.parent), str(dest)], check=True)
    if refresh:
        refresh_index(dest / template.name)
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
