"""Another commit's code for a before-and-after run: checked out in a temporary git worktree, made
ready as `make` makes an install (grammar tables built, bytecode compiled) and removed afterwards.

A run puts the checkout first on PYTHONPATH, so the same interpreter imports that code instead.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

__all__ = ["ROOT", "checkout"]


@contextlib.contextmanager
def checkout(ref: str, where: str, python: str = sys.executable) -> Iterator[str]:
    """The code of `ref` at `where`, ready to import: its grammar tables built and its bytecode
    compiled (this machine sets PYTHONDONTWRITEBYTECODE, so an uncompiled checkout would be
    compiled again by every process)."""
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", where, ref],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    try:
        env = {**os.environ, "PYTHONPATH": where}
        for step in (["-m", "bastion.grammar"], ["-m", "compileall", "-q", "bastion"]):
            subprocess.run([python, *step], cwd=where, env=env, check=True, stdout=subprocess.DEVNULL)
        yield where
    finally:
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "remove", "--force", where],
            check=False,
            stdout=subprocess.DEVNULL,
        )
