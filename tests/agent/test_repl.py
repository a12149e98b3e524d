"""The REPL in a pseudo-terminal: a question answered on the next line, slash commands, leaving."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect

from .scripted_server import ScriptedServer
from .test_scenarios import _env, _session_events


def _spawn(tmp: Path, url: str, *extra: str) -> pexpect.spawn:
    work = tmp / "work"
    work.mkdir(exist_ok=True)
    env = {**os.environ, **_env(tmp), "PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm"}
    code = "import sys; from bastion.agent import main; sys.exit(main(sys.argv[1:]))"
    return pexpect.spawn(
        sys.executable,
        ["-c", code, "--provider", "openai", "--base-url", url + "/v1", *extra],
        cwd=str(work),
        env=env,
        encoding="utf-8",
        timeout=20,
        dimensions=(40, 200),
    )


def test_the_repl_asks_streams_runs_commands_and_quits(tmp_path: Path) -> None:
    rounds = [
        {"calls": [{"name": "write", "arguments": {"path": "out.txt", "content": "hi\n"}}]},
        {"text": "Written it."},
        {"text": "slash sent"},
    ]
    with ScriptedServer(rounds) as server:
        child = _spawn(tmp_path, server.url)
        child.expect("/help for commands")
        child.sendline("/nope")
        child.expect("unknown command /nope")
        child.sendline("write out.txt")
        child.expect(r"\? allow write .*out\.txt.* \[y/N\]")
        child.sendline("y")
        child.expect("Written it.")
        child.sendline("//etc/hosts")
        child.expect("slash sent")
        child.sendline("/model other-model")
        child.expect("model: other-model")
        child.sendline("/session")
        child.expect(r"session (\d{8}-\d{6}-[0-9a-f]{6})")
        session_id = child.match.group(1)
        child.sendline("/quit")
        child.expect(f"bastion --resume {session_id}")
        child.expect(pexpect.EOF)
        child.close()
    assert child.exitstatus == 0
    assert (tmp_path / "work" / "out.txt").read_text() == "hi\n"
    assert server.requests[2]["body"]["messages"][-1] == {"role": "user", "content": "/etc/hosts"}
    assert server.requests[2]["body"]["model"] == "gpt-5"
    verdicts = [e for e in _session_events(tmp_path) if e["type"] == "verdict"]
    assert verdicts[0]["answered_by"] == "person" and verdicts[0]["allowed"] is True
