"""Contract scenarios (scenarios/*.json) run through the real CLI entry against the scripted server,
with the real policy and tools: what ran, what was decided, what the model saw, the files after, the
JSON outcome and the exit status."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from tests.waits import PATIENCE, until

from .agent_fixtures import SLOW, gone, run_main, wait_for_pid
from .google_adc import private_key, vertex_env
from .scripted_server import ScriptedServer

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*.json"))
SECRET = "sk-scripted-SECRET-0001"
# Each wire format, and the provider that speaks it. vertex is two: Claude (Messages over
# streamRawPredict) and Gemini (streamGenerateContent), with the access token its credentials get.
FORMATS = {
    "chat": ["--provider", "openai"],
    "responses": ["--provider", "openresponses", "--model", "scripted", "--api-key-env", "SCRIPTED_KEY"],
    "anthropic": ["--provider", "anthropic"],
    "gemini": ["--provider", "gemini"],
    "vertex-claude": ["--provider", "vertex"],
    "vertex-gemini": ["--provider", "vertex", "--model", "gemini-2.5-pro"],
}
# The formats whose --base-url is the server's root (the SDK or bastion adds the version).
_ROOT_URL = ("anthropic", "gemini", "vertex-claude", "vertex-gemini")
# A scenario's sub-agent model, as each format names it: on vertex the other family's.
SUBAGENT_MODEL = {"vertex-claude": "gemini-2.5-flash", "vertex-gemini": "claude-haiku-4-5"}


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
        "GEMINI_API_KEY": SECRET,
        "SCRIPTED_KEY": SECRET,
        "BASTION_RETRY_CAP": "0.01",
        "GIT_CONFIG_NOSYSTEM": "1",
    }


# A scenario's "config" is the user's config file; {python} and {mcp_server} name this Python and
# the test MCP server (mcp_server.py).
MCP_SERVER = Path(__file__).with_name("mcp_server.py")


def _workspace(tmp: Path, scenario: dict[str, Any], work: Path | None = None) -> Path:
    """The scenario's files in `work` (default: tmp/work), its config the user's."""
    work = work or tmp / "work"
    work.mkdir(parents=True)
    if "config" in scenario:
        config = tmp / "xdg" / "bastion" / "config.toml"
        config.parent.mkdir(parents=True, exist_ok=True)
        # A config a caller wrote first (a harness test's tables) goes after the scenario's keys.
        before = config.read_text() if config.exists() else ""
        text = "\n".join(scenario["config"]) + "\n"
        text = text.replace("{python}", sys.executable).replace("{mcp_server}", str(MCP_SERVER))
        config.write_text(text + before)
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


def _task_lines(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lines a sub-agent's events were recorded as, each checked to name a task call of the parent."""
    asked = {
        c["id"]
        for e in events
        if e["type"] == "message" and e["message"]["role"] == "assistant"
        for c in e["message"]["calls"]
        if c["name"] == "task"
    }
    lines = [e for e in events if e["type"] == "task"]
    assert all(e["parent_call_id"] in asked for e in lines)
    return lines


def _offered(body: dict[str, Any]) -> list[str]:
    """The tool names a request offered, in any of the wire formats."""
    tools = body.get("tools", [])
    if tools and "functionDeclarations" in tools[0]:
        return [t["name"] for t in tools[0]["functionDeclarations"]]
    return [t.get("name") or t["function"]["name"] for t in tools]


def _check_tasks(
    expect: dict[str, Any], events: list[dict[str, Any]], server: ScriptedServer, err: str
) -> None:
    lines = _task_lines(events)
    if "task_verdicts" in expect:
        assert _verdicts([{**e, "type": e["event"]} for e in lines]) == expect["task_verdicts"]
    if "task_ends" in expect:
        assert [e["status"] for e in lines if e["event"] == "end"] == expect["task_ends"]
    for index, names in expect.get("offered", {}).items():
        assert _offered(server.requests[int(index)]["body"]) == names, index
    for index, texts in expect.get("saw", {}).items():
        body = json.dumps(server.requests[int(index)]["body"])
        for text in texts:
            assert text in body, (index, text)
    if "models" in expect:
        assert [r["model"] for r in server.requests] == expect["models"]
    for index, model in expect.get("model_of", {}).items():
        assert server.requests[int(index)]["model"] == model, index
    for text in expect.get("stderr", []):
        assert text in err


