"""Each version query of the table, where its program is on PATH, run under strace in a project
directory: it opens nothing of the project, writes nothing and starts no other program (the
table's promise, checked on this machine's tools)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from bastion.analyzer import analyze

# Private: the version-query table is the thing tested.
from bastion.analyzer._versions import VERSION_QUERIES
from bastion.workspace import LocalWorkspace
from fuzz.execution import strace_violations

_STRACE = shutil.which("strace")
_OPENED = re.compile(
    r'^(?:open|openat|openat2|stat|newfstatat|access|faccessat2?|readlink|execve)\((?:[^,"]+, )?"([^"]*)"'
)


def _project(root: Path) -> None:
    """A project with what tools look for: config files, a local node_modules, a python package."""
    for name, text in {
        "pyproject.toml": "[tool.mypy]\nplugins = ['evil']\n",
        "setup.cfg": "[mypy]\n",
        ".npmrc": "//registry/:_authToken=SECRET\n",
        "package.json": "{}\n",
        "rust-toolchain.toml": "[toolchain]\npath = './evil'\n",
        "encodings/__init__.py": "raise SystemExit('project code ran')\n",
        "re.py": "raise SystemExit('project code ran')\n",
        ".tmux.conf": "run-shell 'touch pwned'\n",
        "gh.yml": "x\n",
        ".ruff.toml": "x\n",
        "Makefile": "$(shell touch pwned)\nall:\n\ttouch pwned\n",
        "GNUmakefile": "$(shell touch pwned)\n",
        ".sqliterc": ".shell touch pwned\n",
        ".psqlrc": "\\! touch pwned\n",
        ".jq": "def x: 1;\n",
        "specs": "x\n",
    }.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.mark.skipif(_STRACE is None, reason="strace is not installed: nothing can be traced")
@pytest.mark.parametrize("command", sorted(VERSION_QUERIES))
def test_a_version_query_that_runs_unasked_reads_nothing_of_the_project(tmp_path: Path, command: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    _project(project)
    for word in sorted(VERSION_QUERIES[command]):
        analysis = analyze(f"{command} {word}", LocalWorkspace(str(project)))
        if not analysis.auto:
            continue  # not on PATH, or a script or shim here: it asks (the table's other half)
        assert analysis.rendered is not None
        argv = shlex.split(analysis.rendered)  # the program by its absolute path (_programs.py)
        assert argv == [analysis.stages[0].check.program, word], argv
        log = tmp_path / f"trace-{word}"
        log.mkdir()
        env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home"), "LC_ALL": "C"}
        done = subprocess.run(
            [str(_STRACE), "-f", "-ff", "-qq", "-e", "trace=%file,%process", "-o", str(log / "t"), *argv],
            cwd=project, env=env, capture_output=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert strace_violations(str(log / "t"), {os.path.basename(argv[0]), command}) == []
        touched = []
        for trace in log.iterdir():
            for line in trace.read_text(errors="replace").splitlines():
                if (
                    (m := _OPENED.match(line))
                    and m.group(1)
                    and (m.group(1).startswith(str(project)) or not m.group(1).startswith("/"))
                ):
                    touched.append(line)
        assert touched == [], touched
        assert not (project / "pwned").exists()
