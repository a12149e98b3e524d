"""A workspace for the tools: files, links inside and out, a FIFO, a sibling directory outside."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bastion.agent.tools import ToolContext
from bastion.analyzer import LocalWorkspace, Stamper

FILES = {
    "notes.txt": "one\ntwo\nthree\n",
    ".env": "KEY=1\n",
    "src/app.py": "import os\nprint('hello')\n",
    "src/util.py": "def f():\n    return 1\n",
    "docs/guide.md": "# Guide\nhello world\n",
    "node_modules/dep/index.js": "hello from a dependency\n",
    ".git/config": "[core]\n",
}
LINKS = {"alias.txt": "notes.txt", "inlink": "src", "outlink": "../outside", "outfile": "../outside/secret"}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("SECRET\n")
    work = tmp_path / "work"
    work.mkdir()
    for name, text in FILES.items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(text)
    for name, target in LINKS.items():
        os.symlink(target, work / name)
    os.mkfifo(work / "fifo")
    return work


@pytest.fixture
def ws(root: Path) -> LocalWorkspace:
    return LocalWorkspace(str(root), {"PATH": os.environ.get("PATH", os.defpath), "LANG": "C"})


@pytest.fixture
def ctx(ws: LocalWorkspace) -> ToolContext:
    return ToolContext(ws, Stamper(), max_read_bytes=4096)
