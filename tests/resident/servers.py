"""Resident servers for tests (bastion/resident): a server started and ended, the command line as
bastion's own command runs it (isolated, with this process's module search path: the same
fingerprint, the same socket), and the in-process answer the server's must equal."""

from __future__ import annotations

import contextlib
import io
import json
import os
import pathlib
import signal
import subprocess
import sys

import bastion
from bastion import cli
from bastion.resident import _client, _wire
from tests.waits import until

__all__ = ["PACKAGE", "cli_run", "end", "hook_payload", "in_process", "is_socket", "path", "start"]

PACKAGE = os.path.dirname(cli.__file__)

# The command line, isolated as bastion's command starts it, with this process's module search path.
_CLIENT = f"import sys; sys.path[:] = {sys.path!r}; from bastion.cli import main; sys.exit(main())"


def path() -> str:
    """The socket of this process's fingerprint (in the runtime directory conftest's `home` made)."""
    found = _wire.socket_path(_wire.fingerprint(bastion.__version__, PACKAGE, sys.path))
    assert found is not None, "no socket directory here (is the working directory above it?)"
    return found


def is_socket(where: str) -> bool:
    try:
        return (os.lstat(where).st_mode & 0o170000) == 0o140000
    except OSError:
        return False


def start(idle: str = "600") -> tuple[int, str]:
    """A server for this process's fingerprint, ready: its pid and socket."""
    where = path()
    pid = _client._start(where, _wire.fingerprint(bastion.__version__, PACKAGE, sys.path), idle)
    assert pid
    until(lambda: is_socket(where), "the server's socket")
    return pid, where


def end(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass


def in_process(argv: list[str], stdin: str = "") -> _client.Answer:
    """What the command answers deciding in this process: exit status, stdout's and stderr's bytes."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):  # argparse writes to sys's
        code = cli._command(argv, io.StringIO(stdin), out, err)
    return code, out.getvalue().encode(), err.getvalue().encode()


def hook_payload(cwd: str, line: str, agent: str = "claude-code") -> str:
    tool = "run_shell_command" if agent == "gemini" else "Bash"
    event = "BeforeTool" if agent == "gemini" else "PreToolUse"
    payload = {"session_id": "s", "cwd": cwd, "hook_event_name": event, "tool_name": tool}
    return json.dumps({**payload, "tool_input": {"command": line}})


def cli_run(cwd: pathlib.Path, argv: list[str], stdin: str = "", **env: str) -> tuple[int, bytes]:
    """The command line run in `cwd` (isolated, this process's module search path): its exit status
    and standard output; standard error must be empty."""
    done = subprocess.run(
        [sys.executable, "-I", "-c", _CLIENT, *argv],
        input=stdin.encode(), capture_output=True, cwd=cwd, env={**os.environ, **env}, check=False,
    )  # fmt: skip
    assert done.stderr == b"", done.stderr[-2000:]
    return done.returncode, done.stdout
