"""Nothing that decides crosses to the executor: the model's key is not in what the session sends,
nor in the environment the executor or its commands get (even when pass_env names it), the stamp's
key never crosses (a command carries the facts it was decided on and their digest only), and
nothing of the session's record does (a whole session's frames looked at)."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

from bastion.agent.tools import open_workspace
from bastion.analyzer import Stamper, analyze
from bastion.workspace import ExecRequest, ExecutorWorkspace
from tests.agent.agent_fixtures import run_main
from tests.agent.scripted_server import ScriptedServer

CANARY = "sk-ant-canary-5b9e0f1d2c3a"


def test_the_executor_never_receives_a_key_or_the_stamp_key(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.txt").write_text("alpha\n")
    sent = tmp_path / "sent.log"
    # The transport: a shell that keeps a copy of every frame the session sends.
    argv = [
        "sh",
        "-c",
        'tee "$1" | exec "$2" -m bastion execute "$3"',
        "sh",
        str(sent),
        sys.executable,
        str(root),
    ]
    environ = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(tmp_path),
        "ANTHROPIC_API_KEY": CANARY,
        "MY_TOKEN": "tok-" + CANARY,
    }
    ws = open_workspace(
        argv, str(root), environ, ["ANTHROPIC_API_KEY"], ["ANTHROPIC_API_KEY"], ["ANTHROPIC_API_KEY"]
    )
    assert isinstance(ws, ExecutorWorkspace)
    try:
        stamper = Stamper()
        analysis = analyze("cat a.txt", ws, ".")
        stamp = stamper.plan_stamp(analysis, ws)
        facts = stamper.verify_plan(stamp, analysis, ws)
        assert analysis.rendered is not None and facts is not None
        ran = ws.exec(ExecRequest(["bash", "-c", analysis.rendered], env=ws.env(), facts=facts))
        assert ran.output == b"alpha\n"
        seen = ws.exec(
            ExecRequest(["sh", "-c", 'env; tr "\\0" "\\n" < /proc/$PPID/environ'], env=ws.env())
        ).output.decode()
    finally:
        ws.close()
    assert "HOME=" in seen and CANARY not in seen
    assert "MY_TOKEN" not in seen and "ANTHROPIC_API_KEY" not in seen
    frames = sent.read_text()
    assert '"op":"exec"' in frames and facts.digest in frames
    key = stamper._key  # the test reads the key only to look for it in what crossed
    for form in (key.hex(), key.hex().upper(), __import__("base64").b64encode(key).decode()):
        assert form not in frames
    assert CANARY not in frames and "ANTHROPIC_API_KEY" not in frames
    assert stamp is not None and stamp not in frames


def test_a_session_through_an_executor_sends_no_key_and_nothing_of_its_record(tmp_path: Path) -> None:
    """A -p session with a command, a read and an MCP server on the executor: every frame the
    session sent is kept, and neither the model's key (named by the server's pass_env too) nor the
    session's record (its id, its path, its prompt, any of its lines' chain) is in them."""
    here, there = tmp_path / "here", tmp_path / "elsewhere" / "root"
    here.mkdir()
    there.mkdir(parents=True)
    (there / "a.txt").write_text("alpha\n")
    sent = tmp_path / "sent.log"
    config = tmp_path / "xdg" / "bastion" / "config.toml"
    config.parent.mkdir(parents=True)
    server_py = Path(__file__).resolve().parents[1] / "agent" / "mcp_server.py"
    config.write_text(
        f"[mcp.servers.docs]\ncommand = {json.dumps(sys.executable)}\n"
        f'args = [{json.dumps(str(server_py))}, "stdio"]\npass_env = ["OPENAI_API_KEY"]\n'
        '[policy]\nallow = ["mcp(docs:*)"]\n'
    )
    prompt = "prompt-canary-7c1d9e"
    rounds = [
        {"calls": [{"name": "bash", "arguments": {"command": "cat a.txt"}}]},
        {"calls": [{"name": "read", "arguments": {"path": "a.txt"}}]},
        {"calls": [{"name": "mcp__docs__echo", "arguments": {"text": "hi"}}]},
        {"text": "done"},
    ]
    transport = ["sh", "-c", 'tee "$1" | exec "$2" -m bastion execute "$3"', "sh", str(sent)]
    transport += [sys.executable, str(there)]
    env = {
        "BASTION_HOME": str(tmp_path / "h" / ".bastion"),
        "HOME": str(tmp_path / "h"),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "OPENAI_API_KEY": CANARY,
        "BASTION_RETRY_CAP": "0.01",
    }
    with ScriptedServer(rounds) as server:
        argv = ["-p", prompt, "--output-format", "json", "--provider", "openai"]
        argv += ["--base-url", server.url + "/v1", "--executor", shlex.join(transport)]
        code, _, err = run_main(argv, cwd=str(here), env=env)
    assert code == 0, err
    frames = sent.read_text()
    assert '"op":"exec"' in frames and '"op":"read"' in frames and '"op":"spawn"' in frames
    (record,) = (tmp_path / "h" / ".bastion" / "sessions").glob("*.jsonl")
    events = [json.loads(line) for line in record.read_text().splitlines()]
    assert CANARY not in frames and "OPENAI_API_KEY" not in frames
    assert prompt not in frames and record.stem not in frames and str(record.parent) not in frames
    assert not [e["chain"] for e in events if e["chain"] in frames]
