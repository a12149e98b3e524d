"""Real git repositories in temporary directories, built without the machine's git config."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from bastion.workspace import LocalWorkspace

# Neither the machine's config nor the repository's own can run anything while a test builds it.
GIT_ENV = {
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    "HOME": "/nonexistent",
    "LC_ALL": "C",
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
}
_SAFE = [
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.fsmonitor=false",
    "-c",
    "init.defaultBranch=main",
    "-c",
    "protocol.file.allow=always",
    "-c",
    "commit.gpgsign=false",
]


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *_SAFE, *args], cwd=cwd, env=GIT_ENV, capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed in {cwd}: {done.stderr}")
    return done.stdout


def write(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def make_repo(root: Path, files: Mapping[str, str] | None = None, *, commit: bool = True) -> Path:
    """A repository at `root` holding `files`, committed once."""
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q")
    write(root, files if files is not None else {"README.md": "# hi\n", "main.go": "package main\n"})
    if commit:
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "first")
    return root


def set_config(repo: Path, key: str, value: str, file: str = ".git/config") -> None:
    """Write a key straight into a config file (nothing is run while writing it)."""
    git(repo, "config", "--file", str(repo / file), key, value)


def add_submodule(repo: Path, source: Path, path: str = "mod") -> Path:
    """A submodule at `path` cloned from a one-commit repository `source`; returns its config file."""
    make_repo(source, {"lib.go": "package lib\n"})
    git(repo, "submodule", "add", "-q", str(source), path)
    git(repo, "commit", "-q", "-m", "add submodule")
    return repo / ".git" / "modules" / path / "config"


def workspace(root: Path, **extra: str) -> LocalWorkspace:
    return LocalWorkspace(str(root), env={**GIT_ENV, **extra})
