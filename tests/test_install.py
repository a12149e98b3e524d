"""bastion installed as a Python tool is installed: its command is the launcher bin/bastion, which
finds the Python beside its real path (a virtual environment's bin, where pipx and uv tool link
it from) and says plainly when there is none; the wheel's build makes every grammar's tables with
the lark the lock pins; and a grammar whose tables are missing is built in memory, never written
into the installed package. (benchmarks/installed.py builds the wheel and runs it installed by
another user, read-only: `make installed`.)"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from bastion.grammar import Grammar
from tests.waits import PATIENCE

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = ROOT / "bin" / "bastion"
INSTALLED = Path(sys.executable).parent / "bastion"


def test_the_command_beside_this_interpreter_is_the_shipped_launcher() -> None:
    assert INSTALLED.read_bytes() == LAUNCHER.read_bytes()
    assert os.access(INSTALLED, os.X_OK)


def test_the_wheel_builds_its_tables_with_the_lark_the_lock_pins() -> None:
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    pinned = dict(re.findall(r"^([\w-]+)==(\S+)$", (ROOT / "constraints.txt").read_text(), re.MULTILINE))
    for name in ("lark", "interegular"):
        assert f"{name}=={pinned[name]}" in requires, name


def _version(command: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    return subprocess.run(
        [str(command), "--version"], cwd=cwd, env=env, capture_output=True, text=True, timeout=PATIENCE
    )


def test_the_launcher_reached_through_a_link_runs_the_python_beside_its_real_path(tmp_path: Path) -> None:
    """pipx and uv tool put a link to the environment's command in ~/.local/bin."""
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "bastion").symlink_to(INSTALLED)
    done = _version(tmp_path / "bin" / "bastion", tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "bastion 0.1.0\n", "")


def test_a_launcher_with_no_python_beside_it_says_so_and_runs_nothing(tmp_path: Path) -> None:
    """As `pip install --user` leaves it (~/.local/bin, the interpreter elsewhere): no Python is
    looked for on PATH or in the working directory."""
    (tmp_path / "bin").mkdir()
    shutil.copy(LAUNCHER, tmp_path / "bin" / "bastion")
    (tmp_path / "python").symlink_to(sys.executable)  # in the working directory: never used
    done = _version(tmp_path / "bin" / "bastion", tmp_path)
    assert done.returncode == 127 and done.stdout == ""
    assert done.stderr.startswith(f"bastion: no Python beside {tmp_path}/bin/bastion: ")


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A package with a grammar and no tables (as a plain copy of the sources would ship it)."""
    package = tmp_path / "readonly_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "g.lark").write_text('start: "a" "b"\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    yield package
    sys.modules.pop("readonly_pkg", None)


def test_a_grammar_without_tables_is_built_in_memory_and_nothing_is_written(package: Path) -> None:
    before = sorted(os.listdir(package))
    grammar = Grammar("readonly_pkg", "g.lark")
    assert grammar.generated() is None
    assert grammar.parse("ab") is not None
    assert sorted(os.listdir(package)) == before
