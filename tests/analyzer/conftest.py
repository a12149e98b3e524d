"""A workspace with real files, links (inside and out), a FIFO, big files and a sibling directory."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from bastion.analyzer import Analysis, analyze
from bastion.workspace import LocalWorkspace
from tests.plans import fake_program

LIMIT = 1000  # the read limit the tests use (the default 2 MiB works the same, only slower to build)

FILES = {
    "main.go": "package main\n",
    "util.go": "package main\n",
    "README.md": "# hi\n",
    ".env": "KEY=1\n",
    "sub/a.go": "package sub\n",
    "sub/deep/b.go": "package deep\n",
    "dash/-rf": "",
    "dash/--output=x": "",
    "dash/plain": "",
    "docs/guide.txt": "read me\n",
}
LINKS = {
    "notes.txt": ".env",
    "alias.txt": "README.md",
    "inlink": "sub",
    "etclink": "/etc",
    "outfile": "/etc/passwd",
    "dangling": "/nonexistent/x",
    "later.txt": "missing.txt",
    "sub/up": "..",
    "outdir/escape": "../..",
    "chain1": "chain2",
    "chain2": "notes.txt",
    "evil": "../ws-evil",
    "ghost": "nodir/../../ws-evil/secret.txt",
    "outdir/passwd-link": "/etc/passwd",
}


def build(root: Path) -> None:
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for name, target in LINKS.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, path)
    (root / "empty").mkdir()
    os.mkfifo(root / "pipe")
    for name, size in {"exact.bin": LIMIT, "over.bin": LIMIT + 1}.items():
        with open(root / name, "wb") as f:
            f.truncate(size)


@pytest.fixture(scope="session")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Built once: the analyzer only reads it (tests that change files make their own)."""
    tmp_path = tmp_path_factory.mktemp("tree")
    ws = tmp_path / "ws"
    ws.mkdir()
    build(ws)
    sibling = tmp_path / "ws-evil"
    sibling.mkdir()
    (sibling / "secret.txt").write_text("secret\n")
    return ws


@pytest.fixture(scope="session")
def ws(root: Path) -> LocalWorkspace:
    return LocalWorkspace(str(root))


Analyse = Callable[..., Analysis]


@pytest.fixture(scope="session")
def run(ws: LocalWorkspace) -> Analyse:
    """analyze(line) in the fixture workspace with the tests' read limit."""

    def _run(line: str, cwd: str = ".") -> Analysis:
        return analyze(line, ws, cwd, max_read_bytes=LIMIT)

    return _run


def _on_path(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, name: str) -> Path:
    """A `name` first on PATH (a copy of `true`: this machine may have none, and a plan runs only a
    program it found), in a directory outside every workspace."""
    bin_dir = tmp_path_factory.mktemp(f"{name}bin")
    fake_program(bin_dir, name)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', os.defpath)}")
    return bin_dir / name


@pytest.fixture
def go_on_path(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    return _on_path(tmp_path_factory, monkeypatch, "go")


@pytest.fixture
def tree_on_path(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """For a test of tree's decision alone: tree is not on every machine."""
    return _on_path(tmp_path_factory, monkeypatch, "tree")
