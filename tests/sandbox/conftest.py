"""A workspace with a sibling directory outside it, and the bash tool's context under the sandbox.

Tests that need the kernel's Landlock are skipped, saying why, on a kernel without it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bastion.agent.tools import ToolContext
from bastion.analyzer import Stamper
from bastion.sandbox import SandboxConfig, landlock_abi
from bastion.workspace import LocalWorkspace
from tests.contexts import tool_context

ABI = landlock_abi()
needs_landlock = pytest.mark.skipif(
    ABI == 0, reason="this kernel has no Landlock (too old, not built in, or not in the LSMs at boot)"
)
needs_tcp_rules = pytest.mark.skipif(ABI < 4, reason=f"Landlock ABI {ABI} cannot restrict TCP (ABI 4 can)")
needs_scoping = pytest.mark.skipif(ABI < 6, reason=f"Landlock ABI {ABI} cannot scope signals (ABI 6 can)")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    where = tmp_path / "outside"
    where.mkdir()
    (where / "kept.txt").write_text("kept\n")
    return where


@pytest.fixture
def root(tmp_path: Path, outside: Path) -> Path:
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / "notes.txt").write_text("one\ntwo\n")
    (work / "sub" / "deep.txt").write_text("deep\n")
    return work


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", os.defpath), "LANG": "C", "HOME": str(tmp_path)}


def context(root: Path, env: dict[str, str], sandbox: SandboxConfig | None = None) -> ToolContext:
    return tool_context(LocalWorkspace(str(root), env), Stamper(), sandbox=sandbox or SandboxConfig())


@pytest.fixture
def ctx(root: Path, env: dict[str, str]) -> ToolContext:
    return context(root, env)


def tree(path: Path) -> dict[str, bytes | str]:
    """Every name under `path` with its content (a link: its target; a directory: "dir")."""
    found: dict[str, bytes | str] = {}
    for dirpath, dirnames, filenames in os.walk(path):
        for name in dirnames + filenames:
            full = Path(dirpath) / name
            key = str(full.relative_to(path))
            if full.is_symlink():
                found[key] = "-> " + os.readlink(full)
            elif full.is_dir():
                found[key] = "dir"
            elif full.is_file():
                found[key] = full.read_bytes()
            else:
                found[key] = "special"
    return found
