"""The harness of `make integration` without the CLIs: the scripted model speaks each wire format, holds the
call until its result is in the conversation, records what came back; without node every cell is skipped."""

from __future__ import annotations

import gzip
import json
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

import integration.__main__ as runner
from integration.agents import documented_matcher
from integration.model_server import FINAL_TEXT, SIDE_TEXT, ModelServer, ToolCall
from integration.proxy_sink import ProxySink
from integration.scenarios import SCENARIOS
from tests.waits import PATIENCE


def _post(url: str, body: dict[str, Any]) -> str:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=PATIENCE) as answer:
        text: str = answer.read().decode()
        return text


def _sse_data(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[len("data: ") :]) for line in text.splitlines() if line.startswith("data: ")]


def test_anthropic_stream_holds_the_call_until_its_result_comes_back() -> None:
    call = ToolCall("Bash", {"command": "git status"})
    with ModelServer(call) as server:
        url = server.url + "/v1/messages?beta=true"
        first = _sse_data(_post(url, {"stream": True, "tools": [{"name": "Bash"}], "messages": []}))
        started = [e["content_block"] for e in first if e["type"] == "content_block_start"]
        assert started == [{"type": "tool_use", "id": call.call_id, "name": "Bash", "input": {}}]
        deltas = [e["delta"]["partial_json"] for e in first if e["type"] == "content_block_delta"]
        assert json.loads("".join(deltas)) == {"command": "git status"}
        result = {"type": "tool_result", "tool_use_id": call.call_id, "content": "nothing to commit"}
        second = _sse_data(
            _post(url, {"stream": True, "tools": [{}], "messages": [{"role": "user", "content": [result]}]})
        )
        texts = [e["delta"].get("text") for e in second if e["type"] == "content_block_delta"]
        assert texts == [FINAL_TEXT]
        assert server.tool_results() == [("nothing to commit", False)]


def test_anthropic_side_request_without_tools_gets_text_not_the_call() -> None:
    with ModelServer(ToolCall("Bash", {"command": "rm -rf /"})) as server:
        reply = json.loads(_post(server.url + "/v1/messages", {"messages": [], "max_tokens": 5}))
        assert reply["content"] == [{"type": "text", "text": SIDE_TEXT}]


def test_responses_sends_a_freeform_call_and_records_its_output() -> None:
    call = ToolCall("apply_patch", freeform="*** Begin Patch\n*** End Patch\n")
    with ModelServer(call) as server:
        url = server.url + "/v1/responses"
        events = _sse_data(_post(url, {"stream": True, "tools": [{"type": "custom"}], "input": []}))
        done = [e["item"] for e in events if e["type"] == "response.output_item.done"]
        assert done[0]["type"] == "custom_tool_call"
        assert done[0]["input"] == call.freeform
        assert events[-1]["type"] == "response.completed"
        output = {"type": "custom_tool_call_output", "call_id": call.call_id, "output": "blocked"}
        final = _sse_data(_post(url, {"stream": True, "tools": [{}], "input": [output]}))
        assert any(e.get("delta") == FINAL_TEXT for e in final)
        assert server.tool_results() == [("blocked", False)]


def test_gemini_answers_a_json_side_request_in_its_schema() -> None:
    schema = {
        "type": "OBJECT",
        "properties": {"why": {"type": "STRING"}, "score": {"type": "INTEGER"}},
        "required": ["why", "score"],
    }
    with ModelServer(ToolCall("run_shell_command", {"command": "ls"})) as server:
        url = server.url + "/v1beta/models/m:generateContent"
        config = {"responseMimeType": "application/json", "responseJsonSchema": schema}
        reply = json.loads(_post(url, {"contents": [], "generationConfig": config}))
        text = reply["candidates"][0]["content"]["parts"][0]["text"]
        assert json.loads(text) == {"why": "scripted", "score": 1}


