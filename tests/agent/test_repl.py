"""The REPL in a pseudo-terminal: a question answered on the next line, slash commands, leaving."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect

from tests.waits import PATIENCE

from .scripted_server import ScriptedServer
from .test_scenarios import _env, _session_events


def _spawn(tmp: Path, url: str, *extra: str) -> pexpect.spawn:
    work = tmp / "work"
    work.mkdir(exist_ok=True)
    env = {**os.environ, **_env(tmp), "PROMPT_TOOLKIT_NO_CPR": "1", "TERM": "xterm"}
    code = "import sys; from bastion.agent import main; sys.exit(main(sys.argv[1:]))"
    return pexpect.spawn(
        sys.executable,
        ["-c", code, "--front", "repl", "--provider", "openai", "--base-url", url + "/v1", *extra],
        cwd=str(work),
        env=env,
        encoding="utf-8",
        timeout=PATIENCE,
        dimensions=(40, 200),
    )


def test_the_repl_asks_streams_runs_commands_and_quits(tmp_path: Path) -> None:
    rounds: list[dict[str, object]] = [
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
        child.expect(r"new file out\.txt \(3 bytes, 1 lines\)")
        child.expect(r"\+hi")
        child.expect(r"allow write\? \[y/n/a")
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


def test_a_allows_the_exact_call_for_the_session_and_permissions_lists_and_drops_it(tmp_path: Path) -> None:
    write = {"name": "bash", "arguments": {"command": "touch made.txt"}}
    rounds = [{"calls": [write]}, {"text": "first done"}, {"calls": [write]}, {"text": "second done"}]
    with ScriptedServer(rounds) as server:
        child = _spawn(tmp_path, server.url)
        child.expect("/help for commands")
        child.sendline("/permissions")
        child.expect("no calls allowed for this session")
        child.sendline("make it")
        child.expect(r"\$ touch made\.txt")
        child.expect(r"allow bash\? \[y/n/a")
        child.sendline("a")
        child.expect("first done")
        child.sendline("again")
        child.expect(r"touch made\.txt \(allowed for this session\)")
        child.expect("second done")
        child.sendline("/permissions")
        child.expect(r"1\. bash \{\"command\": \"touch made\.txt\"\}")
        child.sendline("/permissions drop 1")
        child.expect("dropped: bash")
        child.sendline("/cost")
        child.expect(r"4 replies: \d+ input, \d+ output")
        child.sendline("/quit")
        child.expect(pexpect.EOF)
        child.close()
    events = _session_events(tmp_path)
    rules = [e for e in events if e["type"].startswith("session_rule")]
    assert [(e["type"], e["tool"]) for e in rules] == [
        ("session_rule", "bash"),
        ("session_rule_dropped", "bash"),
    ]
    verdicts = [e["answered_by"] for e in events if e["type"] == "verdict"]
    assert verdicts == ["person", "session rule"]
    history = (tmp_path / "home" / ".bastion" / "history").read_text()
    assert "make it" in history and "\n+a\n" not in history  # answers stay out of the history
    assert (tmp_path / "home" / ".bastion" / "history").stat().st_mode & 0o777 == 0o600


def test_ctrl_c_clears_a_half_typed_line_and_twice_on_an_empty_line_leaves(tmp_path: Path) -> None:
    with ScriptedServer([{"text": "answered"}]) as server:
        child = _spawn(tmp_path, server.url)
        child.expect("/help for commands")
        child.send("half typed")
        child.sendcontrol("c")
        child.sendline("/cost")  # the half-typed words are gone: the line is a command
        child.expect("0 replies")
        child.send("/permi\t")
        child.sendline("")
        child.expect("no calls allowed for this session")
        child.expect(">")  # the prompt is back: Ctrl-C now reaches the line editor
        child.sendcontrol("c")
        child.expect("Ctrl-C again")
        child.expect(">")
        child.sendcontrol("c")
        child.expect("bastion --resume")
        child.expect(pexpect.EOF)
        child.close()
    assert child.exitstatus == 0
