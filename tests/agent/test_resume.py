"""Resuming: the session's `a` rules come back, a session is continued in the directory it ran in
(else refused, naming it, unless --here), --continue takes this directory's latest, --list shows
only sessions with a prompt, and a prompt the model never answered is not sent again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bastion.agent.runtime import Assistant, User
from bastion.agent.sessions import conversation, read_record, verify_record

from .agent_fixtures import run_main, write_record
from .scripted_server import ScriptedServer
from .test_scenarios import _env, _workspace

SESSION = "20260101-000000-abcdef"


def _write_session(tmp: Path, session_id: str, events: list[dict[str, Any]]) -> Path:
    store = tmp / "home" / ".bastion" / "sessions"
    store.mkdir(parents=True, exist_ok=True)
    path = store / f"{session_id}.jsonl"
    write_record(path, events)
    return path


def _header(cwd: Path, session_id: str = SESSION) -> dict[str, Any]:
    return {"type": "session", "id": session_id, "cwd": str(cwd), "created": "2026-01-01T00:00:00+0000"}


def _said(text: str, role: str = "user") -> dict[str, Any]:
    message = (
        {"role": role, "text": text}
        if role == "user"
        else {"role": role, "text": text, "opaque": [], "calls": []}
    )
    return {"type": "message", "message": message}


def _base(server: ScriptedServer) -> list[str]:
    return ["--provider", "openai", "--base-url", server.url + "/v1"]


def test_a_session_rule_comes_back_on_resume_and_a_dropped_one_does_not(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {})
    touch = json.dumps({"command": "touch made.txt"}, sort_keys=True)
    rm = json.dumps({"command": "touch other.txt"}, sort_keys=True)
    _write_session(tmp_path, SESSION, [
        _header(work), _said("start"), _said("ok", "assistant"),
        {"type": "session_rule", "tool": "bash", "arguments": touch},
        {"type": "session_rule", "tool": "bash", "arguments": rm},
        {"type": "session_rule_dropped", "tool": "bash", "arguments": rm},
    ])  # fmt: skip
    rounds = [
        {"calls": [{"name": "bash", "arguments": {"command": "touch made.txt"}}]},
        {"calls": [{"name": "bash", "arguments": {"command": "touch other.txt"}}]},
        {"text": "done"},
    ]
    with ScriptedServer(rounds) as server:
        argv = ["-p", "make them", "--resume", SESSION, "--yes-to", "none", "--output-format", "json"]
        code, out, err = run_main([*argv, *_base(server)], cwd=str(work), env=_env(tmp_path))
    assert code == 0, err
    assert (work / "made.txt").exists() and not (work / "other.txt").exists()
    denied = json.loads(out)["permission_denials"]
    assert [d["arguments"] for d in denied] == [{"command": "touch other.txt"}]


def test_a_session_that_ran_elsewhere_is_refused_naming_its_directory_unless_here(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _write_session(tmp_path, SESSION, [_header(work), _said("start"), _said("ok", "assistant")])
    with ScriptedServer([{"text": "continued here"}]) as server:
        argv = ["-p", "go on", "--resume", SESSION, *_base(server)]
        code, _, err = run_main(argv, cwd=str(elsewhere), env=_env(tmp_path))
        assert code == 1 and f"session {SESSION} ran in {work}; cd there" in err and "--here" in err
        assert server.requests == []
        code, out, err = run_main([*argv, "--here"], cwd=str(elsewhere), env=_env(tmp_path))
    assert code == 0 and out == "continued here\n", err
    # Resumed here, the session now belongs to this directory: --continue here finds it.
    assert run_main(["--list"], cwd=str(elsewhere), env=_env(tmp_path))[1].startswith(SESSION)
    assert (
        run_main(["--list"], cwd=str(work), env=_env(tmp_path))[1] == f"no sessions with a prompt in {work}\n"
    )


def test_continue_resumes_the_latest_session_of_this_directory(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {})
    with ScriptedServer([{"text": "one"}, {"text": "two"}, {"text": "three"}]) as server:
        run_main(["-p", "first session", *_base(server)], cwd=str(work), env=_env(tmp_path))
        run_main(["-p", "second session", *_base(server)], cwd=str(work), env=_env(tmp_path))
        code, out, err = run_main(
            ["-p", "and on", "--continue", *_base(server)], cwd=str(work), env=_env(tmp_path)
        )
    assert code == 0, err
    sent = [m.get("content") for m in server.requests[-1]["body"]["messages"] if m["role"] == "user"]
    assert sent == ["second session", "and on"]


def test_continue_with_no_session_here_and_with_resume_are_clear_errors(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {})
    code, _, err = run_main(
        ["-p", "x", "--continue", "--provider", "openai"], cwd=str(work), env=_env(tmp_path)
    )
    assert code == 1 and f"--continue: no session has run in {work}" in err
    code, _, err = run_main(["--continue", "--resume", SESSION], cwd=str(work), env=_env(tmp_path))
    assert code == 2 and "give one of them" in err
    code, _, err = run_main(["--here"], cwd=str(work), env=_env(tmp_path))
    assert code == 2 and "--here goes with --resume or --continue" in err


def test_list_skips_sessions_without_a_prompt(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {})
    _write_session(tmp_path, "20260101-000000-aaaaaa", [_header(work, "20260101-000000-aaaaaa")])
    _write_session(
        tmp_path, "20260101-000001-bbbbbb", [_header(work, "20260101-000001-bbbbbb"), _said("fix it")]
    )
    code, out, _ = run_main(["--list"], cwd=str(work), env=_env(tmp_path))
    assert code == 0 and out.splitlines() == ["20260101-000001-bbbbbb  2026-01-01T00:00:00+0000  'fix it'"]


def test_a_prompt_the_model_never_answered_is_withdrawn_on_resume(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {})
    with ScriptedServer(
        [{"status": 400, "error": "maximum context length exceeded"}, {"text": "fine"}]
    ) as server:
        code, _, err = run_main(["-p", "a huge prompt", *_base(server)], cwd=str(work), env=_env(tmp_path))
        assert code == 13, err
        code, out, err = run_main(
            ["-p", "a small one", "--continue", *_base(server)], cwd=str(work), env=_env(tmp_path)
        )
    assert code == 0 and out == "fine\n", err
    sent = [m["role"] for m in server.requests[-1]["body"]["messages"]]
    assert sent == ["system", "user"]
    assert server.requests[-1]["body"]["messages"][-1]["content"] == "a small one"
    (path,) = (tmp_path / "home" / ".bastion" / "sessions").glob("*.jsonl")
    record = read_record(str(path))
    assert verify_record(record).problems == []
    assert [e["type"] for e in record.events].count("prompt_withdrawn") == 1


def test_a_cleared_conversation_is_rebuilt_from_after_the_clear() -> None:
    events = [
        _said("old"), _said("old answer", "assistant"), {"type": "cleared"},
        _said("new"), _said("new answer", "assistant"),
    ]  # fmt: skip
    assert conversation(events) == [User("new"), Assistant("new answer")]


def _offered(server: ScriptedServer) -> list[str]:
    return [t["function"]["name"] for t in server.requests[0]["body"]["tools"]]


PROFILES = '[harness.profiles.lean]\ncatalog = "read-only"\n'


def test_a_profile_switched_with_harness_is_applied_again_on_resume(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {})
    config = tmp_path / "xdg" / "bastion" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(PROFILES)
    header = [_header(work), _said("start"), _said("ok", "assistant")]
    _write_session(tmp_path, SESSION, [*header, {"type": "profile", "name": "lean"}])
    with ScriptedServer([{"text": "done"}]) as server:
        argv = ["-p", "go on", "--resume", SESSION, *_base(server)]
        code, _, err = run_main(argv, cwd=str(work), env=_env(tmp_path))
    assert code == 0, err
    assert _offered(server) == ["read", "glob", "grep", "ls"]
    assert "profile" not in err


def test_a_resumed_profile_the_config_no_longer_has_warns_once_and_keeps_the_default(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {})
    config = tmp_path / "xdg" / "bastion" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(PROFILES)
    header = [_header(work), _said("start"), _said("ok", "assistant")]
    _write_session(tmp_path, SESSION, [*header, {"type": "profile", "name": "gone"}])
    with ScriptedServer([{"text": "done"}]) as server:
        argv = ["-p", "go on", "--resume", SESSION, *_base(server)]
        code, _, err = run_main(argv, cwd=str(work), env=_env(tmp_path))
    assert code == 0, err
    assert err.count("profile 'gone'") == 1
    assert "the resumed session's profile 'gone' is not in" in err and "(profiles: lean)" in err
    assert "write" in _offered(server) and "task" in _offered(server)


def test_a_call_cut_off_by_kill_9_is_resumed_as_stopped_not_as_ctrl_c(tmp_path: Path) -> None:
    work = _workspace(tmp_path, {})
    call = {"id": "c1", "name": "bash", "arguments": '{"command": "make"}'}
    cut = {"type": "message", "message": {"role": "assistant", "text": "", "opaque": [], "calls": [call]}}
    _write_session(tmp_path, SESSION, [_header(work), _said("build it"), cut])  # no result: killed
    with ScriptedServer([{"text": "fine"}]) as server:
        code, _, err = run_main(
            ["-p", "go on", "--resume", SESSION, *_base(server)], cwd=str(work), env=_env(tmp_path)
        )
    assert code == 0, err
    (result,) = [m for m in server.requests[0]["body"]["messages"] if m["role"] == "tool"]
    assert "Ctrl-C" not in result["content"] and "it may have partly run" in result["content"]
