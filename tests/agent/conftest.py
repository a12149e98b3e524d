"""A workspace for the tools: files, links inside and out, a FIFO, a sibling directory outside;
and no controlling terminal for the tests run in this process."""

from __future__ import annotations

import fcntl
import os
import termios
from collections.abc import Iterator
from pathlib import Path

import pytest

from bastion.agent.tools import ToolContext
from bastion.analyzer import Stamper
from bastion.workspace import LocalWorkspace
from tests.contexts import tool_context

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


@pytest.fixture(autouse=True, scope="session")
def no_controlling_terminal() -> Iterator[None]:
    """-p asks on /dev/tty when standard input is not a terminal: the tests that run bastion in
    this process (their own standard input) run it as CI does, with no controlling terminal, so a
    question never waits on the terminal pytest was started from. A session leader keeps its
    terminal (letting it go would hang up its process group)."""
    if os.getsid(0) != os.getpid():
        try:
            fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
        except OSError:
            fd = -1
        if fd >= 0:
            try:
                fcntl.ioctl(fd, termios.TIOCNOTTY)
            finally:
                os.close(fd)
    yield


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
    return tool_context(ws, Stamper(), max_read_bytes=4096)
