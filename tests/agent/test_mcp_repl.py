"""/mcp in the REPL (a pseudo-terminal): each server, its state and its tools; an MCP call asked and
answered on the next line."""

from __future__ import annotations

import sys
from pathlib import Path

import pexpect

from tests.waits import PATIENCE

from .scripted_server import ScriptedServer
from .test_mcp_client import SERVER
from .test_repl import _spawn


def test_slash_mcp_lists_the_servers_their_state_and_tools_and_a_call_is_asked(tmp_path: Path) -> None:
    config = tmp_path / "xdg" / "bastion" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        f'[mcp.servers.docs]\ncommand = "{sys.executable}"\nargs = ["{SERVER}", "stdio"]\n'
        f'[mcp.servers.gone]\ncommand = "{sys.executable}"\nargs = ["{SERVER}", "exit"]\n'
    )
    rounds: list[dict[str, object]] = [
        {"calls": [{"name": "mcp__docs__echo", "arguments": {"text": "from the model"}}]},
        {"text": "The server echoed."},
    ]
    with ScriptedServer(rounds) as server:
        child = _spawn(tmp_path, server.url)
        child.expect("/help for commands", timeout=PATIENCE)
        child.sendline("/mcp")
        child.expect(r"docs \(stdio\): ready")
        child.expect("mcp__docs__echo")
        child.expect(r"gone \(stdio\): failed: its connection closed; it said: test server: cannot start")
        child.sendline("echo it")
        child.expect("text: from the model")
        child.expect(r"allow mcp__docs__echo\? \[y/n/a")
        child.sendline("y")
        child.expect("The server echoed.")
        child.sendline("/quit")
        child.expect(pexpect.EOF)
        child.close()
    assert child.exitstatus == 0
    assert "echo: from the model" in str(server.requests[-1]["body"])
