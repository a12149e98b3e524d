"""Each version query of the table, where its program is on PATH, run under strace in a project
directory: it opens nothing of the project, writes nothing and starts no other program (the
table's promise, checked on this machine's tools), and the binary traced is the one the table
names: the same file name once links are followed, and the same release (major.minor) printed."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bastion.analyzer import analyze

# Private: the version-query table is the thing tested.
from bastion.analyzer.commands._versions import VERSION_QUERIES
from bastion.workspace import LocalWorkspace
from fuzz.execution import strace_violations

_STRACE = shutil.which("strace")
# Debian's tools, then this virtual environment's (ruff, mypy and its python: pinned by constraints.txt).
_PATH = f"/usr/local/bin:/usr/bin:/bin:{Path(sys.executable).parent}"
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


def _release(version: str) -> str:
    """A version's major.minor (`3.11` of 3.11.2, `3.3` of 3.3a)."""
    return ".".join(re.findall(r"[0-9]+", version)[:2])


@pytest.mark.skipif(_STRACE is None, reason="strace is not installed: nothing can be traced")
@pytest.mark.parametrize(
    "command",
    sorted(VERSION_QUERIES),
    ids=[f"{c} ({VERSION_QUERIES[c].package})" for c in sorted(VERSION_QUERIES)],
)
def test_a_version_query_that_runs_unasked_reads_nothing_of_the_project(tmp_path: Path, command: str) -> None:
    query = VERSION_QUERIES[command]
    project = tmp_path / "project"
    project.mkdir()
    _project(project)
    if shutil.which(command, path=_PATH) is None:
        pytest.skip(f"{command} is not installed here (traced with {query.package})")
    for word in sorted(query.words):
        analysis = analyze(f"{command} {word}", LocalWorkspace(str(project), env={"PATH": _PATH}))
        assert analysis.auto, analysis.stages[0].why  # a binary outside, not a shim or a multiplexer
        assert analysis.rendered is not None
        argv = shlex.split(analysis.rendered)  # the program by its absolute path (_programs.py)
        assert argv == [analysis.stages[0].check.program, word], argv
        assert os.path.basename(os.path.realpath(argv[0])) == query.program, (argv[0], query)
        log = tmp_path / f"trace-{word}"
        log.mkdir()
        env = {"PATH": _PATH, "HOME": str(tmp_path / "home"), "LC_ALL": "C"}
        done = subprocess.run(
            [str(_STRACE), "-f", "-ff", "-qq", "-e", "trace=%file,%process", "-o", str(log / "t"), *argv],
            cwd=project, env=env, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        printed = done.stdout + done.stderr
        assert re.search(rf"(?<![0-9.]){re.escape(_release(query.release))}(?![0-9])", printed), (
            f"traced with {query.package} ({query.release}), here: {printed.splitlines()[:1]}: "
            "trace it, then name it in the table"
        )
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