def base_url(server: ScriptedServer, fmt: str) -> str:
    """The --base-url a run in `fmt` is given for the scripted server."""
    return server.url if fmt in _ROOT_URL else server.url + "/v1"


def format_env(tmp: Path, fmt: str, server: ScriptedServer) -> dict[str, str]:
    """What a run in `fmt` adds to _env: for vertex, its credential file (written here, its token
    endpoint the server's), project and location."""
    return vertex_env(tmp, server.url) if fmt.startswith("vertex") else {}


def _in_format(scenario: dict[str, Any], fmt: str) -> dict[str, Any]:
    """The scenario as `fmt` runs it: its sub-agent model named as the format names one."""
    if fmt not in SUBAGENT_MODEL:
        return scenario
    named: dict[str, Any] = json.loads(
        json.dumps(scenario).replace('"small-model"', f'"{SUBAGENT_MODEL[fmt]}"')
    )
    return named


@pytest.mark.parametrize(("path", "fmt"), _cases())
def test_a_scenario_runs_as_its_file_says(path: Path, fmt: str, tmp_path: Path) -> None:
    check_scenario(path, fmt, tmp_path)


def check_scenario(path: Path, fmt: str, tmp_path: Path, executor: Sequence[str] = ()) -> str:
    """Run the scenario at `path` in `fmt` and check what its file expects; with `executor` (the
    command of a `bastion execute` whose root it is given last), its files are in another directory
    tree, served by that executor, and bastion starts in an empty directory. Returns stderr."""
    scenario = _in_format(json.loads(path.read_text()), fmt)
    expect = scenario["expect"]
    start = work = _workspace(
        tmp_path, scenario, tmp_path / "elsewhere" / "tree" / "work" if executor else None
    )
    if executor:
        start = tmp_path / "here"
        start.mkdir()
        scenario = {
            **scenario,
            "argv": [*scenario.get("argv", []), "--executor", shlex.join([*executor, str(work)])],
        }
    with ScriptedServer(scenario["rounds"], tokens=(SECRET,)) as server:
        argv = [
            "-p",
            scenario.get("prompt", "do the task"),
            "--output-format",
            "json",
            "--base-url",
            base_url(server, fmt),
            *FORMATS[fmt],
            *scenario.get("argv", []),
        ]
        env = {**_env(tmp_path), **format_env(tmp_path, fmt, server)}
        code, out, err = run_main(argv, cwd=str(start), env=env, stdin=scenario.get("stdin", ""))
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
    for name, content in expect.get("home_files", {}).items():  # under $BASTION_HOME (memory/NOTE)
        kept = tmp_path / "home" / ".bastion" / name
        assert kept.read_text() == content and kept.stat().st_mode & 0o077 == 0
    _check_tasks(expect, events, server, err)
    last = json.dumps(server.requests[-1]["body"])
    for text in expect.get("model_saw", []):
        assert text in last
    # The key went to the server in a header, and nowhere else.
    assert any(SECRET in json.dumps(r["headers"]) for r in server.requests)
    session_text = "\n".join(json.dumps(e) for e in events)
    # vertex's credential file: its private key was read into memory, and nothing shows any of it.
    secrets = [SECRET, *(private_key().splitlines()[3:5] if fmt.startswith("vertex") else [])]
    for where in (out, err, session_text, *(json.dumps(r["body"]) for r in server.requests)):
        assert not [s for s in secrets if s in where]
    return err


