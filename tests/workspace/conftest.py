"""The two implementations of the workspace, side by side: this machine's directory, and the same
directory served by `bastion execute` over a pipe (a local process transport, as `ssh host bastion
execute DIR` is). Each contract test runs against both."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bastion.analyzer import recheck_digest
from bastion.policy import child_env
from bastion.workspace import ExecutorWorkspace, LocalWorkspace, Workspace
from tests.waits import PATIENCE

# What the executor's transport is started with; its commands get this less credentials, as a local
# session's commands do.
TRANSPORT_ENV = {
    "PATH": os.environ.get("PATH", os.defpath),
    "HOME": os.environ.get("HOME", "/"),
    "LC_ALL": "C",
}


def execute_argv(root: Path | str) -> list[str]:
    """`bastion execute ROOT` as a process on this machine."""
    return [sys.executable, "-m", "bastion", "execute", str(root)]


def session_argv(url: str, executor: list[str]) -> list[str]:
    """`bastion -p go` against the scripted model at `url`, as JSON, its questions answered from
    standard input, its tools acting through `executor` (the command that starts `bastion execute`)."""
    return [
        "-p",
        "go",
        "--output-format",
        "json",
        "--yes-to",
        "stdin",
        "--base-url",
        url + "/v1",
        "--provider",
        "openai",
        "--executor",
        shlex.join(executor),
    ]


def connect(root: Path | str, env: dict[str, str] | None = None) -> ExecutorWorkspace:
    # A reply may take long on a busy machine: the bound is the tests' patience, not a clock here.
    return ExecutorWorkspace(execute_argv(root), env or TRANSPORT_ENV, reply_timeout=PATIENCE)


def local(root: Path | str) -> LocalWorkspace:
    """The local side, with the executor's environment and its re-check of a command's facts."""
    return LocalWorkspace(str(root), env=child_env(TRANSPORT_ENV), recheck=recheck_digest)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "root"
    r.mkdir()
    return r


@pytest.fixture(params=["local", "executor"])
def ws(request: pytest.FixtureRequest, root: Path) -> Iterator[Workspace]:
    made: LocalWorkspace | ExecutorWorkspace = local(root) if request.param == "local" else connect(root)
    yield made
    made.close()
