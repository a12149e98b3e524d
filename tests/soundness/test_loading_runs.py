"""By execution: a project whose code leaves a mark wherever it is loaded (src/mypy imported by
mypy, lib/libselinux.so.1 loaded by ls) with PYTHONPATH=src and LD_LIBRARY_PATH=lib where the plan runs.
`bastion check` and `bastion hook claude-code` ask; bastion's own bash tool runs the plan in the
neutral environment, which carries neither, and strace shows nothing of the project loaded."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bastion.analyzer import neutral_env
from bastion.policy import Decision, Gate, load_settings
from bastion.workspace import LocalWorkspace

BIN = Path(sys.executable).parent  # bastion's console script and mypy, outside the project
STRACE, GCC = shutil.which("strace"), shutil.which("gcc")
MARK = r"""
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void mark(void) {
    int fd = open(MARKS "/library-loaded", O_WRONLY | O_CREAT, 0644);
    if (fd >= 0) close(fd);
}
"""
HOSTILE = {"PYTHONPATH": "src", "LD_LIBRARY_PATH": "lib"}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The project, its marks kept in `marks/` beside it."""
    root, marks = tmp_path / "ws", tmp_path / "marks"
    marks.mkdir()
    init = root / "src" / "mypy" / "__init__.py"  # what `mypy --version` imports first
    init.parent.mkdir(parents=True)
    init.write_text(f"open({str(marks / 'mypy-imported')!r}, 'w')\n")
    (root / "lib").mkdir()
    if GCC is not None:
        source = tmp_path / "mark.c"
        source.write_text(MARK)
        library = root / "lib" / "libselinux.so.1"
        built = [GCC, "-shared", "-fPIC", f'-DMARKS="{marks}"', "-o", str(library), str(source)]
        subprocess.run(built, check=True)
    return root


def _env(**extra: str) -> dict[str, str]:
    return {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": os.environ.get("HOME", "/"), "LC_ALL": "C", **extra}


@pytest.mark.parametrize(("name", "line"), [("PYTHONPATH", "mypy --version"), ("LD_LIBRARY_PATH", "ls -la")])
def test_bastion_check_and_the_claude_code_hook_ask_where_a_variable_loads_the_projects_code(
    project: Path, name: str, line: str
) -> None:
    if not (BIN / "mypy").exists():
        pytest.skip("mypy is not installed beside this Python")
    env = _env(**{name: HOSTILE[name]})
    check = [str(BIN / "bastion"), "check", "--config", os.devnull, "--json", "--", line]
    done = subprocess.run(check, cwd=project, env=env, capture_output=True, text=True, check=False)
    assert json.loads(done.stdout)["decision"] == "ask" and f"{name} where this runs" in done.stdout
    request = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(project)}
    hook = [str(BIN / "bastion"), "hook", "claude-code", "--config", os.devnull]
    answer = subprocess.run(
        hook, input=json.dumps({**request, "tool_input": {"command": line}}), cwd=project, env=env,
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    said = json.loads(answer.stdout)["hookSpecificOutput"]
    assert said["permissionDecision"] == "ask" and "updatedInput" not in said
    safe = _env(**{name: "/usr/local/lib"})
    done = subprocess.run(check, cwd=project, env=safe, capture_output=True, text=True, check=False)
    assert json.loads(done.stdout)["decision"] == "allow", done.stdout


@pytest.mark.skipif(STRACE is None, reason="strace is not installed: nothing can be traced")
@pytest.mark.skipif(GCC is None, reason="gcc is not installed: no library to leave a mark can be built")
@pytest.mark.parametrize("line", ["mypy --version", "ls -la"])
def test_bastions_own_plan_runs_with_the_hostile_variables_set_and_loads_nothing_of_the_project(
    project: Path, tmp_path: Path, line: str
) -> None:
    if line.startswith("mypy") and not (BIN / "mypy").exists():
        pytest.skip("mypy is not installed beside this Python")
    base = _env(**HOSTILE)
    subprocess.run(["bash", "-c", line], cwd=project, env=base, capture_output=True, check=False)
    assert os.listdir(tmp_path / "marks"), "as typed, the project's code is loaded"
    shutil.rmtree(tmp_path / "marks")
    (tmp_path / "marks").mkdir()
    ws = LocalWorkspace(str(project), env=base)  # the bash tool's workspace: this environment
    decided = Gate(load_settings(ws, os.devnull), ws).decide("bash", {"command": line})
    a = decided.analysis
    assert decided.decision is Decision.ALLOW and a is not None and a.auto, decided.verdict.reason
    assert a.rendered is not None
    log = tmp_path / "trace"
    argv = [str(STRACE), "-f", "-qq", "-e", "trace=%file", "-o", str(log), "bash", "-c", a.rendered]
    done = subprocess.run(argv, cwd=project, env=neutral_env(base), capture_output=True, check=False)
    assert done.returncode == 0, done.stderr
    assert os.listdir(tmp_path / "marks") == []
    opened = [t for t in log.read_text().splitlines() if "open" in t and "ENOENT" not in t]
    assert not [t for t in opened if "/src/" in t or "/lib/libselinux" in t and str(project) in t]
    assert not [t for t in opened if '"src/' in t or '"lib/' in t]