@pytest.mark.parametrize(
    "signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP], ids=["sigint", "sigterm", "sighup"]
)
def test_a_signal_mid_tool_kills_the_command_interrupts_the_call_writes_the_transcript_and_exits_10(
    tmp_path: Path, signum: signal.Signals
) -> None:
    work = _workspace(tmp_path, {})
    transcript = tmp_path / "transcript.json"
    rounds: list[dict[str, object]] = [
        {"calls": [{"name": "bash", "arguments": {"command": SLOW}, "id": "slow"}]},
        {"text": "late"},
    ]
    with ScriptedServer(rounds) as server:
        argv = [
            "-p",
            "wait",
            "--yes-to",
            "stdin",
            "--output-format",
            "json",
            "--base-url",
            server.url + "/v1",
            "--provider",
            "openai",
            "--transcript",
            str(transcript),
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
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=PATIENCE)
    assert proc.returncode == 10, err
    until(lambda: gone(pid), "the command's process group to end with the agent")
    assert not (work / "never").exists()
    assert json.loads(out)["outcome"]["failure"]["kind"] == "cancelled"
    results = [
        e["message"]
        for e in _session_events(tmp_path)
        if e["type"] == "message" and e["message"]["role"] == "tool_result"
    ]
    assert [r["call_id"] for r in results] == ["slow"] and results[0]["content"].startswith("interrupted")
    assert len(server.requests) == 1
    final = json.loads(transcript.read_text())
    assert final["outcome"]["failure"]["kind"] == "cancelled"
    assert final["messages"][-1]["content"].startswith("interrupted")
    assert [(e["call_id"], e["ran"]) for e in final["tool_trace"]] == [("slow", True)]


def _transcript_run(
    tmp_path: Path, rounds: list[dict[str, Any]], argv: Sequence[str] = ()
) -> tuple[int, Path, list[dict[str, Any]]]:
    work = _workspace(tmp_path, {"files": {"notes.txt": "the answer is 42\n"}})
    path = tmp_path / "out" / "transcript.json"
    path.parent.mkdir()
    seen: list[dict[str, Any]] = []

    def snapshot(index: int) -> None:
        if index > 0:
            seen.append(json.loads(path.read_text()))

    with ScriptedServer(rounds, on_request=snapshot) as server:
        code, _, err = run_main(
            [
                "-p",
                "go",
                "--transcript",
                str(path),
                "--base-url",
                server.url + "/v1",
                "--provider",
                "openai",
                *argv,
            ],
            cwd=str(work),
            env=_env(tmp_path),
        )
    return code, path, seen


def test_the_transcript_is_checkpointed_mid_run_and_ends_with_the_outcome(tmp_path: Path) -> None:
    rounds: list[dict[str, object]] = [
        {"calls": [{"name": "read", "arguments": {"path": "notes.txt"}, "id": "r1"}], "usage": [10, 5, 3, 0]},
        {"calls": [{"name": "bash", "arguments": {"command": "rm notes.txt"}, "id": "b1"}]},
        {"text": "It says 42."},
    ]
    code, path, seen = _transcript_run(tmp_path, rounds, ("--deny", "bash(rm:*)"))
    assert code == 0
    # While the second request was made, the first round and the read it ran were on disk.
    first = seen[0]
    assert first["outcome"] == {"status": "running"} and first["transcript_version"] == 1
    assert [(e["tool"], e["verdict"], e["ran"]) for e in first["tool_trace"]] == [("read", "allow", True)]
    assert first["tool_trace"][0]["is_error"] is False and first["usage"]["cache_read_tokens"] == 3
    final = json.loads(path.read_text())
    assert final["outcome"] == {"status": "completed", "result": "It says 42.", "warnings": []}
    trace = [(e["call_id"], e["verdict"], e["decided_by"], e["ran"]) for e in final["tool_trace"]]
    assert trace == [("r1", "allow", "policy", True), ("b1", "deny", "policy", False)]
    assert final["tool_trace"][1]["rule"] == "bash(rm:*)" and final["tool_trace"][1]["source"] == "flags"
    assert [d["tool"] for d in final["permission_denials"]] == ["bash"]
    assert len(final["rounds"]) == 3 and final["messages"][-1]["text"] == "It says 42."
    assert path.stat().st_mode & 0o777 == 0o600
    assert SECRET not in path.read_text()
    assert list(path.parent.iterdir()) == [path]  # no temporary file left behind


