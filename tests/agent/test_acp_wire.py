"""`bastion acp` fed raw lines, as a broken or hostile client would send them: every bad line gets a
JSON-RPC error and the stream goes on, nothing but JSON-RPC ever reaches standard output, no
traceback reaches standard error; and started as the docs say an editor starts it, it works."""

from __future__ import annotations

import json
import os
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from tests.waits import PATIENCE

from .acp_editor import Editor, acp_env, editor_session, prompt, run, stderr_of
from .scripted_server import ScriptedServer
from .test_scenarios import SECRET

ROOT = Path(__file__).resolve().parents[2]


class Raw:
    """bastion acp over two pipes, a line at a time."""

    def __init__(self, tmp: Path) -> None:
        (tmp / "work").mkdir(exist_ok=True)
        self.err = open(tmp / "acp.err", "w")  # noqa: SIM115 - closed in close()
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bastion",
                "acp",
                "--provider",
                "openai",
                "--base-url",
                "http://127.0.0.1:9/v1",
            ],
            cwd=tmp / "work",
            env={**os.environ, **acp_env(tmp)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.err,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(b"")

    def send(self, line: str | dict[str, Any]) -> dict[str, Any]:
        """Send a line; the message it is answered with (every line on stdout must be JSON-RPC)."""
        assert self.process.stdin is not None
        text = line if isinstance(line, str) else json.dumps(line)
        self.process.stdin.write(text.encode() + b"\n")
        self.process.stdin.flush()
        try:
            answer = self.lines.get(timeout=PATIENCE)
        except queue.Empty:
            raise AssertionError(f"waited {PATIENCE:g} s for an answer to {text[:80]!r}") from None
        assert answer, f"bastion acp ended instead of answering {text[:80]!r}"
        message = json.loads(answer)
        assert message["jsonrpc"] == "2.0"
        return dict(message)

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        code = self.process.wait(timeout=PATIENCE)
        self.err.close()
        return code


def _error(message: dict[str, Any]) -> tuple[object, int, str]:
    return message["id"], message["error"]["code"], message["error"]["message"]


def test_bad_lines_each_get_an_error_and_the_stream_goes_on(tmp_path: Path) -> None:
    raw = Raw(tmp_path)
    try:
        assert _error(raw.send("this is not json"))[:2] == (None, -32700)
        assert _error(raw.send('{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {'))[:2] == (
            None,
            -32700,
        )
        assert _error(raw.send("[" * 300 + "]" * 300))[:2] == (None, -32700)  # nested too deep
        assert _error(raw.send("[1, 2]"))[:2] == (None, -32600)  # a batch
        assert _error(raw.send('"just a string"'))[:2] == (None, -32600)
        assert _error(raw.send({"id": 2, "method": "initialize"}))[:2] == (2, -32600)  # no "jsonrpc"
        assert _error(raw.send({"jsonrpc": "2.0", "id": 3, "method": 7}))[:2] == (3, -32600)
        assert _error(raw.send({"jsonrpc": "2.0", "id": 4, "method": "no/such/method", "params": {}}))[
            :2
        ] == (
            4,
            -32601,
        )
        early = raw.send(
            {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "session/prompt",
                "params": {"sessionId": "x", "prompt": []},
            }
        )
        assert _error(early)[:2] == (5, -32600) and "initialize first" in _error(early)[2]
        ready = raw.send(
            {"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"protocolVersion": 1}}
        )
        assert ready["result"]["protocolVersion"] == 1 and ready["result"]["agentCapabilities"]["loadSession"]
        missing = raw.send({"jsonrpc": "2.0", "id": 8, "method": "session/new", "params": {}})
        assert _error(missing)[:2] == (8, -32602) and "cwd" in json.dumps(missing["error"]["data"])
        here = {"cwd": "work", "mcpServers": []}
        relative = raw.send({"jsonrpc": "2.0", "id": 9, "method": "session/new", "params": here})
        assert _error(relative)[1] == -32602 and "absolute" in _error(relative)[2]
        nowhere = {"cwd": str(tmp_path / "missing"), "mcpServers": []}
        assert (
            _error(raw.send({"jsonrpc": "2.0", "id": 10, "method": "session/new", "params": nowhere}))[1]
            == -32602
        )
        unknown = {"sessionId": "nope", "prompt": [{"type": "text", "text": "hi"}]}
        assert (
            _error(raw.send({"jsonrpc": "2.0", "id": 11, "method": "session/prompt", "params": unknown}))[1]
            == -32602
        )
    finally:
        code = raw.close()
    assert code == 0
    err = stderr_of(tmp_path)
    assert "Traceback" not in err
    assert re.search(r"refused a line: Parse error", err)


def test_a_config_that_cannot_be_used_is_the_request_s_error_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "work" / ".bastion").mkdir(parents=True)
    (tmp_path / "work" / ".bastion" / "config.toml").write_text('[policy]\nallow = ["bash"]\n')
    raw = Raw(tmp_path)
    try:
        raw.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
        params = {"cwd": str(tmp_path / "work"), "mcpServers": []}
        answer = raw.send({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": params})
    finally:
        assert raw.close() == 0
    code, words = _error(answer)[1:]
    assert code == -32603 and ".bastion/config.toml" in words
    assert "Traceback" not in stderr_of(tmp_path)


def _zed_settings() -> dict[str, Any]:
    """The agent_servers block docs/integrations.md tells Zed's users to add, as written there."""
    text = (ROOT / "docs" / "integrations.md").read_text()
    block = re.search(r"```json\n(\{\s*\"agent_servers\".*?)```", text, re.S)
    assert block is not None, "docs/integrations.md shows no agent_servers block"
    return dict(json.loads(block.group(1))["agent_servers"]["bastion"])


def _user_config() -> str:
    """The config docs/integrations.md gives for an editor's bastion, as written there."""
    text = (ROOT / "docs" / "integrations.md").read_text()
    block = re.search(r"```toml\n# ~/.config/bastion/config.toml\n(.*?)```", text, re.S)
    assert block is not None, "docs/integrations.md shows no config for the editor"
    return block.group(1)


def test_started_as_the_docs_say_zed_starts_it_it_works_first_time(tmp_path: Path) -> None:
    zed = _zed_settings()
    assert zed["type"] == "custom"
    config = _user_config()
    # Zed offers its file system: the read goes through it, to the person's unsaved buffer.
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("on disk\n")
    editor = Editor(buffers={str(work / "notes.txt"): "in the buffer\n"})
    read = {"name": "read", "arguments": {"path": "notes.txt"}}

    async def body() -> str:
        async with editor_session(
            tmp_path, server.url, editor, env=env, argv=[zed["command"], *zed["args"]]
        ) as (conn, session, _):
            return await prompt(conn, session, "hello")

    with ScriptedServer([{"calls": [read]}, {"text": "Hello from bastion."}]) as server:
        # A fresh HOME holding only the documented config (where the docs put it: no XDG_CONFIG_HOME,
        # no BASTION_HOME), the key in the environment Zed was started in, the scripted model as the
        # server; beside them only what the SDK passes on as Zed does (PATH, HOME, USER, SHELL...).
        home = tmp_path / "home"
        (home / ".config" / "bastion").mkdir(parents=True)
        documented = re.sub(r'base_url = ".*"', f'base_url = "{server.url}/v1"', config)
        (home / ".config" / "bastion" / "config.toml").write_text(documented)
        path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', os.defpath)}"
        env = {"HOME": str(home), "PATH": path, "OPENAI_API_KEY": SECRET, **zed.get("env", {})}
        assert run(body) == "end_turn"
        told = server.requests[1]["body"]["messages"][-1]["content"]
        assert server.requests[0]["body"]["model"] == "gpt-5"  # the documented config's model
    assert editor.text() == "Hello from bastion."
    assert "in the buffer" in told
    assert "Traceback" not in stderr_of(tmp_path)
    assert list((home / ".bastion" / "sessions").glob("*.jsonl"))  # recorded where a session is