def test_gemini_stream_sends_the_call_then_the_final_text() -> None:
    with ModelServer(ToolCall("run_shell_command", {"command": "ls"})) as server:
        url = server.url + "/v1beta/models/m:streamGenerateContent?alt=sse"
        tools = [{"functionDeclarations": [{"name": "run_shell_command"}]}]
        first = _sse_data(_post(url, {"contents": [], "tools": tools}))
        part = first[0]["candidates"][0]["content"]["parts"][0]
        assert part["functionCall"]["name"] == "run_shell_command"
        answered = {"functionResponse": {"name": "run_shell_command", "response": {"error": "blocked"}}}
        second = _sse_data(_post(url, {"contents": [{"role": "user", "parts": [answered]}], "tools": tools}))
        assert second[0]["candidates"][0]["content"]["parts"] == [{"text": FINAL_TEXT}]
        assert server.tool_results() == [("blocked", True)]


def test_a_secret_is_seen_even_when_json_escapes_it() -> None:
    secret = 'tok"en\\1'
    with ModelServer(ToolCall("Bash")) as server:
        _post(server.url + "/v1/messages", {"messages": [{"role": "user", "content": f"x {secret} y"}]})
        assert server.ever_sent(secret)
        assert not server.ever_sent("another")


def test_without_node_every_cell_is_skipped_with_the_reason(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("shutil.which", lambda name: None)
    assert runner.main([]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if " | " in line and not line.startswith("scenario")]
    assert len(rows) == len(SCENARIOS)
    assert all([cell.strip() for cell in row.split("|")][1:] == ["skip"] * 3 for row in rows)
    assert "node and npm are not installed" in out
    assert "no failure" in out


def test_a_failed_install_skips_every_cell_with_npm_s_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    npm = tmp_path / "npm"
    npm.write_text("#!/bin/sh\necho 'npm error network request to the registry failed' >&2\nexit 1\n")
    npm.chmod(0o755)
    monkeypatch.setattr(runner, "STAMP", tmp_path / "never-installed")
    monkeypatch.setattr("shutil.which", lambda name: str(npm) if name == "npm" else "/usr/bin/node")
    assert runner.main(["--bastion", sys.executable]) == 0
    out = capsys.readouterr().out
    assert "npm ci failed (exit 1): npm error network request to the registry failed" in out
    assert "not installed" in out and "no failure" in out


def test_a_request_it_cannot_read_counts_as_having_sent_the_secret() -> None:
    with ModelServer(ToolCall("Bash")) as server:
        request = urllib.request.Request(
            server.url + "/v1/responses",
            data=b"\x28\xb5\x2f\xfd compressed",
            headers={"content-type": "application/json", "content-encoding": "zstd"},
            method="POST",
        )
        with pytest.raises(urllib.error.HTTPError):
            urllib.request.urlopen(request, timeout=PATIENCE)
        assert server.ever_sent("anything at all")


def test_a_gzip_request_is_read() -> None:
    with ModelServer(ToolCall("Bash")) as server:
        body = gzip.compress(json.dumps({"messages": [{"role": "user", "content": "the secret"}]}).encode())
        request = urllib.request.Request(
            server.url + "/v1/messages",
            data=body,
            headers={"content-type": "application/json", "content-encoding": "gzip"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=PATIENCE) as answer:
            assert json.loads(answer.read())["content"] == [{"type": "text", "text": SIDE_TEXT}]
        assert server.ever_sent("the secret") and not server.ever_sent("another")


def test_the_proxy_sink_refuses_and_records_what_a_cli_reaches_for() -> None:
    with ProxySink() as sink:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": sink.url}))
        with pytest.raises(urllib.error.HTTPError) as refused:
            opener.open("http://telemetry.example.invalid/v1/events", timeout=PATIENCE)
        assert refused.value.code == 403
        assert sink.attempts == ["GET http://telemetry.example.invalid/v1/events"]


def test_the_hooks_run_with_the_matchers_the_docs_show() -> None:
    matchers = {agent: documented_matcher(agent) for agent in ("claude-code", "codex", "gemini")}
    assert "Bash" in matchers["claude-code"].split("|")
    assert set(matchers["codex"].split("|")) >= {"Bash", "apply_patch"}
    assert "run_shell_command" in matchers["gemini"].split("|")
