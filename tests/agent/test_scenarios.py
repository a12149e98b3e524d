"""Contract scenarios (scenarios/*.json) run through the real CLI entry against the scripted server,
with the real policy and tools: what ran, what was decided, what the model saw, the files after, the
JSON outcome and the exit status."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .agent_fixtures import SLOW, gone, run_main, wait_for_pid
from .scripted_server import ScriptedServer

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.json"))
SECRET = "sk-scripted-SECRET-0001"
FORMATS = {
    "chat": ["--provider", "openai"],
    "responses": ["--provider", "openresponses", "--model", "scripted", "--api-key-env", "SCRIPTED_KEY"],
    "anthropic": ["--provider", "anthropic"],
}


def _cases() -> list[Any]:
    return [
        pytest.param(path, fmt, id=f"{path.stem}-{fmt}")
        for path in SCENARIOS
        for fmt in json.loads(path.read_text()).get("formats", list(FORMATS))
    ]


def _env(tmp: Path) -> dict[str, str]:
    return {
        "BASTION_HOME": str(tmp / "home" / ".bastion"),
        "HOME": str(tmp / "home"),
        "XDG_CONFIG_HOME": str(tmp / "xdg"),
        "OPENAI_API_KEY": SECRET,
        "ANTHROPIC_API_KEY": SECRET,
        "SCRIPTED_KEY": SECRET,
        "BASTION_RETRY_CAP": "0.01",
        "GIT_CONFIG_NOSYSTEM": "1",
    }


def _workspace(tmp: Path, scenario: dict[str, Any]) -> Path:
    work = tmp / "work"
    work.mkdir()
    for name, content in scenario.get("files", {}).items():
        (work / name).parent.mkdir(parents=True, exist_ok=True)
        (work / name).write_text(content)
    if scenario.get("git"):
        subprocess.run(["git", "init", "-q", str(work)], check=True, env={**os.environ, **_env(tmp)})
    return work


def _session_events(tmp: Path) -> list[dict[str, Any]]:
    (path,) = (tmp / "home" / ".bastion" / "sessions").glob("*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines()]


def _verdicts(events: list[dict[str, Any]]) -> list[str]:
    out = []
    for e in events:
        if e["type"] == "call_error":
            out.append("error")
        elif e["type"] == "verdict":
            if e["decision"] == "ask":
                out.append(f"ask:{e['answered_by']}:{'allowed' if e['allowed'] else 'refused'}")
            else:
                out.append(e["decision"])
    return out


def _base_url(server: ScriptedServer, fmt: str) -> str:
    return server.url if fmt == "anthropic" else server.url + "/v1"


@pytest.mark.parametrize(("path", "fmt"), _cases())
def test_a_scenario_runs_as_its_file_says(path: Path, fmt: str, tmp_path: Path) -> None:
    scenario = json.loads(path.read_text())
    expect = scenario["expect"]
    work = _workspace(tmp_path, scenario)
    with ScriptedServer(scenario["rounds"]) as server:
        argv = [
            "-p",
            scenario.get("prompt", "do the task"),
            "--output-format",
            "json",
            "--base-url",
            _base_url(server, fmt),
            *FORMATS[fmt],
            *scenario.get("argv", []),
        ]
        code, out, err = run_main(argv, cwd=str(work), env=_env(tmp_path), stdin=scenario.get("stdin", ""))
    doc = json.loads(out)
    assert code == expect["exit"], err
    assert doc["schema_version"] == 1
    outcome = doc["outcome"]
    assert (outcome["status"] if outcome["status"] == "completed" else outcome["failure"]["kind"]) == expect[
        "status"
    ]
    for key, value in expect.get("failure", {}).items():
        assert outcome["failure"][key] == value, key
    if "result" in expect:
        assert doc["result"] == expect["result"]
    if "denials" in expect:
        assert len(doc["permission_denials"]) == len(expect["denials"])
        for got, want in zip(doc["permission_denials"], expect["denials"], strict=True):
            assert {k: got[k] for k in want} == want
    for key, value in expect.get("usage", {}).items():
        assert doc["usage"][key] == value, key
    if "requests" in expect:
        assert len(server.requests) == expect["requests"]
    events = _session_events(tmp_path)
    if "tools" in expect:
        assert [e["tool"] for e in events if e["type"] in ("verdict", "call_error")] == expect["tools"]
    if "verdicts" in expect:
        assert _verdicts(events) == expect["verdicts"]
    for name, content in expect.get("files", {}).items():
        assert ((work / name).read_text() if (work / name).exists() else None) == content
    last = json.dumps(server.requests[-1]["body"])
    for text in expect.get("model_saw", []):
        assert text in last
    # The key went to the server in a header, and nowhere else.
    assert any(SECRET in json.dumps(r["headers"]) for r in server.requests)
    session_text = "\n".join(json.dumps(e) for e in events)
    for where in (out, err, session_text, *(json.dumps(r["body"]) for r in server.requests)):
        assert SECRET not in where


def test_ctrl_c_mid_tool_kills_the_command_interrupts_the_call_and_exits_10(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {})
    rounds = [
        {"calls": [{"name": "bash", "arguments": {"command": SLOW}, "id": "slow"}]},
        {"text": "late"},
    ]
    with ScriptedServer(rounds) as server:
        argv = [
            "-p",
            "wait",
            "--output-format",
            "json",
            "--base-url",
            server.url + "/v1",
            "--provider",
            "openai",
        ]
        proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys; from bastion.agent import main; sys.exit(main(sys.argv[1:]))",
                *argv,
            ],
            cwd=work,
            env={**os.environ, **_env(tmp_path)},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdin is not None
        proc.stdin.write("y\n")
        proc.stdin.flush()
        pid = wait_for_pid(work)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    assert proc.returncode == 10, err
    assert gone(pid), "the command's process group outlived the agent"
    assert not (work / "never").exists()
    assert json.loads(out)["outcome"]["failure"]["kind"] == "cancelled"
    results = [
        e["message"]
        for e in _session_events(tmp_path)
        if e["type"] == "message" and e["message"]["role"] == "tool_result"
    ]
    assert [r["call_id"] for r in results] == ["slow"] and results[0]["content"].startswith("interrupted")
    assert len(server.requests) == 1
