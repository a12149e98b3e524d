"""Filter drivers of the user's and the system's git config, chosen by a repository's attributes.

`driven` builds a repository whose tracked files' stat data changed since they were committed (so
git hashes them again, through their driver), with config files outside it that define drivers
running a marker program; `traced` runs a script under strace and says what the run did that a
read-only one must not (fuzz/execution.py's oracle: a program started, a file written)."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from fuzz.execution import strace_violations
from tests.waits import PATIENCE

from .gitrepo import make_repo

__all__ = ["STRACE", "Driven", "driven", "started", "traced"]

STRACE = shutil.which("strace")
# What a driver runs: it leaves its arguments in the marker, and filters as `cat` does.
_MARK = '#!/bin/sh\necho "$*" >> "{marker}"\nexec cat\n'


class Driven(NamedTuple):
    repo: Path
    env: dict[str, str]  # the user's: where a dry-run decides and another agent runs the plan
    marker: Path  # written by a driver when it runs
    mark: Path  # the program every driver runs
    home: Path


def driven(
    tmp_path: Path,
    files: Mapping[str, str],
    *,
    user: str = "",
    system: str = "",
    attributes: str = "",
    info: str = "",
) -> Driven:
    """A repository holding `files` (committed while no driver exists) and `attributes` in its
    .gitattributes, `info` in .git/info/attributes, every tracked file's mtime moved on since; the
    user's `~/.gitconfig` holding `user` and the system's config (GIT_CONFIG_SYSTEM) `system`, where
    `{mark}` is the marker program and `{home}` the user's home."""
    marker = tmp_path / "ran"
    mark = tmp_path / "bin" / "mark"
    mark.parent.mkdir(parents=True)
    mark.write_text(_MARK.format(marker=marker))
    mark.chmod(0o755)
    committed = {**files, ".gitattributes": attributes} if attributes else dict(files)
    repo = make_repo(tmp_path / "repo", committed)
    if info:
        (repo / ".git" / "info" / "attributes").write_text(info)
    for name in committed:
        st = (repo / name).stat()
        os.utime(repo / name, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    home = tmp_path / "home"
    home.mkdir()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LC_ALL": "C"}
    if user:
        (home / ".gitconfig").write_text(user.format(mark=mark, home=home))
    if system:
        (tmp_path / "etc").mkdir()
        (tmp_path / "etc" / "gitconfig").write_text(system.format(mark=mark, home=home))
        env["GIT_CONFIG_SYSTEM"] = str(tmp_path / "etc" / "gitconfig")
    else:
        env["GIT_CONFIG_NOSYSTEM"] = "1"
    return Driven(repo, env, marker, mark, home)


def traced(
    cwd: Path, script: str, env: Mapping[str, str], log: Path
) -> tuple[subprocess.CompletedProcess[bytes], list[str]]:
    """`bash -c script` run in `cwd` with exactly `env` under `strace -f -ff` (its logs under the
    new directory `log`): the run, and what it did that a read-only run of git must not."""
    assert STRACE is not None
    log.mkdir()
    argv = [
        STRACE,
        "-f",
        "-ff",
        "-qq",
        "-e",
        "trace=%file,%process",
        "-o",
        str(log / "t"),
        "bash",
        "-c",
        script,
    ]
    done = subprocess.run(argv, cwd=cwd, env=dict(env), capture_output=True, timeout=PATIENCE, check=False)
    return done, strace_violations(str(log / "t"), {"git"})


def started(violations: list[str]) -> list[str]:
    """The programs a run started beside bash and git, from its violations."""
    return [v for v in violations if v.startswith("exec")]