def test_a_sub_agents_calls_and_denials_are_in_the_transcript_naming_their_task(tmp_path: Path) -> None:
    task = {"kind": "explore", "prompt": "look"}
    rounds: list[dict[str, object]] = [
        {"calls": [{"name": "task", "arguments": task, "id": "t1"}]},
        {"calls": [{"name": "read", "arguments": {"path": "notes.txt"}, "id": "r1"}]},
        {"calls": [{"name": "bash", "arguments": {"command": "rm notes.txt"}, "id": "b1"}]},
        {"text": "It says 42; rm was denied."},
        {"calls": [{"name": "ls", "arguments": {}, "id": "r1"}]},  # the parent's own r1
        {"text": "It says 42."},
    ]
    code, path, _ = _transcript_run(tmp_path, rounds, ("--deny", "bash(rm:*)"))
    assert code == 0
    final = json.loads(path.read_text())
    origin = {"number": 1, "kind": "explore", "parent_call_id": "t1"}
    trace = [
        (e["call_id"], e["tool"], e["verdict"], e["ran"], e["is_error"], e["task"])
        for e in final["tool_trace"]
    ]
    assert trace == [
        ("t1", "task", "allow", True, False, None),
        ("r1", "read", "allow", True, False, origin),
        ("b1", "bash", "deny", False, True, origin),
        ("r1", "ls", "allow", True, False, None),
    ]
    assert [(d["tool_use_id"], d["task"]) for d in final["permission_denials"]] == [("b1", origin)]
    assert (tmp_path / "work" / "notes.txt").exists()


def test_a_failed_run_still_writes_its_transcript_with_the_failure(tmp_path: Path) -> None:
    rounds: list[dict[str, object]] = [
        {"calls": [{"name": "ls", "arguments": {}}]},
        {"status": 404, "error": "no such model"},
    ]
    code, path, _ = _transcript_run(tmp_path, rounds)
    final = json.loads(path.read_text())
    assert code == 16 and final["outcome"]["failure"]["kind"] == "model_not_found"
    assert [e["tool"] for e in final["tool_trace"]] == ["ls"]


def test_a_transcript_that_cannot_be_written_stops_the_run_before_any_request(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {})
    with ScriptedServer([{"text": "never"}]) as server:
        code, _, err = run_main(
            [
                "-p",
                "go",
                "--transcript",
                str(tmp_path / "missing" / "t.json"),
                "--provider",
                "openai",
                "--base-url",
                server.url + "/v1",
            ],
            cwd=str(work),
            env=_env(tmp_path),
        )
    assert code == 1 and "--transcript" in err and server.requests == []


def test_a_retried_request_is_a_round_of_its_own_in_the_transcript(tmp_path: Path) -> None:
    rounds: list[dict[str, object]] = [{"status": 429, "retry_after": "1"}, {"text": "hello"}]
    code, path, seen = _transcript_run(tmp_path, rounds)
    assert code == 0
    assert [r["status"] for r in seen[0]["rounds"]] == ["retry"]  # on disk before the retry was sent
    final = json.loads(path.read_text())
    retry, ok = final["rounds"]
    assert (retry["status"], ok["status"]) == ("retry", "ok")
    assert retry["failure"]["kind"] == "rate_limited" and retry["failure"]["http_status"] == 429
    assert retry["failure"]["retry_after_ms"] == 1000 and retry["failure"]["attempts"] == 1
