"""An editor that stops reading `bastion acp`'s output (its pipe fills): bastion neither hangs for
ever nor loses the session. A write the editor takes nothing of within `--write-timeout` ends the
connection as a closed input does: the run stops, the record says why and stays whole, and the
process ends (exit 1, said on standard error)."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.waits import PATIENCE, run_bounded

from .acp_editor import acp_env, session_events, stderr_of
from .scripted_server import ScriptedServer

# The least a pipe holds (a page): the editor's end fills after a few updates.
_PIPE = 4096


def _line(process: subprocess.Popen[bytes], message: dict[str, Any]) -> None:
    assert process.stdin is not None
    process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
    process.stdin.flush()


def _answer(process: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line, "bastion acp ended instead of answering"
    return dict(json.loads(line))


def _ended(process: subprocess.Popen[bytes]) -> int:
    try:
        return process.wait(timeout=PATIENCE)
    except subprocess.TimeoutExpired:
        raise AssertionError(
            f"waited {PATIENCE:g} s for bastion acp to end once its output was not read"
        ) from None


def test_an_editor_that_stops_reading_ends_the_connection_with_the_session_recorded(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    # Far more updates than the pipe holds: the text streams in 4000 pieces.
    rounds = [{"text": "word " * 4000, "pieces": 5}]
    with ScriptedServer(rounds) as server, open(tmp_path / "acp.err", "w") as err:
        command = [sys.executable, "-m", "bastion", "acp", "--provider", "openai"]
        process = subprocess.Popen(
            [*command, "--base-url", server.url + "/v1", "--write-timeout", "1"],
            cwd=work,
            env={**os.environ, **acp_env(tmp_path)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
        )
        try:
            assert process.stdout is not None
            fcntl.fcntl(process.stdout.fileno(), fcntl.F_SETPIPE_SZ, _PIPE)
            _line(process, {"id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
            assert "result" in _answer(process)
            _line(process, {"id": 2, "method": "session/new", "params": {"cwd": str(work), "mcpServers": []}})
            session = _answer(process)["result"]["sessionId"]
            prompt = {"sessionId": session, "prompt": [{"type": "text", "text": "talk a lot"}]}
            _line(process, {"id": 3, "method": "session/prompt", "params": prompt})
            # From here the editor reads nothing more (and keeps its input open): bastion must end.
            code = _ended(process)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    assert code == 1
    said = stderr_of(tmp_path)
    assert "the editor read nothing of bastion's output for 1 s (--write-timeout)" in said
    assert "Traceback" not in said
    events = session_events(tmp_path)
    (lost,) = [e for e in events if e["type"] == "editor_lost"]
    assert "--write-timeout" in lost["reason"]
    assert any(e["type"] == "message" and e["message"].get("text") == "talk a lot" for e in events)
    # The record is whole: its chain holds and every request rebuilds.
    verified = run_bounded(
        [sys.executable, "-m", "bastion", "sessions", "verify", session],
        "bastion sessions verify",
        env={**os.environ, **acp_env(tmp_path)},
        cwd=work,
        capture_output=True,
        text=True,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
